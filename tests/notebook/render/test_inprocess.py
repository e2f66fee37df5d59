"""Rendering real results from an in-process MCPServer (tables, JSON, images, errors, escaping)."""

from __future__ import annotations

import base64
import html as html_module
import json
import re
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import DEFAULTS, NotTabularError, result_bundle
from tests.media import png

pytestmark = pytest.mark.anyio


PNG = png()
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'

server = MCPServer("render-test", log_level="WARNING")


@server.tool()
def people(n: int = 3) -> list[dict[str, Any]]:
    """A list of records."""
    return [{"name": f"p{i}", "age": 20 + i} for i in range(n)]


@server.tool()
def nested(n: int = 2) -> list[dict[str, Any]]:
    """Records with nested objects (flattened into a.b columns)."""
    return [{"id": i, "address": {"city": f"c{i}", "geo": {"lat": i * 1.5}}} for i in range(n)]


@server.tool()
def columns() -> dict[str, list[int]]:
    """A dict of equally long lists."""
    return {"x": [1, 2, 3], "y": [4, 5, 6]}


@server.tool()
def page() -> dict[str, Any]:
    """Records inside an envelope, next to scalar metadata."""
    return {"rows": [{"k": "a"}, {"k": "b"}], "total": 2}


@server.tool()
def query() -> dict[str, Any]:
    """Column names and rows apart, with fields beside them (as DuckDB's MCP server answers)."""
    names = ["id", "name", "score"]
    return {"success": True, "columns": names, "rows": [[1, "Ann", 3.5], [2, "Bob", None]], "rowCount": 2}


@server.tool()
def sheet() -> dict[str, Any]:
    """A range of a sheet as rows of cells, the header first (as spreadsheet servers read one)."""
    return {"range": "A1:B3", "values": [["region", "sales"], ["north", 10], ["south", 7]]}


@server.tool()
def query_text() -> str:
    """The same rows as JSON text (how DuckDB's and other SQL servers answer: str, no schema)."""
    return json.dumps({"columns": ["id", "name"], "rows": [[1, "Ann"], [2, "Bob"]], "rowCount": 2}, indent=2)


@server.tool()
def tree_text() -> str:
    """A tree as JSON text: records whose cells hold lists are no table to show."""
    return json.dumps([{"name": "src", "children": [{"name": "a.py"}]}])


@server.tool()
def estimate(extra: int = 0) -> dict[str, Any]:
    """The answer in fields, its parts as a table (probe-kit's estimate has this shape)."""
    fields: dict[str, Any] = {"task": "<login>", "expected": 3.73, "range": {"low": 2.1, "high": 6.3}}
    fields["why"] = "two\nlines"
    fields |= {f"f{i:02}": i for i in range(extra)}
    return {**fields, "note": "n" * 500, "factors": [{"factor": "base", "weight": 2.0}]}


@server.tool()
def findings() -> CallToolResult:
    """A summary text next to the same data as records (what probe-kit's tools send)."""
    rows = [{"rule": "S-EVAL", "line": 9}, {"rule": "R-BARE-EXCEPT", "line": 10}]
    summary = "2 findings:\nS-EVAL at line 9\nR-BARE-EXCEPT at line 10"
    return CallToolResult(
        content=[TextContent(type="text", text=summary)], structured_content={"items": rows}
    )


@server.tool()
def answer() -> int:
    """A primitive (wrapped by the SDK as {"result": 42})."""
    return 42


@server.tool()
def files() -> list[str]:
    """Plain values (wrapped by the SDK as {"result": [...]})."""
    return ["a.py", "b.py", "a.py"]


@server.tool()
def config() -> dict[str, Any]:
    """A non-tabular object: JSON view."""
    return {"name": "<b>x</b>", "nested": {"deep": [1, 2, {"k": None}]}}


@server.tool()
def schema_of(tables: int = 3) -> dict[str, Any]:
    """Datasette's get_database_schema: a long text with line breaks beside a plain field."""
    sql = "\n".join(f"CREATE TABLE t{i}(id integer primary key, <name> text);" for i in range(tables))
    return {"database": "shop", "schema": sql, "tables": tables, "views": None}


@server.tool()
def read_source() -> dict[str, Any]:
    """A file beside its metadata, as a code server answers: text of lines, a small object, a long list."""
    symbols = [f"function_number_{i}" for i in range(12)]
    return {"path": "a.py", "content": "import os\nprint(os.sep)", "meta": {"lines": 2}, "symbols": symbols}


@server.tool(structured_output=False)
def read_source_text() -> str:
    """The same answer as JSON text only, as servers written before structured content answer."""
    return json.dumps({"path": "a.py", "content": "import os\nprint(os.sep)", "lines": 2})


@server.tool()
def use_notebook() -> CallToolResult:
    """Jupyter MCP Server's answer: its text, and the same text as a field of the structured content."""
    said = "[INFO] Connected to kernel 'a8d9'.\n\nIndex\tType\tFirst Line\n0\tmarkdown\tNew Notebook"
    return CallToolResult(
        content=[TextContent(type="text", text=said)],
        structured_content={"kind": "notebook.use", "result": said},
    )


@server.tool()
def sql_rows() -> dict[str, Any]:
    """Datasette's execute_sql: rows as objects beside the query's column names."""
    rows = [{"id": 1, "name": "Ann", "city": None}, {"id": 2, "name": "Bo", "city": "Nice"}]
    return {"database": "shop", "columns": ["id", "name", "city"], "rows": rows, "truncated": False}


#: DBHub 1.4 (``@bytebase/dbhub``, its demo database), recorded: a query's rows inside an envelope,
#: sent as JSON text; a failed one as a JSON error object whose first line is ``{``.
DBHUB_ROWS = {
    "success": True,
    "data": {
        "statements": [
            {
                "sql": "select emp_no, first_name, hire_date from employee limit 2",
                "rows": [
                    {"emp_no": 10001, "first_name": "Georgi", "hire_date": "1986-06-26"},
                    {"emp_no": 10002, "first_name": "Bezalel", "hire_date": "1985-11-21"},
                ],
                "count": 2,
            }
        ],
        "source_id": "default",
    },
}
DBHUB_ERROR = {"success": False, "error": "no such table: employees", "code": "EXECUTION_ERROR"}


@server.tool()
def execute_sql(fail: bool = False) -> CallToolResult:
    """DBHub's execute_sql: the envelope as indented JSON text, no structured content."""
    answer = json.dumps(DBHUB_ERROR if fail else DBHUB_ROWS, indent=2)
    return CallToolResult(content=[TextContent(type="text", text=answer)], is_error=fail)


@server.tool()
def analyze(rows: int = 3) -> dict[str, Any]:
    """Vizro's load_and_analyze_data (vizro-mcp 0.1.5): a DataFrame's info() text one object down."""
    info = "<class 'pandas.DataFrame'>\n" + "\n".join(
        f" {i}   col{i}  {rows} non-null  int64" for i in range(4)
    )
    return {
        "valid": True,
        "message": "Data loaded successfully",
        "df_info": {"general_info": info, "sample": {"col0": {"0": 1}}},
        "df_metadata": {"file_name": "sales", "file_location_type": "local"},
    }


@server.tool()
def gradio_sales() -> str:
    """A Gradio app's ``gr.Dataframe`` output through its MCP server (Gradio 6.31, recorded): the
    value as Python writes it, in one text block."""
    return (
        "{'headers': ['day', 'region', 'amount'], "
        "'data': [[1, 'south', 0.0], [2, 'south', 10.5]], 'metadata': None}"
    )


@server.tool()
def sources() -> list[dict[str, Any]]:
    """Files and their contents as rows, as a code-search server answers."""
    return [
        {"path": "a.py", "content": "import os\nprint(os.sep)\n", "lines": 2},
        {"path": "big.py", "content": "\n".join(f"x{i} = {i}" for i in range(400)), "lines": 400},
    ]


@server.tool()
def picture() -> Image:
    return Image(data=PNG, format="png")


@server.tool()
def vector() -> Image:
    return Image(data=SVG, format="svg+xml")


@server.tool(structured_output=False)
def hostile() -> str:
    return "<script>alert('x')</script> & <img src=x onerror=alert(1)>"


@server.tool()
def fail(message: str = "disk <script>full</script>") -> str:
    raise ToolError(message)


async def call(tool: str, args: dict[str, Any] | None = None) -> ToolResult:
    async with Client(server) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool(tool, args or {})
    return ToolResult.from_sdk("demo", tool, result, elapsed=0.01, output_schema=listed[tool].output_schema)


def rows_in(html: str) -> int:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return body.count("<tr")


async def test_records_become_a_table_with_schema_badge() -> None:
    r = await call("people", {"n": 3})
    b = result_bundle(r)
    assert set(b) == {"text/plain", "text/html"}
    assert "<table" in b["text/html"] and rows_in(b["text/html"]) == 3
    assert "3 rows × 2 columns" in b["text/html"]
    assert "✓ outputSchema" in b["text/html"]
    assert "schema ✓" in b["text/plain"]
    assert "p2" in b["text/plain"] and "age" in b["text/plain"]
    # the SDK's per-record JSON text copies are folded into one note, not shown three times
    assert "3 text blocks repeat the structured content" in b["text/html"]
    assert list(r.df.columns) == ["name", "age"] and len(r.df) == 3


async def test_a_table_is_shown_once_and_the_server_text_folded_under_it() -> None:
    b = result_bundle(await call("findings"))
    html = b["text/html"]
    table_at, folded_at = html.index("<table"), html.index("<details class='mcpnb-text-version'>")
    assert table_at < folded_at and html.index("2 findings:") > folded_at  # one click away, below
    assert '<th class="mcpnb-num">line</th>' in html and "<th>rule</th>" in html
    assert '<td class="mcpnb-num">9</td>' in html and "<td>S-EVAL</td>" in html
    text = b["text/plain"]
    assert "2 findings" not in text and "result.text" in text
    header = next(line for line in text.splitlines() if line.startswith("rule"))
    row = next(line for line in text.splitlines() if line.startswith("R-BARE"))
    assert header == "rule           line" and row == "R-BARE-EXCEPT    10"  # text left, numbers right


async def test_preview_truncates_at_display_limit() -> None:
    r = await call("people", {"n": 45})
    b = result_bundle(r, limit=10)
    assert rows_in(b["text/html"]) == 10
    assert "35 more rows" in b["text/html"] and "35 more rows" in b["text/plain"]
    old = DEFAULTS.display_limit
    DEFAULTS.display_limit = 40
    try:
        b = result_bundle(r)
        assert rows_in(b["text/html"]) == 40 and "5 more rows" in b["text/plain"]
    finally:
        DEFAULTS.display_limit = old
    assert len(r.df) == 45


async def test_nested_records_are_flattened() -> None:
    r = await call("nested", {"n": 2})
    assert list(r.df.columns) == ["id", "address.city", "address.geo.lat"]
    html = result_bundle(r)["text/html"]
    assert "address.geo.lat" in html and rows_in(html) == 2


async def test_dict_of_lists_and_enveloped_records() -> None:
    cols = await call("columns")
    assert cols.df.to_dict("list") == {"x": [1, 2, 3], "y": [4, 5, 6]}
    assert rows_in(result_bundle(cols)["text/html"]) == 3
    env = await call("page")
    assert env.df.to_dict("list") == {"k": ["a", "b"]}
    assert "2 rows × 1 column" in result_bundle(env)["text/html"]


async def test_the_fields_beside_a_table_are_shown_above_it() -> None:
    r = await call("estimate")
    b = result_bundle(r)
    text, html = b["text/plain"], b["text/html"]
    assert "structured content:\ntask      <login>\nexpected  3.73\n" in text
    assert 'range     {"low": 2.1, "high": 6.3}' in text and "\nwhy       two lines\n" in text
    note = next(line for line in text.splitlines() if line.startswith("note"))
    assert note.endswith("n…") and len(note) < 200  # one line each, however long the value
    assert "factors (1 row × 2 columns):\nfactor  weight\nbase       2.0" in text
    assert "<th>task</th><td>&lt;login&gt;</td>" in html and "<login>" not in html
    assert (
        html.index("<th>expected</th>")
        < html.index("factors · 1 row × 2 columns")
        < html.index("<td>base</td>")
    )
    assert list(r.df.columns) == ["factor", "weight"]  # .df is still the table
    many = result_bundle(await call("estimate", {"extra": 30}))["text/plain"]
    assert (
        re.search(r"\nf15 +15\n", many)
        and "f16" not in many
        and "… 15 more fields (result.data has them all)" in many
    )
    env = result_bundle(await call("page"))["text/plain"]
    assert "total  2\nrows (2 rows × 1 column):" in env


async def test_column_names_with_rows_show_as_the_table_with_the_fields_above() -> None:
    b = result_bundle(await call("query"))
    text, html = b["text/plain"], b["text/html"]
    table = "rows (2 rows × 3 columns):\nid  name  score\n 1  Ann     3.5\n"
    assert "success   true\nrowCount  2\n" + table in text
    assert "<th>name</th>" in html and "<td>Ann</td>" in html and "[[1," not in html


async def test_a_sheets_rows_show_as_the_table_under_the_header() -> None:
    r = await call("sheet")
    text = result_bundle(r)["text/plain"]
    assert "range  A1:B3\nvalues (2 rows × 2 columns):\nregion  sales\nnorth      10\nsouth       7" in text
    assert r.df["sales"].tolist() == [10, 7]


async def test_rows_written_as_json_text_show_as_the_table_with_the_text_folded() -> None:
    r = await call("query_text")
    assert r.structured == {"result": r.text}  # the SDK's wrapper of a str answer
    b = result_bundle(r)
    text, html = b["text/plain"], b["text/html"]
    table = "rows (2 rows × 2 columns):\nid  name\n 1  Ann\n 2  Bob"
    assert "the server's text, read as a table:\nrowCount  2\n" + table in text
    assert "(the server's text version of this result: result.text)" in text and '"columns"' not in text
    assert "<td>Ann</td>" in html and "<details class='mcpnb-text-version'>" in html
    tree = result_bundle(await call("tree_text"))["text/plain"]
    assert '"children"' in tree and "read as a table" not in tree


async def test_primitive_is_unwrapped_and_shown_as_json() -> None:
    r = await call("answer")
    assert r.data == 42
    b = result_bundle(r)
    assert "<details" in b["text/html"] and "<table" not in b["text/html"]
    assert "structured content · int" in b["text/html"]
    assert "42" in b["text/plain"]
    with pytest.raises(NotTabularError, match="not tabular"):
        _ = r.df


async def test_a_list_of_plain_values_is_json_on_screen_and_one_column_in_df() -> None:
    r = await call("files")
    assert r.data == ["a.py", "b.py", "a.py"] and "<table" not in result_bundle(r)["text/html"]
    assert r.df["value"].value_counts().to_dict() == {"a.py": 2, "b.py": 1}


async def test_non_tabular_object_is_a_collapsible_escaped_json_view() -> None:
    r = await call("config")
    html = result_bundle(r)["text/html"]
    assert "<details open>" in html and "<pre>" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert list(r.df.columns) == ["name", "nested.deep"] and len(r.df) == 1  # .df: one row


async def test_text_with_line_breaks_in_an_object_shows_as_the_lines_it_holds() -> None:
    r = await call("schema_of")
    b = result_bundle(r)
    text, html = b["text/plain"], b["text/html"]
    assert "\\n" not in text and "\\n" not in html  # no JSON escapes: the SQL as written
    sql = "CREATE TABLE t0(id integer primary key, <name> text);"
    assert f"database  shop\nschema:\n  {sql}\n  CREATE" in text
    assert "tables  3\nviews   null" in text  # the fields after it, in the server's order
    assert "<pre>CREATE TABLE t0(id integer primary key, &lt;name&gt; text);\nCREATE" in html
    assert "<name>" not in html
    big = result_bundle(await call("schema_of", {"tables": 5000}))  # stops where the JSON view would
    shown = html_module.unescape(big["text/html"].split("<pre>")[1].split("</pre>")[0])
    assert len(shown) == DEFAULTS.json_limit < len(r.data["schema"]) * 5000 / 3
    assert "more characters (result.data['schema'] has them all)" in big["text/plain"]


async def test_lines_one_object_down_show_as_lines_under_its_key() -> None:
    """Vizro's ``df_info.general_info`` was one line of ``\\n`` inside the JSON view."""
    r = await call("analyze")
    b = result_bundle(r)
    text, html = b["text/plain"], b["text/html"]
    assert (
        "valid    true\nmessage  Data loaded successfully\ndf_info (object, 2 keys):\n  general_info:\n"
        in text
    )
    assert "    <class 'pandas.DataFrame'>\n     0   col0  3 non-null  int64\n" in text
    assert '\n  sample  {"col0": {"0": 1}}\ndf_metadata  {"file_name": "sales"' in text
    assert '<div class="mcpnb-nested"><details open><summary>df_info · object, 2 keys</summary>' in html
    assert "\\n" not in text and "\\n" not in html


async def test_an_object_holding_lines_shows_its_other_values_whole() -> None:
    text = result_bundle(await call("read_source"))["text/plain"]
    assert 'path  a.py\ncontent:\n  import os\n  print(os.sep)\nmeta  {"lines": 2}\nsymbols:\n  [' in text
    assert '    "function_number_11"\n  ]' in text  # a list too long for a row: indented, whole


async def test_json_text_holding_lines_shows_the_lines_with_the_text_folded() -> None:
    r = await call("read_source_text")
    assert r.structured is None
    b = result_bundle(r)
    text, html = b["text/plain"], b["text/html"]
    assert "the server's text, read as JSON (object, 3 keys):\npath  a.py\ncontent:\n  import os\n" in text
    assert "(the server's text version of this result: result.text)" in text
    assert "<pre>import os\nprint(os.sep)</pre>" in html and "<details class='mcpnb-text-version'>" in html
    assert r.text_data["lines"] == 2 and r.text_table is None  # one object of lines, no table


async def test_a_text_that_a_field_of_lines_repeats_is_shown_once() -> None:
    b = result_bundle(await call("use_notebook"))
    text, html = b["text/plain"], b["text/html"]
    assert text.count("Connected to kernel") == 1 and html.count("Connected to kernel") == 1
    assert "kind  notebook.use\nresult:\n  [INFO] Connected" in text
    assert "1 text block repeats the structured content (result.text)" in html


async def test_rows_beside_their_column_names_show_as_the_table() -> None:
    r = await call("sql_rows")
    text = result_bundle(r)["text/plain"]
    assert "database   shop\ntruncated  false\nrows (2 rows × 3 columns):\nid  name  city\n 1  Ann" in text
    assert r.df["name"].tolist() == ["Ann", "Bo"] and list(r.df.columns) == ["id", "name", "city"]


async def test_rows_inside_an_envelope_are_the_table_and_its_wrapping_the_fields() -> None:
    """DBHub's answer: ``.df`` was one row holding the lists, the display 60 lines of JSON."""
    r = await call("execute_sql")
    assert r.df["first_name"].tolist() == ["Georgi", "Bezalel"] and r.df.shape == (2, 3)
    text = result_bundle(r)["text/plain"]
    assert "success    true\nsource_id  default\nsql        select emp_no" in text
    assert "data.statements[0].rows (2 rows × 3 columns):\nemp_no  first_name  hire_date" in text
    assert "10001  Georgi" in text and '"statements"' not in text.split("rows × 3 columns")[1]


async def test_a_gradio_dataframe_is_a_table() -> None:
    """.df was one row holding the lists ``headers`` and ``data``; the display the Python text."""
    r = await call("gradio_sales")
    assert r.df.columns.tolist() == ["day", "region", "amount"] and r.df["amount"].sum() == 10.5
    text = result_bundle(r)["text/plain"]
    assert "metadata  null\ndata (2 rows × 3 columns):\nday  region  amount\n  1  south      0.0" in text


async def test_a_failed_calls_df_says_the_servers_message_not_its_first_line() -> None:
    r = await call("execute_sql", {"fail": True})
    with pytest.raises(NotTabularError, match=r"failed, so there is no table: no such table: employees$"):
        _ = r.df  # the text's first line is "{"


async def test_a_cell_keeps_its_line_breaks_and_a_long_one_shows_its_start() -> None:
    r = await call("sources")
    b = result_bundle(r)
    html, text = b["text/html"], b["text/plain"]
    assert '<td class="mcpnb-lines">import os\nprint(os.sep)\n</td>' in html  # drawn as lines
    big = html.split('<td class="mcpnb-lines">x0 = 0')[1].split("</td>")[0]
    assert big.endswith("x9 = 9…") and big.count("\n") == 9  # ten lines of 400
    assert "a.py    import os\\nprint(os.sep)\\n" in text  # one row, one line
    row = next(line for line in text.splitlines() if line.startswith("big.py"))
    assert row.startswith("big.py  x0 = 0\\nx1 = 1") and "x9 = 9…" in row and row.endswith(" 400")
    assert r.df.loc[1, "content"].count("\n") == 399  # the data is whole


async def test_png_inline_and_as_its_own_bundle_key() -> None:
    r = await call("picture")
    b = result_bundle(r)
    data = base64.b64encode(PNG).decode()
    assert b["image/png"] == data
    assert f'<img src="data:image/png;base64,{data}"' in b["text/html"]
    assert f"[image image/png, {len(PNG)} B]" in b["text/plain"]


async def test_svg_drawn_through_img_and_never_as_markup_of_its_own() -> None:
    """A bundle's ``image/svg+xml`` entry is the server's markup, which a frontend may put in the
    page (its scripts run): the HTML's ``<img>`` draws it, which runs none."""
    r = await call("vector")
    b = result_bundle(r)
    assert "image/svg+xml" not in b
    assert 'src="data:image/svg+xml;base64,' in b["text/html"]


async def test_script_in_server_text_is_escaped() -> None:
    r = await call("hostile")
    b = result_bundle(r)
    html = b["text/html"]
    assert "<script>" not in html.replace("<style>", "")
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<script>alert('x')</script>" in b["text/plain"]  # the terminal gets the text as sent


async def test_error_result_renders_as_server_error() -> None:
    r = await call("fail")
    assert r.is_error
    b = result_bundle(r)
    html = b["text/html"]
    assert 'class="mcpnb-error"' in html and "The server reported an error" in html
    assert "disk &lt;script&gt;full&lt;/script&gt;" in html and "<script>" not in html
    assert "outputSchema" not in html  # errors are not checked against the schema
    assert b["text/plain"].startswith("demo.fail · error")
    assert "disk <script>full</script>" in b["text/plain"]


async def test_schema_mismatch_warns_but_still_shows_data() -> None:
    good = await call("people", {"n": 2})
    schema = {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "object", "required": ["email"]}}},
        "required": ["result"],
    }
    r = ToolResult(
        server="demo",
        tool="people",
        content=good.content,
        structured=good.structured,
        output_schema=schema,
        elapsed=0.01,
    )
    assert r.schema_valid is False
    b = result_bundle(r)
    html = b["text/html"]
    assert "⚠ outputSchema" in html and "&quot;email&quot; is a required property" in html
    assert rows_in(html) == 2  # the data is still shown
    assert "schema ⚠" in b["text/plain"] and '"email" is a required property' in b["text/plain"]


async def test_header_escapes_server_and_tool_names() -> None:
    r = ToolResult(server="<x>", tool="t<script>", content=[], elapsed=0.5)
    html = result_bundle(r)["text/html"]
    assert "&lt;x&gt;.t&lt;script&gt;" in html and "t<script>" not in html
    assert re.search(r"500 ms", html)


def test_declared_schema_without_structured_content_warns() -> None:
    from mcp import types

    r = ToolResult(
        server="demo",
        tool="t",
        content=[types.TextContent(type="text", text="plain only")],
        output_schema={"type": "object"},
    )
    b = result_bundle(r)
    assert "⚠ outputSchema" in b["text/html"] and "returned no structuredContent" in b["text/html"]
    assert "plain only" in b["text/plain"] and "schema ⚠" in b["text/plain"]
