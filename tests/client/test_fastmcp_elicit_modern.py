"""A FastMCP tool that asks with ``ctx.elicit()`` on a 2026-07-28 connection says what to do.

FastMCP answers such a call with a tool error, "elicitation via server-initiated requests is
unavailable on 2026-07-28 connections.", and mcpnb showed only that. The SDK's own servers raise
NoBackChannelError there, which mcpnb already explained ("connect it with --era legacy"). Now
FastMCP's words are kept and the same advice follows them; over the handshake era the same tool
asks its question and gets the answer.

FastMCP from its own venv (tests/peers/fastmcp_venv.py), over stdio, with a tool written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpnb.client.interaction import Interaction
from tests.peers.fastmcp_venv import fastmcp_python

ASKER = '''
from fastmcp import Context, FastMCP

mcp = FastMCP("asker")


@mcp.tool
async def ask_name(ctx: Context) -> str:
    """Ask for a name, then greet it."""
    answer = await ctx.elicit("Your name?", response_type=str)
    return f"hello {answer.data}" if answer.action == "accept" else f"no name ({answer.action})"


if __name__ == "__main__":
    mcp.run(show_banner=False)
'''

FASTMCP_SAYS = "elicitation via server-initiated requests is unavailable on 2026-07-28 connections."


@pytest.fixture
def asker(tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "asker.py"
    script.write_text(ASKER)
    return {"command": str(fastmcp_python()), "args": [str(script)], "health_check_interval": 0}


@pytest.mark.timeout(120)
def test_fastmcp_asking_on_a_modern_connection_keeps_its_words_and_says_to_connect_legacy(pool, asker):
    row = pool.connect("fm", era="modern", **asker)
    assert row.era == "modern"
    result = pool.call("fm", "ask_name")
    assert result.is_error and FASTMCP_SAYS in result.text, result.text  # the server's own words
    assert any(
        "connect it with --era legacy, before the -- of its command (era='legacy')" in w
        for w in result.warnings
    ), result.warnings
    assert "--era legacy" in repr(result)  # shown after the server's words


class _Names(Interaction):
    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        return ElicitResult(action="accept", content={"value": "Ada"})


@pytest.mark.timeout(120)
def test_the_same_tool_asks_over_the_handshake_era(pool, asker):
    pool.connect("fm", era="legacy", **asker)
    pool.interaction = _Names()
    result = pool.call("fm", "ask_name")
    assert not result.is_error and result.text == "hello Ada", result.text
    assert not result.warnings
