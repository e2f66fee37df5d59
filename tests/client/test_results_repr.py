"""``repr(result)`` of structured results, and where ``.df``/``.dfs`` warnings point.

The SDK's ``MCPServer`` (as FastMCP) sends a list of models as structured content and, for old
clients, one pretty-printed JSON text per item: the repr opened with that mirror, a screen of
``{\\n  "id": 1,`` per row. It now leads with the data's shape and a short head."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from mcpnb.client.frames import FrameWarning, to_dataframe
from mcpnb.client.results import ToolResult

pytestmark = pytest.mark.anyio

server = MCPServer("repr-test", log_level="WARNING")


class Person(BaseModel):
    id: int
    name: str
    age: int


class Settings(BaseModel):
    theme: str
    font_size: int
    plugins: list[str]


@server.tool()
def people(n: int = 3) -> list[Person]:
    """A list of models: structured content, and one JSON text per item."""
    return [Person(id=i, name=f"p{i}", age=20 + i) for i in range(1, n + 1)]


@server.tool()
def settings() -> Settings:
    """One model: an object, not a table."""
    return Settings(theme="dark", font_size=13, plugins=["git", "lsp"])


@server.tool()
def findings() -> CallToolResult:
    """A summary of its own beside the data: that text is the server's words, not a mirror."""
    return CallToolResult(
        content=[TextContent(type="text", text="2 findings, 1 severe")],
        structured_content={"items": [{"rule": "S-EVAL", "line": 9}, {"rule": "R-BARE", "line": 10}]},
    )


@server.tool()
def graph() -> dict[str, Any]:
    """Two tables; the second has a key ``a.b`` beside ``b`` inside ``a``, which ``.df`` renames."""
    return {
        "nodes": [{"id": 1}, {"id": 2}],
        "edges": [{"a.b": 1, "a": {"b": 2}}, {"a.b": 3, "a": {"b": 4}}],
    }


async def call(tool: str, args: dict[str, Any] | None = None) -> ToolResult:
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool(tool, args or {})
    return ToolResult.from_sdk("s", tool, result, elapsed=0.01, output_schema=listed[tool].output_schema)


async def test_a_list_of_models_leads_with_its_shape_not_the_json_mirror() -> None:
    result = await call("people")
    assert '{\n  "id": 1' in result.text  # the SDK's mirror: one pretty-printed JSON per item
    head, shape, *rows = repr(result).splitlines()
    assert head.startswith("<ToolResult s.people ok") and head.endswith("schema ✓>")
    assert shape == "3 rows × 3 columns (result.df): id, name, age"
    assert rows == ['{"id": 1, "name": "p1", "age": 21}', '{"id": 2, "name": "p2", "age": 22}',
                    '{"id": 3, "name": "p3", "age": 23}']  # fmt: skip
    assert result.mirrored_texts == {0, 1, 2}  # what the display folds into one note, too


async def test_a_long_list_shows_a_short_head_and_says_how_many_rows_are_left() -> None:
    text = repr(await call("people", {"n": 1000}))
    assert "1000 rows × 3 columns (result.df)" in text and "… 995 more rows (result.df has them all)" in text
    assert len(text.splitlines()) == 8 and len(text) < 600


async def test_one_model_leads_with_its_keys() -> None:
    _, shape, head = repr(await call("settings")).splitlines()
    assert shape == "object, 3 keys: theme, font_size, plugins"
    assert head == '{"theme": "dark", "font_size": 13, "plugins": ["git", "lsp"]}'


async def test_a_text_of_the_servers_own_still_leads() -> None:
    _, said = repr(await call("findings")).splitlines()
    assert said == "2 findings, 1 severe"


async def test_several_tables_are_named_for_dfs() -> None:
    shape = repr(await call("graph")).splitlines()[1]
    assert shape == "object, 2 keys: nodes, edges; tables nodes, edges (result.dfs)"


async def test_df_and_dfs_warnings_point_at_the_callers_line() -> None:
    result = await call("graph")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frames = result.dfs
        edges = to_dataframe(result.data["edges"])
    assert [w.category for w in caught] == [FrameWarning, FrameWarning]
    assert all(w.filename == __file__ for w in caught), [(w.filename, w.lineno) for w in caught]
    assert list(frames["edges"].columns) == ["a.b", "a.b (2)"] == list(edges.columns)
    one = ToolResult(server="s", tool="t", content=[], structured=result.data["edges"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        one.df  # noqa: B018
    assert [w.filename for w in caught] == [__file__]
