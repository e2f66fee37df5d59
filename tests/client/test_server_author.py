"""mcpnb as a server author's dev loop: what a server in the making gets wrong is said plainly, and
nothing of mcpnb's own stands between the author and their server's answer.

- A ``print`` left in a stdio server is logged as kind ``stdout`` (not as stderr), redacted.
- A tool whose ``inputSchema`` is no valid JSON Schema is flagged where it is listed and shown
  (the listing, the tool's card, the log), and its calls still go out, checked by what is sound
  in the schema, without importing ``jsonschema``; so is a ``required`` name no property describes.
- An invalid ``tools/list`` names the tool that is wrong, not only its index.
- ``validate=False`` sends a tool the server does not list: the server's unknown-tool error is
  what the author tests.

Real servers: a hand-written stdio server (tests/servers/author_server.py: no SDK server sends
such lists), the SDK's low-level ``Server`` and ``MCPServer``, and FastMCP, in-process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.server import MCPServer, Server

from mcpnb.client.errors import ArgumentsError, CallError, ConnectError, ToolNotFoundError
from mcpnb.notebook.render.tool_card import tool_bundle
from mcpnb.notebook.render.tool_list import tools_bundle

AUTHOR = str(Path(__file__).resolve().parents[1] / "servers" / "author_server.py")
KEY = "wx-k3y-0f-the-weather-api"
BROKEN = {"type": "object", "properties": {"n": {"type": "integr"}}, "required": ["n"]}
INTEGR = "inputSchema is invalid: properties.n.type: 'integr' is not valid; did you mean 'integer'?"
NO_CITY = (
    "inputSchema: required 'city' is not among its properties, so no call can satisfy it "
    "(additionalProperties is false)"
)


def author(pool: Any, name: str = "wx", *flags: str, **options: Any) -> Any:
    """``pool`` connected to the hand-written stdio server as ``name``."""
    pool.connect(name, command=sys.executable, args=[AUTHOR, *flags], startup_timeout=20, **options)
    return pool


# ---------------------------------------------------------------------- a print() on stdout


def test_a_print_on_stdout_is_logged_as_stdout_not_stderr_and_redacted(pool):
    author(pool, "wx", "--chatty", env={"WEATHER_KEY": KEY})
    assert pool.call("wx", "echo", {"text": "hi"}).text == "hi"  # the stray lines are passed over
    logs = pool.logs("wx")
    said = [line.split(" wx ", 1)[1] for line in logs]
    assert "stdout: loading the weather model..." in said
    assert "stdout: debug: call echo (key ***)" in said  # the env's secret, scrubbed
    assert not any(line.startswith("stderr:") for line in said)
    assert not any(KEY in line or "not JSON-RPC" in line for line in logs)
    assert [e.kind for e in pool.connection("wx").events.history if "weather model" in e.message] == [
        "stdout"
    ]


# ---------------------------------------------------------------------- a broken inputSchema


def test_a_broken_input_schema_is_said_where_the_tool_is_listed_and_its_calls_go_out(pool):
    author(pool)
    tools = pool.tools("wx")
    assert tools["get_weather"].schema_problems == (INTEGR,)
    assert tools["needs_city"].schema_problems == (NO_CITY,)
    assert tools["echo"].schema_problems == ()
    listing = tools_bundle(tools)
    assert f"⚠ wx.get_weather: {INTEGR}" in listing["text/plain"].splitlines()
    assert f"⚠ wx.needs_city: {NO_CITY}" in listing["text/plain"].splitlines()
    assert "properties.n.type: &#x27;integr&#x27; is not valid" in listing["text/html"]
    card = tool_bundle(tools["get_weather"])["text/plain"]
    assert "⚠ inputSchema" in card.splitlines()[0] and f"⚠ problem: {INTEGR}" in card
    assert "⚠" not in tool_bundle(tools["echo"])["text/plain"]
    assert f"wx schema: tool 'get_weather': {INTEGR}" in "\n".join(pool.logs("wx"))

    assert pool.call("wx", "get_weather", {"n": 3}).text == "sunny 3"
    assert pool.call("wx", "get_weather", {"n": "x"}).text == "sunny x"  # no type to check: the server's
    with pytest.raises(ArgumentsError, match=r"(?s)'n'.*nothing was sent"):  # what is sound still checks
        pool.call("wx", "get_weather", {})


def test_a_broken_input_schema_costs_no_jsonschema_import():
    """``jsonschema`` takes seconds to import where JupyterLab is installed: a tool whose schema
    ``jsonschema-rs`` cannot compile is checked without it (in a fresh process, to see imports)."""
    script = textwrap.dedent(
        f"""
        import sys
        from mcpnb import Pool
        pool = Pool()
        try:
            pool.connect("wx", command=sys.executable, args=[{AUTHOR!r}], startup_timeout=20)
            print(pool.call("wx", "get_weather", {{"n": 3}}).text)
            try:
                pool.call("wx", "get_weather", {{}})
            except Exception as exc:
                print(type(exc).__name__)
            print("jsonschema" in sys.modules)
        finally:
            pool.close()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["sunny", "3", "ArgumentsError", "False"], done.stderr


def test_a_broken_input_schema_of_an_sdk_server(pool):
    """The SDK's low-level ``Server`` lists what its handler wrote: the same words, and the call
    reaches the handler."""
    calls: list[dict[str, Any]] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name="get_weather", input_schema=BROKEN),
                types.Tool(
                    name="needs_city",
                    input_schema={"type": "object", "properties": {"country": {}}, "required": ["cuntry"]},
                ),
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        calls.append(dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text="sunny")])

    pool.connect("sdk", server=Server("sdk", on_list_tools=list_tools, on_call_tool=call_tool))
    tools = pool.tools("sdk")
    assert tools["get_weather"].schema_problems == (INTEGR,)
    assert tools["needs_city"].schema_problems == (
        "inputSchema: required 'cuntry' is not among its properties, so a call must give it, "
        "undescribed; did you mean 'country'?",
    )
    assert pool.call("sdk", "get_weather", {"n": 3}).text == "sunny" and calls == [{"n": 3}]


def test_a_broken_input_schema_of_a_fastmcp_server(pool):
    """FastMCP lists the schema a tool declares; it checks arguments against its function, so the
    call that goes out is answered."""
    from fastmcp import FastMCP
    from fastmcp.tools import Tool

    def get_weather(n: int) -> str:
        return f"sunny {n}"

    server = FastMCP("fm")
    server.add_tool(Tool.from_function(get_weather).model_copy(update={"parameters": BROKEN}))
    pool.connect("fm", server=server)
    assert pool.tools("fm")["get_weather"].schema_problems == (INTEGR,)
    assert pool.call("fm", "get_weather", {"n": 3}).text == "sunny 3"


def test_what_is_not_a_mistake_is_not_flagged():
    """A ``required`` name outside ``properties`` is meant where something else admits it; a remote
    ``$ref`` is not fetched by our rule, no fault of the schema's."""
    from mcpnb.client.schemacheck import input_schema_problems

    fine = [
        {"type": "object", "properties": {"a": {}}, "required": ["a"]},
        {"type": "object", "required": ["a"]},  # no properties given: any name is described as well
        {"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": {}},
        {"type": "object", "properties": {"a": {}}, "required": ["b"], "patternProperties": {"^b": {}}},
        {"type": "object", "properties": {"a": {}}, "required": ["b"], "allOf": [{"properties": {"b": {}}}]},
        {"type": "object", "properties": {"a": {"$ref": "https://example.org/a.json"}}},
    ]
    assert [input_schema_problems(schema) for schema in fine] == [[]] * len(fine)
    assert input_schema_problems({"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}}}) == [
        "inputSchema is invalid: $ref: Pointer '/$defs/none' does not exist"
    ]
    assert input_schema_problems({"type": "object", "properties": {"n": {"minimum": "3"}}}) == [
        'inputSchema is invalid: properties.n.minimum: "3" is not of type "number"'
    ]


def test_a_schema_that_does_not_compile_still_checks_what_is_sound():
    """What breaks a schema checks nothing where it stands; the rest still checks a call."""
    from mcpnb.client.schemacheck import usable_check

    for broken in (
        {"type": "integr"},  # a misspelt type
        {"$ref": "https://example.org/a.json"},  # not fetched
        {"$ref": "#/$defs/none"},  # points nowhere
        5,  # no schema at all
    ):
        schema = {"type": "object", "properties": {"a": broken, "b": {"type": "integer"}}, "required": ["b"]}
        check = usable_check(schema)
        assert check.is_valid({"a": "anything", "b": 1}), broken
        assert not check.is_valid({"a": 1}) and not check.is_valid({"b": "x"}), broken


# ---------------------------------------------------------------------- an invalid tools/list


def test_a_tool_mcp_does_not_allow_is_kept_as_listed_and_the_others_work(pool):
    """The SDK refuses the whole list for one tool whose arguments are no object and one without a
    name (and with it every sound tool: the server was unusable). Each tool is read on its own:
    the bad one is kept as listed, said where it is listed and in the log, and called unchecked;
    the nameless one is left out (nothing could call it), said in the log."""
    author(pool, "bad", "--bad-list")
    listing = pool.tools("bad")
    assert [t.name for t in listing] == ["echo", "get_weather", "forecast", "needs_city"]
    forecast = next(t for t in listing if t.name == "forecast")
    assert forecast.not_mcp == "inputSchema.type: Input should be 'object'" and forecast.input_schema == {}
    assert (
        "⚠ bad.forecast: not as MCP describes a tool (inputSchema.type: Input should be 'object'); "
        "kept as listed" in repr(listing)
    )
    said = [line.split(" bad ", 1)[1] for line in pool.logs("bad")]
    assert "schema: tools/list: left out tools[4] (name: Field required): it has no name" in said
    assert sum("'forecast'" in line for line in said) == 1  # said once
    assert pool.call("bad", "forecast", {"anything": 1}).text == "None"  # sent unchecked, answered
    assert pool.call("bad", "echo", {"text": "hi"}).text == "hi"
    assert pool.status()["bad"].state == "connected"


def test_a_tool_list_wrong_elsewhere_still_says_where(pool):
    """Sound tools on a page whose ``nextCursor`` is a number: nothing to keep apart, the answer
    is refused with where (pydantic's own first line only counts its errors)."""
    with pytest.raises(ConnectError) as failed:
        author(pool, "bad", "--bad-cursor")
    said = "the server's tools/list answer is invalid: nextCursor: Input should be a valid string"
    assert str(failed.value) == f"could not connect to 'bad': {said}"
    assert pool.status()["bad"].last_error == said


# ---------------------------------------------------------------------- validate=False


def test_validate_false_sends_a_tool_the_server_does_not_list(pool):
    author(pool, disabled_tools=["needs_city"])
    with pytest.raises(ToolNotFoundError, match="has no tool 'get_wether'; did you mean 'get_weather'"):
        pool.call("wx", "get_wether", {"n": 1})
    with pytest.raises(CallError, match=r"Unknown tool: get_wether \(MCP error -32602\)"):
        pool.call("wx", "get_wether", {"n": 1}, validate=False)  # the server's own answer
    with pytest.raises(ToolNotFoundError, match="filtered out"):  # the person's filter still holds
        pool.call("wx", "needs_city", {}, validate=False)
    assert pool.call("wx", "echo", {"text": "still"}, validate=False).text == "still"


def test_validate_false_sends_an_unknown_tool_to_an_sdk_server(pool):
    server = MCPServer("sdk", log_level="WARNING")

    @server.tool()
    def hello() -> str:
        return "hello"

    pool.connect("sdk", server=server)
    with pytest.raises(ToolNotFoundError):
        pool.call("sdk", "nosuch", {})
    result = pool.call("sdk", "nosuch", {"x": 1}, validate=False)
    assert result.is_error and "Unknown tool: nosuch" in result.text


# ---------------------------------------------------------------------- a tool that raises

CRASHING = textwrap.dedent(
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    srv = MCPServer("crashing")

    @srv.tool()
    def divide(x: int) -> int:
        return 1 // x

    @srv.tool()
    def refuse() -> str:
        raise ToolError("no such city")
    """
)


def crashing_server(where: str, tmp_path: Path) -> dict[str, Any]:
    if where == "stdio":  # the SDK's MCPServer logs the traceback through rich, in a box
        script = tmp_path / "crashing.py"
        script.write_text(CRASHING + "\nsrv.run()\n")
        return {"command": sys.executable, "args": [str(script)]}
    scope: dict[str, Any] = {}
    exec(CRASHING, scope)  # the same server in this process: its traceback goes to the SDK's logger
    return {"server": scope["srv"]}


@pytest.mark.parametrize("where", ["stdio", "inprocess"])
def test_a_tool_that_raises_points_to_its_traceback_in_the_servers_log(pool, where, tmp_path):
    """The SDK keeps the exception's text on the server: the result says only "Error executing
    tool divide", so it says where the why is, and what it was."""
    pool.connect("calc", **crashing_server(where, tmp_path))
    result = pool.call("calc", "divide", {"x": 0})
    assert result.is_error and "ZeroDivisionError" not in result.text
    (pointer,) = [w for w in result.warnings if w.startswith("The server logged ")]
    assert "during the call (the first exception: ZeroDivisionError: integer division or modulo by zero)" in (
        pointer
    )
    count = int(pointer.split(" -n ", 1)[1].split()[0])
    assert pointer.endswith(f": %mcp logs calc -n {count} shows them (pool.logs('calc') in Python).")
    shown = pool.logs("calc")[-count:]
    assert any("ZeroDivisionError" in line for line in shown)
    assert not any(line.split(" calc ", 1)[1].startswith("state:") for line in shown)  # the call's lines


def test_a_tool_error_the_server_logged_nothing_about_has_no_pointer(pool, tmp_path):
    pool.connect("calc", **crashing_server("stdio", tmp_path))
    result = pool.call("calc", "refuse")
    assert result.is_error and result.text == "Error executing tool refuse: no such city"
    assert result.warnings == []
