"""``ToolResult.df`` of a tool that answers in text: JSON (records, or column names with rows), or
rows written as Python writes them."""

from __future__ import annotations

import pandas as pd
import pytest
from mcp import types
from mcp.server.mcpserver import Image, MCPServer

from mcpnb.client.frames import NotTabularError
from mcpnb.client.results import PYTHON_TABLE_LIMIT, ToolResult, error_words

#: What mcp-server-sqlite 2025.4.25 (the SQLite reference server) answered to
#: ``read_query query="SELECT * FROM people ORDER BY age"``: ``str()`` of its rows.
SQLITE_ROWS = (
    "[{'id': 2, 'name': 'Bob', 'age': 27, 'city': 'Lyon'}, {'id': 1, 'name': 'Ann', 'age': 34, "
    "'city': 'Paris'}, {'id': 3, 'name': 'Céline', 'age': 41, 'city': None}]"
)

#: What mcp-server-motherduck 1.1.0 (DuckDB's server, a FastMCP one) answered to ``execute_query
#: sql="SELECT * FROM people"``: JSON text with the names and the rows apart, repeated as
#: ``structuredContent`` ``{"result": <the text>}`` (FastMCP's wrapper of a ``str`` answer).
DUCKDB_ROWS = """{
  "success": true,
  "columns": ["id", "name", "city", "score"],
  "columnTypes": ["INTEGER", "VARCHAR", "VARCHAR", "DECIMAL(2,1)"],
  "rows": [[1, "Ann", "Oslo", "3.5"], [2, "Bob", null, "4.0"]],
  "rowCount": 2
}"""


def duckdb_result() -> ToolResult:
    """The DuckDB server's answer: the text, and FastMCP's wrapper of it as structured content."""
    return ToolResult(
        server="duck",
        tool="execute_query",
        content=[types.TextContent(type="text", text=DUCKDB_ROWS)],
        structured={"result": DUCKDB_ROWS},
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
        "[" * 50_000 + "]" * 50_000,  # too deep for the parsers (3.13's json reads 5000 deep)
    ],
)
def test_text_that_is_no_literal_list_or_dict_is_not_a_table(text):
    with pytest.raises(NotTabularError, match="only text"):
        _ = text_result(text).df


def test_column_names_with_rows_are_the_table_not_one_row():
    """``.df`` was one row holding the lists (``columns``, ``rows``...): the query's answer is the rows."""
    df = duckdb_result().df
    assert list(df.columns) == ["id", "name", "city", "score"] and df["name"].tolist() == ["Ann", "Bob"]
    assert df["city"].isna().tolist() == [False, True]
    assert text_result(DUCKDB_ROWS).df.shape == (2, 4)  # the text alone reads the same


def test_a_flat_table_in_the_text_is_the_text_table_and_nothing_else_is():
    """What displays show as a table: a query's rows, not a tree, an error or a payload of its own."""
    wrapped = duckdb_result()
    assert wrapped.text_table is not None and wrapped.text_table["rows"][1][1] == "Bob"
    assert text_result(SQLITE_ROWS).text_table[2]["name"] == "Céline"
    tree = '[{"name": "src", "type": "directory", "children": [{"name": "a.py", "type": "file"}]}]'
    assert text_result(tree).text_table is None  # cells holding lists: shown as the text it is
    assert text_result(tree).df.shape == (1, 3)  # .df still reads it
    failed = text_result(DUCKDB_ROWS)
    failed.is_error = True
    own = text_result(DUCKDB_ROWS)
    own.structured = {"rows": 2}  # structured content that says something else: that is shown
    two = text_result(DUCKDB_ROWS)
    two.content.append(types.TextContent(type="text", text="2 rows"))
    assert failed.text_table is None and own.text_table is None and two.text_table is None
    assert text_result("ok").text_table is None and text_result("[1, 2]").text_table is None
    big_python = "[" + ", ".join(f"{{'id': {i}, 'name': None}}" for i in range(30_000)) + "]"
    assert len(big_python) > PYTHON_TABLE_LIMIT
    assert text_result(big_python).text_table is None  # a display does not spend seconds on it
    assert text_result(big_python).df.shape == (30_000, 2)  # .df, asked for, reads it


def test_df_reuses_the_table_a_display_read_in_the_text(monkeypatch):
    """A display reads the text once (``text_table``); ``.df`` after it does not parse it again."""
    import mcpnb.client.results as results

    result = duckdb_result()
    assert result.text_table is not None  # what rendering the result does

    def no_second_read(*_: object, **__: object) -> None:
        raise AssertionError("the text was read again")

    monkeypatch.setattr(results, "_table_in_text", no_second_read)
    assert result.df["name"].tolist() == ["Ann", "Bob"]


#: What @modelcontextprotocol/server-postgres 0.6.2 answered to ``query sql="select c.name,
#: count(o.id) as n, sum(o.total) as spent ..."`` on PostgreSQL 15: node-postgres writes BIGINT and
#: NUMERIC as strings (a JavaScript number cannot hold them exactly), so every count and sum is text.
POSTGRES_ROWS = """[
  {"name": "cust1", "n": "6", "spent": "33285.00", "zip": "01234", "last": "2026-12-04T14:48:46.191Z"},
  {"name": "cust500", "n": "6", "spent": "33265.98", "zip": "75001", "last": null}
]"""


def test_numbers_and_times_a_sql_server_wrote_as_text_are_numbers_and_times_in_df():
    """``.df["spent"].sum()`` joined the texts and ``.plot()`` found no numbers: node-postgres
    and DuckDB's server send NUMERIC, DECIMAL and BIGINT values as strings, times as ISO text."""
    df = text_result(POSTGRES_ROWS).df
    assert df["n"].dtype == "int64" and df["spent"].dtype == "float64"
    assert df["spent"].sum() == pytest.approx(66550.98) and df["n"].tolist() == [6, 6]
    assert df["zip"].tolist() == ["01234", "75001"]  # a leading zero: text, as written
    assert df["last"].tolist()[0] == pd.Timestamp("2026-12-04 14:48:46.191", tz="UTC")  # a JS Date: a time
    duck = duckdb_result().df  # names with rows, DECIMAL(2,1) as "3.5"
    assert duck["score"].tolist() == [3.5, 4.0] and duck["id"].tolist() == [1, 2]
    two = text_result('{"a": [{"n": "1"}, {"n": "2"}], "b": [{"n": "x"}]}').dfs
    assert two["a"]["n"].tolist() == [1, 2] and two["b"]["n"].tolist() == ["x"]  # .dfs alike


def test_structured_content_reads_them_too_unless_its_schema_gives_the_text_a_form():
    rows = [
        {"code": "7", "sku": "7", "day": "2026-12-01T10:00:00", "id": "7", "total": "3.10"},
        {"code": "8", "sku": "80", "day": None, "id": "8", "total": "8"},
    ]
    schema = {
        "type": "object",
        "properties": {
            "result": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "code": {"type": "string", "pattern": "^[0-9]+$"},  # a code: text
                        "sku": {"$ref": "#/$defs/Sku"},
                        "day": {"type": "string", "format": "date-time"},
                        "id": {"type": "string"},  # plain string: text, whatever it holds
                        "total": {"anyOf": [{"type": "number"}, {"type": "string"}]},  # a Decimal
                    },
                },
            }
        },
        "$defs": {"Sku": {"enum": ["7", "80"]}},
    }
    result = ToolResult(server="s", tool="t", content=[], structured={"result": rows}, output_schema=schema)
    df = result.df
    assert df["code"].tolist() == ["7", "8"] and df["sku"].tolist() == ["7", "80"]
    assert df["id"].tolist() == ["7", "8"] and df["day"].tolist()[0] == pd.Timestamp("2026-12-01 10:00")
    assert df["total"].tolist() == [3.1, 8.0]
    plain = ToolResult(server="s", tool="t", content=[], structured=[{"n": "7"}, {"n": "8"}])
    assert plain.df["n"].tolist() == [7, 8]  # no schema: read as the text is


def test_a_display_shows_numbers_as_written_and_says_df_reads_them_as_numbers():
    from mcpnb.notebook.render import result_bundle

    text = result_bundle(text_result(POSTGRES_ROWS))["text/plain"]
    assert "cust1    6  33285.00  01234" in text  # right-aligned, the trailing zeros kept
    assert "result.df reads n, spent as numbers and last as times (the server wrote them as text)" in text
    assert "reads" not in result_bundle(text_result(SQLITE_ROWS))["text/plain"]  # real numbers: no word


#: server-postgres 0.6.2's answer to ``select * from orders limit 2``: a JSONB column among plain ones.
POSTGRES_ORDERS = """[
  {"id": 1, "customer_id": 2, "total": "3.17", "items": [{"qty": 1, "sku": "A1"}]},
  {"id": 2, "customer_id": 3, "total": "6.34", "items": [{"qty": 2, "sku": "Ä2"}], "note": {"gift": true}}
]"""


def test_rows_with_a_json_column_are_a_table_with_the_json_in_its_cells():
    """A query's rows with a JSONB column were shown as 13 lines of JSON per row; a tree (cells
    holding rows of their own kind, a directory's ``children``) is still shown as its text."""
    from mcpnb.notebook.render import result_bundle

    result = text_result(POSTGRES_ORDERS)
    assert result.text_table is not None
    text = result_bundle(result)["text/plain"]
    assert ' 2            3   6.34  [{"qty": 2, "sku": "Ä2"}]  True' in text  # the list as JSON, as sent
    assert "note.gift" in text and result.df["note.gift"].tolist()[1] is True  # objects: columns, as .df
    tree = '[{"name": "src", "children": [{"name": "a.py"}]}, {"name": "b.py", "children": []}]'
    assert text_result(tree).text_table is None


#: What markitdown-mcp 0.0.1a4 (Microsoft's MarkItDown) answered to ``convert_to_markdown
#: uri=file:///…/report.csv``: the sheet as a Markdown table, repeated as ``{"result": <the text>}``.
MARKITDOWN_CSV = "| region | q1 | q2 |\n| --- | --- | --- |\n| north | 10 | 12 |\n| south | 7 |"


def test_a_text_that_is_one_markdown_table_is_a_table():
    """MarkItDown turns a CSV or a sheet into a Markdown table: ``.df`` said "only text"."""
    result = ToolResult(
        server="mid",
        tool="convert_to_markdown",
        content=[types.TextContent(type="text", text=MARKITDOWN_CSV)],
        structured={"result": MARKITDOWN_CSV},
    )
    assert result.text_table is not None
    df = result.df
    assert list(df.columns) == ["region", "q1", "q2"] and df["q1"].tolist() == [10, 7]
    assert df["q2"].tolist()[0] == 12 and pd.isna(df["q2"].tolist()[1])  # a short row ends in null
    for text in (
        "| a | a |\n| --- | --- |\n| 1 | 2 |",  # names that are not distinct
        "| a | b |\n| --- | --- |\n| 1 | 2 |\nsome words after it",  # more than the table
        "| a | b |\n| 1 | 2 |",  # no rule line: no table
        "a page\n\n| a | b |\n| --- | --- |\n| 1 | 2 |",  # a table inside a page
    ):
        assert text_result(text).text_table is None, text


#: What MLflow's MCP server (mlflow 3.17, ``mlflow mcp run``) answered to ``search_experiments``:
#: a fixed-width table under a rule of dashes, as the ``tabulate`` library writes one.
MLFLOW_EXPERIMENTS = """Experiment Id    Name     Artifact Location  
---------------  -------  -------------------
0                Default  /tmp/mlw/mlruns/0  
1                demo     /tmp/mlw/mlruns/1"""  # noqa: W291 (the server's trailing spaces)

#: ``tabulate(rows, headers)``'s "simple" format: numbers right-aligned, a missing cell blank.
TABULATE_SIMPLE = """  id  region      ratio  note
----  --------  -------  ----------
   1  north        1.5
  10  south       22.25  two words"""


def test_a_text_that_is_one_fixed_width_table_is_a_table():
    """MLflow's server answers in fixed-width tables: ``.df`` said "only text"."""
    from mcpnb.notebook.render import result_bundle

    experiments = text_result(MLFLOW_EXPERIMENTS)
    assert experiments.df.to_dict("list") == {
        "Experiment Id": [0, 1],
        "Name": ["Default", "demo"],
        "Artifact Location": ["/tmp/mlw/mlruns/0", "/tmp/mlw/mlruns/1"],
    }
    assert "Experiment Id  Name     Artifact Location" in result_bundle(experiments)["text/plain"]
    right = text_result(TABULATE_SIMPLE).df
    assert right["id"].tolist() == [1, 10] and right["ratio"].tolist() == [1.5, 22.25]
    assert right["note"].tolist() == ["", "two words"]
    for text in (
        "Title\n-----\nsome words",  # one underlined heading
        "a  b\n--  --\n1  2  3",  # a cell out of its columns
        "a  a\n--  --\n1  2",  # names that are not distinct
        "a  b\n--  --\n1  2\n\nsome words after it",  # more than the table
        "words -- and -- more\n--  --\n1  2",
    ):
        assert text_result(text).text_table is None, text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{\n  "success": false,\n  "error": "no such table: x",\n  "code": "E"\n}', "no such table: x"),
        ('{"error": {"code": -1, "message": "quota\\nexceeded"}}', "quota exceeded"),  # one line
        ('{"ok": false, "code": 7}', '{"ok": false, "code": 7}'),  # nothing that says: all of it
        ("[\n  1,\n  2\n]", "[1, 2]"),
        (
            "Error: (sqlite3.OperationalError) no such table\n[SQL: select]",
            "Error: (sqlite3.OperationalError) no such table",
        ),
        ("{not json", "{not json"),
        ("", "no message"),
        ("x" * 300, "x" * 199 + "…"),
    ],
)
def test_a_failed_calls_message_in_one_line(text: str, said: str) -> None:
    assert error_words(text) == said


def test_reading_a_models_field_never_touches_its_deprecated_wire_alias():
    """FastMCP, once imported, warns on every read of an SDK model's ``mimeType``: a notebook that
    showed a resource showed a deprecation warning under it."""
    import warnings

    import fastmcp  # noqa: F401  (the test extra has it: it adds the warning)
    from mcp import types

    from mcpnb.client.contents import pick

    plain = types.TextResourceContents(uri="file:///a", text="x")
    typed = types.TextResourceContents(uri="file:///a", text="x", mime_type="text/plain")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pick(plain, "mime_type", "mimeType") is None
        assert pick(typed, "mime_type", "mimeType") == "text/plain"
    assert pick({"mimeType": "text/csv"}, "mime_type", "mimeType") == "text/csv"  # a dict: any spelling


def test_df_of_an_answer_with_only_an_image_says_what_it_returned(pool):
    """The SDK's server answers a tool that returns an ``Image`` with one image block: ``.df``
    said "no text either", which left the person to guess what did come back."""
    server = MCPServer("pics", log_level="WARNING")

    @server.tool()
    def logo() -> Image:
        """The logo."""
        return Image(data=b"\x89PNG\r\n\x1a\n", format="png")

    pool.connect("pics", server=server)
    result = pool.call("pics", "logo")
    with pytest.raises(NotTabularError, match=r"no text either, only image content \(read \.content\)"):
        _ = result.df
