"""A server hostile at the protocol level must not hurt the person, the kernel or the other servers.

``tests/servers/hostile_protocol_server.py`` floods its client during a call: questions by the
hundred, log lines of a megabyte each. Beside it, the demo server runs in-process (on mcpnb's own
loop) and is called after each flood: it keeps answering.

- 200 ``elicitation/create`` at once put 200 forms (7,400 widgets) in the calling cell: now at most
  :data:`~mcpnb.client.asking.MAX_OPEN_QUESTIONS` wait for a person at once, the rest are answered
  without asking anyone, said once in the server's log and once under the call's result;
- 300 log notifications of a megabyte each kept 200 MB in the server's log (its last 200 lines,
  for as long as the connection lives): a line there now keeps the start of what was said, as a
  stderr line does; the call's own ``result.logs`` keeps each whole, as it always did.
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import pytest
from conftest import ROOT, demo_server_object

from mcpnb.client.asking import LINE_CHARS, MAX_OPEN_QUESTIONS
from mcpnb.client.interaction import Interaction

HOSTILE = str(ROOT / "tests" / "servers" / "hostile_protocol_server.py")
#: How many questions the server sends at once: well past the limit.
FLOOD = 30

pytestmark = pytest.mark.timeout(120)


class Person(Interaction):
    """Someone who answers each question in turn, after every question that came with it has
    arrived: the first answer waits until :data:`MAX_OPEN_QUESTIONS` are open (all the flood, on
    the old code, which showed every one at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.open = 0
        self.most_open = 0
        self.asked = 0
        self._enough: asyncio.Event | None = None

    async def _wait_as_a_person(self) -> None:
        self.asked += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        if self._enough is None:
            self._enough = asyncio.Event()
        if self.open >= MAX_OPEN_QUESTIONS:
            self._enough.set()
        try:
            await self._enough.wait()
            await asyncio.sleep(0)  # the questions that came with this one have all arrived
        finally:
            self.open -= 1

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        await self._wait_as_a_person()
        return ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        await self._wait_as_a_person()
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="hi"), model="person"
        )


@pytest.fixture
def hostile(pool):
    """The hostile server and, beside it, a healthy one on mcpnb's own loop."""
    pool.connect("healthy", server=demo_server_object())
    pool.connect("hostile", command=sys.executable, args=[HOSTILE], tool_timeout=60)
    return pool


def still_healthy(pool) -> None:
    assert pool.call("healthy", "echo", {"text": "still here"}).text == "still here"
    assert {s.name: str(s.state) for s in pool.status()}["healthy"] == "connected"


@pytest.mark.parametrize("what", ["elicit", "sample"])
def test_a_flood_of_questions_keeps_only_a_few_waiting_for_a_person(hostile, what):
    person = hostile.interaction = Person()

    result = hostile.call("hostile", "act", {"what": what, "n": FLOOD})

    assert result.text == "did the requests"  # every question was answered: the server went on
    assert person.most_open <= MAX_OPEN_QUESTIONS, f"{person.most_open} questions waited at once"
    assert MAX_OPEN_QUESTIONS <= person.asked < FLOOD  # a few waited for the person, the rest did not
    answered = "cancelled" if what == "elicit" else "rejected"
    said = [
        n
        for n in result.answered_without_asking
        if f"questions at once: the ones past {MAX_OPEN_QUESTIONS}" in n
    ]
    assert len(said) == 1 and answered in said[0], result.answered_without_asking
    log = "\n".join(hostile.logs("hostile"))
    assert f"already has {MAX_OPEN_QUESTIONS} questions waiting" in log, log
    # said each time the waiting questions were all answered (as the flood comes in, maybe more than once)
    refused = re.findall(r"(\d+) of the server's questions were answered without asking", log)
    assert sum(map(int, refused)) == FLOOD - person.asked, log
    still_healthy(hostile)


def test_a_policy_still_answers_every_question_of_a_flood(hostile):
    """No person waits on a policy: each of the flood's questions is answered by it, as before."""
    result = hostile.call("hostile", "act", {"what": "elicit", "n": FLOOD})

    assert result.text == "did the requests"
    declined = [n for n in result.answered_without_asking if "declined by the 'decline' policy" in n]
    assert len(declined) == FLOOD
    still_healthy(hostile)


def test_a_huge_log_line_keeps_its_start_in_the_servers_log(hostile):
    result = hostile.call("hostile", "act", {"what": "log_big", "n": 3})

    lines = [line for line in hostile.logs("hostile") if " log: info: " in line]
    assert len(lines) == 3
    for line in lines:
        assert len(line) < LINE_CHARS + 200, len(line)
        assert "more characters not kept" in line
    assert [len(log.data) for log in result.logs] == [1024 * 1024 + 1] * 3  # the call's own: whole
    still_healthy(hostile)
