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
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from mcpnb.client.bridge import TICK, Handover, Mailbox, await_in_ticks, per_loop, wait_ticking

__all__ = ["STARTED", "TICK", "Runtime", "await_in_ticks", "get_runtime", "hook_kernel_shutdown", "shut_down"]

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


class Runtime:
    """A daemon thread running an asyncio loop, plus the bridges into it from sync and async code."""

    def __init__(self, name: str = "mcpnb-runtime") -> None:
        self.loop = asyncio.new_event_loop()
        self._inbox = Mailbox(self.loop)
        self._started = threading.Event()
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self.closed = False
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
            raise RuntimeError("Runtime.run() called from the runtime thread; await the coroutine instead")
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
            raise RuntimeError("the mcpnb runtime is closed")
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

    def add_closer(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Register an async cleanup (e.g. a pool's ``aclose``) that ``close()`` runs on the loop."""
        self._closers.append(closer)

    def remove_closer(self, closer: Callable[[], Awaitable[None]]) -> None:
        with contextlib.suppress(ValueError):
            self._closers.remove(closer)

    def close(self, timeout: float = 10.0) -> None:
        """Close every registered owner (connections end, child processes exit), then stop the loop."""
        if self.closed:
            return

        async def close_all() -> None:
            for closer in reversed(self._closers):
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


_runtime: Runtime | None = None
_lock = threading.Lock()


def _forget_in_child() -> None:
    """A forked child has none of its parent's threads: its runtime (and its exit's cleanup) is
    its own, started on first use; the parent's connections stay the parent's."""
    global _runtime, _lock
    _runtime, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)


def get_runtime() -> Runtime:
    """The process-wide runtime, started on first use and closed at interpreter exit and kernel shutdown."""
    global _runtime
    with _lock:
        if _runtime is None or _runtime.closed:
            _runtime = Runtime()
            atexit.register(shut_down)
            hook_kernel_shutdown(shut_down)
        return _runtime


def shut_down() -> None:
    """The process is going away: close the runtime on the short clock, then end any child left.

    Children get stdin EOF, SIGTERM and SIGKILL within :data:`SHUTDOWN_BUDGET`; one whose session
    could not be closed in time (a stuck loop) is killed with its process group all the same.
    """
    from mcpnb.client import stdio

    stdio.hurry()
    runtime = _runtime
    if runtime is not None:
        with contextlib.suppress(BaseException):
            runtime.close(timeout=SHUTDOWN_BUDGET)
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
