"""A wide table is cut by columns as a long one is by rows: the first and last few shown, a ``…``
column between them, and a line saying how many are hidden (``.df`` has them all). 300 columns
made a 40 KB table and one 10 KB line of text; pandas shows 20."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle

pytestmark = pytest.mark.anyio

server = MCPServer("wide-tables", log_level="WARNING")


@server.tool()
def wide(rows: int = 3, columns: int = 300) -> list[dict[str, Any]]:
    """A measurement table as wide as a sensor array: one column per channel."""
    return [{f"ch{j:03}": i * 1000 + j for j in range(columns)} for i in range(rows)]


@server.tool()
def wide_envelope(columns: int = 300) -> dict[str, Any]:
    """Column names beside rows of values, inside an envelope (a SQL server's answer)."""
    names = [f"col{j}" for j in range(columns)]
    return {"columns": names, "rows": [[j for j in range(columns)], [-j for j in range(columns)]]}


async def call(tool: str, args: dict[str, Any] | None = None) -> ToolResult:
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool(tool, args or {})
    return ToolResult.from_sdk("lab", tool, result, elapsed=0.01, output_schema=listed[tool].output_schema)


def header_cells(html: str) -> list[str]:
    head = html.split("<thead><tr>", 1)[1].split("</tr></thead>", 1)[0]
    return [cell.split(">", 1)[1].split("</th", 1)[0] for cell in head.split("<th")[1:]]


async def test_three_hundred_columns_show_the_first_and_last_few_and_say_how_many_are_hidden() -> None:
    result = await call("wide")
    bundle = result_bundle(result)
    html, text = bundle["text/html"], bundle["text/plain"]
    assert len(html) < 12_000  # was ~40 KB: every column of every row
    assert max(len(line) for line in text.splitlines()) < 300  # was one 10 KB line
    said = "… 280 more columns (result.df has them all)"
    assert said in html and said in text
    assert "3 rows × 300 columns" in html and "3 rows × 300 columns" in text
    cells = header_cells(html)
    assert cells[:10] == [f"ch{j:03}" for j in range(10)] and cells[10] == "…"
    assert cells[11:] == [f"ch{j:03}" for j in range(290, 300)]
    assert "ch150" not in html and "ch150" not in text
    assert "2299" in text and "2299" in html  # the last column's values are shown, right-aligned
    header = next(line for line in text.splitlines() if line.startswith("ch000"))
    assert "  …  " in header and header.endswith("ch299")
    frame = result.df  # nothing is lost
    assert frame.shape == (3, 300) and frame.loc[2, "ch150"] == 2150


async def test_column_names_beside_rows_are_cut_the_same_way() -> None:
    result = await call("wide_envelope")
    text = result_bundle(result)["text/plain"]
    assert "2 rows × 300 columns" in text and "… 280 more columns (result.df has them all)" in text
    assert "col149" not in text and "col299" in text
    assert result.df.shape == (2, 300)


async def test_twenty_columns_are_shown_whole() -> None:
    bundle = result_bundle(await call("wide", {"columns": 20}))
    assert "more column" not in bundle["text/plain"] and "…" not in header_cells(bundle["text/html"])
    assert header_cells(bundle["text/html"]) == [f"ch{j:03}" for j in range(20)]
