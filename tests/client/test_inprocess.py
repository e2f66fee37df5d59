"""A FastMCP server written in a cell runs in-process like the SDK's own, inside its lifespan, as
FastMCP's own in-memory client runs it: FastMCP 4 is an implementation we did not write."""

from __future__ import annotations

import contextlib
from typing import Any

import fastmcp
import pytest
from mcp.types import ElicitResult

from mcpnb import Interaction
from mcpnb.client.interaction import CallContext


def weather(events: list[str]) -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(server: Any):
        events.append("start")
        try:
            yield {}
        finally:
            events.append("stop")

    srv = fastmcp.FastMCP("weather", lifespan=lifespan)

    @srv.tool
    def forecast(city: str, days: int = 3) -> list[dict]:
        """Forecast for a city."""
        return [{"day": i, "city": city, "temp": 20 + i} for i in range(days)]

    @srv.tool
    async def greet(ctx: fastmcp.Context) -> str:
        """Ask the person their name."""
        await ctx.info("about to ask")
        answer = await ctx.elicit("Your name?", response_type=str)
        return f"hello {answer.data}" if answer.action == "accept" else f"no name ({answer.action})"

    @srv.resource("data://cities")
    def cities() -> list[str]:
        return ["Paris", "Oslo"]

    @srv.prompt
    def ask(city: str) -> str:
        return f"What is the weather in {city}?"

    return srv


class Ada(Interaction):
    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        return ElicitResult(action="accept", content={"value": "Ada"})


def test_a_fastmcp_server_runs_in_process_inside_its_lifespan(pool):
    events: list[str] = []
    table = pool.connect("w", server=weather(events))
    assert table.state == "connected" and events == ["start"]
    assert {t.name for t in pool.tools("w")} == {"forecast", "greet"}
    result = pool.call("w", "forecast", {"city": "Paris", "days": 2})
    assert result.df is not None and list(result.df["temp"]) == [20, 21]
    assert pool.read("w", "data://cities").text == '["Paris", "Oslo"]'
    assert "Oslo" in pool.prompt("w", "ask", {"city": "Oslo"}).text
    pool.disconnect("w")
    assert events == ["start", "stop"]  # its shutdown hooks ran


def test_a_fastmcp_tool_asks_the_person_and_logs(pool):
    """FastMCP's ``ctx.elicit`` is a server-initiated request, which only the 2025-11-25 era has
    (on a 2026-07-28 connection FastMCP itself refuses it, and says so in the result)."""
    pool.interaction = Ada()
    pool.connect("w", server=weather([]), era="legacy")
    result = pool.call("w", "greet")
    assert result.text == "hello Ada"
    assert [log.data["msg"] for log in result.logs] == ["about to ask"]  # FastMCP logs {"msg", "extra"}
    pool.connect("m", server=weather([]))
    refused = pool.call("m", "greet")
    assert refused.is_error and "unavailable on 2026-07-28 connections" in refused.text


def test_anything_else_is_still_refused_by_name(pool):
    from mcpnb.client.errors import ConfigError

    class NotAServer:
        _mcp_server = "looks like one"

    with pytest.raises(ConfigError, match="or a FastMCP\\), not a NotAServer"):
        pool.connect("x", server=NotAServer())


def test_a_fastmcp_tools_traceback_goes_to_the_servers_log_not_the_cell(pool, capfd):
    """FastMCP logs a raising tool with a framed traceback on stderr (the running cell, in a
    kernel); run in-process, that goes to the server's log, as a stdio server's would (test_server_logs
    checks what the log holds)."""
    srv = fastmcp.FastMCP("media")

    @srv.tool
    def boom(x: int) -> int:
        raise ValueError(f"bad x {x}")

    pool.connect("m", server=srv)
    capfd.readouterr()
    result = pool.call("m", "boom", {"x": 3})
    assert result.is_error and "bad x 3" in result.text
    out, err = capfd.readouterr()
    assert "Traceback" not in err + out and "boom" not in err + out
    assert any(
        "server: [error] Error calling tool 'boom' (ValueError: bad x 3)" in line for line in pool.logs("m")
    )


@pytest.mark.parametrize("kind", ["sdk", "fastmcp"])
def test_a_tool_a_cell_adds_to_an_in_process_server_is_listed_at_once(pool, kind):
    """Neither server tells its client of a tool added outside a request; the listing asks again."""
    if kind == "sdk":
        from mcp.server.mcpserver import MCPServer

        srv: Any = MCPServer("grows", log_level="WARNING")
        srv.add_tool(lambda: "one", name="first")
    else:
        srv = fastmcp.FastMCP("grows")
        srv.tool(lambda: "one", name="first")
    pool.connect("grows", server=srv)
    assert [t.name for t in pool.tools("grows")] == ["first"]
    if kind == "sdk":
        srv.add_tool(lambda: "two", name="second")
    else:
        srv.tool(lambda: "two", name="second")
    assert [t.name for t in pool.tools("grows")] == ["first", "second"]
    assert pool.call("grows", "second").text == "two"


def test_an_in_process_server_that_is_down_lists_the_tools_it_had_and_says_so(pool):
    """Listed afresh while it is connected; once it failed, its cached list, marked stale (asking
    it afresh raised instead)."""
    from mcp.server.mcpserver import MCPServer

    starts = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Any):
        starts.append(1)
        if len(starts) > 1:
            raise RuntimeError("the database is gone")
        yield {}

    srv = MCPServer("flaky", log_level="CRITICAL", lifespan=lifespan)
    srv.add_tool(lambda: "hi", name="hello")
    pool.connect("f", server=srv, max_retries=0)
    assert [t.name for t in pool.tools("f")] == ["hello"] and pool.tools("f").stale is None
    with pytest.raises(Exception, match="the database is gone"):
        pool.reconnect("f")
    listed = pool.tools("f")
    assert [t.name for t in listed] == ["hello"]
    assert listed.stale is not None and listed.stale.said.startswith("f is failed since ")
