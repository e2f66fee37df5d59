"""The tasks manager: background runs of task-capable tools, independent of the wire era.

Statuses: ``queued`` (internal: waiting for a worker slot) → ``working`` ⇄ ``input_required`` →
``completed`` | ``failed`` | ``cancelled``. Finished tasks are kept for their TTL so a client can
still fetch the result, then dropped. The wire layers (``tasks_wire.py``) only translate.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcp import types
from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel

from mcpnb.probekit.responses import ProbeError, error_response

TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = ("queued", "working", "input_required", "completed", "failed", "cancelled")


class TaskError(ProbeError):
    """A tasks request that cannot be served (unknown id, already finished, nothing to answer)."""


@dataclass
class PendingInput:
    """A question a task is waiting on; ``params`` are form-mode ``elicitation/create`` params."""

    params: dict[str, Any]
    future: asyncio.Future[types.ElicitResult]
    delivering: bool = False


@dataclass
class TaskRecord:
    """One task: its state, its result once finished, and the questions it waits on."""

    task_id: str
    tool: str
    ttl_ms: int
    created: float
    updated: float
    status: str = "queued"
    status_message: str | None = "queued: waiting for a worker slot"
    result: types.CallToolResult | None = None
    finished: float | None = None
    progress: tuple[float, float | None, str] | None = None
    pending: dict[str, PendingInput] = field(default_factory=dict)
    job: asyncio.Task[None] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


Runner = Callable[["TaskIO"], Awaitable[types.CallToolResult]]


class TaskIO:
    """RunIO for a task: progress goes on the record, questions park the task in input_required."""

    def __init__(self, manager: TaskManager, record: TaskRecord) -> None:
        self.manager, self.record = manager, record
        self._keys = itertools.count(1)

    async def progress(self, done: float, total: float | None, message: str) -> None:
        self.record.progress = (done, total, message)
        self.manager.touch(self.record, status_message=message)

    async def ask(self, message: str, schema: type[BaseModel]) -> types.ElicitResult:
        key = f"input-{next(self._keys)}"
        params = {"mode": "form", "message": message, "requestedSchema": render_elicitation_schema(schema)}
        future: asyncio.Future[types.ElicitResult] = asyncio.get_running_loop().create_future()
        self.record.pending[key] = PendingInput(params, future)
        self.manager.touch(self.record, status="input_required", status_message=message)
        try:
            return await future
        finally:
            self.record.pending.pop(key, None)


class TaskManager:
    """Creates, tracks, answers, cancels and expires tasks.

    ``max_concurrent`` bounds how many run at once (the rest wait as ``queued``); ``poll_interval_ms``
    is the hint clients get; ``default_ttl_ms``/``max_ttl_ms`` bound how long finished tasks stay.
    """

    def __init__(
        self,
        *,
        max_concurrent: int = 4,
        default_ttl_ms: int = 300_000,
        max_ttl_ms: int = 3_600_000,
        poll_interval_ms: int = 250,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_concurrent = max_concurrent
        self.default_ttl_ms, self.max_ttl_ms = default_ttl_ms, max_ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.clock = clock
        self._tasks: dict[str, TaskRecord] = {}
        self._slots: asyncio.Semaphore | None = None
        #: Called with the record whenever a task's status changes (probe://status subscribers).
        self.on_change: list[Callable[[TaskRecord], None]] = []

    # --- lifecycle ----------------------------------------------------------------------------------
    def create(self, tool: str, runner: Runner, ttl_ms: int | None = None) -> TaskRecord:
        """Register a task and start it in the background (it queues if all slots are busy)."""
        self.evict()
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        ttl = self.default_ttl_ms if ttl_ms is None else max(0, min(int(ttl_ms), self.max_ttl_ms))
        now = self.clock()
        record = TaskRecord(task_id=uuid.uuid4().hex, tool=tool, ttl_ms=ttl, created=now, updated=now)
        self._tasks[record.task_id] = record
        record.job = asyncio.get_running_loop().create_task(
            self._run(record, runner), name=f"probe-task-{tool}"
        )
        return record

    async def _run(self, record: TaskRecord, runner: Runner) -> None:
        assert self._slots is not None
        try:
            async with self._slots:
                self.touch(record, status="working", status_message="working")
                result = await runner(TaskIO(self, record))
            status = "failed" if result.is_error else "completed"
            message = _first_text(result) if result.is_error else "completed"
        except asyncio.CancelledError:
            result, status, message = None, "cancelled", "cancelled"
        except ProbeError as exc:
            result, status, message = error_response(str(exc)), "failed", str(exc)
        except Exception as exc:  # a tool bug must fail the task, not vanish with it
            text = f"{type(exc).__name__}: {exc}"
            result, status, message = error_response(f"The task failed unexpectedly: {text}"), "failed", text
        for pending in record.pending.values():
            if not pending.future.done():
                pending.future.cancel()
        record.result = result
        record.finished = self.clock()
        self.touch(record, status=status, status_message=message)

    def touch(
        self, record: TaskRecord, *, status: str | None = None, status_message: str | None = None
    ) -> None:
        """Record a change and wake everyone waiting on this task."""
        if record.terminal and status is not None and status != record.status:
            return  # a finished task never changes status again
        if status is not None and status != record.status:
            record.status = status
            for listener in self.on_change:
                listener(record)
        if status_message is not None:
            record.status_message = status_message
        record.updated = self.clock()
        event, record.changed = record.changed, asyncio.Event()
        event.set()

    async def wait_change(self, record: TaskRecord, timeout: float | None = None) -> None:
        """Wait until the task changes (or ``timeout`` seconds pass)."""
        event = record.changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def shutdown(self) -> None:
        """Cancel every running task (server exit)."""
        jobs = [r.job for r in self._tasks.values() if r.job is not None and not r.job.done()]
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    # --- queries ------------------------------------------------------------------------------------
    def get(self, task_id: str) -> TaskRecord:
        self.evict()
        record = self._tasks.get(task_id)
        if record is None:
            raise TaskError(f"No task {task_id!r}: unknown, or finished and dropped after its TTL expired.")
        return record

    def list(self) -> list[TaskRecord]:
        self.evict()
        return sorted(self._tasks.values(), key=lambda r: (r.created, r.task_id))

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for record in self.list():
            counts[record.status] += 1
        return counts

    def evict(self) -> int:
        """Drop finished tasks whose TTL has passed; returns how many were dropped."""
        now = self.clock()
        gone = [
            tid
            for tid, r in self._tasks.items()
            if r.terminal and r.finished is not None and (now - r.finished) * 1000 >= r.ttl_ms
        ]
        for tid in gone:
            del self._tasks[tid]
        return len(gone)

    # --- commands -----------------------------------------------------------------------------------
    async def cancel(self, task_id: str) -> TaskRecord:
        """Cancel a task and wait until its work has stopped."""
        record = self.get(task_id)
        if record.terminal:
            raise TaskError(
                f"Task {task_id!r} is already {record.status}; only unfinished tasks can be cancelled."
            )
        if record.job is not None:
            record.job.cancel()
            await asyncio.gather(record.job, return_exceptions=True)
        return record

    def request_cancel(self, task_id: str) -> TaskRecord:
        """Ask a task to stop and return at once (SEP-2663: cancelling is eventually consistent).

        A finished task is left as it is; its status says how it ended.
        """
        record = self.get(task_id)
        if not record.terminal and record.job is not None:
            record.job.cancel()
        return record

    def accept(self, task_id: str, responses: dict[str, Any]) -> list[str]:
        """SEP-2663 ``tasks/update``: deliver the answers to questions the task is waiting on and
        ignore the rest (unknown, already answered or superseded keys); returns the keys used."""
        record = self.get(task_id)
        used = [key for key in responses if key in record.pending]
        for key in used:
            self.resolve(record, key, types.ElicitResult.model_validate(responses[key]))
        return used

    def answer(self, task_id: str, responses: dict[str, Any]) -> TaskRecord:
        """Deliver answers to pending questions (keys as published in ``inputRequests``)."""
        record = self.get(task_id)
        if record.status != "input_required":
            raise TaskError(f"Task {task_id!r} is {record.status}; it is not waiting for input.")
        unknown = sorted(set(responses) - set(record.pending))
        if unknown:
            raise TaskError(
                f"Task {task_id!r} is not waiting for {unknown}; it waits for {sorted(record.pending)}."
            )
        for key, value in responses.items():
            self.resolve(record, key, types.ElicitResult.model_validate(value))
        return record

    def resolve(self, record: TaskRecord, key: str, result: types.ElicitResult) -> None:
        pending = record.pending.pop(key, None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(result)
        if not record.pending and record.status == "input_required":
            self.touch(record, status="working", status_message="working")


def _first_text(result: types.CallToolResult) -> str:
    for block in result.content:
        if isinstance(block, types.TextContent):
            return block.text
    return "failed"
