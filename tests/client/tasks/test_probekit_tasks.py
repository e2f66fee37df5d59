"""Tasks against probe-kit, both eras, in-process and over stdio: lifecycle, cancel, failure, TTL, input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcpnb.client.tasks import (
    Peer,
    TaskCancelledError,
    TaskExpiredError,
    TaskInputRequiredError,
    TaskRegistry,
    elicitation_answerer,
    list_tasks,
    start_task,
    task_support,
    tasks_extension,
    wire,
)
from mcpnb.probekit import create_server
from tests.client.tasks.conftest import Answers, probe_client, seen_statuses

TRANSPORTS = ["memory", "stdio"]
ERAS = ["legacy", "modern"]
SLOW = {"steps": 400, "delay": 0.05}  # long enough to cancel half-way, on any machine
QUESTION = "Half of the work is done. Continue?"

pytestmark = pytest.mark.anyio


def accept_all(requests: dict[str, Any]) -> dict[str, Any]:
    return {key: {"action": "accept", "content": {"proceed": True}} for key in requests}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_create_working_completed(transport: str, era: str, root: Path, tasks: TaskRegistry) -> None:
    async with probe_client(transport, era, root) as client:
        await client.list_tools()  # the output schema then comes from the session's tool cache
        handle = await start_task(client, "slow_task", {"steps": 3, "delay": 0.05}, tasks=tasks)
        assert handle.status == "working" and handle.task_id and handle.tool == "slow_task"
        assert handle.server == "probe-kit" and handle.ttl_ms == 300_000 and handle.poll_interval_ms
        assert handle.ttl_left is not None and 0 < handle.ttl_left <= 300
        seen = seen_statuses(handle)
        result = await handle
        assert not result.is_error and result.server == "probe-kit" and result.tool == "slow_task"
        assert [row["step"] for row in result.data["steps"]] == [1, 2, 3]
        assert result.data["totalPrimes"] == 430 and result.schema_valid is True
        again = await handle.wait()
    assert again is result
    assert handle.status == "completed" and handle.done and seen[0] == "working" and seen[-1] == "completed"
    assert tasks.handles("probe-kit") == [handle]
    assert "completed" in repr(handle) and "slow_task" in repr(handle)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cancel_a_working_task_stops_the_work(
    transport: str, era: str, root: Path, tasks: TaskRegistry
) -> None:
    async with probe_client(transport, era, root) as client:
        handle = await start_task(client, "slow_task", SLOW, tasks=tasks)
        for _ in range(1000):  # until the work has visibly started
            await handle.arefresh()
            if (handle.status_message or "").startswith("block "):
                break
            await anyio.sleep(0.01)
        assert handle.status == "working"
        assert await handle.acancel() == "cancelled"
        assert handle.status == "cancelled" and handle.done
        with pytest.raises(TaskCancelledError, match="was cancelled"):
            await handle
        # The work stopped: a running job would keep rewriting the status message ("block n/400").
        assert await handle.arefresh() == "cancelled"
        before = handle.status_message
        await anyio.sleep(0.3)
        assert await handle.arefresh() == "cancelled" and handle.status_message == before == "cancelled"
        assert await handle.acancel() == "cancelled"  # cancelling an ended task is a no-op
        if transport == "memory":
            manager = client.probe_server.probe_state.tasks  # type: ignore[attr-defined]
            record = await manager.get(handle.task_id)
            assert not manager.running(handle.task_id) and record.result is None


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_failing_task_is_an_error_result(transport: str, era: str, root: Path) -> None:
    async with probe_client(transport, era, root) as client:
        handle = await start_task(client, "slow_task", {"steps": 3, "delay": 0, "fail_at": 2})
        result = await handle
    # a tool result with isError: SEP-1686 calls the task failed, SEP-2663 completed (failed is for
    # JSON-RPC errors there); either way the result is the tool's error
    assert handle.status == ("failed" if era == "legacy" else "completed") and result.is_error
    assert "Step 2 failed on purpose" in result.text


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ttl_expiry_is_a_clear_error(transport: str, era: str, root: Path) -> None:
    options = {"task_ttl_ms": 30} if era == "modern" else {}
    async with probe_client(transport, era, root, **options) as client:
        handle = await start_task(client, "slow_task", {"steps": 1, "delay": 0}, ttl_ms=30)
        assert handle.ttl_ms == 30
        peer = Peer(client)  # watch the task without letting the handle see (and keep) its result
        try:
            for _ in range(1000):
                if (await wire.get(peer, handle.task_id)).status == "completed":
                    break
                await anyio.sleep(0.01)
            await anyio.sleep(0.2)  # let the 30 ms TTL pass
        except TaskExpiredError:
            pass  # already gone
        with pytest.raises(TaskExpiredError, match="TTL") as info:
            await handle
        assert handle.failure is info.value and "no longer knows the task" in str(info.value)
        assert "stopped following it" in repr(handle)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_legacy_input_required_answered_through_tasks_result(transport: str, root: Path) -> None:
    answers = Answers(content={"proceed": True})
    async with probe_client(transport, "legacy", root, elicitation=answers) as client:
        handle = await start_task(client, "slow_task", {"steps": 4, "delay": 0.05, "confirm": True})
        seen = seen_statuses(handle)
        result = await handle
    assert [q.message for q in answers.seen] == [QUESTION]
    assert "input_required" in seen and seen[-1] == "completed"
    assert result.data["confirmed"] is True and len(result.data["steps"]) == 4


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_modern_input_required_answered_through_tasks_update(transport: str, root: Path) -> None:
    asked: list[dict[str, Any]] = []

    def answer(requests: dict[str, Any]) -> dict[str, Any]:
        asked.append(requests)
        return accept_all(requests)

    async with probe_client(transport, "modern", root) as client:
        handle = await start_task(
            client, "slow_task", {"steps": 4, "delay": 0.05, "confirm": True}, answer=answer
        )
        seen = seen_statuses(handle)
        result = await handle
    ((request,),) = [list(r.values()) for r in asked]
    assert request["method"] == "elicitation/create" and request["params"]["message"] == QUESTION
    assert "input_required" in seen and seen[-1] == "completed"
    assert result.data["confirmed"] is True and len(result.data["steps"]) == 4


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_modern_unanswered_question_then_respond(transport: str, root: Path) -> None:
    async with probe_client(transport, "modern", root) as client:
        handle = await start_task(client, "slow_task", {"steps": 4, "delay": 0.01, "confirm": True})
        with pytest.raises(TaskInputRequiredError, match="Continue") as info:
            await handle
        (key,) = info.value.requests
        assert handle.input_requests == info.value.requests and "needs answers" in repr(handle)
        await handle.arespond({key: {"action": "decline"}})
        result = await handle
    assert result.data["confirmed"] is False and len(result.data["steps"]) == 2


async def test_modern_answers_with_the_client_elicitation_callback(root: Path) -> None:
    """One elicitation callback serves task questions too (through elicitation_answerer)."""
    answers = Answers(content={"proceed": True})
    async with probe_client("memory", "modern", root) as client:
        handle = await start_task(
            client,
            "slow_task",
            {"steps": 2, "delay": 0, "confirm": True},
            answer=elicitation_answerer(answers),
        )
        result = await handle
    assert [q.message for q in answers.seen] == [QUESTION] and result.data["confirmed"] is True


async def test_modern_transparent_call_resolves_the_task(root: Path) -> None:
    """With the extension, plain call_tool still returns the final result (the claim resolver waits)."""
    async with probe_client("memory", "modern", root, answer=accept_all) as client:
        result = await client.call_tool("slow_task", {"steps": 4, "delay": 0, "confirm": True})
        plain = await client.call_tool("ui_search", {"query": "button"})
    assert result.structured_content["confirmed"] is True
    assert plain.structured_content["results"][0]["id"] == "button"


async def test_modern_client_without_extension_gets_a_finished_handle(root: Path) -> None:
    """No extension, no task: the server answers at once and the result is kept on the handle."""
    async with Client(create_server(root=root)) as client:
        handle = await start_task(client, "slow_task", {"steps": 1, "delay": 0})
        assert handle.task_id == "" and handle.status == "completed" and handle.done
        result = await handle
    assert result.data["totalPrimes"] == 168 and "(no task)" in repr(handle)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_legacy_tasks_list(transport: str, root: Path, tasks: TaskRegistry) -> None:
    async with probe_client(transport, "legacy", root) as client:
        done = await start_task(client, "slow_task", {"steps": 1, "delay": 0}, tasks=tasks)
        await done
        running = await start_task(client, "slow_task", SLOW, tasks=tasks)
        listed = await list_tasks(client, tasks=tasks)
        assert [h.task_id for h in listed] == [done.task_id, running.task_id]
        assert listed[0] is done and listed[1] is running and listed[0].status == "completed"
        strangers = await list_tasks(client, tasks=TaskRegistry())  # tasks this client did not start
        assert [h.tool for h in strangers] == [None, None]
        assert await strangers[1].acancel() == "cancelled"
        await running.arefresh()
        assert running.status == "cancelled"


async def test_modern_list_is_the_tasks_we_know(root: Path, tasks: TaskRegistry) -> None:
    async with probe_client("memory", "modern", root) as client:
        handle = await start_task(client, "slow_task", {"steps": 1, "delay": 0}, tasks=tasks)
        assert await list_tasks(client, tasks=tasks) == [handle]
        await handle


@pytest.mark.parametrize("era", ERAS)
async def test_task_support_from_tools_list(era: str, root: Path) -> None:
    async with probe_client("memory", era, root) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    if era == "legacy":
        assert task_support(tools["slow_task"]) == "optional"
    assert task_support(tools["gencommit"]) == "forbidden"
    assert task_support({"name": "x", "execution": {"taskSupport": "required"}}) == "required"
    assert task_support({"name": "x"}) == "forbidden"


async def test_extension_is_advertised_only_to_modern_servers(root: Path) -> None:
    ext = tasks_extension()
    async with Client(create_server(root=root), extensions=[ext]) as client:
        assert "io.modelcontextprotocol/tasks" in (client.server_capabilities.extensions or {})


async def test_modern_transparent_call_cancelled_cancels_the_task(root: Path) -> None:
    """Giving up on a transparent call (timeout, interrupt) must not leave the task running."""
    async with probe_client("memory", "modern", root) as client:
        manager = client.probe_server.probe_state.tasks  # type: ignore[attr-defined]
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "slow_task", SLOW)
            for _ in range(1000):
                if any(r.status == "working" for r in await manager.list()):
                    break
                await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
        (record,) = await manager.list()
        assert record.status == "cancelled" and not manager.running(record.task_id)
