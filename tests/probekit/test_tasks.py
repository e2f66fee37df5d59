"""The tasks manager on its own: statuses, concurrency limit, input, cancel, failure, TTL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import types
from pydantic import BaseModel

from mcpnb.probekit.responses import ProbeError, ok_text
from mcpnb.probekit.tasks import TaskError, TaskManager


class Yes(BaseModel):
    ok: bool


async def until(predicate: Any, ticks: int = 500) -> None:
    """Let the loop run until ``predicate()`` holds (bounded by ticks, not by wall-clock)."""
    for _ in range(ticks):
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition never held")


@pytest.mark.anyio
async def test_runs_to_completion_and_keeps_the_result() -> None:
    manager = TaskManager()

    async def runner(io: Any) -> types.CallToolResult:
        await io.progress(1, 2, "half")
        return ok_text("done")

    record = await manager.create("t", runner)
    assert (
        record.status == "queued" and record.status_message is None
    )  # no "waiting for a slot": none is busy
    await until(lambda: record.terminal)
    assert record.status == "completed" and record.result.content[0].text == "done"
    assert record.progress == (1, 2, "half")
    assert (await manager.counts())["completed"] == 1
    assert [(r.task_id, r.status) for r in await manager.list()] == [(record.task_id, "completed")]


@pytest.mark.anyio
async def test_concurrency_limit_queues_the_rest() -> None:
    manager = TaskManager(max_concurrent=1)
    gate = asyncio.Event()

    async def runner(io: Any) -> types.CallToolResult:
        await gate.wait()
        return ok_text("ok")

    first, second = await manager.create("a", runner), await manager.create("b", runner)
    await until(lambda: first.status == "working")
    await asyncio.sleep(0.02)
    assert second.status == "queued" and "waiting for a worker slot" in (second.status_message or "")
    gate.set()
    await until(lambda: second.terminal)
    assert first.status == second.status == "completed"


@pytest.mark.anyio
async def test_input_required_then_answered() -> None:
    manager = TaskManager()

    async def runner(io: Any) -> types.CallToolResult:
        reply = await io.ask("Sure?", Yes)
        return ok_text(f"{reply.action}:{reply.content}")

    record = await manager.create("t", runner)
    await until(lambda: record.status == "input_required")
    (key,) = record.pending
    assert record.pending[key].params["requestedSchema"]["properties"]["ok"]["type"] == "boolean"
    with pytest.raises(TaskError, match="not waiting for"):
        await manager.answer(record.task_id, {"nope": {"action": "accept"}})
    await manager.answer(record.task_id, {key: {"action": "accept", "content": {"ok": True}}})
    assert record.status == "working"
    await until(lambda: record.terminal)
    assert record.result.content[0].text == "accept:{'ok': True}"
    with pytest.raises(TaskError, match="not waiting for input"):
        await manager.answer(record.task_id, {key: {"action": "accept"}})


@pytest.mark.anyio
async def test_cancel_stops_the_work() -> None:
    manager = TaskManager()
    ticks = [0]

    async def runner(io: Any) -> types.CallToolResult:
        while True:
            ticks[0] += 1
            await asyncio.sleep(0.005)

    record = await manager.create("t", runner)
    await until(lambda: ticks[0] >= 3)
    await manager.cancel(record.task_id)
    stopped = ticks[0]
    await asyncio.sleep(0.05)
    assert record.status == "cancelled" and ticks[0] == stopped and not manager.running(record.task_id)
    with pytest.raises(TaskError, match="already cancelled"):
        await manager.cancel(record.task_id)


@pytest.mark.anyio
async def test_failures_become_failed_tasks() -> None:
    manager = TaskManager()

    async def expected(io: Any) -> types.CallToolResult:
        raise ProbeError("bad input")

    async def bug(io: Any) -> types.CallToolResult:
        raise KeyError("x")

    a, b = await manager.create("a", expected), await manager.create("b", bug)
    await until(lambda: a.terminal and b.terminal)
    assert a.status == b.status == "failed"
    assert a.result.is_error and a.result.content[0].text == "bad input"  # a tool error: its result
    # a crash has no tool result: the task failed, and the wire says so as a JSON-RPC error
    assert b.result is None and b.status_message == "The task failed unexpectedly: KeyError: 'x'"


@pytest.mark.anyio
async def test_ttl_drops_finished_tasks_only() -> None:
    now = [1000.0]
    manager = TaskManager(default_ttl_ms=5_000, clock=lambda: now[0])
    gate = asyncio.Event()

    async def quick(io: Any) -> types.CallToolResult:
        return ok_text("ok")

    async def slow(io: Any) -> types.CallToolResult:
        await gate.wait()
        return ok_text("ok")

    done, running = await manager.create("a", quick), await manager.create("b", slow, ttl_ms=10)
    await until(lambda: done.terminal)
    now[0] += 4.9
    assert (await manager.get(done.task_id)).status == "completed"
    now[0] += 0.2
    with pytest.raises(TaskError, match="dropped after its TTL"):
        await manager.get(done.task_id)
    assert await manager.get(running.task_id) is running  # a working task never expires
    assert (await manager.create("c", quick, ttl_ms=10**9)).ttl_ms == manager.max_ttl_ms
    gate.set()
    await until(lambda: running.terminal)
    await manager.shutdown()


@pytest.mark.anyio
async def test_shutdown_cancels_running_tasks() -> None:
    manager = TaskManager()

    async def forever(io: Any) -> types.CallToolResult:
        await asyncio.Event().wait()
        return ok_text("never")

    record = await manager.create("t", forever)
    await until(lambda: record.status == "working")
    await manager.shutdown()
    assert record.status == "cancelled"
