"""An in-process ``async`` tool that blocks (``time.sleep``) holds mcpnb's runtime loop: every
server waits and no timeout fires. mcpnb cannot stop it; it says so, on that call's result, once
per tool in that server's log, and on another server's call it held up.

The tools block for 2 s against a 1 s threshold (``stalls.THRESHOLD``): what is asserted is that
the warning exists, never how long anything took.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import fastmcp
import pytest
from conftest import demo_command, wait_until
from mcp import types
from mcp.server.mcpserver import MCPServer

from mcpnb.client import stalls
from mcpnb.client.errors import CallTimeoutError
from mcpnb.probekit import create_server
from mcpnb.probekit.runio import task_tool

BLOCK = 2.0


def blocking_server(started: threading.Event | None = None) -> MCPServer:
    srv = MCPServer("blk", log_level="WARNING")

    @srv.tool()
    async def blocker(sec: float = BLOCK) -> str:
        if started is not None:
            started.set()
        time.sleep(sec)  # the mistake: blocks the loop it runs on
        return "unblocked"

    @srv.tool()
    async def waits(sec: float = 1.5) -> str:
        await asyncio.sleep(sec)  # the right way for an async tool
        return "waited"

    @srv.tool()
    def sleeps(sec: float = 1.5) -> str:
        time.sleep(sec)  # fine: a def tool runs in a worker thread
        return "slept"

    return srv


def stall_lines(pool: Any, server: str) -> list[str]:
    return [line for line in pool.logs(server) if " stall: " in line]


def test_an_async_tool_that_blocks_says_so_on_its_result_and_once_in_its_log(pool):
    pool.connect("blk", server=blocking_server())
    result = pool.call("blk", "blocker", timeout=1)
    assert not result.is_error and result.text == "unblocked"  # not pre-empted: it cannot be
    [warning] = result.warnings
    assert "runtime loop was blocked for" in warning and "while blk.blocker ran" in warning
    assert "write it as a def" in warning and "stdio" in warning
    assert len(stall_lines(pool, "blk")) == 1
    again = pool.call("blk", "blocker")
    assert again.warnings and len(stall_lines(pool, "blk")) == 1  # the log says it once per tool


def test_another_servers_call_held_up_by_it_says_why(pool):
    started = threading.Event()
    pool.connect("blk", server=blocking_server(started))
    pool.connect("demo", **demo_command())
    pool.call("demo", "echo", {"text": "warm"})  # the tool list is cached: the call goes straight out
    other: dict[str, Any] = {}

    def meanwhile() -> None:
        started.wait(30)
        other["result"] = pool.call("demo", "echo", {"text": "hi"}, timeout=1)

    thread = threading.Thread(target=meanwhile)
    thread.start()
    blocked = pool.call("blk", "blocker")
    thread.join(30)
    held = other["result"]
    assert held.text == "hi"
    [warning] = held.warnings
    assert "held up" in warning and "blk.blocker" in warning
    # the blocking call names itself only: the other one was waiting, not running, on the loop
    [own] = blocked.warnings
    assert "while blk.blocker ran" in own and "demo" not in own
    assert stall_lines(pool, "demo") == []


def test_a_fastmcp_async_tool_that_blocks_is_seen_too(pool):
    srv = fastmcp.FastMCP("fm")

    @srv.tool
    async def blocker(sec: float = BLOCK) -> str:
        time.sleep(sec)
        return "unblocked"

    pool.connect("fm", server=srv)
    result = pool.call("fm", "blocker")
    assert result.text == "unblocked"
    assert any("while fm.blocker ran" in w for w in result.warnings)
    assert len(stall_lines(pool, "fm")) == 1


def test_tools_that_wait_the_right_way_say_nothing(pool):
    pool.connect("blk", server=blocking_server())
    for tool in ("waits", "sleeps"):
        result = pool.call("blk", tool)
        assert not result.is_error and result.warnings == []
    assert stall_lines(pool, "blk") == []


def test_the_heartbeat_stops_with_the_last_in_process_call(pool):
    pool.connect("blk", server=blocking_server())
    pool.call("blk", "waits", {"sec": 0.3})
    watch = stalls._watches[pool.runtime.loop]
    for _ in range(100):  # the pending beat sees no call in flight and schedules no other
        if watch.due is None:
            break
        time.sleep(0.05)
    assert watch.due is None and not watch.calls


def test_a_call_that_times_out_after_blocking_the_loop_says_which_tool_held_it(pool):
    """Its deadline could not fire while the tool held the loop; it fired as the tool awaited at
    last: the error says the hold was the cause, and how to write the tool, not only the log."""
    srv = MCPServer("blk", log_level="WARNING")

    @srv.tool()
    async def stuck(sec: float = BLOCK) -> str:
        time.sleep(sec)  # holds the loop past the call's timeout...
        await asyncio.sleep(30)  # ...and the deadline fires here, once the loop is free
        return "never"

    pool.connect("blk", server=srv)
    with pytest.raises(CallTimeoutError) as caught:
        pool.call("blk", "stuck", timeout=0.5)
    said = str(caught.value)
    assert "timed out after 0.5 s" in said
    assert "runtime loop was blocked for" in said and "while blk.stuck ran" in said
    assert "write it as a def" in said and "stdio" in said
    assert len(stall_lines(pool, "blk")) == 1


def test_another_servers_call_that_timed_out_while_held_up_says_so(pool):
    """A stdio call in flight when an in-process tool blocks: its deadline passed meanwhile and fires
    as the loop comes back; the error names the in-process tool, not the stdio server."""
    pool.connect("demo", **demo_command())
    pool.call("demo", "echo", {"text": "warm"})  # the tool list is cached: the call goes straight out
    demo = pool.connection("demo")
    srv = MCPServer("blk", log_level="WARNING")

    @srv.tool()
    async def blocker_after_demo(sec: float = BLOCK) -> str:
        while not demo.asking.active_calls:  # the demo call is on its way
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # and sent
        time.sleep(sec)
        return "unblocked"

    pool.connect("blk", server=srv)
    other: dict[str, Any] = {}

    def meanwhile() -> None:
        try:
            pool.call("demo", "slow", {"seconds": 5}, timeout=1)
        except CallTimeoutError as exc:
            other["error"] = str(exc)

    thread = threading.Thread(target=meanwhile)
    thread.start()
    assert pool.call("blk", "blocker_after_demo").text == "unblocked"
    thread.join(30)
    said = other["error"]
    assert "timed out after 1 s" in said and "held up" in said and "blk.blocker_after_demo" in said
    assert stall_lines(pool, "demo") == []


async def stuck_run(io: Any, sec: float = BLOCK) -> types.CallToolResult:
    """A task body that blocks the loop it runs on (the mistake), then ends."""
    time.sleep(sec)
    return types.CallToolResult(content=[types.TextContent(type="text", text="unblocked")])


def probe_with_a_stuck_task(tmp_path: Any) -> Any:
    """probe-kit (the only in-process server here that runs tasks) with a task tool that blocks."""
    server = create_server(root=tmp_path, poll_interval_ms=10)
    tool = task_tool(stuck_run)
    tool.__name__ = "stuck"
    server.add_tool(tool)
    return server


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_task_whose_tool_blocks_the_loop_says_so_on_its_result(pool, tmp_path, era):
    """A task runs in the background on the server, between the handle's polls: watched from its
    creation until its handle has its result, whichever way it ends."""
    pool.connect("probe", server=probe_with_a_stuck_task(tmp_path), era=era)
    handle = pool.call("probe", "stuck", task=True)
    result = handle.result(timeout=30)
    assert result.text == "unblocked"
    said = [w for w in result.warnings if "while probe.stuck ran" in w]
    assert len(said) == 1 and "write it as a def" in said[0]
    assert said[0] in handle.warnings and handle.result(timeout=5).warnings.count(said[0]) == 1
    assert len(stall_lines(pool, "probe")) == 1


def test_a_task_followed_by_a_live_view_ends_its_watch_with_it(pool, tmp_path):
    """A handle that learns of the end from its background polls (what a live view does), not from
    a wait, ends the task's watch too (else the heartbeat beat on, and its tool was named in every
    later stall)."""
    pool.connect("probe", server=probe_with_a_stuck_task(tmp_path))
    handle = pool.call("probe", "stuck", task=True)
    handle.watch()
    assert wait_until(lambda: handle.done, timeout=30)
    watch = stalls._watches[pool.runtime.loop]
    assert wait_until(lambda: not watch.calls, timeout=10)
    assert any("while probe.stuck ran" in w for w in handle.warnings)
