"""The runtime: one background thread with its own asyncio loop that owns every connection.

Why a thread: a synchronous ``%mcp`` magic cannot run the kernel's own (already running) loop, and
``nest_asyncio`` breaks widget answers. So sessions live on a private loop; synchronous callers wait
on a lock (a kernel interrupt lands at once as ``KeyboardInterrupt`` and we cancel the call),
asynchronous callers ``await`` it in short ticks so the kernel stays responsive. How a call crosses
the threads is :mod:`mcpnb.client.bridge`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import functools
import os
import sys
import threading
import time
import types
import warnings
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from mcpnb.client.bridge import TICK, Handover, Mailbox, await_in_ticks, per_loop, wait_ticking
from mcpnb.client.errors import McpnbError

__all__ = [
    "STARTED",
    "TICK",
    "ForkedPoolError",
    "OwnThreadError",
    "Runtime",
    "RuntimeClosedError",
    "await_in_ticks",
    "get_runtime",
    "hook_kernel_shutdown",
    "shut_down",
]

T = TypeVar("T")

#: What code that may be stopped as a whole has handed over (anything with ``cancel()``): a cell that
#: awaits a magic run in a thread sets a list here, and its interrupt cancels every hand-over the
#: thread made (a connect, a listing), not only its tool calls.
STARTED: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("mcpnb_started", default=None)

#: When the caller handed over the work this context runs (``time.monotonic()``): a call that
#: waited in the hand-over while the loop was held by an in-process tool says so
#: (:mod:`mcpnb.client.stalls`), although it started only once the loop was free again.
HANDED: contextvars.ContextVar[float] = contextvars.ContextVar("mcpnb_handed", default=0.0)

#: How long closing may take when the kernel or the interpreter goes away. jupyter_client sends
#: SIGTERM 2.5 s after asking a kernel to shut down: every stdio server must be gone before that.
SHUTDOWN_BUDGET = 1.5

#: Why a runtime closed by :meth:`Runtime.close` with no reason of its own refuses work.
CLOSED_BY_CALL = "it was closed (runtime.close()); a new Pool() starts a new one"
#: ... and one closed by the interpreter's exit (:func:`shut_down` from ``atexit``).
CLOSED_AT_EXIT = (
    "the interpreter is exiting, and mcpnb's thread stopped when its exit handler closed every "
    "connection. An atexit handler registered before mcpnb's first Pool runs after that one: "
    "register it after making the Pool, or do the work before the program ends"
)
#: ... and one closed because its kernel was asked to shut down or restart.
CLOSED_WITH_KERNEL = "the kernel is shutting down (or restarting): every connection was closed"

#: mcpnb/ as its modules' code names their files: frames there are not the person's own
_PACKAGE = os.path.dirname(os.path.dirname(__file__)) + os.sep


class RuntimeClosedError(McpnbError, RuntimeError):
    """The runtime a pool runs on no longer serves (closed, the interpreter exiting, or a forked
    child's copy of its parent's): the message says which, and what to do."""


class ForkedPoolError(RuntimeClosedError):
    """A pool (or runtime) made before ``fork()`` used in the child: mcpnb's thread and the
    connections stayed in the parent. The child makes a new ``Pool`` (``default_pool()`` does)."""


class OwnThreadError(McpnbError, RuntimeError):
    """A synchronous mcpnb method called on mcpnb's own thread (a ``subscribe`` or ``watch``
    callback, an async tool of an in-process server): it would wait for the thread it blocks."""


class Runtime:
    """A daemon thread running an asyncio loop, plus the bridges into it from sync and async code."""

    def __init__(self, name: str = "mcpnb-runtime") -> None:
        self.loop = asyncio.new_event_loop()
        self._inbox = Mailbox(self.loop)
        self._started = threading.Event()
        # each closer as a function that gives it back (None once what it closes is gone)
        self._closers: list[Callable[[], Callable[[], Awaitable[None]] | None]] = []
        self.closed = False
        self._why_closed = CLOSED_BY_CALL
        #: The process that started the thread: a forked child has the object but not the thread.
        self.pid = os.getpid()
        _runtimes.add(self)
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)
        self.thread.start()
        self._started.wait()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            # run_until_complete, not run_forever: anyio then treats this task as the root task and
            # keeps its worker threads (sync tools of in-process servers) alive between calls,
            # instead of starting a thread per call for each short-lived caller task.
            self.loop.run_until_complete(self._serve())
        finally:
            with contextlib.suppress(Exception):
                self._cancel_leftovers()
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def _cancel_leftovers(self, grace: float = 0.5) -> None:
        """Cancel what still runs once every owner has closed (as ``asyncio.run`` does): a library's
        watcher task left pending would be reported as "destroyed but pending" when the loop goes."""
        leftovers = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            self.loop.run_until_complete(asyncio.wait(leftovers, timeout=grace))

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        self._started.set()
        await self._stopping.wait()

    @property
    def in_runtime_thread(self) -> bool:
        return threading.current_thread() is self.thread

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the runtime loop and wait for it, interruptibly.

        A ``KeyboardInterrupt`` while waiting cancels the coroutine (the SDK then tells the server
        with ``notifications/cancelled``) before it propagates, so the connection stays usable.
        """
        __tracebackhide__ = True  # a failure's traceback shows the caller and where it was raised
        if self.in_runtime_thread:
            coro.close()
            raise OwnThreadError(_on_own_thread(_entry_point(sys._getframe())[0]))
        running = asyncio._get_running_loop()
        if running is not None and not _warned_blocking and running is not _kernel_loop:
            _warn_blocking_a_loop(sys._getframe(), running)
        return self.settle(self.hand_over(coro), timeout)

    def settle(self, hop: Handover[T], timeout: float | None = None) -> T:
        """Wait for a handed-over coroutine's outcome; giving up after ``timeout`` cancels it."""
        __tracebackhide__ = True
        if not hop.wait(timeout):
            hop.cancel_and_settle()
            raise TimeoutError(f"gave up waiting after {timeout} s")
        return hop.outcome()

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` from another loop (the kernel's) without blocking it.

        The caller's loop wakes every :data:`TICK` while it waits: ipykernel delivers an interrupt
        only when its loop wakes up. If the awaiting task is cancelled (interrupt, ``wait_for``),
        the runtime call is cancelled too.
        """
        __tracebackhide__ = True
        if self.in_runtime_thread:
            return await coro
        caller = asyncio.get_running_loop()
        waiter = caller.create_future()
        hop = self.hand_over(coro, on_done=functools.partial(per_loop(Mailbox, caller).post, waiter))
        await wait_ticking(caller, waiter, cancel=hop.cancel)
        return hop.outcome()

    def hand_over(
        self, coro: Coroutine[Any, Any, T], on_done: Callable[[], Any] | None = None
    ) -> Handover[T]:
        """Start ``coro`` on the runtime loop from another thread; ``on_done`` runs there when it ends.

        For a caller that decides later how to wait (:meth:`settle`, ``hop.wait``, ``hop.future()``);
        :meth:`run` and :meth:`arun` are the usual ways in.
        """
        if self.closed:
            coro.close()
            raise self._refusal()
        stamp = HANDED.set(time.monotonic())  # Handover copies the context: its task sees it
        try:
            hop = Handover(coro, self.loop, on_done)
        finally:
            HANDED.reset(stamp)
        started = STARTED.get()
        if started is not None:
            started.append(hop)
        self._inbox.post(hop.start)
        return hop

    def _refusal(self) -> RuntimeClosedError:
        """The error for work handed to a runtime that no longer serves, saying why."""
        if self.pid != os.getpid():
            return ForkedPoolError(
                f"this pool was made in process {self.pid} before a fork (this is process "
                f"{os.getpid()}): mcpnb's thread and the pool's connections stayed there; make a new "
                "Pool in this process (mcpnb.Pool(), or mcpnb.default_pool())"
            )
        return RuntimeClosedError(f"the mcpnb runtime is closed: {self._why_closed}")

    def add_closer(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Register an async cleanup (e.g. a pool's ``aclose``) that ``close()`` runs on the loop.

        A bound method is held weakly: the runtime closes what is still there, and does not keep
        alive an object the program let go of (every Pool ever made stayed in memory with its
        stopped connections). A pool with live sessions is held by their tasks, so it is closed.
        """
        if isinstance(closer, types.MethodType):
            self._prune_closers()
            self._closers.append(weakref.WeakMethod(closer))
        else:
            self._closers.append(lambda: closer)

    def _prune_closers(self) -> None:
        self._closers[:] = [held for held in self._closers if held() is not None]

    def remove_closer(self, closer: Callable[[], Awaitable[None]]) -> None:
        for held in list(self._closers):
            if held() == closer:
                with contextlib.suppress(ValueError):
                    self._closers.remove(held)
                return

    def close(self, timeout: float = 10.0, *, why: str = CLOSED_BY_CALL) -> None:
        """Close every registered owner (connections end, child processes exit), then stop the loop.

        ``why`` is what work handed over afterwards is told (an atexit handler's, say)."""
        if self.closed:
            return
        self._why_closed = why
        closers = [closer for held in self._closers if (closer := held()) is not None]

        async def close_all() -> None:
            for closer in reversed(closers):
                with contextlib.suppress(BaseException):
                    await closer()

        deadline = time.monotonic() + timeout
        if not self.in_runtime_thread and self.thread.is_alive():
            with contextlib.suppress(BaseException):
                asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(timeout)
        self.closed = True
        self.loop.call_soon_threadsafe(self._stopping.set)
        if not self.in_runtime_thread:
            self.thread.join(max(0.1, deadline - time.monotonic()))  # the whole close stays within timeout


#: The sync-in-a-running-loop warning is given once per process: it names the first place only.
_warned_blocking = False
#: The kernel's loop, once seen: every %mcp line runs in it, and is not looked at twice.
_kernel_loop: asyncio.AbstractEventLoop | None = None


def _entry_point(frame: types.FrameType | None) -> tuple[types.FrameType | None, int]:
    """Where the person's code called into mcpnb, from ``frame`` (one of ours, :meth:`Runtime.run`'s):
    the frame of the mcpnb method they called, and how many frames above ``frame`` their own line is."""
    entered, steps = None, 0
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, entered, steps = frame.f_back, frame, steps + 1
    return entered, steps


def _twin(entered: types.FrameType | None) -> str:
    """The awaitable twin of the sync method the person called, as they would write it
    (``await pool.acall(...)``), found on the object whose method it is; else the pool's pattern."""
    owner = entered.f_locals.get("self") if entered is not None else None
    name = entered.f_code.co_name if entered is not None else ""
    for prefix in ("a", "async_"):
        if owner is not None and callable(getattr(type(owner), prefix + name, None)):
            return f"await {type(owner).__name__.lower()}.{prefix}{name}(...)"
    return "the a-prefixed twin, await pool.acall(...) for pool.call(...)"


def _called(entered: types.FrameType | None) -> str:
    """The sync method the person called, as they would write it (``pool.call()``)."""
    owner = entered.f_locals.get("self") if entered is not None else None
    if owner is None or entered is None:
        return "a synchronous mcpnb method"
    return f"{type(owner).__name__.lower()}.{entered.f_code.co_name}()"


def _on_own_thread(entered: types.FrameType | None) -> str:
    """What a sync call made on mcpnb's own thread is told: what happened and the two ways out."""
    return (
        f"{_called(entered)} was called on mcpnb's own thread, where it would wait for itself: "
        "subscribe and watch callbacks and the async tools of in-process servers run there. From a "
        f"coroutine, {_twin(entered)}; from a synchronous callback, hand the work to another thread "
        "(threading.Thread, or an executor)"
    )


def _in_kernel_loop() -> bool:
    """True when the running loop is an ipykernel's (a cell, or a kernel's subshell): a cell
    that blocks is what a person asked for there, and the kernel takes interrupts as it waits."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    ioloop = sys.modules.get("tornado.ioloop")
    if kernelbase is None or ioloop is None or not kernelbase.Kernel.initialized():
        return False
    # called with a loop running (never one made here): tornado's IOLoop wraps each of the kernel's
    # loops, and an asyncio.run of the person's own has none
    return ioloop.IOLoop.current(instance=False) is not None


def _warn_blocking_a_loop(frame: types.FrameType, running: asyncio.AbstractEventLoop) -> None:
    """Warn, once, that a sync method called in a running asyncio loop blocks that loop while it
    waits: every other task stops. ``frame`` is :meth:`Runtime.run`'s; the warning points at the
    person's line above it. The loops of a Jupyter kernel are left alone."""
    global _warned_blocking, _kernel_loop
    if _in_kernel_loop():
        _kernel_loop = running
        return
    _warned_blocking = True
    entered, steps = _entry_point(frame)
    warnings.warn(
        f"{_called(entered)} blocks the running asyncio loop until it returns (its other tasks wait "
        f"meanwhile): in a coroutine, use {_twin(entered)}",
        RuntimeWarning,
        stacklevel=2 + steps,  # 1: this function, 2: Runtime.run
    )


_runtime: Runtime | None = None
_lock = threading.Lock()
#: Every runtime of this process: a forked child marks its copies closed (their thread is not there).
_runtimes: weakref.WeakSet[Runtime] = weakref.WeakSet()


def _forget_in_child() -> None:
    """A forked child has none of its parent's threads: its runtime (and its exit's cleanup) is
    its own, started on first use; the parent's connections stay the parent's. The copies of the
    parent's runtimes are closed, so a pool made before the fork says so instead of waiting
    forever for a thread that does not run here."""
    global _runtime, _lock
    _runtime, _lock = None, threading.Lock()
    for inherited in list(_runtimes):
        inherited.closed = True


os.register_at_fork(after_in_child=_forget_in_child)


def get_runtime() -> Runtime:
    """The process-wide runtime, started on first use and closed at interpreter exit and kernel shutdown."""
    global _runtime
    with _lock:
        if _runtime is None or _runtime.closed:
            _runtime = Runtime()
            atexit.register(shut_down)
            hook_kernel_shutdown(functools.partial(shut_down, CLOSED_WITH_KERNEL))
        return _runtime


def shut_down(why: str = CLOSED_AT_EXIT) -> None:
    """The process is going away: close the runtime on the short clock, then end any child left.

    Children get stdin EOF, SIGTERM and SIGKILL within :data:`SHUTDOWN_BUDGET`; one whose session
    could not be closed in time (a stuck loop) is killed with its process group all the same.
    """
    from mcpnb.client import stdio

    stdio.hurry()
    runtime = _runtime
    if runtime is not None:
        with contextlib.suppress(BaseException):
            runtime.close(timeout=SHUTDOWN_BUDGET, why=why)
    stdio.end_all_now()


def hook_kernel_shutdown(callback: Callable[[], None]) -> bool:
    """In an ipykernel, run ``callback`` when the kernel is asked to shut down or restart.

    jupyter_client kills a kernel 5 s after asking (SIGTERM at 2.5 s), and atexit handlers do not
    run then; the shutdown request itself is the moment to end child processes. Looked up in
    ``sys.modules`` only: a plain Python process never imports ipykernel for this.
    """
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return False
    kernel = kernelbase.Kernel.instance()
    original = kernel.do_shutdown
    if getattr(original, "_mcpnb_hook", False):
        return True

    def do_shutdown(restart: bool) -> Any:
        with contextlib.suppress(BaseException):
            callback()
        return original(restart)

    do_shutdown._mcpnb_hook = True  # type: ignore[attr-defined]
    kernel.do_shutdown = do_shutdown
    return True
