"""The tasks extension's fixtures on 2025-11-25 (task-augmented calls, SEP-1686) and through mcpnb's
pool on 2026-07-28; the official suite runs them on 2026-07-28 in
tests/conformance/test_server_suite.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError

from mcpnb import Pool
from mcpnb.client.interaction import CallContext
from mcpnb.probekit import create_server
from tests.probekit.test_tasks_wire import poll, raw


@pytest.mark.anyio
async def test_the_fixtures_as_tasks_of_2025_11_25(project: Path) -> None:
    async with Client(create_server("conformance", root=project), mode="legacy") as client:
        support = {
            t.name: t.execution and t.execution.task_support for t in (await client.list_tools()).tools
        }
        send = raw(client)

        async def run(name: str, arguments: dict[str, Any], wanted: set[str]) -> tuple[str, dict[str, Any]]:
            created = await send("tools/call", {"name": name, "arguments": arguments, "task": {}}, {})
            task_id = created["task"]["taskId"]
            return task_id, await poll(lambda tid: send("tasks/get", {"taskId": tid}, {}), task_id, wanted)

        with pytest.raises(MCPError) as plain:  # only as a task: SEP-1686's -32601
            await send("tools/call", {"name": "failing_job", "arguments": {}}, {})
        failing, failed = await run("failing_job", {}, {"failed", "completed"})
        reported = await send("tasks/result", {"taskId": failing}, {})
        crashed, ended = await run("protocol_error_job", {}, {"failed", "completed"})
        with pytest.raises(MCPError) as no_result:
            await send("tasks/result", {"taskId": crashed}, {})
        slow, _ = await run("slow_compute", {"seconds": 30}, {"working"})
        cancelled = await send("tasks/cancel", {"taskId": slow}, {})
    assert support["greet"] is None and support["slow_compute"] == support["confirm_delete"] == "optional"
    assert support["failing_job"] == support["test_tool_with_task"] == "required"
    assert plain.value.error.code == -32601 and "runs only as a task" in str(plain.value)
    assert failed["status"] == "failed" and reported["isError"] is True  # a tool error: its result
    assert "failed on purpose" in reported["content"][0]["text"]
    assert ended["status"] == "failed" and no_result.value.error.code == -32603  # no result at all
    assert cancelled["status"] == "cancelled"


def test_the_fixtures_through_mcpnbs_pool_on_2026_07_28(project: Path) -> None:
    """mcpnb's own task handles against them: answers by tasks/update, two questions at once, a
    failure below the tool read as a failed task with its error's message."""
    pool = Pool()
    try:
        pool.connect("probe", server=create_server("conformance", root=project), era="modern")
        answers: list[dict[str, Any]] = []

        def answer(requests: dict[str, Any]) -> dict[str, Any]:
            answers.append(requests)
            out = {}
            for key, request in requests.items():
                asked = request["params"]["message"]
                field = "confirm" if "Delete" in asked else "colour" if "colour" in asked else "animal"
                value = True if field == "confirm" else {"colour": "green", "animal": "owl"}[field]
                out[key] = {"action": "accept", "content": {field: value}}
            return out

        deleted = pool.start_task("probe", "confirm_delete", {"path": "old.txt"})
        deleted.answer = answer
        both = pool.start_task("probe", "multi_input", {})
        both.answer = answer
        assert deleted.result(timeout=30).text == "old.txt deleted (not really: a demo)"
        assert both.result(timeout=30).text == "A green owl"
        crashed = pool.start_task("probe", "protocol_error_job", {})
        failed = crashed.result(timeout=30)  # mcpnb hands a failed task back as an error result
        assert crashed.status == "failed" and failed.is_error and "failed on purpose" in failed.text
        assert pool.call("probe", "greet", {"name": "Ada"}).text == "Hello, Ada!"
        # an input round first (the call's answers give the name), then the task that uses it
        named = pool.start_task(
            "probe", "test_tool_with_task", {}, context=CallContext(answers={"name": "Ada"})
        )
        assert named.task_id and named.result(timeout=30).text.startswith("Hello, Ada!")
    finally:
        pool.close()
    assert any(len(asked) == 2 for asked in answers)  # multi_input's two questions, pending at once


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_name_declined_is_an_answer_not_a_question_asked_again(project: Path, era: str) -> None:
    """Nobody at the keyboard (a script) declines the input round: the server asked again after each
    no, ten rounds, and the call ended in the SDK's "raise input_required_max_rounds on the Client"."""
    pool = Pool()
    try:
        pool.connect("probe", server=create_server("conformance", root=project), era=era)
        result = pool.call("probe", "test_tool_with_task", {})
        assert result.text.startswith("Hello, whoever you are!"), result.text
    finally:
        pool.close()
