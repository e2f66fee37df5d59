"""Two task managers on one shared store behave like two workers: what one starts, the other sees,
answers and cancels; a worker that vanishes leaves tasks another worker ends with a reason.

(The same with real worker processes over HTTP is in ``test_workers.py``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import types
from pydantic import BaseModel

from mcpnb.probekit.responses import ok_text
from mcpnb.probekit.taskrecord import TaskRecord
from mcpnb.probekit.tasks import TaskError, TaskManager
from mcpnb.probekit.taskstore import TaskStoreError
from mcpnb.probekit.taskstore.memory import MemoryStore
from tests.probekit.stores import SHARED, redis_server, store_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.anyio
LEASE = 0.6


class Yes(BaseModel):
    ok: bool


@pytest.fixture(params=SHARED)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def workers(store_url: str) -> AsyncIterator[tuple[TaskManager, TaskManager]]:  # noqa: F811
    a = TaskManager(store=store_url, lease_s=LEASE, poll_interval_ms=10)
    b = TaskManager(store=store_url, lease_s=LEASE, poll_interval_ms=10)
    yield a, b
    await a.shutdown()
    await b.shutdown()


async def until(predicate: Any, ticks: int = 800) -> Any:
    """Await ``predicate()`` until it is truthy (bounded by ticks, not by wall-clock)."""
    for _ in range(ticks):
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


def status_of(manager: TaskManager, task_id: str, *wanted: str) -> Any:
    async def check() -> Any:
        record = await manager.get(task_id)
        return record if record.status in wanted else None

    return check


async def asks_then_counts(io: Any) -> types.CallToolResult:
    reply = await io.ask("Go on?", Yes)
    for step in range(3):
        await io.progress(step + 1, 3, f"step {step + 1}")
    return ok_text(f"{reply.action}:{(reply.content or {}).get('ok')}")


async def forever(io: Any) -> types.CallToolResult:
    while True:
        await io.progress(0, None, "still going")
        await asyncio.sleep(0.02)


async def test_started_on_one_worker_answered_and_read_on_the_other(workers: Any) -> None:
    a, b = workers
    record = await a.create("asks", asks_then_counts)
    seen = await b.get(record.task_id)
    assert seen.tool == "asks" and seen.owner == a.worker and seen is not record
    waiting = await until(status_of(b, record.task_id, "input_required"))
    (key,) = waiting.pending
    assert waiting.pending[key].params["message"] == "Go on?"
    answers = {key: {"action": "accept", "content": {"ok": True}}, "x": {}}
    assert await b.accept(record.task_id, answers) == [key]  # a key it does not wait for is ignored
    done = await until(status_of(b, record.task_id, "completed"))
    assert done.result.content[0].text == "accept:True" and done.progress == (3, 3, "step 3")
    assert record.status == "completed"  # the running worker's own record
    assert [r.task_id for r in await b.list()] == [record.task_id]
    assert (await b.counts())["completed"] == 1


async def test_cancelled_through_the_other_worker_stops_the_work(workers: Any) -> None:
    a, b = workers
    ticks = {"soon": 0, "legacy": 0}

    def counting(name: str) -> Any:
        async def runner(io: Any) -> types.CallToolResult:
            while True:
                ticks[name] += 1
                await asyncio.sleep(0.005)

        return runner

    async def still(name: str) -> bool:
        """Whether the work stands still: no tick over a few sleeps of the runner."""
        before = ticks[name]
        await asyncio.sleep(0.05)
        return ticks[name] == before

    soon = await a.create("forever", counting("soon"))
    await until(status_of(b, soon.task_id, "working"))
    await b.request_cancel(soon.task_id)  # SEP-2663: ask, and return at once
    await until(status_of(a, soon.task_id, "cancelled"))
    assert await still("soon") and not a.running(soon.task_id)

    legacy = await a.create("forever", counting("legacy"))
    await until(status_of(b, legacy.task_id, "working"))
    ended = await b.cancel(legacy.task_id)  # SEP-1686: the answer comes once the work stopped
    assert ended.status == "cancelled" and not a.running(legacy.task_id)
    assert await still("legacy") and ticks["legacy"] > 0
    with pytest.raises(TaskError, match="already cancelled"):
        await b.cancel(legacy.task_id)


async def test_a_waiter_on_another_worker_hears_each_change(workers: Any) -> None:
    a, b = workers
    record = await a.create("asks", asks_then_counts)
    seen = await b.get(record.task_id)
    statuses = [seen.status]
    for _ in range(50):  # bounded: a handful of changes, each heard within a second
        if seen.terminal:
            break
        seen = await b.wait_change(seen, timeout=5.0)
        statuses.append(seen.status)
        if seen.status == "input_required" and seen.pending:
            await b.resolve(seen.task_id, next(iter(seen.pending)), types.ElicitResult(action="decline"))
    assert "input_required" in statuses and statuses[-1] == "completed"
    assert seen.result.content[0].text == "decline:None"


async def test_a_worker_that_vanishes_leaves_a_failed_task_that_says_why(workers: Any) -> None:
    a, b = workers
    lost = await a.create("forever", forever)
    asked = await a.create("forever", forever)
    await until(status_of(b, asked.task_id, "working"))
    await vanish(a)
    await b._send(asked.task_id, "cancel", "1")  # nobody is there to hear it
    failed = await until(status_of(b, lost.task_id, "failed"))
    assert f"worker running this task, {a.worker}, stopped before it finished" in failed.status_message
    assert failed.result is None and failed.finished is not None
    again = await b.get(lost.task_id)
    assert (again.status, again.status_message) == ("failed", failed.status_message)  # ended once
    cancelled = await until(status_of(b, asked.task_id, "cancelled"))
    assert "the worker running it had stopped" in cancelled.status_message


async def vanish(manager: TaskManager) -> None:
    """What a killed worker looks like to the others: no more heartbeats, no more writes."""
    for task in manager._background:
        task.cancel()
    for running in manager._running.values():
        running.lost = True
        if running.job is not None:
            running.job.cancel()
    jobs = [r.job for r in manager._running.values()]
    await asyncio.gather(*manager._background, *jobs, return_exceptions=True)
    manager._background = []


async def test_results_survive_a_restart_and_expire_with_their_ttl(store_url: str) -> None:  # noqa: F811
    first = TaskManager(store=store_url, lease_s=LEASE)

    async def quick(io: Any) -> types.CallToolResult:
        return ok_text("kept")

    kept = await first.create("quick", quick)
    brief = await first.create("quick", quick, ttl_ms=300)
    await until(status_of(first, kept.task_id, "completed"))
    await until(status_of(first, brief.task_id, "completed"))
    await first.shutdown()

    restarted = TaskManager(store=store_url, lease_s=LEASE)
    try:
        again = await restarted.get(kept.task_id)
        assert again.status == "completed" and again.result.content[0].text == "kept"

        async def dropped() -> bool:
            try:
                await restarted.get(brief.task_id)
            except TaskError as exc:
                return "dropped after its TTL" in str(exc)
            return False

        await until(dropped)
    finally:
        await restarted.shutdown()


class FlakyStore(MemoryStore):
    """A shared store that can be down for a while (writes fail as a dropped Redis would)."""

    shared = True

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    async def write(self, task_id: str, fields: dict[str, str], **kwargs: Any) -> bool:
        if self.down:
            raise TaskStoreError("task store flaky://: write failed: Connection refused")
        return await super().write(task_id, fields, **kwargs)


async def test_an_end_the_store_missed_is_saved_when_it_answers_again() -> None:
    store = FlakyStore()
    manager = TaskManager(store=store, lease_s=0.2)
    gate = asyncio.Event()

    async def waits(io: Any) -> types.CallToolResult:
        await gate.wait()
        return ok_text("done")

    try:
        record = await manager.create("waits", waits)
        await until(status_of(manager, record.task_id, "working"))
        store.down = True
        gate.set()
        await until(lambda: _is(record.terminal))
        assert (await store.read(record.task_id))["status"] == "working"  # the end is not stored yet
        assert (await manager.get(record.task_id)).status == "completed"  # but this worker knows it
        store.down = False
        stored = await until(lambda: _status_in_store(store, record.task_id, "completed"))
        assert stored and not manager.running(record.task_id)
    finally:
        store.down = False
        await manager.shutdown()


async def _is(value: bool) -> bool:
    return value


async def _status_in_store(store: MemoryStore, task_id: str, status: str) -> bool:
    fields = await store.read(task_id)
    return fields is not None and fields["status"] == status


class SlowEndStore(MemoryStore):
    """A store that takes its time over a task's end (a busy Redis), so a shutdown can come first."""

    def __init__(self) -> None:
        super().__init__()
        self.ending = asyncio.Event()
        self.go_on = asyncio.Event()

    async def write(self, task_id: str, fields: dict[str, str], **kwargs: Any) -> bool:
        if fields.get("status") == "completed":
            self.ending.set()
            await self.go_on.wait()
        return await super().write(task_id, fields, **kwargs)


async def test_a_shutdown_while_an_end_is_being_saved_keeps_that_end() -> None:
    store = SlowEndStore()
    manager = TaskManager(store=store)

    async def quick(io: Any) -> types.CallToolResult:
        return ok_text("kept")

    record = await manager.create("quick", quick)
    await store.ending.wait()  # the tool returned; its end is on its way to the store
    assert (await manager.get(record.task_id)).status == "completed"
    stopping = asyncio.create_task(manager.shutdown())
    await asyncio.sleep(0)
    store.go_on.set()
    await stopping
    fields = await store.read(record.task_id)
    assert fields is not None and fields["status"] == "completed"
    assert TaskRecord.from_fields(record.task_id, fields).result.content[0].text == "kept"
