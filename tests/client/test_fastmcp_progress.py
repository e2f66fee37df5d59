"""A FastMCP server in-process reports progress on the default era (2026-07-28) as over stdio, over
HTTP and under FastMCP's own in-memory client.

FastMCP sends progress only against the request's ``progressToken``; handed to the SDK's direct
dispatcher, a 2026-07-28 request carried none, and a `%mcp call` showed no bar.
"""

from __future__ import annotations

import asyncio
from typing import Any

import fastmcp
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcpnb.client.interaction import CallContext


def stepper() -> Any:
    srv = fastmcp.FastMCP("fm")

    @srv.tool
    async def slow(n: int = 3, ctx: fastmcp.Context = None) -> str:  # type: ignore[assignment]
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"step {i}")
            await asyncio.sleep(0)
        return "done"

    return srv


def progress_seen(
    pool: Any, name: str, arguments: dict[str, Any] | None = None
) -> tuple[Any, list[tuple[float, float | None, str | None]]]:
    """``name``'s ``slow`` tool called; its result and the progress that reached the call."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    result = pool.call(name, "slow", arguments, context=CallContext(on_progress=on_progress))
    return result, seen


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_a_fastmcp_tools_progress_arrives_in_process(pool, era):
    pool.connect("fm", server=stepper(), era=era)
    assert pool.connection("fm").era == ("legacy" if era == "legacy" else "modern")
    result, seen = progress_seen(pool, "fm", {"n": 3})
    assert result.text == "done" and not result.is_error
    assert seen == [(1, 3, "step 0"), (2, 3, "step 1"), (3, 3, "step 2")]


def test_the_sdks_own_server_still_reports_progress_in_process(pool):
    """The SDK's ``MCPServer`` keeps its direct path (no JSON-RPC framing) and its progress."""
    srv = MCPServer("sdk", log_level="WARNING")

    @srv.tool()
    async def slow(ctx: Context, n: int = 3) -> str:
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"step {i}")
        return "done"

    pool.connect("sdk", server=srv)
    assert pool.connection("sdk").era == "modern"
    result, seen = progress_seen(pool, "sdk", {"n": 3})
    assert result.text == "done" and [m for _, _, m in seen] == ["step 0", "step 1", "step 2"]
