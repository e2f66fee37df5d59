"""A server's log is where its author finds what went wrong: for a server run in-process (the SDK's
``MCPServer``, a low-level ``Server``, FastMCP), the traceback of a raising tool (the real cause,
not the SDK's wrapper), a lifespan that fails at shutdown, an invalid ``tools/list`` (what is
wrong, and where), and the warnings raised in its code; none of it in the running cell. A log
notification's data reads as JSON there, as under the call; a stdio child lays out its tracebacks
for more than 80 columns.

Real servers only: in-process objects and a stdio subprocess, through a real :class:`~mcpnb.Pool`.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from pathlib import Path
from typing import Any

import fastmcp
import pytest
from mcp import types
from mcp.server import MCPServer, Server
from mcp.server.mcpserver import Context

from mcpnb.client.errors import ConnectError
from mcpnb.client.logfilter import remember_secrets

SECRET = "n0tes-s3cret-t0ken"


def said(pool: Any, name: str) -> list[str]:
    """The server's log lines without their time and server name: ``kind: message``."""
    return [line.split(f" {name} ", 1)[1] for line in pool.logs(name)]


def failing_lifespan() -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(server: Any):
        yield {}
        raise RuntimeError("teardown failed: db not closed")

    return lifespan


# ---------------------------------------------------------------------- a tool that raises


def test_an_mcpserver_tools_error_names_its_cause_and_keeps_its_traceback(pool, capfd):
    srv = MCPServer("notes", log_level="WARNING")

    @srv.tool()
    def boom(x: str) -> str:
        raise ValueError(f"bad x: {x}")

    pool.connect("notes", server=srv)
    capfd.readouterr()
    result = pool.call("notes", "boom", {"x": "hello"})
    assert result.is_error and "Error executing tool boom" in result.text  # the SDK tells the model no more
    lines = said(pool, "notes")
    # the summary names what was raised, not the SDK's UnexpectedToolError around it
    summary = next(i for i, line in enumerate(lines) if "raised an unexpected exception" in line)
    assert lines[summary].endswith("(ValueError: bad x: hello)")
    traceback = lines[summary + 1 :]
    assert traceback[0] == "sdk: Traceback (most recent call last):"
    # the whole chain: the tool's own frame and line, the cause, then the SDK's wrapper
    here = f'File "{__file__}", line'
    assert any(here in line and "in boom" in line for line in traceback)
    assert 'sdk:     raise ValueError(f"bad x: {x}")' in traceback
    assert "sdk: ValueError: bad x: hello" in traceback
    assert traceback[-1].endswith("UnexpectedToolError: Error executing tool boom")
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "bad x" not in out + err


def test_a_fastmcp_tools_error_keeps_its_traceback_too(pool, capfd):
    srv = fastmcp.FastMCP("media")

    @srv.tool
    def boom(x: str) -> str:
        raise ValueError(f"bad x: {x}")

    pool.connect("m", server=srv)
    capfd.readouterr()
    assert pool.call("m", "boom", {"x": "hi"}).is_error
    lines = said(pool, "m")
    summary = lines.index("server: [error] Error calling tool 'boom' (ValueError: bad x: hi)")
    assert lines[summary + 1] == "server: Traceback (most recent call last):"
    assert 'server:     raise ValueError(f"bad x: {x}")' in lines[summary:]
    assert lines[-1] == "server: ValueError: bad x: hi"
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


def test_a_traceback_in_the_log_is_redacted(pool):
    srv = MCPServer("notes", log_level="WARNING")

    @srv.tool()
    def leak() -> str:
        token = SECRET
        raise ValueError(f"refused token={token} for {SECRET}")

    class Owner:  # a connection that knows the secret, for as long as this test holds it
        pass

    owner = Owner()
    remember_secrets(owner, [SECRET])
    pool.connect("notes", server=srv)
    assert pool.call("notes", "leak", {}).is_error
    log = "\n".join(pool.logs("notes"))
    assert "raise ValueError" in log and "(ValueError: refused token=*** for ***)" in log
    assert SECRET not in log
    del owner


# ---------------------------------------------------------------------- a lifespan that fails at shutdown


@pytest.mark.parametrize("kind", ["mcpserver", "fastmcp"])
def test_a_lifespan_that_fails_at_shutdown_is_in_the_servers_log(pool, capfd, kind):
    def ok() -> str:
        return "ok"

    if kind == "mcpserver":
        srv: Any = MCPServer("notes", log_level="WARNING", lifespan=failing_lifespan())
        srv.tool()(ok)
    else:
        srv = fastmcp.FastMCP("notes", lifespan=failing_lifespan())
        srv.tool(ok)
    pool.connect("notes", server=srv)
    pool.reconnect("notes")  # the old session's end fails; the new one is fine
    assert pool.status()["notes"].state == "connected"
    failed = "server: [error] shutting the server down raised RuntimeError: teardown failed: db not closed"
    lines = said(pool, "notes")
    first = next(i for i, line in enumerate(lines) if line.startswith(failed))
    assert lines[first + 1] == "server: Traceback (most recent call last):"
    assert 'server:     raise RuntimeError("teardown failed: db not closed")' in lines[first:]
    assert lines.index("state: connecting to <in-process notes>", first) > first  # then the new session

    pool.disconnect("notes")  # not refused: the session is ended all the same
    lines = said(pool, "notes")
    assert sum(line.startswith(failed) for line in lines) == 2
    assert lines[-1] == "state: disconnected"

    pool.connect("notes", server=srv)  # a new connection, with a log of its own
    pool.close()
    lines = said(pool, "notes")
    assert sum(line.startswith(failed) for line in lines) == 1 and lines[-1] == "state: disconnected"
    out, err = capfd.readouterr()
    assert "teardown failed" not in out + err


def test_a_clean_shutdown_logs_nothing(pool):
    @contextlib.asynccontextmanager
    async def lifespan(server: Any):
        yield {}

    srv = MCPServer("notes", log_level="WARNING", lifespan=lifespan)
    pool.connect("notes", server=srv)
    pool.reconnect("notes")
    pool.disconnect("notes")
    assert not any("shutting the server down" in line for line in pool.logs("notes"))


# ---------------------------------------------------------------------- an invalid tools/list


def test_an_invalid_tool_list_says_which_tool_and_what_is_wrong(pool, capfd):
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name="a", input_schema={"type": "object"}),
                types.Tool(name="b", input_schema={"type": "object"}),
                types.Tool(name="c", input_schema={"type": "string"}),
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[])

    srv = Server("bad", on_list_tools=list_tools, on_call_tool=call_tool)
    capfd.readouterr()
    with pytest.raises(ConnectError) as failed:
        pool.connect("bad", server=srv)
    message = str(failed.value)
    assert "Handler returned an invalid result" in message
    # the tool is named: a list of forty tools with one wrong is no hunt by index
    assert (
        "'tools/list'" in message
        and """tools[2] ("c").inputSchema.type: Input should be 'object'""" in message
    )
    assert (
        pool.status()["bad"].last_error
        and 'tools[2] ("c").inputSchema.type' in pool.status()["bad"].last_error
    )
    # the pydantic traceback is in the server's log, not the cell's stderr
    lines = said(pool, "bad")
    summary = next(i for i, line in enumerate(lines) if "returned an invalid result" in line)
    assert lines[summary].startswith("sdk: [error] handler for 'tools/list' returned an invalid result")
    assert lines[summary + 1] == "sdk: Traceback (most recent call last):"
    assert any("ValidationError" in line for line in lines[summary:])
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "ValidationError" not in out + err


# ---------------------------------------------------------------------- warnings and log data


def test_a_servers_deprecation_warning_goes_to_its_log_once(pool, capfd):
    srv = fastmcp.FastMCP("fm")

    @srv.tool
    async def work(ctx: fastmcp.Context) -> str:
        await ctx.info("working")  # logging is deprecated on 2026-07-28: the SDK warns
        return "done"

    pool.connect("fm", server=srv)
    assert pool.connection("fm").era == "modern"
    capfd.readouterr()
    assert pool.call("fm", "work", {}).text == "done"
    assert pool.call("fm", "work", {}).text == "done"
    warned = [line for line in said(pool, "fm") if "MCPDeprecationWarning" in line]
    assert len(warned) == 1
    assert warned[0].startswith(
        "warning: MCPDeprecationWarning: The logging capability is deprecated as of 2026-07-28"
    )
    out, err = capfd.readouterr()
    assert "MCPDeprecationWarning" not in out + err


def test_log_data_in_the_servers_log_is_json(pool):
    srv = MCPServer("notes", log_level="WARNING")

    @srv.tool()
    async def work(ctx: Context) -> str:
        await ctx.log("info", {"msg": "working on 0", "extra": None, "ok": True})
        await ctx.log("info", "plain words")
        return "done"

    pool.connect("notes", server=srv, era="legacy")  # log notifications without a deprecation
    assert pool.call("notes", "work", {}).text == "done"
    lines = said(pool, "notes")
    assert 'log: info: {"msg": "working on 0", "extra": null, "ok": true}' in lines
    assert "log: info: plain words" in lines


# ---------------------------------------------------------------------- a stdio child's width

SHOW_COLUMNS = textwrap.dedent(
    """
    import os
    from mcp.server import MCPServer

    srv = MCPServer("cols", log_level="WARNING")

    @srv.tool()
    def columns() -> str:
        return os.environ.get("COLUMNS", "(unset)")

    srv.run()
    """
)


def test_a_stdio_child_is_told_a_width_its_env_may_change(pool, tmp_path: Path):
    script = tmp_path / "cols.py"
    script.write_text(SHOW_COLUMNS)
    pool.connect("cols", command=sys.executable, args=[str(script)])
    assert pool.call("cols", "columns", {}).text == "120"
    pool.connect("wide", command=sys.executable, args=[str(script)], env={"COLUMNS": "200"})
    assert pool.call("wide", "columns", {}).text == "200"
