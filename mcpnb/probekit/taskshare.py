"""How several probe-kit workers share tasks through one store: the part of the task manager that
only matters when the store is shared (SQLite, Redis).

A task runs on the worker that created it (its :class:`Running`: the job, the futures its questions
wait on). Other workers reach it through the store: a request is a field written into the task
(``cancel``, ``answer:<key>``, once) and a notice (:meth:`TaskStore.publish`) that every worker hears
(:meth:`Sharing._heard`); the running worker then reads its task's fields and acts. It also renews a
lease on each unfinished task and re-reads their fields every ``lease_s / 4`` (:meth:`Sharing._keep`),
so a lost notice only delays the news. A worker that reads a task whose lease ran out knows the
worker running it is gone and ends it once (:meth:`Sharing._unless_lost`), saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from mcpnb.probekit.consents import NOTE
from mcpnb.probekit.taskrecord import ANSWER, CANCEL, Answer, TaskRecord, load_answer
from mcpnb.probekit.taskstore import TERMINAL, TaskStore, TaskStoreError

#: Seconds between sweeps of expired tasks and index entries (stores that need it).
SWEEP_EVERY = 30.0
#: Seconds between heartbeats while the store is not answering: a task it lost is written back
#: soon after it answers again (other workers say "not back yet" meanwhile, not "unknown").
RETRY_WHILE_DOWN = 0.25


@dataclass
class Running:
    """What only the worker running a task has: the job, the futures its questions wait on."""

    record: TaskRecord
    job: asyncio.Task[None] | None = None
    futures: dict[str, asyncio.Future[Answer]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    reason: str | None = None  # why its job was cancelled, when not by a client
    lost: bool = False  # another worker ended it (our lease ran out): write nothing more
    unsaved: bool = False  # it ended, but the store did not take its end yet
    #: Until when the store keeps what this worker last wrote (its expiry; inf: no expiry). A task
    #: missing before then was lost by the store, not expired or ended elsewhere: it is put back.
    stored_until: float = math.inf
    #: Who started it (the per-requestor cap counts by it; ``None``: not counted).
    requestor: str | None = None
    #: What its status message keeps saying (another client than its creator answered it).
    notes: list[str] = field(default_factory=list)
    #: Whether it holds one of this worker's slots now (not while it waits for an answer).
    holds_slot: bool = False
    #: The fields as this worker last wrote them: a write sends only what changed since.
    saved: dict[str, str] = field(default_factory=dict)


class Wakers:
    """One event per task somebody waits on; :meth:`wake` releases every waiter of that task."""

    def __init__(self) -> None:
        self._events: dict[str, tuple[asyncio.Event, int]] = {}

    def wake(self, task_id: str) -> None:
        found = self._events.pop(task_id, None)
        if found is not None:
            found[0].set()

    async def wait(self, task_id: str, timeout: float, ready: Callable[[], Awaitable[bool]]) -> None:
        event, count = self._events.get(task_id, (asyncio.Event(), 0))
        self._events[task_id] = (event, count + 1)
        try:
            if not await ready():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), timeout)
        finally:
            found = self._events.get(task_id)
            if found is not None and found[0] is event:
                if found[1] <= 1:
                    del self._events[task_id]
                else:
                    self._events[task_id] = (event, found[1] - 1)


class Sharing:
    """Mixed into :class:`~mcpnb.probekit.tasks.TaskManager`: what it does for and with other workers."""

    store: TaskStore
    worker: str
    lease_s: float
    clock: Callable[[], float]
    _running: dict[str, Running]
    _wakers: Wakers
    _background: list[asyncio.Task[None]]
    _checks: set[asyncio.Task[None]]

    if TYPE_CHECKING:  # the manager's own, used here

        async def _save(self, running: Running, *, strict: bool) -> None: ...

        async def _deliver(
            self, running: Running, key: str, result: Answer, note: str | None = None
        ) -> None: ...

        async def get(self, task_id: str) -> TaskRecord: ...

    def _lose(self, running: Running, why: str) -> None:
        """Stop a task here without writing anything more about it, and say so (once)."""
        if running.lost:
            return
        running.lost = True
        running.reason = f"cancelled here: {why}"
        _log(f"task {running.record.task_id} ({running.record.tool}) stopped on this worker: {why}")
        if running.job is not None and not running.job.done() and running.job is not asyncio.current_task():
            running.job.cancel()

    def _start_background(self) -> None:
        """Shared stores: hear other workers' notices, renew leases, look at our tasks' fields."""
        if not self.store.shared or any(not t.done() for t in self._background):
            return
        loop = asyncio.get_running_loop()
        self._background = [
            loop.create_task(self._listen(), name="probe-kit-tasks-listen"),
            loop.create_task(self._keep(), name="probe-kit-tasks-keep"),
        ]

    async def _listen(self) -> None:
        while True:
            try:
                await self.store.listen(self._heard)
                return
            except TaskStoreError:  # the store says once that it is down
                await asyncio.sleep(1.0)

    def _heard(self, task_id: str) -> None:
        self._wakers.wake(task_id)
        running = self._running.get(task_id)
        if running is not None:
            check = asyncio.get_running_loop().create_task(self._check([running]))
            self._checks.add(check)
            check.add_done_callback(self._checks.discard)

    async def _keep(self) -> None:
        """The heartbeat: every ``lease_s / 4`` write each running task (its lease with it) and read
        what other workers asked of it; now and then sweep expired tasks."""
        swept = self.clock()
        while True:
            beat = self.lease_s / 4
            await asyncio.sleep(min(beat, RETRY_WHILE_DOWN) if self.store.outage.down else beat)
            try:
                mine = [r for r in self._running.values() if r.job is not None and not r.record.terminal]
                for running in mine:
                    await self._save(running, strict=False)
                await self._check(mine)
                await self._save_ends()
                if self.clock() - swept >= SWEEP_EVERY:
                    swept = self.clock()
                    await self.store.sweep()
            except TaskStoreError:  # the store says once that it is down; the next beat tries again
                pass

    async def _save_ends(self) -> None:
        """Write the ends the store did not take when they happened (it was down or busy)."""
        for running in [r for r in self._running.values() if r.unsaved]:
            await self._save(running, strict=True)
            running.unsaved = False
            self._running.pop(running.record.task_id, None)
            self._wakers.wake(running.record.task_id)
            await self._announce(running.record.task_id)

    async def _check(self, runnings: list[Running]) -> None:
        """Act on what other workers wrote into our running tasks: cancel, answers, or their end."""
        if not runnings:
            return
        try:
            found = await self.store.read_many([r.record.task_id for r in runnings])
        except TaskStoreError:  # said once by the store; the next heartbeat reads again
            return
        for running, fields in zip(runnings, found, strict=True):
            job = running.job
            if fields is None or job is None or job.done() or running.record.terminal:
                continue
            if fields.get("status") in TERMINAL:
                self._lose(
                    running,
                    f"another worker ended it as {fields['status']} (this worker's lease on it ran out)",
                )
            elif fields.get(CANCEL):
                if fields[CANCEL] != "1":  # why, when said (another client than its creator asked)
                    running.reason = running.reason or fields[CANCEL]
                job.cancel()
            else:
                for key in list(running.futures):
                    raw = fields.get(ANSWER + key)
                    pending = running.record.pending.get(key)
                    if raw is not None and pending is not None:  # read as its question's answer type
                        note = fields.get(NOTE + key)
                        await self._deliver(running, key, load_answer(pending, raw), note)

    async def _send(self, task_id: str, name: str, value: str) -> None:
        """Leave a request in a task another worker runs, and tell it."""
        await self.store.add(task_id, name, value)
        await self._announce(task_id)

    async def _announce(self, task_id: str) -> None:
        """Tell the other workers that a task changed, if the store can now: a notice is only a
        hint (every worker also re-reads what it waits on), so a store that is down loses none."""
        with contextlib.suppress(TaskStoreError):
            await self.store.publish(task_id)

    async def _unless_lost(self, record: TaskRecord, fields: dict[str, str]) -> TaskRecord:
        """A task whose worker stopped renewing its lease is over: end it, saying why (once)."""
        now = self.clock()
        if record.terminal or record.lease_until is None or record.lease_until >= now:
            return record
        since = datetime.fromtimestamp(record.lease_until - self.lease_s, UTC).strftime("%H:%M:%S UTC")
        if fields.get(CANCEL):
            record.status = "cancelled"
            record.status_message = "cancelled (the worker running it had stopped)"
        else:
            record.status = "failed"
            record.status_message = (
                f"The probe-kit worker running this task, {record.owner}, stopped before it finished "
                f"(no heartbeat since {since}); its work is lost. Run the tool again."
            )
        record.finished = record.updated = now
        record.pending.clear()
        record.lease_until = None
        saved = await self.store.write(
            record.task_id, record.to_fields(), expires_at=self._expiry(record), lease_before=now
        )
        if not saved:  # its worker came back, or another reader ended it first: read what is there
            return await self.get(record.task_id)
        await self._announce(record.task_id)
        return record


def _log(message: str) -> None:
    print(f"[probe-kit] {message}", file=sys.stderr, flush=True)
