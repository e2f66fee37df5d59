"""``ToolInfo.text_parameter``: where a bare value may go, and where it would be a guess."""

from __future__ import annotations

import pytest

from mcpnb.client.toolinfo import ToolInfo, one_left


def tool(properties: dict, required: list[str] | None = None) -> ToolInfo:
    schema = {"type": "object", "properties": properties, "required": required or []}
    return ToolInfo(server="s", name="t", description=None, input_schema=schema)


TEXT = {"type": "string"}


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (tool({"sql": TEXT}, ["sql"]), "sql"),  # DuckDB's execute_query
        (tool({"sql": TEXT}), "sql"),  # the only one, optional
        (tool({"url": TEXT, "wait": {"type": "number"}}, ["url"]), "url"),  # one required among others
        (tool({"q": {"type": ["string", "null"]}}, ["q"]), "q"),
        (tool({"q": {"anyOf": [TEXT, {"type": "null"}]}}, ["q"]), "q"),
        (tool({"page": {"type": "number"}, "js": TEXT}, ["page", "js"]), None),  # two required
        (tool({"a": TEXT, "b": TEXT}), None),  # two optional: which one?
        (tool({"n": {"type": "integer"}}, ["n"]), None),  # not text
        (tool({}), None),
    ],
)
def test_the_one_text_parameter(info: ToolInfo, expected: str | None) -> None:
    assert info.text_parameter == expected


def test_the_one_text_parameter_the_given_arguments_leave() -> None:
    sql = tool({"database": TEXT, "sql": TEXT}, ["database", "sql"])  # Datasette's execute_sql
    assert sql.text_parameter is None and sql.text_parameter_left({"database"}) == "sql"
    assert sql.text_parameter_left({"database", "sql"}) is None
    slow = tool({"seconds": {"type": "number"}, "tag": TEXT}, ["seconds"])
    assert (
        slow.text_parameter is None and slow.text_parameter_left({"seconds"}) == "tag"
    )  # the optional one left


def test_one_left_is_the_one_rule_for_tools_and_prompts() -> None:
    assert one_left(["city"], ["city", "state"]) == "city"  # the one required
    assert one_left(["city"], ["city", "state"], {"city"}) == "state"  # the one left once city is given
    assert one_left([], ["a", "b"]) is None and one_left(["a", "b"], ["a", "b"]) is None  # which one?


def test_a_malformed_schema_has_none() -> None:
    malformed = ToolInfo(server="s", name="t", description=None, input_schema={"properties": []})
    assert malformed.text_parameter is None


@pytest.mark.parametrize(
    ("description", "markdown"),
    [
        ("Fetches a URL from the internet and optionally extracts its contents as markdown.", True),  # fetch
        (
            "Convert a resource described by an http:, https:, file: or data: URI to markdown",
            True,
        ),  # MarkItDown
        ("Returns GitHub-flavored Markdown for the page", True),
        ("Converts markdown to HTML", False),  # it takes Markdown; it answers in HTML
        ("Create an issue; the body may use Markdown", False),
        ("Read the complete contents of a file as text", False),
        (None, False),
    ],
)
def test_a_tool_that_says_it_answers_in_markdown(description, markdown):
    assert ToolInfo(server="s", name="t", description=description).answers_in_markdown is markdown


def test_a_peers_markdown_page_is_drawn_as_markdown_called_or_run_as_a_task(pool, fastmcp_url):
    """FastMCP's ``page`` "Returns the page as Markdown": its text is drawn as Markdown, whether
    the call answered at once or as a task (whose result is built from the task's own handle)."""
    from mcpnb.notebook.render import result_bundle

    pool.connect("fm", url=fastmcp_url)
    for result in (
        pool.call("fm", "page", {"title": "Steps"}),
        pool.call("fm", "page", {"title": "Steps"}, task=True).result(timeout=60),
    ):
        assert result.markdown and not result.is_error
        html = result_bundle(result)["text/html"]
        assert "<h2>Steps</h2>" in html and "<th>step</th>" in html and "<td>fetch</td>" in html
    assert not pool.call("fm", "echo", {"text": "## not a page"}).markdown


QUERY = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "params": {"type": "object"}},
    "required": ["query"],
}


@pytest.mark.parametrize(
    ("name", "description", "marked"),
    [
        ("execute_query", "Execute a SQL query and return results", True),  # mcp-alchemy
        ("query", "Run a read-only SQL query", True),  # the PostgreSQL reference server
        ("execute_sql", None, True),
        ("search", "Search the catalog for a query", False),  # a search: one line
        ("mysql_query", None, False),  # "sql" inside a word says nothing
    ],
)
def test_a_tool_that_runs_sql_has_its_query_drawn_as_lines(name, description, marked):
    """A form gives the query a box that keeps lines: the parameter's name says nothing, the tool says SQL."""
    from mcpnb.client.elicitation.fields import fields_from_schema

    tool = ToolInfo("db", name, description=description, input_schema=QUERY)
    query = {f.name: f for f in fields_from_schema(tool.form_schema)}["query"]
    assert query.takes_lines is marked
    assert tool.input_schema == QUERY  # what is sent and checked is the server's schema
