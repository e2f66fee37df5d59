"""How code on one thread hands work to an asyncio loop on another, and waits for it cheaply.

A notebook's calls cross threads twice: into mcpnb's runtime loop and back to the caller (the
kernel thread blocked in ``pool.call``, or the kernel's own loop awaiting ``pool.acall``). This is
the hot path of every call, so it uses the cheapest parts that keep the semantics: a bare lock for
a blocked caller, one wake-up per batch of calls per loop (:class:`Mailbox`), one shared timer per
awaiting loop (:class:`Ticker`: ipykernel delivers an interrupt only when its loop wakes up).
``python bench/run.py`` measures the round trip as the "hop floor".
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import contextvars
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: How often an awaiting caller's loop wakes up; an interrupt lands within one tick.
TICK = 0.2


class Handover(Generic[T]):
    """One coroutine handed to the runtime loop, and the lock its caller sleeps on.

    The cheapest cross-thread round trip here: a bare lock released by the coroutine's own task
    the moment it ends (``run_coroutine_threadsafe`` adds a ``concurrent.futures.Future``, its
    condition variable and a loop iteration: a no-op round trip took 38-100 µs that way against
    ~27 µs this way, measured side by side on the 2-core machine; ``bench/run.py`` reports the
    round trip with a real call as the "hop floor").
    """

    __slots__ = (
        "_context",
        "_coro",
        "_error",
        "_loop",
        "_on_done",
        "_result",
        "_task",
        "_then",
        "cancelled",
        "done",
        "lock",
    )

    def __init__(self, coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop, on_done: Any) -> None:
        self._coro, self._loop, self._on_done = coro, loop, on_done
        self._task: asyncio.Task[None] | None = None
        self._context = contextvars.copy_context()  # the caller's context variables reach the call
        self._result: Any = None
        self._error: BaseException | None = None
        self._then: list[concurrent.futures.Future[T]] = []  # callers that stopped waiting (future())
        self.cancelled = False
        self.done = False  # read and written on the runtime loop only
        self.lock = threading.Lock()
        self.lock.acquire()

    def start(self) -> None:  # on the runtime loop
        if self.cancelled:
            self._coro.close()
            self._finish(concurrent.futures.CancelledError())
            return
        self._task = self._loop.create_task(self._drive(), context=self._context)
        self._task.add_done_callback(self._never_ran)

    def _never_ran(self, _task: asyncio.Task[None]) -> None:
        """A task cancelled before its first step (a Ctrl-C that came as the hand-over was queued)
        ends without running ``_drive``: its caller, its lock and its coroutine are settled here."""
        if not self.done:
            self._coro.close()
            self._finish(concurrent.futures.CancelledError())

    async def _drive(self) -> None:
        __tracebackhide__ = True
        try:
            self._result = await self._coro
        except asyncio.CancelledError:
            self._finish(concurrent.futures.CancelledError())
        except BaseException as exc:
            self._finish(exc)
        else:
            self._finish(None)

    def _finish(self, error: BaseException | None) -> None:  # on the runtime loop
        self._error, self.done = error, True
        self.lock.release()
        if self._on_done is not None:
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone: nobody waits
                self._on_done()
        for future in self._then:
            self._settle(future)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the coroutine ends (True) or ``timeout`` passes (False); one caller only.

        A ``KeyboardInterrupt`` while waiting cancels the coroutine (the SDK then tells the server
        with ``notifications/cancelled``) before it propagates, so the connection stays usable.
        """
        try:
            return self.lock.acquire(timeout=-1 if timeout is None else timeout)
        except KeyboardInterrupt as exc:
            self.cancel_and_settle()
            _word_interrupt(exc, self)
            raise

    def future(self) -> concurrent.futures.Future[T]:
        """The outcome as a future, for a caller that stops waiting but keeps a handle (a cell that
        lets go while a person answers). Cancelling the future cancels the coroutine."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def link() -> None:  # on the runtime loop, where _finish runs: no race with it
            if self.done:
                self._settle(future)
            else:
                self._then.append(future)

        future.add_done_callback(lambda f: self.cancel() if f.cancelled() else None)
        self._loop.call_soon_threadsafe(link)
        return future

    def _settle(self, future: concurrent.futures.Future[T]) -> None:
        if not future.set_running_or_notify_cancel():  # the caller gave it up already
            return
        if self._error is not None:
            future.set_exception(self._error)
        else:
            future.set_result(self._result)

    def outcome(self) -> T:
        """The coroutine's result, or its exception raised (in the caller's thread)."""
        __tracebackhide__ = True
        if self._error is not None:
            error, self._error = self._error, None  # no reference cycle through the traceback
            raise error
        return self._result

    def cancel(self) -> None:
        """Cancel from any thread: before it started, or on the loop (the SDK tells the server)."""

        def cancel_on_loop() -> None:
            self.cancelled = True
            if self._task is not None:
                self._task.cancel()

        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing left to cancel
            self._loop.call_soon_threadsafe(cancel_on_loop)

    def cancel_and_settle(self, grace: float = 2.0) -> None:
        """Cancel and give the coroutine a moment to unwind (send its cancel notification)."""
        self.cancel()
        with contextlib.suppress(BaseException):
            if self.lock.acquire(timeout=grace):
                self._error = None


class Ticker:
    """Wakes one loop every :data:`TICK` while anyone there awaits another thread (shared per loop).

    One timer for every awaiting caller of the loop, left to lapse at the first tick nobody
    awaits: a hundred calls at once, or one call after another, arm it once.
    """

    __slots__ = ("_armed", "_loop", "waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._armed = False
        self.waiting = 0

    def __enter__(self) -> None:
        self.waiting += 1
        if not self._armed:
            self._armed = True
            self._loop.call_later(TICK, self._tick)

    def __exit__(self, *exc: object) -> None:
        self.waiting -= 1

    def _tick(self) -> None:
        if self.waiting:
            self._loop.call_later(TICK, self._tick)
        else:
            self._armed = False


class Mailbox:
    """Calls into one loop from other threads, with one wake-up per batch instead of one per call.

    ``call_soon_threadsafe`` writes to the loop's self-pipe every time; when a hundred calls start
    or end at once, that is a hundred system calls and as many wake-ups of a thread that then
    fights for the GIL. Posts are a deque append; only the first of a batch wakes the loop.
    Callables (``Handover.start``) or futures to wake (an awaiting caller's waiter) are posted.
    """

    __slots__ = ("_armed", "_items", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: collections.deque[Any] = collections.deque()
        self._armed = False

    def post(self, item: Any) -> None:
        self._items.append(item)  # first: a drain that already started still sees it
        if not self._armed:
            self._armed = True
            try:
                self._loop.call_soon_threadsafe(self._drain)
            except BaseException as exc:
                self._unarm(item, exc)
                raise

    def _unarm(self, item: Any, exc: BaseException) -> None:
        """A post that failed to wake the loop: Ctrl-C landed in it (a loop of quick calls, the ■
        button), or the loop is closed. Armed, no later post would wake the loop again, and every
        call after it waited for ever; a hand-over nobody will wait for (the interrupt leaves
        ``hand_over`` before it returns) is cancelled, not left to run unseen."""
        self._armed = False
        hop = getattr(item, "__self__", None)
        if isinstance(hop, Handover):
            hop.cancel()  # first: the drain below finds it cancelled, and closes its coroutine unrun
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing runs there any more
                self._loop.call_soon_threadsafe(self._drain)
            if isinstance(exc, KeyboardInterrupt):
                from mcpnb.client import errors

                errors.interrupt_said(exc, errors.NOTHING_SENT)

    def _drain(self) -> None:
        self._armed = False  # before taking: a post from now on arms a new drain
        while self._items:
            item = self._items.popleft()
            if isinstance(item, asyncio.Future):
                if not item.done():
                    item.set_result(None)
                continue
            try:
                item()
            except Exception as exc:  # one bad item must not strand the rest of the batch
                context = {"message": "mcpnb runtime hand-over failed", "exception": exc}
                self._loop.call_exception_handler(context)


_PerLoop = TypeVar("_PerLoop", Mailbox, Ticker)
_loop_parts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[type, Any]]
_loop_parts = weakref.WeakKeyDictionary()


def per_loop(kind: type[_PerLoop], loop: asyncio.AbstractEventLoop) -> _PerLoop:
    """The loop's one :class:`Mailbox` or :class:`Ticker` (made on first use, gone with the loop)."""
    parts = _loop_parts.get(loop)
    if parts is None:
        parts = _loop_parts[loop] = {}
    part = parts.get(kind)
    if part is None:
        part = parts[kind] = kind(loop)
    return part


async def await_in_ticks(future: concurrent.futures.Future[T]) -> T:
    """Await a future that another thread completes, with the caller's loop waking every ``TICK``.

    ipykernel delivers an interrupt only when its loop wakes up, so a plain await could sit on a
    Ctrl-C for as long as the call takes. Cancelling the awaiting task cancels ``future`` too.
    """
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()
    future.add_done_callback(lambda _done: per_loop(Mailbox, loop).post(waiter))
    await wait_ticking(loop, waiter, cancel=future.cancel)
    return future.result()


async def wait_ticking(
    loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[None], cancel: Callable[[], Any]
) -> None:
    """Await ``waiter`` with ``loop`` ticking; if the awaiting task gives up, ``cancel()`` the work."""
    try:
        with per_loop(Ticker, loop):
            await waiter
    except BaseException as exc:
        cancel()
        if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
            hop = getattr(cancel, "__self__", None)  # Runtime.arun's hand-over, or a future
            _word_interrupt(exc, hop if isinstance(hop, Handover) else None)
        raise


def _word_interrupt(exc: BaseException, hop: Handover[Any] | None) -> None:
    """Word an interrupt of a wait for the runtime loop (:func:`~mcpnb.client.errors.interrupt_said`):
    a tool call's, any other wait's, or, where an in-process tool holds the loop, that nothing could
    be cancelled. Read only once interrupted: nothing on the hot path."""
    from mcpnb.client import errors, stalls

    stall = stalls.held_now()
    if stall is not None:
        words = stalls.held_words(stall)
    elif hop is not None and getattr(getattr(hop._coro, "cr_code", None), "co_name", "") == "_call":
        words = errors.CALL_CANCELLED  # Pool._call: a tool call, as the magics word it
    else:
        words = errors.WAIT_CANCELLED
    errors.interrupt_said(exc, f"interrupted; {words}" if isinstance(exc, KeyboardInterrupt) else words)
