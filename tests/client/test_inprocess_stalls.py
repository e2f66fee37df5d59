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
from conftest import demo_command
from mcp.server.mcpserver import MCPServer

from mcpnb.client import stalls

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
