"""A FastMCP 4 server whose tool and prompt lists change during a session: ``unlock`` shows this
session the tools and prompts tagged ``admin`` (FastMCP's per-session visibility), and FastMCP tells
the client with ``notifications/tools/list_changed`` and ``notifications/prompts/list_changed``.
An implementation of list_changed we did not write; it never
imports mcpnb. Runs in the FastMCP virtual environment (``tests/peers/fastmcp_venv.py`` builds it)::

    python fastmcp_visibility_server.py
"""

from __future__ import annotations

from fastmcp import Context, FastMCP

mcp = FastMCP("visibility-peer")


@mcp.tool
async def unlock(ctx: Context) -> str:
    """Show this session the admin tools."""
    await ctx.enable_components(tags={"admin"})
    return "unlocked"


@mcp.tool(tags={"admin"})
def reset() -> str:
    """An admin tool, hidden until unlock."""
    return "reset done"


@mcp.prompt
def hello(name: str) -> str:
    """A prompt everyone sees."""
    return f"Say hello to {name}."


@mcp.prompt(tags={"admin"})
def audit(area: str) -> str:
    """An admin prompt, hidden until unlock."""
    return f"Audit {area}."


mcp.disable(tags={"admin"})

if __name__ == "__main__":
    mcp.run(show_banner=False)
