"""A pool's life as a library user meets it: made in a ``with`` block, passed around, used from a
coroutine or a callback, closed, dropped, and used again after its runtime stopped.

Real servers only: the demo server as a stdio subprocess, the SDK's ``MCPServer`` in process.
"""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import threading
import warnings
import weakref
from typing import Any

import pytest
from conftest import DEMO, ROOT, alive, demo_command, demo_server_object, wait_until
from frontend import Frontend
from mcp.server.mcpserver import MCPServer

from mcpnb import McpnbError, Pool, UnknownServerError
from mcpnb.client import runtime as runtime_module
from mcpnb.client.runtime import OwnThreadError, Runtime, RuntimeClosedError


def _connected(runtime: Runtime) -> tuple[Pool, int]:
    pool = Pool(runtime)
    pool.connect("demo", **demo_command())
    return pool, pool.call("demo", "pid").data


# ------------------------------------------------------------------ a closed pool is let go of


def test_a_closed_pool_is_collected(runtime):
    """The runtime kept every pool ever made (its closer), and each stopped connection kept its
    pool (its events): 30 create/connect/close cycles kept 30 pools and their connections."""
    refs = []
    for _ in range(3):
        pool, pid = _connected(runtime)
        pool.close()
        assert wait_until(lambda pid=pid: not alive(pid))
        refs.append(weakref.ref(pool))
        del pool
    gc.collect()
    assert [ref() for ref in refs] == [None, None, None]
    assert len(runtime._closers) <= 1  # the dead pools' closers went with them


def test_a_dropped_pool_with_live_sessions_is_still_closed_with_its_runtime():
    """Held weakly by the runtime, a pool with sessions is still held by them: closing the runtime
    (the interpreter's exit) ends its server."""
    runtime = Runtime(name="mcpnb-test-dropped")
    try:
        pool, pid = _connected(runtime)
        del pool
        gc.collect()
    finally:
        runtime.close()
    assert wait_until(lambda: not alive(pid))


# ------------------------------------------------------------------ with blocks, truth


def test_with_pool_closes_its_connections(runtime):
    with Pool(runtime) as pool:
        pool.connect("demo", **demo_command())
        pid = pool.call("demo", "pid").data
        assert alive(pid)
    assert "demo" not in pool
    assert wait_until(lambda: not alive(pid))


def test_async_with_pool_closes_its_connections(runtime):
    async def main() -> tuple[Pool, int]:
        async with Pool(runtime) as pool:
            await pool.aconnect("demo", **demo_command())
            pid = (await pool.acall("demo", "pid")).data
            assert alive(pid)
        return pool, pid

    pool, pid = asyncio.run(main())
    assert "demo" not in pool
    assert wait_until(lambda: not alive(pid))


def test_with_pool_closes_when_the_block_raises(runtime):
    with pytest.raises(ZeroDivisionError), Pool(runtime) as pool:
        pool.connect("demo", **demo_command())
        pid = pool.call("demo", "pid").data
        1 / 0  # noqa: B018
    assert wait_until(lambda: not alive(pid))


def test_an_empty_pool_is_true(runtime):
    """``__len__`` made an empty pool false: ``pool = given or Pool()`` dropped the given one."""
    given = Pool(runtime)
    assert len(given) == 0
    assert given
    assert (given or Pool(runtime)) is given


# ------------------------------------------------------------------ sync calls in a running loop


@pytest.fixture
def unwarned(monkeypatch):
    """The blocking warning is given once per process: each test starts as if none was given."""
    monkeypatch.setattr(runtime_module, "_warned_blocking", False)


def _blocking_warnings(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, RuntimeWarning) and "asyncio loop" in str(w.message)]


def test_a_sync_call_in_a_running_loop_warns_once_at_the_callers_line(pool, unwarned):
    pool.connect("demo", **demo_command())

    async def main() -> list[str]:
        texts = [(await pool.acall("demo", "echo", {"text": "awaited"})).text]  # the twin: no warning
        texts.append(pool.call("demo", "echo", {"text": "blocking"}).text)
        line = sys._getframe().f_lineno - 1
        texts.append(pool.call("demo", "echo", {"text": "again"}).text)  # once is enough
        return [*texts, line]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        *texts, line = asyncio.run(main())
    assert texts == ["awaited", "blocking", "again"]  # a warning, not a refusal
    [warned] = _blocking_warnings(caught)
    assert (warned.filename, warned.lineno) == (__file__, line)  # the person's line, not ours
    assert "pool.call()" in str(warned.message)
    assert "await pool.acall(...)" in str(warned.message)


def test_the_warning_names_the_twin_of_the_method_called(pool, unwarned):
    pool.connect("demo", **demo_command())

    async def main() -> None:
        pool.tools("demo")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
    [warned] = _blocking_warnings(caught)
    assert "pool.tools()" in str(warned.message) and "await pool.atools(...)" in str(warned.message)


def test_no_warning_without_a_running_loop(pool, unwarned):
    """A script, a thread, a worker of an executor: nothing of the caller's is blocked."""
    pool.connect("demo", **demo_command())
    said: list[str] = []

    async def main() -> None:  # a loop runs, but not in the thread that makes the call
        loop = asyncio.get_running_loop()
        said.append(await loop.run_in_executor(None, lambda: pool.call("demo", "echo", {"text": "x"}).text))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        said.append(pool.call("demo", "echo", {"text": "plain"}).text)
        worker = threading.Thread(target=lambda: said.append(pool.call("demo", "echo", {"text": "t"}).text))
        worker.start()
        worker.join()
        asyncio.run(main())
    assert sorted(said) == ["plain", "t", "x"]
    assert _blocking_warnings(caught) == []


_IN_A_KERNEL = """
import sys, warnings, asyncio
import mcpnb
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda message, *rest, **kw: caught.append(str(message))
pool = mcpnb.Pool()
pool.connect("demo", command=sys.executable, args=[{demo!r}, "stdio"])
said = [pool.call("demo", "echo", {{"text": "cell"}}).text]
async def in_a_coroutine():
    return pool.call("demo", "echo", {{"text": "awaited cell"}}).text
said.append(await in_a_coroutine())  # a top-level await: still the kernel's own loop
pool.close()
print("SAID", said, "WARNED", [w for w in caught if "asyncio loop" in w])
"""


def test_no_warning_in_a_kernel(kernel):
    """A cell runs on the kernel's running loop, and blocking it is what a cell does: the
    magics and a notebook's ``pool.call`` must not warn."""
    fe = Frontend(kernel)
    cell = fe.run_ok(_IN_A_KERNEL.format(demo=DEMO))
    fe.wait_for(lambda: "WARNED" in fe.stdout.get(cell, ""), what="the cell's output")
    assert "SAID ['cell', 'awaited cell'] WARNED []" in fe.stdout[cell]


# ------------------------------------------------------------------ sync calls on mcpnb's own thread


def test_a_sync_call_from_a_subscribe_callback_says_what_to_do(pool, unwarned):
    """The callback runs on mcpnb's thread: the error said ``Runtime.run() called from the runtime
    thread; await the coroutine instead``, of a method the person never called."""
    heard: list[BaseException] = []

    def callback(event: Any) -> None:
        if not heard:
            try:
                pool.call("demo", "echo", {"text": "from the callback"})
            except BaseException as exc:  # what the callback heard is the test
                heard.append(exc)

    pool.subscribe(callback)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pool.connect("demo", **demo_command())
    [error] = heard
    assert isinstance(error, OwnThreadError)
    assert isinstance(error, McpnbError) and isinstance(error, RuntimeError)  # RuntimeError as before
    said = str(error)
    assert "pool.call() was called on mcpnb's own thread" in said
    assert "await pool.acall(...)" in said and "another thread" in said
    assert _blocking_warnings(caught) == []  # refused, not also warned about
    assert pool.call("demo", "echo", {"text": "still fine"}).text == "still fine"


def test_a_sync_call_from_an_async_in_process_tool_says_what_to_do(pool):
    helper = MCPServer("helper")

    @helper.tool()
    async def relay(text: str) -> str:
        try:
            return pool.call("demo", "echo", {"text": text}).text
        except OwnThreadError as exc:
            return f"REFUSED {exc}"

    @helper.tool()
    async def relay_awaited(text: str) -> str:
        return (await pool.acall("demo", "echo", {"text": text})).text

    pool.connect("demo", server=demo_server_object())
    pool.connect("helper", server=helper)
    said = pool.call("helper", "relay", {"text": "hi"}).text
    assert said.startswith("REFUSED pool.call() was called on mcpnb's own thread")
    assert "await pool.acall(...)" in said
    assert pool.call("helper", "relay_awaited", {"text": "hi"}).text == "hi"  # as the message says


# ------------------------------------------------------------------ after close


def test_a_call_after_close_says_the_pool_was_closed(pool):
    """It said "server 'demo' was disconnected; %mcp reconnect demo", a magic of a notebook."""
    pool.connect("demo", **demo_command())
    pool.close()
    with pytest.raises(UnknownServerError) as caught:
        pool.call("demo", "echo", {"text": "late"})
    said = str(caught.value)
    assert "this pool was closed (pool.close())" in said and "make a new Pool" in said
    assert "%mcp" not in said
    assert pool.reconnect("demo").state == "connected"  # as it says: the pool still connects
    assert pool.call("demo", "echo", {"text": "back"}).text == "back"
    pool.disconnect("demo")  # a server disconnected on purpose is told as before
    with pytest.raises(UnknownServerError, match="'demo' was disconnected;"):
        pool.call("demo", "echo", {"text": "late"})


def test_a_closed_runtime_refuses_with_an_mcpnb_error():
    runtime = Runtime(name="mcpnb-test-closed")
    pool = Pool(runtime)
    runtime.close()
    with pytest.raises(RuntimeClosedError, match="runtime is closed: it was closed") as caught:
        pool.tools()
    assert isinstance(caught.value, McpnbError) and isinstance(caught.value, RuntimeError)


_ATEXIT_BEFORE = """
import atexit, sys
def late():
    try:
        pool.call("demo", "echo", {{"text": "late"}})
        print("NO ERROR", flush=True)
    except Exception as exc:
        print("RAISED", type(exc).__name__, isinstance(exc, McpnbError), exc, flush=True)
atexit.register(late)  # before mcpnb's own: it runs after mcpnb closed everything
from mcpnb import McpnbError, Pool
pool = Pool()
pool.connect("demo", command=sys.executable, args=[{demo!r}, "stdio"])
print("CONNECTED", flush=True)
"""


def test_a_pool_used_after_the_interpreter_began_to_exit_says_why():
    """It raised a bare ``RuntimeError: the mcpnb runtime is closed``."""
    done = subprocess.run(
        [sys.executable, "-c", _ATEXIT_BEFORE.format(demo=DEMO)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(ROOT),
    )
    assert "CONNECTED" in done.stdout, done.stderr
    [said] = [line for line in done.stdout.splitlines() if line.startswith(("RAISED", "NO ERROR"))]
    assert said.startswith("RAISED RuntimeClosedError True the mcpnb runtime is closed:"), said
    assert "the interpreter is exiting" in said and "atexit handler registered before" in said
