"""The tools listing (``ToolList``) and the status table, from real tool descriptions."""

from __future__ import annotations

from datetime import datetime

import pytest
from mcp import Client, StdioServerParameters

from mcpnb.client.status import ServerStatus, StatusTable
from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.render import ToolList, status_bundle, tools_bundle

from .test_inprocess import server as demo_server


@pytest.fixture(scope="module")
async def tools(everything: str) -> ToolList:
    out = ToolList()
    async with Client(demo_server) as client:
        out.extend(ToolInfo.from_sdk("demo", t) for t in (await client.list_tools()).tools)
    params = StdioServerParameters(command="node", args=[everything, "stdio"])
    async with Client(params) as client:
        out.extend(ToolInfo.from_sdk("everything", t) for t in (await client.list_tools()).tools)
    return out


@pytest.mark.anyio
async def test_tools_table(tools: ToolList) -> None:
    b = tools._repr_mimebundle_()
    html, text = b["text/html"], b["text/plain"]
    assert set(b) == {"text/plain", "text/html"}
    assert html.count("<tr>") == len(tools) + 1  # header + one row per tool
    assert "<code>n</code>" in html  # demo.people(n=3): optional, no star
    assert text.splitlines()[0].split() == ["server", "tool", "title", "description", "parameters", "hints"]
    sum_row = next(line for line in text.splitlines() if "get-sum" in line)
    assert "a*, b*" in sum_row
    assert "<code title=" in html and "a<b>*</b></code>" in html
    echo = tools["everything.echo"]
    assert echo.name == "echo" and tools["mcp__everything__echo"] is echo
    assert 'mcpnb-badge mcpnb-ok">read-only' in html
    first = f"{tools[0].server}.{tools[0].name}"
    assert f"* required parameter · one in full: %mcp tools {first}</div>" in html  # found by reading
    labels = {ann for t in tools if t.annotations for ann in t.annotations}
    assert labels & {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


def test_tool_badges_and_escaping() -> None:
    evil = ToolInfo(
        server="s<1>",
        name="drop<script>",
        title="Drop & burn",
        description="Deletes <b>everything</b>.\nSecond line is not in the short form. " + "x" * 200,
        input_schema={
            "type": "object",
            "properties": {
                "table": {"type": "string", "description": "which <table>"},
                "force": {"type": "boolean"},
            },
            "required": ["table"],
        },
        annotations={"destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
    )
    reader = ToolInfo(server="s", name="peek", annotations={"readOnlyHint": True, "destructiveHint": True})
    tl = ToolList([evil, reader])
    html = tools_bundle(tl)["text/html"]
    assert "<script>" not in html and "drop&lt;script&gt;" in html and "s&lt;1&gt;" in html
    assert "<summary>Deletes &lt;b&gt;everything&lt;/b&gt;.</summary>" in html  # first line in the cell
    assert "Second line is not in the short form. " + "x" * 200 in html  # one click away, whole
    assert html.count("Second line") == 1  # written once (a title= copy doubled a long one)
    assert 'mcpnb-badge mcpnb-bad">destructive' in html
    assert ">idempotent<" in html and ">closed-world<" in html
    assert 'title="which &lt;table&gt;">table<b>*</b></code>' in html
    # read-only overrides a contradictory destructive hint
    peek_row = html.split("peek")[1]
    assert ">read-only<" in peek_row and ">destructive<" not in peek_row
    text = repr(tl)
    assert "table*, force" in text and "destructive idempotent closed-world" in text
    df = tl.df
    assert list(df["tool"]) == ["drop<script>", "peek"] and df.loc[0, "required"] == ["table"]
    assert bool(df.loc[1, "readOnlyHint"]) is True and df.loc[0, "readOnlyHint"] is None


def test_title_and_hints_columns_only_when_a_tool_has_them() -> None:
    plain = ToolList([ToolInfo(server="s", name="a", description="short"), ToolInfo(server="s", name="b")])
    b = tools_bundle(plain)
    assert b["text/plain"].splitlines()[0].split() == ["server", "tool", "description", "parameters"]
    assert "<th>title</th>" not in b["text/html"] and "<th>hints</th>" not in b["text/html"]
    assert "<details" not in b["text/html"]  # nothing hidden, nothing to unfold
    titled = ToolList([*plain, ToolInfo(server="s", name="c", title="Cee")])
    assert titled._repr_mimebundle_()["text/plain"].splitlines()[0].split()[2] == "title"
    hinted = ToolList([*plain, ToolInfo(server="s", name="d", annotations={"readOnlyHint": True})])
    assert "<th>hints</th>" in tools_bundle(hinted)["text/html"]
    cut = ToolList([ToolInfo(server="s", name="long", description="word " * 40)])
    assert "…" in tools_bundle(cut)["text/plain"]  # a terminal sees that it was cut


def test_many_parameters_are_counted_not_all_written_in_text() -> None:
    """A browser tool with eleven parameters made every row of the text listing 250 wide; the
    needed ones always show, the HTML keeps them all."""
    names = ["pageId", *(f"optionalSetting{i}" for i in range(10)), "target"]
    props = {n: {"type": "string"} for n in names}
    tool = ToolInfo(
        server="cd", name="emulate", input_schema={"properties": props, "required": ["pageId", "target"]}
    )
    b = tools_bundle(ToolList([tool]))
    row = b["text/plain"].splitlines()[1]
    assert row.endswith("pageId*, optionalSetting0, optionalSetting1, target*, … +8")
    assert all(f"<code>{n}" in b["text/html"] for n in names)


def test_tools_limit_and_empty() -> None:
    many = ToolList(ToolInfo(server="s", name=f"t{i}") for i in range(30))
    b = tools_bundle(many, limit=10)
    assert b["text/html"].count("<tr>") == 11 and "20 more tools" in b["text/html"]
    assert "20 more tools" in b["text/plain"]
    assert isinstance(many[:3], ToolList) and len(many[:3]) == 3
    with pytest.raises(KeyError):
        many["nope"]
    dup = ToolList([ToolInfo(server="a", name="x"), ToolInfo(server="b", name="x")])
    with pytest.raises(KeyError, match="ambiguous"):
        dup["x"]
    assert tools_bundle(ToolList())["text/plain"] == "(no tools)"


def test_status_table_badges() -> None:
    when = datetime(2026, 1, 1, 12, 30, 5)
    table = StatusTable(
        [
            ServerStatus(
                "good",
                "stdio",
                "connected",
                era="legacy",
                protocol_version="2025-11-25",
                server_name="everything",
                server_version="2.0.0",
                tools=13,
                last_latency_ms=2.345,
                since=when,
            ),
            ServerStatus("busy", "http", "reconnecting", last_error="timed out"),
            ServerStatus("bad<x>", "http", "failed", last_error="401 <script>alert(1)</script>"),
            ServerStatus("off", "stdio", "disabled"),
        ]
    )
    b = table._repr_mimebundle_()
    html = b["text/html"]
    assert b["text/plain"] == repr(table)
    assert 'mcpnb-ok">connected' in html and 'mcpnb-warn">reconnecting' in html
    assert 'mcpnb-bad">failed' in html and 'mcpnb-off">disabled' in html
    assert "2.3 ms" in html and "12:30:05" in html and "everything 2.0.0" in html and "2025-11-25" in html
    assert "<script>" not in html and "401 &lt;script&gt;" in html and "bad&lt;x&gt;" in html
    assert html.count("<tr>") == 5
    empty = status_bundle(StatusTable())
    assert empty["text/plain"] == "(no servers)" and "(no servers)" in empty["text/html"]


def test_a_description_wrapped_mid_sentence_is_not_cut_at_its_line_end():
    """probe-kit's start_ui showed "…, derive design tokens, compose the" as if that were all."""
    wrapped = ToolInfo(
        server="s",
        name="start_ui",
        description="Workflow: check the catalog, search it, compose the\ncomponents into one page.\n\nMore.",
    )
    listed = tools_bundle(ToolList([wrapped]))
    assert (
        "<summary>Workflow: check the catalog, search it, compose the components into one page.</summary>"
        in (listed["text/html"])
    )
    assert "compose the\n" not in listed["text/plain"] and "compose the comp" in listed["text/plain"]


def test_a_markdown_heading_is_a_short_description_of_its_own():
    from mcpnb.notebook.render.tool_list import short

    assert short("# Search\nFinds pages by words.") == "# Search"
    assert short("Finds pages\n# Arguments\nq: words") == "Finds pages"


def test_the_text_listing_lines_up_cjk_and_emoji_tool_names() -> None:
    """``%mcp tools`` of a server with 検索 and 🎉 tools: each description starts in one column."""
    from mcpnb.client.printable import width

    tools = ToolList(
        [
            ToolInfo(server="i18n", name="検索", description="全文検索"),
            ToolInfo(server="i18n", name="emoji_🎉_tool", description="party"),
            ToolInfo(server="i18n", name="plain", description="ascii"),
        ]
    )
    rows = tools_bundle(tools)["text/plain"].splitlines()
    marks = ["description", "全文検索", "party", "ascii"]
    assert len({width(r[: r.index(m)]) for r, m in zip(rows, marks, strict=True)}) == 1


def test_a_hebrew_tool_and_description_read_right_to_left_in_html() -> None:
    tools = ToolList([ToolInfo(server="i18n", name="חיפוש", description="חיפוש בטקסט (RTL)")])
    html = tools_bundle(tools)["text/html"]
    assert '<td dir="auto"><span class="mcpnb-name">חיפוש</span></td>' in html
    assert '<td dir="auto">חיפוש בטקסט (RTL)</td>' in html and "<td>i18n</td>" in html
