"""The runtime's bridges: a synchronous or awaiting caller hands a coroutine to the runtime loop.

What each bridge must keep: the coroutine's result or its own exception, cancellation of the
coroutine when the caller gives up (Ctrl-C, a timeout, a cancelled awaiting task), and a clear
refusal once the runtime is closed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import signal
import threading
import time

import pytest

from mcpnb.client.runtime import Runtime


@pytest.fixture
def runtime():
    rt = Runtime(name="mcpnb-test-runtime")
    yield rt
    rt.close()


class _Slow:
    """A call that would take 30 s; says when it started and whether it was cancelled."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = False

    async def run(self) -> None:
        self.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled = True
            raise


async def _on_thread() -> str:
    return threading.current_thread().name


def test_run_returns_the_result_computed_on_the_runtime_thread(runtime: Runtime) -> None:
    assert runtime.run(_on_thread()) == "mcpnb-test-runtime"


def test_run_raises_the_coroutines_own_exception(runtime: Runtime) -> None:
    async def fails() -> None:
        raise LookupError("the server's own words")

    with pytest.raises(LookupError, match="the server's own words"):
        runtime.run(fails())


def test_a_coroutines_own_timeout_error_is_not_the_callers(runtime: Runtime) -> None:
    async def times_out() -> None:
        raise TimeoutError("the tool timed out")

    with pytest.raises(TimeoutError, match="the tool timed out"):
        runtime.run(times_out(), timeout=30)


def test_a_cancelled_coroutine_reads_as_cancelled(runtime: Runtime) -> None:
    async def cancelled() -> None:
        raise asyncio.CancelledError

    with pytest.raises(concurrent.futures.CancelledError):
        runtime.run(cancelled())


def test_giving_up_waiting_cancels_the_coroutine(runtime: Runtime) -> None:
    slow = _Slow()

    with pytest.raises(TimeoutError, match=r"gave up waiting after 0\.2 s"):
        runtime.run(slow.run(), timeout=0.2)
    assert slow.cancelled  # settled before run() returned


def test_ctrl_c_while_waiting_cancels_the_coroutine_then_propagates(runtime: Runtime, ctrl_c: None) -> None:
    slow = _Slow()

    main = threading.main_thread().ident
    assert threading.current_thread() is threading.main_thread()

    def interrupt() -> None:
        slow.started.wait(10)
        time.sleep(0.05)  # the caller is asleep on the lock by now
        signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        runtime.run(slow.run())
    assert slow.cancelled
    assert runtime.run(_on_thread()) == "mcpnb-test-runtime"  # and the runtime still serves


def test_a_caller_that_stops_waiting_keeps_the_outcome_as_a_future(runtime: Runtime) -> None:
    """A synchronous cell lets go when a person is asked; its handle (LiveCall) gets the result later."""
    release = threading.Event()

    async def answered_later() -> str:
        await asyncio.get_running_loop().run_in_executor(None, release.wait, 10)
        return "answered"

    hop = runtime.hand_over(answered_later())
    assert not hop.wait(0.05)  # still running: the caller gives up waiting
    future = hop.future()
    assert not future.done()
    release.set()
    assert future.result(10) == "answered"


def test_a_future_asked_for_after_the_end_has_the_outcome_too(runtime: Runtime) -> None:
    async def fails() -> None:
        raise ValueError("the tool's own error")

    hop = runtime.hand_over(fails())
    deadline = time.monotonic() + 10
    while not hop.done and time.monotonic() < deadline:  # ended before anyone asked for a future
        time.sleep(0.01)
    with pytest.raises(ValueError, match="the tool's own error"):
        hop.future().result(10)


def test_cancelling_the_future_cancels_the_coroutine(runtime: Runtime) -> None:
    slow = _Slow()
    hop = runtime.hand_over(slow.run())
    assert slow.started.wait(10)
    future = hop.future()
    assert future.cancel()
    deadline = time.monotonic() + 10
    while not slow.cancelled and time.monotonic() < deadline:
        time.sleep(0.01)
    assert slow.cancelled
    assert runtime.run(_on_thread()) == "mcpnb-test-runtime"


def test_run_from_the_runtime_thread_is_refused(runtime: Runtime) -> None:
    async def nested() -> str:
        inner = _on_thread()
        try:
            runtime.run(inner)
        except RuntimeError as exc:
            return str(exc)
        return "no error"

    assert "await runtime.arun(...)" in runtime.run(nested())  # the twin of what was called


def test_a_closed_runtime_refuses_and_closes_the_coroutine() -> None:
    rt = Runtime(name="mcpnb-closed")
    rt.close()
    coro = _on_thread()
    with pytest.raises(RuntimeError, match="runtime is closed"):
        rt.run(coro)
    assert coro.cr_frame is None  # closed: no "never awaited" warning


def test_closing_cancels_what_a_library_left_running() -> None:
    """A library's watcher task (sse_starlette keeps one per loop) must be cancelled when the runtime
    closes, not left pending for the garbage collector to report as "destroyed but it is pending"."""
    rt = Runtime(name="mcpnb-leftovers")
    seen = threading.Event()

    async def watcher() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.set()
            raise

    held = []  # a task nobody holds may be collected at any moment (asyncio keeps it weakly)
    rt.loop.call_soon_threadsafe(lambda: held.append(rt.loop.create_task(watcher())))
    assert rt.run(asyncio.sleep(0, "started")) == "started"
    rt.close()
    assert seen.is_set()
    assert not rt.thread.is_alive()


def test_arun_awaits_from_another_loop(runtime: Runtime) -> None:
    async def caller() -> tuple[str, str]:
        return await runtime.arun(_on_thread()), threading.current_thread().name

    on_runtime, on_caller = asyncio.run(caller())
    assert on_runtime == "mcpnb-test-runtime"
    assert on_caller == threading.current_thread().name


def test_arun_raises_the_coroutines_exception(runtime: Runtime) -> None:
    async def fails() -> None:
        raise KeyError("missing")

    async def caller() -> None:
        await runtime.arun(fails())

    with pytest.raises(KeyError, match="missing"):
        asyncio.run(caller())


def test_cancelling_the_awaiting_task_cancels_the_runtime_call(runtime: Runtime) -> None:
    slow = _Slow()

    async def caller() -> None:
        task = asyncio.ensure_future(runtime.arun(slow.run()))
        while not slow.started.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(caller())
    deadline = time.monotonic() + 10
    while not slow.cancelled and time.monotonic() < deadline:
        time.sleep(0.01)
    assert slow.cancelled


def test_an_awaiting_caller_keeps_its_own_loop_running(runtime: Runtime) -> None:
    """While the runtime works, the caller's loop runs its other tasks (a notebook stays responsive)."""
    release = threading.Event()

    async def blocked() -> str:
        await asyncio.get_running_loop().run_in_executor(None, release.wait, 10)
        return "done"

    async def caller() -> tuple[str, int]:
        ticks = 0

        async def other() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                if ticks == 5:
                    release.set()
                await asyncio.sleep(0.01)

        helper = asyncio.ensure_future(other())
        try:
            return await runtime.arun(blocked()), ticks
        finally:
            helper.cancel()

    result, ticks = asyncio.run(caller())
    assert result == "done"
    assert ticks >= 5


_where = contextvars.ContextVar("where", default="unset")


async def _read_where() -> str:
    return _where.get()


def test_the_callers_context_variables_reach_the_call(runtime: Runtime) -> None:
    """A notebook sets context variables (the cell, the call's UI) that the runtime call reads."""
    token = _where.set("sync caller")
    try:
        assert runtime.run(_read_where()) == "sync caller"
    finally:
        _where.reset(token)

    async def caller() -> str:
        _where.set("awaiting caller")
        return await runtime.arun(_read_where())

    assert asyncio.run(caller()) == "awaiting caller"


def test_a_hundred_calls_at_once_all_come_back(runtime: Runtime) -> None:
    """Starts and ends are batched per loop wake-up: none may be lost or woken twice."""

    async def echo(i: int) -> int:
        await asyncio.sleep(0.001 * (i % 7))
        return i

    async def caller() -> list[int]:
        return list(await asyncio.gather(*(runtime.arun(echo(i)) for i in range(100))))

    assert asyncio.run(caller()) == list(range(100))
    with concurrent.futures.ThreadPoolExecutor(8) as threads:
        assert list(threads.map(lambda i: runtime.run(echo(i)), range(100))) == list(range(100))


class _CountingLoop(asyncio.SelectorEventLoop):
    """Counts how often the loop wakes up (one ``_run_once`` per wake-up)."""

    wakes = 0

    def _run_once(self) -> None:  # type: ignore[override]
        self.wakes += 1
        super()._run_once()


def test_an_awaiting_caller_wakes_its_loop_every_tick(runtime: Runtime, monkeypatch) -> None:
    """ipykernel delivers an interrupt only when its loop wakes; a long call must not keep it asleep."""
    import mcpnb.client.bridge as bridge

    monkeypatch.setattr(bridge, "TICK", 0.02)
    loop = _CountingLoop()
    try:
        loop.run_until_complete(runtime.arun(asyncio.sleep(0.4)))
        assert loop.wakes >= 10  # ~20 ticks; an unticked await wakes about twice
        still_ticking = loop.wakes
        loop.run_until_complete(asyncio.sleep(0.4))  # nobody awaits the runtime now
        assert loop.wakes - still_ticking <= 8  # the timer lapsed at its first idle tick (else ~23)
    finally:
        loop.close()
