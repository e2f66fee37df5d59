"""What a person writing their own server is told, in the words of how they run it.

- A server object run in-process whose tool asks the person (``ctx.elicit``) on a 2026-07-28
  session: the advice said to put ``--era legacy`` "before the -- of its command", and a server
  object has no command; it names ``%mcp connect NAME {{srv}} --era legacy`` instead. A server
  started as a command keeps the ``--`` words.
- A server file that builds a server and never runs it (no ``srv.run()``) exits 0 before the
  handshake: the error says what such a file lacks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcpnb.client.errors import CallError, ConnectError

try:  # the tool's annotation names it, so it is a module global
    import fastmcp
except ImportError:  # pragma: no cover - mcpnb itself does not need it
    fastmcp = None


class Name(BaseModel):
    name: str


def _asker() -> MCPServer:
    server = MCPServer("forms")

    @server.tool()
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", Name)
        return answer.data.name if answer.action == "accept" else answer.action

    return server


def test_an_in_process_server_that_asks_is_told_to_connect_with_era_legacy_not_before_a_dash_dash(pool):
    pool.connect("ctx", server=_asker())
    with pytest.raises(CallError) as said:
        pool.call("ctx", "ask", answers={"name": "Ada"})
    text = str(said.value)
    assert text.endswith(
        "connect it with --era legacy, %mcp connect ctx {{srv}} --era legacy "
        "(pool.connect('ctx', server=srv, era='legacy'))"
    ), text
    assert "before the --" not in text
    pool.connect("ctx", server=_asker(), era="legacy")  # what it says works
    assert pool.call("ctx", "ask", answers={"name": "Ada"}).text == "Ada"


NEVER_RUN = """\
from mcp.server.mcpserver import MCPServer
srv = MCPServer("norun")

@srv.tool()
def f() -> int:
    return 1
"""


@pytest.mark.timeout(60)
def test_a_server_file_that_never_starts_serving_is_told_so(pool, tmp_path: Path):
    script = tmp_path / "norun.py"
    script.write_text(NEVER_RUN)
    with pytest.raises(ConnectError) as said:
        pool.connect("norun", command=sys.executable, args=[str(script)], health_check_interval=0)
    text = str(said.value)
    assert "the server process exited (exit code 0) before it answered: does the file start serving?" in text
    assert 'srv.run() under if __name__ == "__main__":' in text


@pytest.mark.timeout(60)
def test_a_server_that_fails_at_start_is_not_told_to_start_serving(pool, tmp_path: Path):
    script = tmp_path / "bad.py"
    script.write_text("raise SystemExit(3)\n")
    with pytest.raises(ConnectError) as said:
        pool.connect("bad", command=sys.executable, args=[str(script)], health_check_interval=0)
    assert "exit code 3" in str(said.value) and "start serving" not in str(said.value)


def test_a_fastmcp_object_that_asks_is_told_the_same(pool):
    """FastMCP answers the call with an error of its own words; the advice after them names the
    in-process connect too."""
    if fastmcp is None:
        pytest.skip("fastmcp is not installed")
    server = fastmcp.FastMCP("f")

    @server.tool
    async def ask(ctx: fastmcp.Context) -> str:
        answer = await ctx.elicit("Name?", response_type=str)
        return str(answer)

    pool.connect("f", server=server)
    result = pool.call("f", "ask")
    assert result.is_error
    assert any("%mcp connect f {{srv}} --era legacy" in w for w in result.warnings), result.warnings
    assert not any("before the --" in w for w in result.warnings)
