"""The tasks manager: background runs of task-capable tools, independent of the wire era and of
where tasks are kept (a :class:`~mcpnb.probekit.taskstore.TaskStore`).

Statuses: ``queued`` (internal: waiting for a worker slot) → ``working`` ⇄ ``input_required`` →
``completed`` | ``failed`` | ``cancelled``. Finished tasks are kept for their TTL so a client can
still fetch the result, then the store drops them. The wire layers (``tasks_wire.py``) only translate.

With a shared store (SQLite, Redis) several workers serve the same tasks: a task runs on the worker
that created it, and any worker can read it, answer its questions or cancel it (how: ``taskshare.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import secrets
import sys
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from mcp import MCPError, types
from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel, ValidationError

from mcpnb.probekit.consents import (
    ANSWERED_BY_ANOTHER,
    CANCELLED_BY_ANOTHER,
    NOTE,
    by_another,
    with_notes,
)
from mcpnb.probekit.inputs import completion
from mcpnb.probekit.responses import ProbeError, error_response
from mcpnb.probekit.runio import CannotAsk
from mcpnb.probekit.taskrecord import (
    ANSWER,
    CANCEL,
    CONTEXT,
    ROOTS,
    SAMPLE,
    STATUSES,
    Answer,
    PendingInput,
    TaskRecord,
    dump_answer,
)
from mcpnb.probekit.taskshare import Running, Sharing, Wakers
from mcpnb.probekit.taskstore import (
    LEASE_S,
    STATUS,
    TERMINAL,
    NotBackYet,
    Position,
    TaskStore,
    TaskStoreError,
    Written,
    open_store,
    quoted_id,
    short_id,
)
from mcpnb.probekit.taskstore.memory import MemoryStore

__all__ = ["STATUSES", "TERMINAL", "PendingInput", "TaskError", "TaskIO", "TaskManager", "TaskRecord"]

#: The most task ids :meth:`TaskManager.claim` remembers (one per question a tasks/result asked).
MAX_CLAIMS = 10_000
#: The store fields a listed task is rebuilt from.
LISTED = ("status", "doc", "owner", "lease", CANCEL)
#: Tasks :meth:`TaskManager.list` reads at a time.
LIST_BATCH = 500
#: The most tasks ``probe://status`` reads to count them (their status field only): a count costs
#: at most this, however many tasks a class (or one student's flood) left in the store.
COUNT_LIMIT = 1000
#: Default cap on one requestor's unfinished tasks (queued, working or waiting for an answer) on
#: one worker (``--max-tasks-per-client``): what one client may keep in memory and in the store.
DEFAULT_MAX_PER_REQUESTOR = 4
#: Default seconds a task may wait for an answer before it fails (``--task-input-timeout-s``): a
#: question nobody answers does not keep its task (and the client's place under the cap) for ever.
DEFAULT_INPUT_TIMEOUT_S = 600.0
#: The JSON-RPC error a task refused by the per-requestor cap is answered with (the spec defines no
#: code for it: this is from JSON-RPC's implementation-defined server-error range).
TOO_MANY_TASKS = -32000
#: Who the current request comes from, for the per-requestor cap (set per ``tools/call`` by the
#: server's middleware: the 2025-11-25 session's task context, a 2026-07-28 HTTP client's cookie).
#: ``None`` (stdio, in-process: one client) puts no cap on it.
REQUESTOR: ContextVar[str | None] = ContextVar("probekit_requestor", default=None)


class TaskError(ProbeError):
    """A tasks request that cannot be served (unknown id, already finished, nothing to answer)."""


class InputTimedOut(Exception):
    """A task waited longer for an answer than the server allows: it fails (no tool result), and
    its worker slot goes to the next task."""


Runner = Callable[["TaskIO"], Awaitable[types.CallToolResult]]


class TaskIO:
    """RunIO for a task: progress goes on the record, questions park the task in input_required.

    A question is one of the requests a server sends its client (SEP-2663: "as they would the
    equivalent standalone server-to-client request"): a form, a completion from the client's model,
    its roots. Each gets a key unique over the task's life. The model and the roots are asked only of
    a client that declared ``sampling`` / ``roots`` when it started the task (``capabilities``: the
    session's on 2025-11-25, that request's own on 2026-07-28); else :class:`CannotAsk`, and the task
    never waits for an answer that cannot come.
    """

    def __init__(
        self, manager: TaskManager, running: Running, capabilities: types.ClientCapabilities | None = None
    ) -> None:
        self.manager, self.running, self.record = manager, running, running.record
        self.capabilities = capabilities
        self._keys = itertools.count(1)

    async def progress(self, done: float, total: float | None, message: str) -> None:
        self.record.progress = (done, total, message)
        await self.manager._touch(self.running, status_message=message)
        if self.running.lost:  # the report found the task ended elsewhere: its work stops here too
            raise asyncio.CancelledError

    async def ask(self, message: str, schema: type[BaseModel]) -> types.ElicitResult:
        params = {"mode": "form", "message": message, "requestedSchema": render_elicitation_schema(schema)}
        return await self._wait(PendingInput(params), message)  # type: ignore[return-value]

    async def sample(self, prompt: str, max_tokens: int) -> types.CreateMessageResult:
        """A completion of ``prompt`` from the client's model (``sampling/createMessage``)."""
        self._declared("sampling", f"a completion from the client's model ({SAMPLE})")
        params = completion(prompt, max_tokens).params.model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
        reply = await self._wait(PendingInput(params, SAMPLE), "waiting for the client's model")
        return self._unless_refused(reply, "The client's model did not answer")  # type: ignore[return-value]

    async def roots(self) -> types.ListRootsResult:
        """The folders the client shares (``roots/list``)."""
        self._declared("roots", f"the client's roots ({ROOTS})")
        reply = await self._wait(PendingInput({}, ROOTS), "waiting for the client's roots")
        return self._unless_refused(reply, "The client did not list its roots")  # type: ignore[return-value]

    def _declared(self, capability: str, what: str) -> None:
        caps = self.capabilities
        if caps is None or getattr(caps, capability, None) is None:
            raise CannotAsk(
                f"This task needs {what}, but the client did not declare the {capability} capability "
                "when it started the task, so nothing was asked."
            )

    @staticmethod
    def _unless_refused(reply: Answer, what: str) -> Answer:
        """A 2025-11-25 client answers a request it refuses with an error: the tool fails with it."""
        if isinstance(reply, types.ErrorData):
            raise ProbeError(f"{what}: {reply.message} (error {reply.code}).")
        return reply

    async def _wait(self, pending: PendingInput, message: str) -> Answer:
        """Publish ``pending`` under a new key, park the task until it is answered, return the answer."""
        key = f"input-{next(self._keys)}"
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.running.futures[key] = future
        self.record.pending[key] = pending
        await self.manager._touch(self.running, status="input_required", status_message=message)
        limit = self.manager.input_timeout_s
        self.manager._free_slot(self.running)  # a person may take minutes: others' tasks run meanwhile
        try:
            if limit is None:
                answer = await future
            else:
                try:
                    answer = await asyncio.wait_for(future, limit)
                except TimeoutError:
                    raise InputTimedOut(
                        f"No answer came within {_duration(limit)} (this server's limit on waiting "
                        "for input, --task-input-timeout-s): the task stopped. Run the tool again "
                        "when you can answer."
                    ) from None
        finally:
            self.running.futures.pop(key, None)
            self.record.pending.pop(key, None)
        await self.manager._take_slot(self.running)  # answered: back to work when a slot is free
        return answer


class TaskManager(Sharing):
    """Creates, tracks, answers, cancels and expires tasks, in the given store (default: memory).

    ``max_concurrent`` bounds how many run at once on this worker (the rest wait as ``queued``);
    ``poll_interval_ms`` is the hint clients get; ``default_ttl_ms``/``max_ttl_ms`` bound how long
    finished tasks stay; ``lease_s`` is how long a task outlives its worker's last heartbeat before
    another worker may declare it lost (shared stores only).

    A task waiting for an answer gives its slot back until it is answered (a person may take
    minutes; unanswered tasks held every slot of a class's workers). Limits a shared (classroom)
    server needs (the 2025-11-25 spec's Tasks "Resource Management"): ``max_per_requestor``
    unfinished tasks per requestor on this worker (:data:`REQUESTOR`; more are refused at creation,
    :data:`TOO_MANY_TASKS`) and ``input_timeout_s`` seconds waiting for an answer, after which the
    task fails. ``None``: no limit.
    """

    def __init__(
        self,
        *,
        max_concurrent: int = 4,
        default_ttl_ms: int = 300_000,
        max_ttl_ms: int = 3_600_000,
        poll_interval_ms: int = 250,
        clock: Callable[[], float] = time.time,
        store: TaskStore | str | None = None,
        lease_s: float = LEASE_S,
        max_per_requestor: int | None = None,
        input_timeout_s: float | None = None,
    ) -> None:
        self.max_concurrent = max_concurrent
        self.max_per_requestor = max_per_requestor
        self.input_timeout_s = input_timeout_s
        self.default_ttl_ms, self.max_ttl_ms = default_ttl_ms, max_ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.clock = clock
        if store is None:
            store = MemoryStore(clock=clock)
        self.store = store if isinstance(store, TaskStore) else open_store(store, clock=clock)
        self.lease_s = lease_s
        self.worker = f"pid {os.getpid()} ({uuid.uuid4().hex[:6]})"
        self._running: dict[str, Running] = {}
        self._slots: asyncio.Semaphore | None = None
        self._queue: list[Running] = []  # waiting for a slot here, first come first
        self._queue_moved = self._retelling = False
        self._wakers = Wakers()
        self._claims: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._background: list[asyncio.Task[None]] = []
        self._checks: set[asyncio.Task[None]] = set()
        #: Called with the record whenever a task's status changes (probe://status subscribers).
        self.on_change: list[Callable[[TaskRecord], None]] = []

    # --- lifecycle ----------------------------------------------------------------------------------
    async def create(
        self,
        tool: str,
        runner: Runner,
        ttl_ms: int | None = None,
        *,
        context: str | None = None,
        capabilities: types.ClientCapabilities | None = None,
    ) -> TaskRecord:
        """Register a task in the store and start it here in the background (it queues if all
        slots are busy). ``context``: the requestor context it belongs to (see :meth:`page`);
        ``capabilities``: what the client that started it declared (what the task may ask it).

        Its id is 128 random bits from the OS (:func:`secrets.token_hex`): probe-kit has no
        authorization context, so whoever knows a task's id may read, answer and cancel it (the
        spec's fallback: ids nobody can guess), and ``tasks/list`` never hands out another's."""
        self._start_background()
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        who = REQUESTOR.get()
        self._within_cap(who)
        ttl = self.default_ttl_ms if ttl_ms is None else max(0, min(int(ttl_ms), self.max_ttl_ms))
        now = self.clock()
        record = TaskRecord(
            task_id=secrets.token_hex(16),
            tool=tool,
            ttl_ms=ttl,
            created=now,
            updated=now,
            owner=self.worker,
            context=context,
        )
        running = Running(record, requestor=who)
        fields = self._fields(record)
        expires_at = self._expiry(record)
        self._running[record.task_id] = running  # before the write: a burst of calls counts at once
        try:
            await self.store.insert(record.task_id, fields, created=now, expires_at=expires_at)
        except BaseException:
            self._running.pop(record.task_id, None)
            raise
        running.saved = fields
        running.stored_until = math.inf if expires_at is None else expires_at
        running.job = asyncio.get_running_loop().create_task(
            self._run(running, runner, capabilities), name=f"probe-task-{tool}"
        )
        return record

    def _within_cap(self, who: str | None) -> None:
        """Refuse a new task of ``who`` that already has ``max_per_requestor`` unfinished here."""
        cap = self.max_per_requestor
        if who is None or cap is None:
            return
        mine = [
            task_id for task_id, r in self._running.items() if r.requestor == who and not r.record.terminal
        ]
        if len(mine) < cap:
            return
        raise MCPError(
            code=TOO_MANY_TASKS,
            message=(
                f"Too many tasks: you have {len(mine)} unfinished task{'s' * (len(mine) != 1)} on this "
                f"server worker (running, queued or waiting for an answer) and the limit is {cap} per "
                "client (--max-tasks-per-client). Wait for one to finish, answer or cancel one "
                "(tasks/cancel), then start this one again."
            ),
            data={"limit": cap, "open": len(mine), "openTaskIds": mine},
        )

    async def _take_slot(self, running: Running) -> None:
        """Wait for a slot on this worker; a task that must wait says why (its place, the limit)."""
        assert self._slots is not None
        if not self._slots.locked():
            await self._slots.acquire()
            running.holds_slot = True
            return
        self._queue.append(running)  # said only when it is so: every task once started "queued"
        await self._touch(running, status_message=self._queued_message(running))
        try:
            await self._slots.acquire()
            running.holds_slot = True
        finally:
            with contextlib.suppress(ValueError):
                self._queue.remove(running)
            if self._queue:  # the others moved up: their status says so
                self._queue_moved = True
                if not self._retelling:
                    self._retelling = True
                    self._spawn(self._retell_queue())

    def _free_slot(self, running: Running) -> None:
        """Give back the slot ``running`` holds (it waits for an answer, or it ended)."""
        if running.holds_slot and self._slots is not None:
            running.holds_slot = False
            self._slots.release()

    def _queued_message(self, running: Running) -> str:
        ahead = self._queue.index(running) if running in self._queue else 0
        return (
            f"queued: waiting for a worker slot; this worker runs {self.max_concurrent} task"
            f"{'s' * (self.max_concurrent != 1)} at once (--max-tasks), all busy, and {ahead} more "
            f"wait{'s' * (ahead == 1)} ahead of this one"
        )

    async def _retell_queue(self) -> None:
        """Tell each queued task its new place; moves meanwhile are told in one more pass, not one
        pass each (a long queue draining would otherwise cost a write per task per move)."""
        try:
            while self._queue_moved:
                self._queue_moved = False
                for running in list(self._queue):
                    if running in self._queue and not running.record.terminal:
                        await self._touch(running, status_message=self._queued_message(running))
        finally:
            self._retelling = False

    def _spawn(self, work: Awaitable[None]) -> None:
        check = asyncio.get_running_loop().create_task(work)  # type: ignore[arg-type]
        self._checks.add(check)
        check.add_done_callback(self._checks.discard)

    async def _run(
        self, running: Running, runner: Runner, capabilities: types.ClientCapabilities | None = None
    ) -> None:
        assert self._slots is not None
        record = running.record
        try:
            await self._take_slot(running)
            try:
                await self._touch(running, status="working", status_message="working")
                result = await runner(TaskIO(self, running, capabilities))
            finally:
                self._free_slot(running)
            status = "failed" if result.is_error else "completed"
            message = _first_text(result) if result.is_error else "completed"
        except asyncio.CancelledError:
            result, status, message = None, "cancelled", running.reason or "cancelled"
        except InputTimedOut as exc:  # the server's limit, not the tool's doing: no tool result
            result, status, message = None, "failed", str(exc)
        except ProbeError as exc:
            result, status, message = error_response(str(exc)), "failed", str(exc)
        except MCPError as exc:  # a JSON-RPC error, as a plain call would answer: no tool result
            result, status, message = None, "failed", str(exc)
        except Exception as exc:  # a tool bug must fail the task, not vanish with it; no tool result:
            # SEP-2663 reports it as a JSON-RPC error, as a crash in a plain call is
            result, status, message = (
                None,
                "failed",
                f"The task failed unexpectedly: {type(exc).__name__}: {exc}",
            )
        for future in running.futures.values():
            if not future.done():
                future.cancel()
        record.result, record.finished = result, self.clock()
        record.pending.clear()
        try:
            await self._touch(running, status=status, status_message=message)
        except TaskStoreError:  # kept here: the heartbeat saves it once the store answers again
            running.unsaved = True
            _log(
                f"task {short_id(record.task_id)} ended ({status}) while the task store {self.store.url} "
                "is not answering; this worker keeps it and writes it once the store answers"
            )
            return
        self._running.pop(record.task_id, None)

    async def _touch(
        self, running: Running, *, status: str | None = None, status_message: str | None = None
    ) -> None:
        """Record a change, save it, and wake everyone waiting on this task."""
        record = running.record
        if record.terminal and status is not None and status != record.status:
            return  # a finished task never changes status again
        moved = status is not None and status != record.status
        if moved:
            record.status = status  # type: ignore[assignment]
            for listener in self.on_change:
                listener(record)
        if status_message is not None:
            record.status_message = with_notes(status_message, running.notes)
        record.updated = self.clock()
        await self._save(running, strict=moved and record.terminal)
        self._wakers.wake(record.task_id)
        if moved and self.store.shared:
            await self._announce(record.task_id)

    async def _save(self, running: Running, *, strict: bool) -> None:
        """Write the live record (one write at a time per task, always the newest state).

        A write the store cannot take waits for the next one or the heartbeat (the store says once
        that it is down); only the task's end raises (``strict``), so that it is kept until saved.
        A task *missing* from the store before the expiry this worker last gave it was lost by the
        store (a Redis restarted without persistence): it is written back, with its TTL. A refused
        write, or a task gone after that expiry, means it ended elsewhere (this worker's lease ran
        out and another worker reported it): stop the work, write nothing more.
        """
        if running.lost:
            return
        async with running.lock:
            record = running.record
            fields = self._fields(record)  # first: it renews the lease the expiry counts from
            expires_at = self._expiry(record)
            # only what changed since the last write: a heartbeat renews the lease, it does not
            # rewrite a task's (possibly large) document every beat
            changed = {k: v for k, v in fields.items() if running.saved.get(k) != v}
            changed.setdefault(STATUS, fields[STATUS])
            try:
                written = await self.store.write(record.task_id, changed, expires_at=expires_at)
                if written is Written.MISSING and self.clock() < running.stored_until:
                    await self.store.insert(
                        record.task_id, fields, created=record.created, expires_at=expires_at
                    )
                    written = Written.SAVED
                    _log(
                        f"task {short_id(record.task_id)} was missing from the task store {self.store.url} "
                        "(restarted?); restored from this worker"
                    )
            except TaskStoreError:
                if strict:
                    raise
                return
            if written:
                running.saved = fields
                running.stored_until = math.inf if expires_at is None else expires_at
        if written is Written.MISSING:
            self._lose(
                running,
                "its record expired from the task store while this worker could not write it "
                "(for longer than its lease and TTL), so other workers may have reported it as failed",
            )
        elif not written:
            self._lose(
                running,
                f"another worker ended it{await self._as_stored(record.task_id)} "
                "(this worker's lease on it ran out)",
            )

    async def _as_stored(self, task_id: str) -> str:
        """' as failed': how another worker ended a task, for the line that says this one stops."""
        with contextlib.suppress(TaskStoreError):
            fields = await self.store.read(task_id)
            if fields and fields.get("status"):
                return f" as {fields['status']}"
        return ""

    def _fields(self, record: TaskRecord) -> dict[str, str]:
        if self.store.shared and not record.terminal:
            record.lease_until = self.clock() + self.lease_s
        return record.to_fields()

    def _expiry(self, record: TaskRecord) -> float | None:
        """When the store may forget the task: its TTL after it ended; while it runs, never (memory)
        or its TTL after the lease runs out (shared: a task whose worker died does not stay forever)."""
        ttl = record.ttl_ms / 1000
        if record.terminal:
            return (record.finished or self.clock()) + ttl
        if self.store.shared and record.lease_until is not None:
            return record.lease_until + ttl
        return None

    async def shutdown(self) -> None:
        """Cancel every task running here (server exit), stop listening, let go of the store."""
        live = [(r, r.job) for r in self._running.values() if r.job is not None and not r.job.done()]
        for running, job in live:
            if not running.record.terminal:  # an ended task is only saving its end: let it finish
                running.reason = "cancelled: probe-kit stopped before the task finished"
                job.cancel()
        await asyncio.gather(*(job for _, job in live), return_exceptions=True)
        with contextlib.suppress(TaskStoreError):
            await self._save_ends()  # one last try; then other workers see the lease run out
        background, self._background = self._background, []
        for task in [*background, *self._checks]:
            task.cancel()
        await asyncio.gather(*background, *self._checks, return_exceptions=True)
        await self.store.close()

    # --- queries ------------------------------------------------------------------------------------
    async def get(self, task_id: str) -> TaskRecord:
        running = self._running.get(task_id)
        if running is not None:
            return running.record
        fields = await self.store.read(task_id)
        if fields is None:
            if self.store.shared and self.store.outage.just_back(self.lease_s):
                raise NotBackYet(self.store.url, task_id)
            raise TaskError(
                f"No task {quoted_id(task_id)}: unknown, or finished and dropped after its TTL expired."
            )
        return await self._unless_lost(TaskRecord.from_fields(task_id, fields), fields)

    async def page(
        self, after: Position | None, limit: int, *, context: str | None = None
    ) -> tuple[list[TaskRecord], Position | None]:
        """Up to ``limit`` tasks after ``after`` (oldest first), and where the next page starts
        (``None``: this was the last). Only this page's tasks are read in full and rebuilt.

        ``context``: only the tasks created in that requestor context (``tasks/list``: the 2025-11-25
        spec's "Task Isolation and Access Control"); the others are looked at only for their
        ``context`` field. ``None``: every task (the operator's view).
        """
        if context is None:
            rows = await self.store.page(LISTED, after, limit + 1)  # one more: is there a next page?
            shown, more = rows[:limit], len(rows) > limit
            last = shown[-1][0] if shown else None
        else:
            mine = await self._positions_of(context, after, limit + 1)
            wanted, more = mine[:limit], len(mine) > limit
            found = await self.store.read_many([task_id for _, task_id in wanted])
            shown = [(at, fields) for at, fields in zip(wanted, found, strict=True) if fields is not None]
            last = wanted[-1] if wanted else None  # one that expired meanwhile still moves the cursor
        out = []
        for (_, task_id), fields in shown:
            running = self._running.get(task_id)
            if running is not None:
                out.append(running.record)
            elif "doc" in fields:
                out.append(await self._unless_lost(TaskRecord.from_fields(task_id, fields), fields))
        return out, (last if more else None)

    async def _positions_of(self, context: str, after: Position | None, limit: int) -> list[Position]:
        """Where the first ``limit`` of ``context``'s tasks after ``after`` stand, reading no more of
        any task than its ``context`` field."""
        mine: list[Position] = []
        while len(mine) < limit:
            rows = await self.store.page((CONTEXT,), after, LIST_BATCH)
            mine += [position for position, fields in rows if fields.get(CONTEXT) == context]
            if len(rows) < LIST_BATCH:
                break
            after = rows[-1][0]
        return mine[:limit]

    async def list(self, *, context: str | None = None) -> list[TaskRecord]:
        """Every task (of ``context``, if given), oldest first (page after page)."""
        out: list[TaskRecord] = []
        after: Position | None = None
        while True:
            records, after = await self.page(after, LIST_BATCH, context=context)
            out.extend(records)
            if after is None:
                return out

    async def counts(self) -> dict[str, int]:
        """Tasks in the store by status (at most :data:`COUNT_LIMIT` read: see :meth:`count`)."""
        return (await self.count())[0]

    async def count(self, limit: int = COUNT_LIMIT) -> tuple[dict[str, int], bool]:
        """Tasks by status, reading the status of at most ``limit`` (the oldest), and whether that
        was all of them: ``probe://status`` must stay cheap however many tasks the store holds."""
        counts = dict.fromkeys(STATUSES, 0)
        rows = await self.store.page((STATUS,), None, limit + 1)
        for _, fields in rows[:limit]:
            status = fields.get(STATUS)
            if status in counts:
                counts[status] += 1
        return counts, len(rows) <= limit

    def here(self) -> dict[str, Any]:
        """This worker's own load, from memory (free): running, queued, waiting for an answer."""
        live = [r.record for r in self._running.values() if not r.record.terminal]
        return {
            "working": sum(1 for r in live if r.status == "working"),
            "inputRequired": sum(1 for r in live if r.status == "input_required"),
            "queued": len(self._queue),
            "slots": self.max_concurrent,
        }

    def limits(self) -> dict[str, Any]:
        """The limits this worker enforces (``probe://status`` and docs/classroom.md say them)."""
        return {
            "maxTasksAtOnce": self.max_concurrent,
            "maxTasksPerClient": self.max_per_requestor,
            "inputTimeoutSeconds": self.input_timeout_s,
            "maxTtlMs": self.max_ttl_ms,
        }

    def running(self, task_id: str) -> bool:
        """Whether this worker's tool is still at work on ``task_id``.

        A task's end is recorded only once its tool has returned or stopped, so a finished record
        means the work is over even while the job is still saving that end and telling others.
        """
        found = self._running.get(task_id)
        if found is None or found.job is None or found.job.done():
            return False
        return not found.record.terminal

    async def wait_change(self, record: TaskRecord, timeout: float | None = None) -> TaskRecord:
        """Wait until the task changes (or ``timeout`` seconds pass, at most one second when its
        worker is elsewhere: a worker that died sends no notice) and return it as it is then."""
        self._start_background()
        task_id, seen = record.task_id, (record.status, record.updated)
        local = task_id in self._running
        limit = 3600.0 if timeout is None else timeout
        if not local:
            limit = min(limit, 1.0)

        async def ready() -> bool:
            if local:
                return False
            fresh = await self.get(task_id)
            return (fresh.status, fresh.updated) != seen

        await self._wakers.wait(task_id, limit, ready)
        return await self.get(task_id)

    # --- commands -----------------------------------------------------------------------------------
    async def cancel(self, task_id: str, *, by: str | None = None) -> TaskRecord:
        """Cancel a task and wait until its work has stopped (or its worker is known to be gone).
        ``by``: who asks (a requestor tag); another than the task's creator is said in the task."""
        record = await self.get(task_id)
        if record.terminal:
            raise TaskError(
                f"Task {quoted_id(task_id)} is already {record.status}; "
                "only unfinished tasks can be cancelled."
            )
        running = self._running.get(task_id)
        note = CANCELLED_BY_ANOTHER if by_another(record.context, by) else None
        if running is not None and running.job is not None:
            running.reason = running.reason or note
            running.job.cancel()
            await asyncio.gather(running.job, return_exceptions=True)
            return running.record
        await self._send(task_id, CANCEL, note or "1")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * self.lease_s + 1
        while not record.terminal and loop.time() < deadline:
            record = await self.wait_change(record, timeout=deadline - loop.time())
        if not record.terminal:
            raise TaskError(
                f"Task {quoted_id(task_id)} was asked to stop but its worker has not said so yet."
            )
        return record

    async def request_cancel(self, task_id: str, *, by: str | None = None) -> TaskRecord:
        """Ask a task to stop and return at once (SEP-2663: cancelling is eventually consistent).

        A finished task is left as it is; its status says how it ended.
        """
        record = await self.get(task_id)
        if record.terminal:
            return record
        running = self._running.get(task_id)
        note = CANCELLED_BY_ANOTHER if by_another(record.context, by) else None
        if running is not None and running.job is not None:
            running.reason = running.reason or note
            running.job.cancel()
        else:
            await self._send(task_id, CANCEL, note or "1")
        return record

    async def accept(self, task_id: str, responses: dict[str, Any], *, by: str | None = None) -> list[str]:
        """SEP-2663 ``tasks/update``: deliver the answers to questions the task is waiting on and
        ignore the rest (unknown, already answered or superseded keys); returns the keys used."""
        record = await self.get(task_id)
        wanted = {k: v for k, v in responses.items() if k in record.pending}
        answers = _read_answers(record, wanted)
        for key, answer in answers.items():
            await self.resolve(task_id, key, answer, note=answered_note(record, key, by))
        return list(answers)

    async def answer(self, task_id: str, responses: dict[str, Any]) -> TaskRecord:
        """Deliver answers to pending questions (keys as published in ``inputRequests``)."""
        record = await self.get(task_id)
        if record.status != "input_required":
            raise TaskError(f"Task {quoted_id(task_id)} is {record.status}; it is not waiting for input.")
        unknown = sorted(set(responses) - set(record.pending))
        if unknown:
            raise TaskError(
                f"Task {quoted_id(task_id)} is not waiting for {unknown}; "
                f"it waits for {sorted(record.pending)}."
            )
        answers = _read_answers(record, responses)
        for key, answer in answers.items():
            await self.resolve(task_id, key, answer)
        return await self.get(task_id)

    async def resolve(self, task_id: str, key: str, result: Answer, *, note: str | None = None) -> None:
        """Answer one question (an answer of its type, or the error a client answered a 2025-11-25
        request with): here if this worker runs the task, else through the store. ``note``: what
        the task says about it from then on (another client than its creator answered)."""
        running = self._running.get(task_id)
        if running is not None:
            await self._deliver(running, key, result, note)
            return
        if note:
            await self.store.add(task_id, NOTE + key, note)  # before the answer: read with it
        await self._send(task_id, ANSWER + key, dump_answer(result))

    async def _deliver(self, running: Running, key: str, result: Answer, note: str | None = None) -> None:
        record = running.record
        future = running.futures.get(key)
        if record.pending.pop(key, None) is None and future is None:
            return  # answered already
        if note:
            running.notes.append(note)
            await self._touch(running, status_message=record.status_message or "")
        if future is not None and not future.done():
            future.set_result(result)
        if not record.pending and record.status == "input_required":
            await self._touch(running, status="working", status_message="working")

    def claim(self, task_id: str, key: str) -> bool:
        """True the first time a ``tasks/result`` here takes a question to ask its client."""
        if (task_id, key) in self._claims:
            return False
        self._claims[(task_id, key)] = None
        while len(self._claims) > MAX_CLAIMS:
            self._claims.popitem(last=False)
        return True


def answered_note(record: TaskRecord, key: str, by: str | None) -> str | None:
    """What the task says once ``by`` answered its question ``key``, if ``by`` did not start it."""
    return ANSWERED_BY_ANOTHER.format(key=key) if by_another(record.context, by) else None


def _read_answers(record: TaskRecord, responses: dict[str, Any]) -> dict[str, Answer]:
    """Each response as the answer type of the question under its key (a form's ElicitResult, a
    completion's CreateMessageResult, a roots list); one of another type is a TaskError naming its
    key, and then none is delivered."""
    out: dict[str, Answer] = {}
    for key, given in responses.items():
        pending = record.pending[key]
        try:
            out[key] = pending.read_answer(given)  # type: ignore[assignment]
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"]) or "the answer"
            raise TaskError(
                f"inputResponses[{key!r}] is not a {pending.answer_type().__name__}, the answer to its "
                f"{pending.method} request: {where}: {problem['msg']}"
            ) from None
    return out


def _duration(seconds: float) -> str:
    """``600`` -> "10 min", ``90`` -> "90 s": a limit as a person reads it."""
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _first_text(result: types.CallToolResult) -> str:
    for block in result.content:
        if isinstance(block, types.TextContent):
            return block.text
    return "failed"


def _log(message: str) -> None:
    print(f"[probe-kit] {message}", file=sys.stderr, flush=True)
