"""Progress a server in this process sends reaches the call's progress callback, for every kind the
SDK's client runs in-process (its ``MCPServer``, its low-level ``Server``; FastMCP's is
``test_fastmcp_progress``), on both eras.

The low-level ``Server`` is written both ways the SDK allows: the 1.x way (the request's
``progress_token`` from ``ctx.meta``, then ``send_progress_notification``), which the SDK's direct
in-process path for 2026-07-28 left without a token, and ``ctx.session.report_progress``.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer

from .test_fastmcp_progress import progress_seen

STEPS = ["step 0", "step 1", "step 2"]


def lowlevel(style: str) -> Server:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="slow", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        token = (ctx.meta or {}).get("progress_token")
        for i, message in enumerate(STEPS):
            if style == "session":
                await ctx.session.report_progress(i + 1, len(STEPS), message)
            elif token is not None:
                await ctx.session.send_progress_notification(
                    token, i + 1, len(STEPS), message, related_request_id=ctx.request_id
                )
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"done (token: {token!r})")])

    return Server("ll", on_list_tools=list_tools, on_call_tool=call_tool)


def sdk_server() -> MCPServer:
    srv = MCPServer("sdk", log_level="WARNING")

    @srv.tool()
    async def slow(ctx: Context) -> str:
        for i, message in enumerate(STEPS):
            await ctx.report_progress(i + 1, len(STEPS), message)
        return "done"

    return srv


@pytest.mark.parametrize("era", ["auto", "legacy"])
@pytest.mark.parametrize("style", ["token", "session"])
def test_a_low_level_servers_progress_arrives_in_process(pool, era, style):
    pool.connect("ll", server=lowlevel(style), era=era)
    assert pool.connection("ll").era == ("legacy" if era == "legacy" else "modern")
    result, seen = progress_seen(pool, "ll")
    assert not result.is_error and result.text.startswith("done")
    assert seen == [(1, 3, "step 0"), (2, 3, "step 1"), (3, 3, "step 2")]


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_the_sdks_mcpserver_reports_progress_in_process_on_both_eras(pool, era):
    pool.connect("sdk", server=sdk_server(), era=era)
    result, seen = progress_seen(pool, "sdk")
    assert result.text == "done" and [m for _, _, m in seen] == STEPS
