"""``ToolResult.df`` of a tool that answers in text only: JSON, or rows written as Python writes them."""

from __future__ import annotations

import pytest
from mcp import types

from mcpnb.client.frames import NotTabularError
from mcpnb.client.results import ToolResult

#: What mcp-server-sqlite 2025.4.25 (the SQLite reference server) answered to
#: ``read_query query="SELECT * FROM people ORDER BY age"``: ``str()`` of its rows.
SQLITE_ROWS = (
    "[{'id': 2, 'name': 'Bob', 'age': 27, 'city': 'Lyon'}, {'id': 1, 'name': 'Ann', 'age': 34, "
    "'city': 'Paris'}, {'id': 3, 'name': 'Céline', 'age': 41, 'city': None}]"
)


def text_result(text: str) -> ToolResult:
    return ToolResult(server="db", tool="read_query", content=[types.TextContent(type="text", text=text)])


def test_rows_written_as_python_writes_them_are_a_table():
    df = text_result(SQLITE_ROWS).df
    assert list(df.columns) == ["id", "name", "age", "city"] and df["name"].tolist() == [
        "Bob",
        "Ann",
        "Céline",
    ]
    assert df["city"].isna().tolist() == [False, False, True]  # None, not the text "None"


@pytest.mark.parametrize(
    "text",
    [
        "[__import__('os').system('echo no')]",  # literals only: nothing runs
        "[{'a': 1}",  # cut short
        "{1, 2}",  # a set is no table
        "[" * 5000 + "]" * 5000,  # too deep for the parser
    ],
)
def test_text_that_is_no_literal_list_or_dict_is_not_a_table(text):
    with pytest.raises(NotTabularError, match="only text"):
        _ = text_result(text).df
