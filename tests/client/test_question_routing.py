"""Which call a server's question belongs to, when several are in flight, against servers we did
not write: server-everything (2025-11-25 push requests over stdio, which carry no link to their
call; task questions, which name their task) and FastMCP's tasks extension (2026-07-28).

The answers given with one call must never answer another call's question: the most recent call in
flight once took every such question, so three concurrent calls all came back with the third one's
answer, and two tasks with the second one's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcpnb.client.interaction import CallContext

FORM = "trigger-elicitation-request"


def test_concurrent_push_questions_never_take_another_calls_answers(pool: Any, everything: str) -> None:
    pool.connect("ev", command="node", args=[everything, "stdio"])
    assert pool.connection("ev").era == "legacy"  # push requests: nothing says which call asks

    async def three() -> list[Any]:
        return await asyncio.gather(*(pool.acall("ev", FORM, answers={"name": f"FROM-{k}"}) for k in "ABC"))

    for _ in range(2):
        results = dict(zip("ABC", asyncio.run(three()), strict=True))
        for key, result in results.items():
            others = {f"FROM-{k}" for k in "ABC" if k != key}
            assert not [o for o in others if o in result.text], (key, result.text)
            assert len(result.answered_without_asking) == len(
                set(result.answered_without_asking)
            )  # once each
            if f"FROM-{key}" not in result.text:  # its question came while others ran: it says so
                assert any(
                    "the answers given with this call were not used" in n
                    for n in result.answered_without_asking
                )
    alone = pool.call("ev", FORM, answers={"name": "ALONE"})
    assert "ALONE" in alone.text  # one call in flight: the question is its own
    assert not [n for n in alone.answered_without_asking if "not used" in n]


def test_two_legacy_tasks_each_get_their_own_answer(pool: Any, everything: str) -> None:
    """server-everything's questions for a task name it (``_meta`` related-task): each goes to the
    task's own answers, whatever else is in flight."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    topic = {"topic": "python", "ambiguous": True}
    first = pool.start_task(
        "ev", "simulate-research-query", topic, context=CallContext(answers={"interpretation": "programming"})
    )
    second = pool.start_task(
        "ev", "simulate-research-query", topic, context=CallContext(answers={"interpretation": "snake"})
    )
    assert "(programming)" in first.result(timeout=60).text.splitlines()[0]
    assert "(snake)" in second.result(timeout=60).text.splitlines()[0]


def test_two_modern_tasks_each_get_their_own_answer(pool: Any, fastmcp_url: str) -> None:
    """2026-07-28: a task's questions come with its ``tasks/get``; the handle answers them with the
    context it was started with (it once used whichever call was in flight)."""
    pool.connect("fm", url=fastmcp_url)
    ada = pool.start_task("fm", "greet", context=CallContext(answers={"name": "Ada"}))
    bob = pool.start_task("fm", "greet", context=CallContext(answers={"name": "Bob"}))
    assert ada.result(timeout=60).text == "Hello, Ada!"  # asked while Bob's task still waits
    assert bob.result(timeout=60).text == "Hello, Bob!"
