"""One tool in full (``%mcp tools NAME.TOOL``): read from a real in-process server's tool list, so
the schemas are what the SDK writes (``$defs`` for a model, ``anyOf`` with null for an optional)."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.render.tool_card import call_line, kind_words, tool_bundle

pytestmark = pytest.mark.anyio

server = MCPServer("card-test", log_level="WARNING")


class Style(BaseModel):
    bold: bool = False
    font_size: int = 11


@server.tool(title="Format a range")
def format_range(
    sheet: Literal["Sales", "Q1 plan"],
    cells: Annotated[str, Field(description="A1 range, like B2:D9")],
    style: Style,
    limit: Annotated[int, Field(ge=1, le=1000, description="at most\nthis many")] = 100,
    note: str | None = None,
    fallback: Style | None = None,
) -> list[dict[str, int]]:
    """Format cells <b>now</b>.

    Second paragraph, kept."""
    return []


@server.tool()
def ping() -> str:
    return "pong"


async def tools() -> dict[str, ToolInfo]:
    async with Client(server) as client:
        listed = (await client.list_tools()).tools
    return {t.name: ToolInfo.from_sdk("xl", t) for t in listed}


async def test_every_parameter_is_shown_with_its_type_default_and_description() -> None:
    card = tool_bundle((await tools())["format_range"])
    text, html = card["text/plain"], card["text/html"]
    assert text.startswith(
        "xl.format_range · Format a range\n\nFormat cells <b>now</b>.\n\nSecond paragraph, kept.\n"
    )
    assert 'sheet*: one of: "Sales", "Q1 plan"\n' in text
    assert "cells*: string\n    A1 range, like B2:D9\n" in text
    assert "style*: an object with keys bold, font_size\n" in text  # through the SDK's $defs
    assert "limit: integer, 1 to 1000 (default 100)\n    at most this many\n" in text  # one line
    assert "note: string or null (default null)\n" in text
    assert "fallback: an object with keys bold, font_size or null (default null)\n" in text
    assert "(* a call must give it)" in text
    assert "returns: structured content under result: a list of objects" in text
    assert "call it: %mcp call xl.format_range sheet=Sales cells=… style=…" in text
    assert "Format cells &lt;b&gt;now&lt;/b&gt;" in html and "<b>now</b>" not in html
    assert "<th>default</th>" in html and "<td>100</td>" in html


def test_a_description_loses_its_sources_indentation() -> None:
    """The Azure MCP Server (C#) writes its descriptions as indented verbatim strings."""
    pad = " " * 12
    said = (
        f"Azure best practices - Commands return a list\n{pad}when working with Azure.\n\n{pad}Call it first."
    )
    text = tool_bundle(ToolInfo("az", "bp", description=said))["text/plain"]
    assert (
        "\n\nAzure best practices - Commands return a list\nwhen working with Azure.\n\nCall it first.\n"
        in text
    )


async def test_a_tool_without_parameters_says_so() -> None:
    text = tool_bundle((await tools())["ping"])["text/plain"]
    assert "(no parameters)" in text and "* a call" not in text
    assert "(the server gives no description)" in text and text.endswith("call it: %mcp call xl.ping")


def test_kind_words() -> None:
    root: dict = {"$defs": {"Mode": {"enum": ["a", 2, None]}}}
    assert kind_words({"$ref": "#/$defs/Mode"}, root) == 'one of: "a", 2, null'
    assert kind_words({"const": "x"}, root) == 'always "x"'
    assert kind_words({"type": "number", "minimum": 0}, root) == "number, ≥ 0"
    assert kind_words({"type": "string", "format": "date"}, root) == "string (date)"
    assert kind_words({"type": "array", "items": {"type": "string"}}, root) == "a list of texts"
    assert kind_words({}, root) == "any value"
    many = {"enum": [f"v{i}" for i in range(20)]}
    assert kind_words(many, root).endswith(', "v7", … (20 values)')


def test_a_call_line_quotes_a_first_value_that_needs_it() -> None:
    tool = ToolInfo(
        "ev",
        "weather",
        input_schema={
            "properties": {"city": {"enum": ["New York", "Paris"]}, "n": {"enum": [3]}},
            "required": ["city", "n"],
        },
    )
    assert call_line(tool) == '%mcp call ev.weather city="New York" n=3'


def test_a_call_line_never_offers_a_value_with_double_braces() -> None:
    """A ``{{…}}`` in a line runs as Python: the first value of a hostile server's enum, copied
    from the card and run, would have run the server's code."""
    code = "{{__import__('os').system('id')}}"
    tool = ToolInfo(
        "ev",
        "pick",
        input_schema={
            "properties": {"mode": {"enum": [code, "safe"]}, "k": {"enum": [[code]]}},
            "required": ["mode", "k"],
        },
    )
    assert call_line(tool) == "%mcp call ev.pick mode=… k=…"


def test_a_malformed_schema_still_gives_a_card() -> None:
    """A server's ``properties`` written as a list of names: the card says what it can, and that
    the schema is invalid."""
    tool = ToolInfo("s", "t", input_schema={"properties": ["a", "b"], "required": ["a"]})
    text = tool_bundle(tool)["text/plain"]
    assert "a*: any value\nb: any value\n" in text and "call it: %mcp call s.t a=…\n" in text
    assert text.endswith('⚠ problem: inputSchema is invalid: properties: ["a","b"] is not of type "object"')


@server.tool(meta={"ui": {"resourceUri": "ui://xl/chart.html"}})
def chart() -> str:
    return "a chart"


@server.tool(meta={"ui": {"resourceUri": "ui://xl/chart.html", "visibility": ["app"]}})
def redraw() -> str:
    return "redrawn"


async def test_an_mcp_app_tool_says_it_has_a_page_and_who_may_call_it() -> None:
    """The SDK writes ``_meta`` as a server gives it; the card and the listing read it."""
    from mcpnb.client.toolinfo import ToolList
    from mcpnb.notebook.render.tool_list import tools_bundle

    listed = await tools()
    card = tool_bundle(listed["chart"])["text/plain"]
    assert card.startswith("xl.chart  [page]\n")
    assert "page: ui://xl/chart.html, an MCP App page that %mcp call draws above the result\n" in card
    app_only = tool_bundle(listed["redraw"])["text/plain"]
    assert app_only.startswith("xl.redraw  [page, pages only]\n")
    assert "; called by its server's pages only (never offered to a model)\n" in app_only
    assert "page:" not in tool_bundle(listed["ping"])["text/plain"]
    rows = tools_bundle(ToolList([listed["chart"], listed["ping"], listed["redraw"]]))["text/plain"]
    assert [line.split()[-1] for line in rows.splitlines()[1:4]] == ["page", "ping", "only"]
