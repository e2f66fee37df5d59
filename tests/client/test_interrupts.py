"""Ctrl-C (the kernel's ■ button) wherever it lands in a call from Python, and the call's own
keywords: the words a person reads, and a pool that goes on working."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading

import pytest
from conftest import alive, demo_command, wait_until


def test_an_interrupted_call_says_the_server_was_told(pool, ctrl_c):
    """A bare ``KeyboardInterrupt`` said nothing; it says what was stopped, in one line in IPython,
    and stays a ``KeyboardInterrupt`` (a loop or a script stops as before)."""
    pool.connect("demo", **demo_command())
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as caught:
        pool.call("demo", "slow", {"seconds": 30, "tag": "stopped"})
    timer.join()
    said = "interrupted; the server was told to cancel the call"
    assert str(caught.value) == said
    assert caught.value._render_traceback_() == [f"KeyboardInterrupt: {said}"]
    assert wait_until(lambda: pool.call("demo", "cancelled").data == ["stopped"])


def test_an_interrupt_as_a_call_is_handed_over_leaves_the_runtime_working(pool, ctrl_c):
    """A loop of quick calls stopped with Ctrl-C: the signal may land while a call is posted to the
    runtime loop, before the loop was woken. The inbox stayed armed with nothing to drain it, and
    every call after that waited for ever; the call it was posting now never runs."""
    pool.connect("demo", **demo_command())
    loop = pool.runtime.loop

    def interrupted_here(*args, **kwargs):  # the main thread's first wake-up, as a signal lands
        if threading.current_thread() is not threading.main_thread():
            return type(loop).call_soon_threadsafe(loop, *args, **kwargs)
        del loop.call_soon_threadsafe
        raise KeyboardInterrupt

    async def answer() -> str:
        return "the runtime answers"

    loop.call_soon_threadsafe = interrupted_here
    try:
        with pytest.raises(KeyboardInterrupt, match=r"^interrupted before anything was sent$"):
            pool.call("demo", "echo", {"text": "never"})
        assert pool.runtime.run(answer(), timeout=10) == "the runtime answers"  # was: TimeoutError
    finally:  # where it failed, wake the stuck inbox by hand: the pool's close goes through it
        loop.call_soon_threadsafe(pool.runtime._inbox._drain)
    assert pool.call("demo", "calls").data == []  # the interrupted echo never ran


def test_a_tools_arguments_as_keywords_are_refused_saying_how_to_give_them(pool):
    """``pool.call("s", "t", x=1)`` raised Python's "unexpected keyword argument 'x'"."""
    with pytest.raises(TypeError) as caught:
        pool.call("demo", "echo", text="hi")
    assert str(caught.value) == (
        "call() takes the tool's arguments as one dict, not as keywords (text): "
        "pool.call('demo', 'echo', {'text': ...}) or pool.call('demo', 'echo', arguments={'text': ...})"
    )
    with pytest.raises(TypeError, match=r"pool\.call\('demo\.echo', \{'text': \.\.\.\}\)"):
        pool.call("demo.echo", text="hi")


def test_the_awaited_twin_refuses_them_too(pool):
    with pytest.raises(TypeError, match=r"arguments=\{'a': \.\.\., 'b': \.\.\.\}"):
        asyncio.run(pool.acall("demo", "add", a=1, b=2))


def test_a_hand_over_interrupted_after_it_was_queued_still_settles(pool, ctrl_c, monkeypatch):
    """The signal lands as the wake-up returns: the drain is queued, and starts the call's task
    before the cancel reaches it. Cancelled before its first step, the task never ran its body:
    its lock stayed held, its caller unsettled, its coroutine never closed."""
    import gc
    import warnings

    from mcpnb.client.bridge import Handover

    loop = pool.runtime.loop
    real = type(loop).call_soon_threadsafe
    ran: list[str] = []
    started: list[Handover] = []  # held here: a settled hand-over nobody holds is collected at once
    start = Handover.start

    def kept(hop: Handover) -> None:
        started.append(hop)
        start(hop)

    monkeypatch.setattr(Handover, "start", kept)

    async def work() -> int:
        ran.append("ran")
        return 1

    gate = threading.Event()  # the loop held until the interrupt is handled: its cancel comes next

    def queued_then_interrupted(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            return real(loop, *args, **kwargs)
        del loop.call_soon_threadsafe
        real(loop, gate.wait, 10)  # (a loaded machine's loop thread may otherwise run the task first)
        real(loop, *args, **kwargs)  # the drain is queued, the loop woken ...
        raise KeyboardInterrupt  # ... and the signal lands as that returns

    loop.call_soon_threadsafe = queued_then_interrupted
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            pool.runtime.run(work(), timeout=10)
        gate.set()
        assert wait_until(lambda: any(h._coro.cr_code is work.__code__ for h in started), timeout=10)
        hops = [h for h in started if h._coro.cr_code is work.__code__]
        assert wait_until(lambda: all(h.done for h in hops), timeout=10)
        assert all(not h.lock.locked() for h in hops) and ran == []
        gc.collect()
    assert not [w for w in said if "never awaited" in str(w.message)], [str(w.message) for w in said]


def test_an_anyio_cancel_scope_around_a_wait_keeps_its_cancellation(pool):
    """``anyio.move_on_after`` around ``await pool.acall(...)``: anyio knows its cancellation by
    its message, which the interrupt's words replaced, and the CancelledError escaped the scope."""
    import anyio

    pool.connect("demo", **demo_command())

    async def cell() -> str:
        with anyio.move_on_after(0.5) as scope:
            await pool.acall("demo", "slow", {"seconds": 30, "tag": "scoped"})
        return f"went on, caught: {scope.cancelled_caught}"

    assert asyncio.run(cell()) == "went on, caught: True"
    with pytest.raises(TimeoutError):  # fail_after's own error, not a CancelledError

        async def failing() -> None:
            with anyio.fail_after(0.5):
                await pool.acall("demo", "slow", {"seconds": 30, "tag": "failed"})

        asyncio.run(failing())


def test_a_tasks_arguments_as_keywords_are_refused_too(pool):
    """``pool.start_task("s", "t", steps=5)`` raised Python's "unexpected keyword argument"."""
    with pytest.raises(
        TypeError,
        match=r"^start_task\(\) takes the tool's arguments as one dict.*"
        r"pool\.start_task\('probe', 'slow_task', \{'steps': \.\.\.\}\)",
    ):
        pool.start_task("probe", "slow_task", steps=5)
    with pytest.raises(TypeError, match=r"pool\.start_task\('probe', 'slow_task', arguments="):
        asyncio.run(pool.astart_task("probe", "slow_task", steps=5))


STUBBORN = """\
import os, pathlib, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # ends only at the SIGKILL: its stop takes a while
pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
time.sleep(60)
"""


def test_a_stopped_connect_is_failed_at_once_while_its_server_is_still_being_ended(pool, tmp_path):
    """The status said "connecting" until the server it was starting had ended: seconds for a
    process that ignores SIGTERM, to a person who had just pressed ■. It says the connect was
    cancelled as soon as it is; the process is ended all the same, and the name connects again."""
    server, marker = tmp_path / "stubborn.py", tmp_path / "pid"
    server.write_text(STUBBORN)

    async def stop_the_connect() -> None:
        connecting = asyncio.ensure_future(
            pool.aconnect("slow", command=sys.executable, args=[str(server), str(marker)], startup_timeout=60)
        )
        while not marker.exists():  # the server runs, and will not answer
            await asyncio.sleep(0.05)
        connecting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await connecting

    asyncio.run(stop_the_connect())
    pid = int(marker.read_text())
    assert wait_until(lambda: pool.status()["slow"].state != "connecting", timeout=30)
    assert alive(pid), "the status changed only once the server had ended"
    row = pool.status()["slow"]
    assert (row.state, row.last_error) == ("failed", "connect cancelled")
    assert wait_until(lambda: not alive(pid), timeout=30), "the server it was starting was left running"
    pool.connect("slow", **demo_command())
    assert pool.call("slow", "echo", {"text": "again"}).text == "again"
