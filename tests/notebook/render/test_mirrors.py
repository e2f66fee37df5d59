"""The JSON text mirror of structured content is folded into one note, and only a true mirror is.

A large mirror is recognised by comparing it with the data serialized as servers write it, before
any parse (mcpnb/notebook/render/result.py): these check that this shortcut folds exactly what
parsing would, whatever the formatting, and never a text that says something else.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import types
from pydantic_core import to_json

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle

ROWS = [{"id": i, "name": f"row {i}", "score": i * 0.5, "city": "Zürich"} for i in range(2_000)]
DATA = {"rows": ROWS}  # ~130 kB as JSON: over the size where the serialized comparison starts
FOLDED = "1 text block repeats the structured content"
TEXT_VERSION = "the server's text version of this result"


def bundle(text: str, structured: Any = DATA) -> str:
    content = [types.TextContent(type="text", text=text)]
    result = ToolResult(server="s", tool="t", content=content, structured=structured)
    return result_bundle(result)["text/html"]


@pytest.mark.parametrize(
    "text",
    [
        to_json(DATA, indent=2).decode(),  # MCPServer; also JavaScript's JSON.stringify(data, null, 2)
        to_json(DATA).decode(),  # FastMCP (compact)
        json.dumps(DATA, indent=4),  # another indent
        json.dumps(DATA),  # json's default separators and \\u escapes: compared by parsing
        json.dumps({"rows": [dict(reversed(list(r.items()))) for r in ROWS]}),  # other key order: same JSON
    ],
    ids=["pydantic-indent-2", "pydantic-compact", "json-indent-4", "json-default", "other-key-order"],
)
def test_a_large_mirror_is_folded_however_it_is_formatted(text):
    html = bundle(text)
    assert FOLDED in html and TEXT_VERSION not in html


@pytest.mark.parametrize(
    "text",
    [
        to_json({"rows": [*ROWS[:-1], {**ROWS[-1], "score": 0}]}, indent=2).decode(),  # one value differs
        to_json({"rows": ROWS[:-1]}, indent=2).decode(),  # one row short
        to_json(DATA, indent=2).decode() + " trailing words",  # not JSON any more
        "id  name\n" + "\n".join(f"{r['id']}  {r['name']}" for r in ROWS),  # a text table
    ],
    ids=["one-value-differs", "one-row-short", "not-json", "text-table"],
)
def test_a_large_text_that_says_something_else_is_not_folded(text):
    html = bundle(text)
    assert FOLDED not in html and TEXT_VERSION in html


def test_a_mirror_of_the_sdk_wrapper_or_of_each_list_item_is_folded():
    wrapped = {"result": ROWS}  # the SDK wraps a list result; the mirror may hold the bare list
    assert FOLDED in bundle(to_json(ROWS, indent=2).decode(), wrapped)
    items = [types.TextContent(type="text", text=json.dumps(r)) for r in ROWS[:3]]
    result = ToolResult(server="s", tool="t", content=items, structured={"result": ROWS[:3]})
    assert "3 text blocks repeat the structured content" in result_bundle(result)["text/html"]


def test_a_large_text_equal_to_string_structured_content_is_folded():
    text = "x" * 100_000  # not JSON: compared as text, as before
    assert FOLDED in bundle(text, text)


def test_folding_a_large_mirror_does_not_parse_a_second_copy_of_it():
    """Python allocations while drawing a mirrored table (pandas already imported). Measured: 1.9×
    the mirror's size with the serialized comparison, 3.6× when the mirror is parsed."""
    import gc
    import tracemalloc

    data = {"rows": [{"id": i, "name": f"row {i}", "score": i * 0.5} for i in range(30_000)]}  # ~2 MB
    text = to_json(data, indent=2).decode()
    bundle(text, data)  # imports what drawing needs
    gc.collect()
    tracemalloc.start()
    try:
        html = bundle(text, data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert FOLDED in html
    assert peak < 2.6 * len(text), f"drawing peaked at {peak / len(text):.2f}× the mirror's size"


def test_a_tool_that_returns_a_string_shows_it_once():
    """MCPServer and FastMCP wrap a returned string as ``{"result": <the text>}`` beside the text:
    the text is shown (the full suite's notebook caught it hidden as a mirror and the payload folded
    into a note, so nothing showed)."""
    content = [types.TextContent(type="text", text="Hello, Ada!")]
    result = ToolResult(server="s", tool="greet", content=content, structured={"result": "Hello, Ada!"})
    plain = result_bundle(result)["text/plain"]
    assert plain.count("Hello, Ada!") == 1 and "{'result': the content above}" in plain
