"""Tasks on the wire: SEP-1686 (2025-11-25) raw requests and the SEP-2663 extension (2026-07-28)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, MCPError

from mcpnb.probekit import create_server
from mcpnb.probekit.schemas import SLOW_JOB
from tests.probekit.conftest import Answers
from tests.probekit.taskclient import CreatedTask, TasksClient, ack, rpc

RELATED = "io.modelcontextprotocol/related-task"
SLOW = {"steps": 40, "delay": 0.02}


def raw(client: Client) -> Any:
    return client.session._dispatcher.send_raw_request


async def poll(get: Any, task_id: str, wanted: set[str], ticks: int = 400) -> dict[str, Any]:
    for _ in range(ticks):
        state = await get(task_id)
        if state["status"] in wanted:
            return state
        await anyio.sleep(0.01)
    raise AssertionError(f"task never reached {wanted}")


# --- legacy era (2025-11-25) -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_legacy_declares_capability_and_task_support(server: Any) -> None:
    async with Client(server, mode="legacy") as client:
        caps = client.server_capabilities.tasks
        assert caps is not None and caps.list is not None and caps.cancel is not None
        assert caps.requests.tools.call is not None
        support = {
            t.name: t.execution.task_support if t.execution else None
            for t in (await client.list_tools()).tools
        }
    assert support["slow_task"] == support["start_review"] == "optional"
    assert support["gencommit"] is None


@pytest.mark.anyio
async def test_legacy_create_input_required_answered_completed(server: Any) -> None:
    answers = Answers(content={"proceed": True})
    async with Client(server, mode="legacy", elicitation_callback=answers) as client:
        send = raw(client)
        created = await send(
            "tools/call",
            {
                "name": "slow_task",
                "task": {"ttl": 60_000},
                "arguments": {"steps": 4, "delay": 0.01, "confirm": True},
            },
            {},
        )
        task = created["task"]
        assert task["status"] == "working" and task["ttl"] == 60_000 and task["pollInterval"] == 10
        get = lambda tid: send("tasks/get", {"taskId": tid}, {})  # noqa: E731
        working = await poll(get, task["taskId"], {"working"})
        assert working["taskId"] == task["taskId"]
        waiting = await poll(get, task["taskId"], {"input_required"})
        assert waiting["statusMessage"] == "Half of the work is done. Continue?"
        assert answers.seen == []  # delivered only through tasks/result
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
        assert [s.message for s in answers.seen] == ["Half of the work is done. Continue?"]
        jsonschema.validate(result["structuredContent"], SLOW_JOB)
        assert (
            result["structuredContent"]["confirmed"] is True
            and len(result["structuredContent"]["steps"]) == 4
        )
        assert result["_meta"][RELATED] == {"taskId": task["taskId"]}
        assert (await get(task["taskId"]))["status"] == "completed"
        listed = await send("tasks/list", {}, {})
        assert [(t["taskId"], t["status"]) for t in listed["tasks"]] == [(task["taskId"], "completed")]


@pytest.mark.anyio
async def test_legacy_cancel_fail_and_errors(server: Any) -> None:
    async with Client(server, mode="legacy") as client:
        send = raw(client)
        get = lambda tid: send("tasks/get", {"taskId": tid}, {})  # noqa: E731
        slow = (await send("tools/call", {"name": "slow_task", "arguments": SLOW, "task": {}}, {}))["task"]
        await poll(get, slow["taskId"], {"working"})
        cancelled = await send("tasks/cancel", {"taskId": slow["taskId"]}, {})
        assert cancelled["status"] == "cancelled"
        before = (await get(slow["taskId"]))["statusMessage"]
        await anyio.sleep(0.1)
        assert (await get(slow["taskId"]))["statusMessage"] == before == "cancelled"
        with pytest.raises(MCPError, match="was cancelled"):
            await send("tasks/result", {"taskId": slow["taskId"]}, {})
        with pytest.raises(MCPError, match="already cancelled"):
            await send("tasks/cancel", {"taskId": slow["taskId"]}, {})

        failing = (
            await send(
                "tools/call",
                {"name": "slow_task", "task": {}, "arguments": {"steps": 3, "delay": 0, "fail_at": 2}},
                {},
            )
        )["task"]
        failed = await poll(get, failing["taskId"], {"failed"})
        assert failed["statusMessage"] == "Step 2 failed on purpose (fail_at=2)."
        result = await send("tasks/result", {"taskId": failing["taskId"]}, {})
        assert result["isError"] is True

        with pytest.raises(MCPError, match="does not support task-augmented execution") as info:
            await send("tools/call", {"name": "gencommit", "arguments": {"diff": ""}, "task": {}}, {})
        assert info.value.code == -32601  # SEP-1686: method not found for a forbidden tool
        with pytest.raises(MCPError, match="No task 'nope'"):
            await get("nope")
        with pytest.raises(MCPError) as info:
            await send("tasks/update", {"taskId": slow["taskId"], "inputResponses": {}}, {})
        assert info.value.code == -32601


@pytest.mark.anyio
async def test_legacy_ttl_expiry(project: Path) -> None:
    server = create_server(root=project, poll_interval_ms=10)
    async with Client(server, mode="legacy") as client:
        send = raw(client)
        task = (
            await send(
                "tools/call",
                {"name": "slow_task", "task": {"ttl": 30}, "arguments": {"steps": 1, "delay": 0}},
                {},
            )
        )["task"]
        await poll(lambda tid: send("tasks/get", {"taskId": tid}, {}), task["taskId"], {"completed"})
        await anyio.sleep(0.1)
        with pytest.raises(MCPError, match="dropped after its TTL"):
            await send("tasks/get", {"taskId": task["taskId"]}, {})
        assert (await send("tasks/list", {}, {}))["tasks"] == []


@pytest.mark.anyio
async def test_legacy_workflow_as_task(server: Any) -> None:
    async with Client(server, mode="legacy") as client:
        send = raw(client)
        task = (
            await send("tools/call", {"name": "start_review", "arguments": {"path": "app"}, "task": {}}, {})
        )["task"]
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
    assert result["structuredContent"]["workflowName"] == "start_review"
    assert [s["status"] for s in result["structuredContent"]["steps"]] == ["completed"] * 3


# --- modern era (2026-07-28, SEP-2663) --------------------------------------------------------------


@pytest.mark.anyio
async def test_modern_transparent_task_with_input(server: Any) -> None:
    ext = TasksClient(answer=lambda params: {"action": "accept", "content": {"proceed": True}})
    async with Client(server, extensions=[ext]) as client:
        assert client.protocol_version == "2026-07-28"
        assert "io.modelcontextprotocol/tasks" in (client.server_capabilities.extensions or {})
        result = await client.call_tool("slow_task", {"steps": 4, "delay": 0.01, "confirm": True})
        plain = await client.call_tool("ui_search", {"query": "button"})
    assert result.structured_content["confirmed"] is True and len(result.structured_content["steps"]) == 4
    assert "working" in ext.seen and "input_required" in ext.seen and ext.seen[-1] == "completed"
    assert plain.structured_content["results"][0]["id"] == "button"  # not task-capable: synchronous


@pytest.mark.anyio
async def test_modern_manual_handle_get_update_cancel(server: Any) -> None:
    async with Client(server, extensions=[TasksClient()]) as client:
        session = client.session
        created = await session.call_tool(
            "slow_task", {"steps": 4, "delay": 0.01, "confirm": True}, allow_claimed=True
        )
        assert isinstance(created, CreatedTask) and created.status == "working"
        assert created.ttl_ms == 300_000 and created.poll_interval_ms == 10
        get = lambda tid: _state(session, tid)  # noqa: E731
        waiting = await poll(get, created.task_id, {"input_required"})
        ((key, request),) = waiting["inputRequests"].items()
        assert request["method"] == "elicitation/create" and request["params"]["mode"] == "form"
        assert "proceed" in request["params"]["requestedSchema"]["properties"]
        updated = await ack(
            session, "tasks/update", created.task_id, input_responses={key: {"action": "decline"}}
        )
        assert updated == {"resultType": "complete"}  # SEP-2663: an empty acknowledgement
        done = await poll(get, created.task_id, {"completed"})
        assert done["result"]["structuredContent"]["confirmed"] is False
        assert RELATED not in done["result"].get("_meta", {})  # SEP-2663: tasks/get's taskId says it

        slow = await session.call_tool("slow_task", SLOW, allow_claimed=True)
        await poll(get, slow.task_id, {"working"})
        assert await ack(session, "tasks/cancel", slow.task_id) == {"resultType": "complete"}
        state = await poll(get, slow.task_id, {"cancelled"})
        assert "result" not in state and "error" not in state  # CancelledTask carries neither

        failing = await session.call_tool(
            "slow_task", {"steps": 2, "delay": 0, "fail_at": 1}, allow_claimed=True
        )
        # a tool result with isError completes the task; "failed" is only for JSON-RPC errors
        failed = await poll(get, failing.task_id, {"completed"})
        assert failed["result"]["isError"] is True
        # answers for keys the task is not waiting on are ignored; cancelling a finished task is acked
        stray = {"x": {"action": "accept"}}
        ignored = await ack(session, "tasks/update", failing.task_id, input_responses=stray)
        assert ignored == {"resultType": "complete"}
        assert await ack(session, "tasks/cancel", failing.task_id) == {"resultType": "complete"}
        assert (await get(failing.task_id))["status"] == "completed"
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            with pytest.raises(MCPError) as info:
                await ack(session, method, "no-such-task", input_responses={})
            assert info.value.code == -32602
        for method in ("tasks/list", "tasks/result"):
            with pytest.raises(MCPError) as info:
                await rpc(session, method, failing.task_id)
            assert info.value.code == -32601


async def _state(session: Any, task_id: str) -> dict[str, Any]:
    return (await rpc(session, "tasks/get", task_id)).model_dump(by_alias=True, exclude_none=True)


@pytest.mark.anyio
async def test_modern_ttl_and_client_without_extension(project: Path) -> None:
    server = create_server(root=project, poll_interval_ms=10, task_ttl_ms=200)
    async with Client(server, extensions=[TasksClient()]) as client:
        created = await client.session.call_tool("slow_task", {"steps": 1, "delay": 0}, allow_claimed=True)
        try:
            await poll(lambda tid: _state(client.session, tid), created.task_id, {"completed"})
        except MCPError as exc:  # a busy machine looked only after the TTL: dropped already
            assert "dropped after its TTL" in str(exc)
        await anyio.sleep(0.3)
        with pytest.raises(MCPError, match="dropped after its TTL"):
            await rpc(client.session, "tasks/get", created.task_id)
    async with Client(server) as plain:  # no extension declared: a normal synchronous call
        result = await plain.call_tool("slow_task", {"steps": 1, "delay": 0})
    assert result.structured_content["totalPrimes"] == 168


@pytest.mark.anyio
async def test_legacy_result_without_elicitation_support_cancels_the_question(server: Any) -> None:
    async with Client(server, mode="legacy") as client:  # no elicitation callback declared
        send = raw(client)
        task = (
            await send(
                "tools/call",
                {"name": "slow_task", "task": {}, "arguments": {"steps": 2, "delay": 0, "confirm": True}},
                {},
            )
        )["task"]
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
    assert (
        result["structuredContent"]["confirmed"] is False and len(result["structuredContent"]["steps"]) == 1
    )
