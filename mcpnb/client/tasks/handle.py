"""TaskHandle: one server-side task, followed from a notebook in either protocol era.

A task outlives the request that created it, so the handle owns the follow-up: one *watcher* task
on the loop that holds the session polls ``tasks/get`` (at the server's ``pollInterval``), feeds
listeners (the live view), answers questions, and fetches the result when the task ends. Everything
that waits (``await handle``, ``handle.result()``) only waits for the watcher, so interrupting a
wait never cancels the task itself; only ``cancel()`` does.

Questions (``input_required``): a 2025-11-25 server queues its ``elicitation/create`` and delivers
it only while the client calls ``tasks/result``, so the watcher starts that call and the client's
own elicitation callback answers. A SEP-2663 server lists ``inputRequests`` in ``tasks/get``; the
handle's ``answer(requests) -> responses`` callback answers them with ``tasks/update``.

The session lives on one loop (mcpnb's runtime thread); the handle can be driven from any thread:
synchronous methods use ``runner`` (e.g. ``runtime.run``) or hop onto that loop themselves.

The module is long because following a task is one state machine (watch, answer, settle, wait,
cancel) with a sync and an async face; where handles come from lives in :mod:`.registry`, how one
reads in a line in :mod:`.summary`, and how one looks in a notebook in :mod:`mcpnb.notebook.taskview`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from datetime import datetime
from typing import Any, TypeVar

from mcp import types

from mcpnb.client.bridge import await_in_ticks
from mcpnb.client.errors import TASK_KEEPS_RUNNING, McpnbError, interrupt_said
from mcpnb.client.lean import read_tool_result
from mcpnb.client.results import ToolResult
from mcpnb.client.tasks import wire
from mcpnb.client.tasks.errors import (
    TaskCancelledError,
    TaskError,
    TaskExpiredError,
    TaskInputRequiredError,
    TaskRefusedError,
    TaskResultError,
    TaskTimeoutError,
)
from mcpnb.client.tasks.state import TaskState, short
from mcpnb.client.tasks.wire import Peer

T = TypeVar("T")

#: ``answer(requests) -> responses``: modern ``inputRequests`` (key -> ``{"method", "params"}``) to
#: ``inputResponses`` (key -> ``ElicitResult`` or its dict); may be sync or async.
Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]]
Runner = Callable[[Coroutine[Any, Any, Any]], Any]
ARunner = Callable[[Coroutine[Any, Any, Any]], Awaitable[Any]]
Listener = Callable[["TaskHandle"], None]

#: Poll bounds (seconds): a server hint of 0 must not spin the loop, and one beyond a minute (an
#: hour, a value in the wrong unit) is taken as a minute, so the view and a waiting result still
#: hear of the task's end. Between them the server's ``pollInterval`` is what polling settles at.
MIN_POLL, MAX_POLL, DEFAULT_POLL = 0.01, 60.0, 1.0
#: The first polls come quickly and double up to the interval, so a task done in 0.1 s is seen in
#: about 0.1 s, not after FastMCP's 5 s: from :data:`FIRST_POLL` where the server suggests no
#: interval, from :data:`FIRST_LOOK` where it suggests one (a few looks, then its interval: "SHOULD
#: respect the pollInterval"; from 0.025 s it was seven ``tasks/get`` in the first 1.6 s of a task
#: that asked for one a second, and polled at the interval from the start every quick task waited
#: the whole of it).
FIRST_POLL, FIRST_LOOK = 0.025, 0.1
#: After a SEP-2663 cancel acknowledgement, how long ``cancel()`` keeps looking for the final state.
CANCEL_GRACE = 5.0
#: While a person answers a task's question, how often the live view's clocks move on.
TICK_WHILE_ASKING = 1.0


class TaskHandle:
    """A task on one server: last known state, live polling, result, cancel, answers.

    Build it with :func:`start_task` (or :func:`list_tasks`), on the loop that owns the session.
    Async: ``await handle`` / ``await handle.wait()``, ``arefresh()``, ``acancel()``, ``arespond()``.
    Sync (from another thread, e.g. a cell): ``result(timeout=None)``, ``refresh()``, ``cancel()``,
    ``respond()``; ``status`` and friends are the last known values and never block.
    """

    def __init__(
        self,
        peer: Peer,
        tool: str | None,
        state: TaskState,
        *,
        arguments: dict[str, Any] | None = None,
        answer: Answer | None = None,
        output_schema: dict[str, Any] | None = None,
        runner: Runner | None = None,
        arunner: ARunner | None = None,
        clock: Callable[[], float] = time.monotonic,
        loop: asyncio.AbstractEventLoop | None = None,
        started: float | None = None,
    ) -> None:
        self.peer = peer
        self.server = peer.name
        self.tool = tool
        self.arguments = arguments
        self.answer = answer
        self.runner, self.arunner = runner, arunner
        self.loop = loop or asyncio.get_running_loop()
        self._clock = clock
        self._output_schema = output_schema
        self._state = state
        self._started = clock() if started is None else started
        # a task that had ended before we saw it ran from its creation to its last update
        self._ended: float | None = self._started + state.span if state.terminal else None
        self._heard = self._clock()  # when the server last told us the task's state (our clock)
        self._result: ToolResult | None = None
        self._failure: BaseException | None = None
        self._listeners: list[Listener] = []
        self._changed = asyncio.Event()
        self._nudge = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._payload: asyncio.Task[types.CallToolResult] | None = None
        self._answered: set[str] = set()
        #: The task's questions nobody was asked (how and why), said with its result; the pool links
        #: it to the starting call's list, where the connection records them.
        self.answered_without_asking: list[str] = []
        self._unanswered = False
        self.polls = 0  # tasks/get requests sent (tests and the curious read it)
        self.waits: deque[float] = deque(maxlen=64)  # the latest pauses between them, as scheduled (s)
        self._ramp = 0  # polls since the last change worth a quick look (start, an answer)
        #: What the server's replies about the task had that MCP does not allow and how it was
        #: read, each said once however often it came (every poll, say); the result says them too.
        self.warnings: list[str] = []
        #: ``cancel()`` (or ``acancel()``, ``cancel_soon()``) was asked of this task: sent to the server,
        #: unless the handle already knew the task had ended. A task that completed all the same can
        #: then say the cancel came too late, where one nobody cancelled just completed.
        self.cancel_requested = False
        self._heed(state)

    @classmethod
    def finished(
        cls, peer: Peer, tool: str, result: types.CallToolResult, *, elapsed: float = 0.0, **kwargs: Any
    ) -> TaskHandle:
        """A handle for a call the server answered at once instead of creating a task.

        Happens when the server does not do tasks for this tool or this client (a modern client
        without :func:`tasks_extension`); the result must not be lost just because no task exists.

        Its status is the one a task ending with that result has, by the era's spec, so the two
        read alike: a tool result with ``isError: true`` is ``failed`` in 2025-11-25 ("For tool
        calls specifically, this includes cases where the tool call result has isError set to
        true") and ``completed`` in 2026-07-28 (SEP-2663: "failed ... MUST NOT be used for
        non-JSON-RPC errors"; "completed ... This includes tool calls that returned results with
        isError: true").
        """
        status = "failed" if result.is_error and peer.era == "legacy" else "completed"
        state = TaskState(task_id="", status=status, status_message="answered at once (no task)")
        handle = cls(peer, tool, state, **kwargs)
        handle._started = handle._clock() - elapsed
        handle._ended = handle._clock()
        handle._result = handle._tool_result(result)
        return handle

    def note_unasked(self, notes: list[str]) -> None:
        """Keep the questions nobody was asked in ``notes`` (the call's own list, which grows as
        the task asks); a result already here (a server that answered at once) says them too."""
        self.answered_without_asking = notes
        if self._result is not None:
            self._result.answered_without_asking = list(notes)

    # ------------------------------------------------------------------ last known state
    @property
    def label(self) -> str:
        """``server.tool``; the server alone for an attached task (neither wire names its tool)."""
        return f"{self.server}.{self.tool}" if self.tool else self.server

    @property
    def state(self) -> TaskState:
        return self._state

    @property
    def task_id(self) -> str:
        return self._state.task_id

    @property
    def status(self) -> str:
        """working, input_required, completed, failed or cancelled.

        Nothing following the task (no live view, no waiting ``result()``), a status older than the
        server's poll interval is asked of the server first, from a thread that may wait: a script
        that polled ``h.status`` saw "working" long after the task had ended. On the task's own
        loop, or when the server cannot be reached, it is the last known one (``repr`` says how old).
        """
        ago = self.heard_ago
        hint = self._state.poll_interval_ms
        if (
            not self.expired  # the server said it no longer has it: asking again says the same
            and ago is not None
            and self.task_id
            and ago >= max(0.5, DEFAULT_POLL if hint is None else hint / 1000)
        ):
            with contextlib.suppress(Exception):  # the runtime's own thread refuses: last known
                self._block(self._refresh())
        return self._state.status

    @property
    def status_message(self) -> str | None:
        return self._state.status_message

    @property
    def progress(self) -> tuple[float, float | None, str | None] | None:
        """``(done, total, message)`` when the server reports any on the task; neither spec does."""
        return self._state.progress

    @property
    def created_at(self) -> datetime | None:
        return self._state.created_at

    @property
    def ttl_ms(self) -> int | None:
        return self._state.ttl_ms

    @property
    def poll_interval_ms(self) -> int | None:
        return self._state.poll_interval_ms

    @property
    def input_requests(self) -> dict[str, Any] | None:
        """Modern era: the questions the task waits on (key -> ``{"method", "params"}``)."""
        return self._state.input_requests if self._state.status == "input_required" else None

    @property
    def done(self) -> bool:
        """True once the task ended and its outcome (result or cancellation) is known here."""
        return self._result is not None or (self._state.status == "cancelled")

    @property
    def elapsed(self) -> float:
        """Seconds since the task was created (frozen when it ended), on our clock."""
        return (self._ended if self._ended is not None else self._clock()) - self._started

    @property
    def ttl_left(self) -> float | None:
        """Seconds until the server may drop the task, counting its TTL from creation as the spec does."""
        if self._state.ttl_ms is None or not self._state.task_id:
            return None
        return max(0.0, self._state.ttl_ms / 1000 - (self._clock() - self._started))

    @property
    def heard_ago(self) -> float | None:
        """Seconds since the server last reported the state, when nothing keeps it fresh.

        None once the task ended or while a watcher polls it (a live view, ``watch()``, a waiting
        ``result()``). A terminal shows no live view, so its ``repr`` says how old the status is
        rather than passing off a status from minutes ago as the task's current one.
        """
        if self._state.terminal or (self._watcher is not None and not self._watcher.done()):
            return None
        return self._clock() - self._heard

    @property
    def expired(self) -> bool:
        """The server no longer has the task: it answered ``tasks/get`` with "unknown task" (its
        TTL ran out, or the server was started again). Its last known status stays in ``state``,
        and a result that had landed stays here (``landed``, ``result()``)."""
        return isinstance(self._failure, TaskExpiredError)

    @property
    def landed(self) -> ToolResult | None:
        """The result once it has landed, without waiting: None before, and for a task cancelled
        (:meth:`result` waits, and says why there is none)."""
        return self._result

    @property
    def failure(self) -> BaseException | None:
        """Why following the task failed (expired, connection lost); the watcher stopped."""
        return self._failure

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(handle)`` on every change (on the session's loop thread)."""
        self._listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return remove

    # ------------------------------------------------------------------ on the session's loop
    def _notify(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a broken view must not stop the task
                listener(self)

    def _heed(self, state: TaskState) -> None:
        """Keep what ``state``'s reply said of itself (:attr:`TaskState.warnings`), once each."""
        self.warnings += [said for said in state.warnings if said not in self.warnings]

    def _apply(self, state: TaskState) -> None:
        self._heed(state)
        if self._state.terminal and not state.terminal:
            return  # a stale answer never revives a finished task
        old = self._state
        for name in ("ttl_ms", "poll_interval_ms", "created_at"):  # cancel/update answers may omit them
            if getattr(state, name) is None:
                setattr(state, name, getattr(old, name))
        if state.status == old.status and state.status_message is None:
            state.status_message = old.status_message
        self._state, self._heard = state, self._clock()
        if state.terminal and self._ended is None:
            self._ended = self._clock()
        if self._result is not None:
            self._shed_sent_result()  # a later tasks/get of an ended task carries it again
        self._notify()

    async def _refresh(self) -> TaskState:
        self.polls += 1
        try:
            state = await wire.get(self.peer, self.task_id)
        except TaskExpiredError as exc:  # however asked (refresh(), a poll): the handle says expired
            if self._failure is None:
                self._failure = exc
                self._notify()
            raise
        self._apply(state)
        return self._state

    async def _look(self) -> None:
        """Ask the server about a task nothing follows (what a listing does): its state now, or
        that it no longer has it (then the handle is :attr:`expired`). A request that fails for
        another reason (a connection being replaced) keeps the last known state."""
        if self.expired or not self.task_id or (self._watcher is not None and not self._watcher.done()):
            return
        if self._state.terminal and not self._may_be_gone():
            return
        with contextlib.suppress(McpnbError):  # expired: _refresh said so on the handle
            await self._refresh()

    def _may_be_gone(self) -> bool:
        """An ended task's status is final: the one thing a ``tasks/get`` can still tell is that
        the server dropped it. Both eras count a task's TTL from its creation and let the server
        drop it after that, not before; so ask only once its TTL has run out, when the server said
        none (``ttl: null`` is unlimited, not unsaid), or when the connection was started again
        since the task began (a new server process knows none of the old one's tasks). Otherwise a
        listing of 600 finished tasks sent 600 ``tasks/get``."""
        conn = self.peer.connection
        if conn is not None and conn.retries > self.peer.reconnects_at_start:
            return True
        if self._state.ttl_ms is None:
            return not self._state.unlimited
        return self.ttl_left == 0

    def _ensure_watch(self) -> None:
        if self._result is not None or not self.task_id:
            return
        if self._watcher is not None and not self._watcher.done():
            return
        if self._failure is not None:
            if isinstance(self._failure, TaskExpiredError):
                return
            self._failure = None  # a transient failure (connection lost): try again
        if self._state.status == "cancelled":
            return
        self._watcher = self.loop.create_task(self._watch(), name=f"mcpnb-task-{self.task_id[:8]}")

    async def _watch(self) -> None:
        try:
            while not self._state.terminal:
                state = await self._refresh()
                if state.status == "input_required":
                    await self._on_input(state)
                if self._state.terminal:
                    break
                await self._sleep()
            await self._settle()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failure = exc
            await self._drop_payload()
            self._notify()

    def _pace(self) -> tuple[float, float]:
        """(the first quick look, the interval polling settles at): the server's ``pollInterval``
        within :data:`MIN_POLL`..:data:`MAX_POLL`, else :data:`DEFAULT_POLL`; looked at first after
        :data:`FIRST_LOOK` where the server gave one, :data:`FIRST_POLL` where not."""
        hint = self._state.poll_interval_ms
        settle = min(MAX_POLL, max(MIN_POLL, DEFAULT_POLL if hint is None else hint / 1000))
        return (FIRST_POLL if hint is None else FIRST_LOOK), settle

    def _next_wait(self) -> float:
        """The interval polling settles at (:meth:`_pace`), reached by doubling from a first quick look."""
        first, interval = self._pace()
        if self._unanswered:  # nobody is answering: keep the view fresh, not the server busy
            interval = min(MAX_POLL, max(interval, 1.0))
        return min(interval, max(MIN_POLL, first * 2 ** min(self._ramp, 20)))

    async def _sleep(self) -> None:
        wait = self._next_wait()
        self.waits.append(wait)
        self._ramp += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._nudge.wait(), wait)
        self._nudge.clear()

    async def _on_input(self, state: TaskState) -> None:
        if self.peer.era != "modern":
            payload = self._payload
            if payload is None or (payload.done() and (payload.cancelled() or payload.exception())):
                # Legacy: tasks/result is where the queued question is delivered. (Re)start it: a
                # session read timeout may have ended the last one while the person was thinking.
                self._payload = self.loop.create_task(wire.payload(self.peer, self.task_id))
            return
        pending = {k: v for k, v in (state.input_requests or {}).items() if k not in self._answered}
        if not pending:
            return
        if self.answer is None:
            if not self._unanswered:
                self._unanswered = True
                self._notify()
            return
        try:
            responses = self.answer(pending)
            if inspect.isawaitable(responses):
                responses = await self._ticking(responses)
        except TaskError:  # a question this client cannot answer (not declared, refused): the task
            # would wait for it until its TTL ran out; it is cancelled, as a plain call's would be
            with contextlib.suppress(McpnbError):
                self.cancel_requested = True
                await wire.cancel(self.peer, self.task_id)
            raise
        await self._respond(dict(responses))

    async def _ticking(self, answer: Awaitable[T]) -> T:
        """Await a person's answer while the live view's clocks go on (elapsed, TTL left): they
        stood at the moment the question came until the task ended."""
        waiting = asyncio.ensure_future(answer)
        try:
            while not (await asyncio.wait({waiting}, timeout=TICK_WHILE_ASKING))[0]:
                self._notify()
            return waiting.result()
        finally:
            waiting.cancel()  # the watcher was cancelled meanwhile: so is the question

    async def _respond(self, responses: dict[str, Any]) -> TaskState:
        state = await wire.update(self.peer, self.task_id, responses)
        self._answered |= set(responses)
        self._unanswered = False
        if state is not None:
            self._apply(state)
        else:  # SEP-2663: an acknowledgement; the task's state is for tasks/get to tell
            self._ramp = 0  # poll quickly again: the answer may end it
            self._notify()
        self._nudge.set()
        return self._state

    async def _settle(self) -> None:
        """The task ended: fetch its result (completed/failed) and tell everyone."""
        status = self._state.status
        if status == "cancelled":
            await self._drop_payload()
            self._notify()
            return
        if self.peer.era == "modern":
            if "result" not in self._state.raw:
                await self._refresh()  # the ending came from tasks/cancel|update, which carry no result
            if self._state.result is not None:
                result = read_tool_result(self._state.result, self.peer.version)  # as a plain call's
            elif status == "failed":
                result = self._failure_result()
            elif "result" in self._state.raw:
                raise self._not_a_result(self._state.raw["result"])
            else:
                raise TaskError(f"task {self.task_id!r} on {self.server!r} completed without a result")
        else:
            try:
                payload = self._payload or self.loop.create_task(wire.payload(self.peer, self.task_id))
                self._payload = payload
                result = await payload
            except McpnbError as exc:
                if status != "failed":
                    raise
                result = self._failure_result(exc.refusal if isinstance(exc, TaskRefusedError) else None)
        self._result = self._tool_result(result)
        self._shed_sent_result()
        self._notify()

    def _shed_sent_result(self) -> None:
        """Let go of the result as a 2026-07-28 ``tasks/get`` sent it once :attr:`landed` holds it
        read (its ``raw`` is the wire shape): a finished handle kept its result twice. A result
        that could not be read (no object) stays in ``state.raw``, the only place it is."""
        self._state.raw.pop("result", None)
        self._state.result = None

    async def _drop_payload(self) -> None:
        payload, self._payload = self._payload, None
        if payload is not None and not payload.done():
            payload.cancel()
        if payload is not None:
            await asyncio.gather(payload, return_exceptions=True)

    def _not_a_result(self, sent: Any) -> TaskResultError:
        """Why a task that completed with ``sent`` (no object: a string, a list) has no result to
        give: what came and its start, quoted (redacted), the whole of it kept on the error."""
        from mcpnb.client.config.validate import kind

        return TaskResultError(
            f"task {self.task_id!r} ({self.label}) completed, but its result is {kind(sent)}, not a "
            f"tool result (an object with content): {short(sent)}; the error's .sent holds it as sent",
            sent,
        )

    def _failure_result(self, refusal: str | None = None) -> types.CallToolResult:
        """A failed task's result for the person: the error's message (an error object without one
        quoted whole), else what 2025-11-25's ``tasks/result`` refused with (``refusal``: the
        underlying request's error), else the status message; a bare "the task failed" only when
        the server said nothing at all."""
        error, message = self._state.error or {}, refusal
        if isinstance(error.get("message"), str) and error["message"]:
            message = error["message"]
        elif error and not message:
            from mcpnb.client.tasks.state import short

            message = f"the task failed: {short(error)}"
        message = message or self._state.status_message or "the task failed"
        return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)

    def _tool_result(self, result: types.CallToolResult) -> ToolResult:
        schema = self._output_schema
        if schema is None:
            schema = self.peer.output_schema(self.tool)
        out = ToolResult.from_sdk(
            self.server,
            self.tool or "",
            result,
            elapsed=self.elapsed,
            output_schema=schema,
            markdown=self.peer.answers_in_markdown(self.tool),
        )
        out.answered_without_asking = list(self.answered_without_asking)
        out.warnings += [said for said in self.warnings if said not in out.warnings]
        conn = self.peer.connection
        if conn is not None:
            out.hide_in_error(conn.safe)
            # the first result since an automatic restart says so, a task's as a plain call's: a task
            # started on an older session (its server restarted under it) came from before it
            if conn.retries == self.peer.reconnects_at_start:
                conn.note_restart(out)
        return out

    async def _wait(self, timeout: float | None) -> ToolResult:
        self._ensure_watch()
        deadline = None if timeout is None else self.loop.time() + timeout
        while True:
            if self._result is not None:
                return self._result
            if self._failure is not None:
                raise self._failure
            if self._state.status == "cancelled":
                raise TaskCancelledError(
                    f"task {self.task_id!r} ({self.label}) was cancelled; it has no result"
                )
            if self._unanswered and self._state.status == "input_required":
                questions = self._state.input_requests or {}
                asked = "; ".join(
                    str((r.get("params") or {}).get("message", key)) for key, r in questions.items()
                )
                raise TaskInputRequiredError(
                    f"task {self.task_id!r} ({self.label}) waits for answers ({asked}); "
                    "answer with handle.respond({key: {'action': 'accept', 'content': {...}}}) "
                    "or start it with an answer callback",
                    dict(questions),
                )
            changed = self._changed
            remaining = None if deadline is None else deadline - self.loop.time()
            try:
                if remaining is not None and remaining <= 0:
                    raise TimeoutError
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                raise TaskTimeoutError(
                    f"task {self.task_id!r} ({self.label}) is still {self._state.status} after "
                    f"{timeout:g} s; it keeps running: wait again, or cancel it"
                ) from None

    async def _cancel(self) -> str:
        if not self.task_id:  # the server answered at once: no task to cancel
            return self._state.status
        self.cancel_requested = True
        if self._state.terminal:
            return self._state.status
        try:
            state = await wire.cancel(self.peer, self.task_id)
        except McpnbError:
            state = await self._refresh()  # it may have ended first; then there is nothing to cancel
            if not state.terminal:
                raise
            return state.status
        if state is None:
            # SEP-2663: an acknowledgement. Cancelling is eventually consistent: look (quickly) until
            # the task says how it ended, for a little while; the watcher keeps following after that.
            state = await self._until_settled(CANCEL_GRACE)
        else:
            self._apply(state)
        if state.status == "cancelled":
            await self._drop_payload()
        self._nudge.set()
        return self._state.status

    async def _until_settled(self, grace: float) -> TaskState:
        deadline = self.loop.time() + grace
        first, settle = self._pace()  # quick looks, doubling up to the server's interval
        wait = min(settle, first)
        state = await self._refresh()
        while not state.terminal and self.loop.time() < deadline:
            await asyncio.sleep(min(wait, max(0.0, deadline - self.loop.time())))
            wait = min(wait * 2, settle)
            state = await self._refresh()
        return state

    # ------------------------------------------------------------------ bridges
    async def _bridge(self, coro: Coroutine[Any, Any, T]) -> T:
        if self.arunner is not None:
            return await self.arunner(coro)
        if asyncio.get_running_loop() is self.loop:
            return await coro
        return await await_in_ticks(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def _block(self, coro: Coroutine[Any, Any, T]) -> T:
        __tracebackhide__ = True  # the person's line, then the reason: not how it got there
        if self.runner is not None:
            return self.runner(coro)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            coro.close()
            raise RuntimeError(
                "this TaskHandle lives on the running loop: await it (await handle, await handle.acancel())"
            )
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()  # stops our waiting only; the task keeps running on the server
            raise

    # ------------------------------------------------------------------ async API
    async def arefresh(self) -> str:
        """Ask the server for the current state now; returns the status."""
        return (await self._bridge(self._refresh())).status

    async def wait(self, timeout: float | None = None) -> ToolResult:
        """The result, once the task ends (answering questions on the way).

        Raises :class:`TaskCancelledError`, :class:`TaskExpiredError`, :class:`TaskInputRequiredError`
        (modern, no ``answer``), or :class:`TaskTimeoutError` (the task keeps running). A failed task
        is a ``ToolResult`` with ``is_error``, like a failed call.
        """
        try:
            return await self._bridge(self._wait(timeout))
        except asyncio.CancelledError as exc:
            self._stopped_waiting(exc)
            raise

    aresult = wait

    async def acancel(self) -> str:
        """Cancel the task (a no-op once it ended); returns the final status."""
        return await self._bridge(self._cancel())

    async def arespond(self, responses: dict[str, Any]) -> str:
        """Answer a modern task's ``inputRequests`` (key -> ``ElicitResult`` or its dict)."""
        return (await self._bridge(self._respond(responses))).status

    def __await__(self) -> Generator[Any, None, ToolResult]:
        return self.wait().__await__()

    # ------------------------------------------------------------------ sync API
    def refresh(self) -> str:
        return self._block(self._refresh()).status

    def result(self, timeout: float | None = None) -> ToolResult:
        """Block until the task ends (see :meth:`wait`). An interrupt stops waiting, not the task."""
        try:
            return self._block(self._wait(timeout))
        except KeyboardInterrupt as exc:
            self._stopped_waiting(exc)
            raise

    def _stopped_waiting(self, exc: BaseException) -> None:
        """Word an interrupted wait: what stopped (our waiting) and what goes on (the task), where a
        bare interrupt showed a traceback through the thread hand-over and no word of the task."""
        said = f"stopped waiting for task {self.task_id!r} ({self.label})"
        if self._state.terminal:  # it ended as the interrupt came
            interrupt_said(exc, f"{said}, which has {self._state.status}: wait again for its outcome")
        else:
            interrupt_said(exc, f"{said}; {TASK_KEEPS_RUNNING}")

    def cancel(self) -> str:
        return self._block(self._cancel())

    def respond(self, responses: dict[str, Any]) -> str:
        return self._block(self._respond(responses)).status

    def watch(self) -> None:
        """Start polling in the background (thread-safe, idempotent): what a live view needs."""
        self.loop.call_soon_threadsafe(self._ensure_watch)

    def cancel_soon(self) -> concurrent.futures.Future[str]:
        """Cancel without waiting (a button click on the kernel thread must not block)."""
        return asyncio.run_coroutine_threadsafe(self._cancel(), self.loop)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        from mcpnb.client.tasks.summary import describe_handle

        said = describe_handle(self)
        note = self._cancel_note()
        return said if note is None else f"{said.removesuffix('>')} · {note}>"

    def _cancel_note(self) -> str | None:
        """What a cancel asked of a task that has not (or not yet) ended cancelled; None otherwise
        (no cancel, or ``cancelled`` says it already)."""
        status = self._state.status
        if not self.cancel_requested or status == "cancelled":
            return None
        if self._state.terminal:
            return f"cancel asked after it had {status}"
        return "cancel asked; not ended yet"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)
