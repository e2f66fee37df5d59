"""Property tests: any JSON value as structured content renders, and ``to_dataframe`` is predictable."""

from __future__ import annotations

import html as html_lib
import json
import re
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mcpnb.client.frames import is_tabular, row_count, table_keys
from mcpnb.client.results import ToolResult
from mcpnb.client.status import ServerStatus, StatusTable
from mcpnb.notebook.render import NotTabularError, result_bundle, to_dataframe

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
keys = st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=30,
)
records = st.lists(st.dictionaries(keys, json_values, max_size=5), max_size=30)
grids = st.lists(st.lists(scalars, max_size=5), min_size=1, max_size=12).filter(any)  # a sheet's cells
tabular_like = (
    records
    | st.dictionaries(keys, st.lists(scalars, min_size=3, max_size=3), min_size=1, max_size=4)
    | records.map(lambda rows: {"result": rows})
    | records.map(lambda rows: {"rows": rows, "total": len(rows)})
    | grids
    | grids.map(lambda rows: {"range": "A1", "values": rows})
    | grids.map(lambda rows: {"columns": [f"c{i}" for i in range(len(rows[0]))], "rows": rows})
)
any_data = json_values | tabular_like

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(any_data)
def test_to_dataframe_returns_a_frame_or_says_not_tabular(data: Any) -> None:
    try:
        df = to_dataframe(data)
    except NotTabularError as exc:
        assert str(exc).startswith("not tabular")
        assert isinstance(exc, TypeError) and isinstance(exc, ValueError)
        return
    assert isinstance(df, pd.DataFrame)
    one_row = isinstance(data, dict) and len(df) == 1  # one object: one row
    one_column = isinstance(data, list) and list(df.columns) == ["value"] and len(df) == len(data)
    assert is_tabular(data) or one_row or one_column  # plain values: one column


@SETTINGS
@given(records.filter(lambda rows: len(rows) > 0))
def test_every_record_becomes_a_row(rows: list[dict[str, Any]]) -> None:
    assert len(to_dataframe(rows)) == len(rows)


@SETTINGS
@given(grids)
def test_every_row_of_a_grid_becomes_a_row_but_its_header(rows: list[list[Any]]) -> None:
    df = to_dataframe({"range": "A1", "values": rows})
    header = all(isinstance(c, str) for c in df.columns)  # named by its first row, else numbered
    assert not header or list(df.columns) == rows[0]
    assert len(df) == len(rows) - header and row_count(rows) == len(df)
    assert df.shape[1] == max(map(len, rows))


@SETTINGS
@given(
    any_data,
    st.sampled_from([None, {"type": "object"}, {"type": "array"}, {"type": "string", "maxLength": 3}]),
)
def test_result_bundle_never_crashes(data: Any, schema: dict[str, Any] | None) -> None:
    structured = data if isinstance(data, dict) else {"result": data}
    r = ToolResult(
        server="s", tool="t", content=[], structured=structured, output_schema=schema, elapsed=0.001
    )
    b = result_bundle(r, limit=5)
    assert set(b) >= {"text/plain", "text/html"}
    assert b["text/plain"].startswith("s.t · ok")
    if schema is not None:
        # the badges as markup: the data itself may contain the words, but only escaped
        ok = re.search(r'<span class="mcpnb-badge mcpnb-ok"[^>]*>✓ outputSchema</span>', b["text/html"])
        warn = re.search(r'<span class="mcpnb-badge mcpnb-warn"[^>]*>⚠ outputSchema</span>', b["text/html"])
        assert bool(ok) != bool(warn)
    if is_tabular(r.data):
        rows = len(to_dataframe(r.data))
        assert ("<table" in b["text/html"]) or rows == 0 or "<details" in b["text/html"]
        if rows > 5:
            assert f"{rows - 5} more row" in b["text/plain"]
    elif len(table_keys(r.data)) > 1:  # several tables (as .dfs gives them), each drawn as one
        assert "<table" in b["text/html"] or "<details" in b["text/html"]
    else:
        assert "<details" in b["text/html"]


ALLOWED_TAGS = {"div", "span", "pre", "p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "code"}
ALLOWED_TAGS |= {"strong", "em", "a"}


@SETTINGS
@given(st.text())
def test_server_text_never_becomes_markup(text: str) -> None:
    """Only the renderer's own tags appear, whatever the text (plain or marked as Markdown)."""
    from mcp import types

    block = types.TextContent(type="text", text=text)
    marked = types.TextContent(type="text", text=text, _meta={"mimeType": "text/markdown"})
    for b in (block, marked):
        html = result_bundle(ToolResult(server="s", tool="t", content=[b]))["text/html"]
        body = html.split("</style>", 1)[1]
        assert set(re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", body)) <= ALLOWED_TAGS
        for href in re.findall(r'href="([^"]*)"', body):
            assert href.startswith(("http://", "https://"))


def test_json_view_is_valid_json_when_short() -> None:
    r = ToolResult(server="s", tool="t", content=[], structured={"a": 1, "b": [1, {"c": None}]})
    text = result_bundle(r)["text/plain"]
    assert json.loads(text.split("\n", 2)[2]) == {"a": 1, "b": [1, {"c": None}]}


wire_blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource_link", "resource", "other", 3])},
    optional={
        "text": json_values,
        "data": st.text(alphabet="QUJD=", max_size=12) | json_values,
        "mimeType": st.sampled_from(["image/png", "image/svg+xml", "audio/wav", "text/markdown", "x"])
        | json_values,
        "uri": st.text(max_size=20) | json_values,
        "name": json_values,
        "size": st.integers() | json_values,
        "resource": st.dictionaries(st.sampled_from(["uri", "mimeType", "text", "blob"]), json_values),
        "annotations": json_values,
        "_meta": json_values,
    },
)


@SETTINGS
@given(st.lists(wire_blocks, max_size=5), st.booleans())
@example([{"type": "text", "text": [None]}], False)  # a text that is no string: no table read in it
def test_odd_wire_content_never_crashes(blocks: list[dict[str, Any]], is_error: bool) -> None:
    """Saved or hand-built results hold wire dicts of any shape; the renderer degrades, never fails."""
    r = ToolResult(server="s", tool="t", content=blocks, is_error=is_error)
    b = result_bundle(r)
    assert b["text/plain"].startswith("s.t · "), b["text/plain"]  # not the fallback repr
    assert "<script" not in b["text/html"]


# ---------------------------------------------------------------- server logs and status rows
@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["debug", "info", "warning", "error", "critical", "x"]),
            st.none() | st.text(max_size=8),
            json_values,
        ),
        max_size=30,
    ),
    st.integers(0, 10**6),
)
def test_logs_under_a_result_render_whatever_the_server_logged(logs: list[Any], dropped: int) -> None:
    from types import SimpleNamespace

    notes = [SimpleNamespace(level=lv, logger=lg, data=d) for lv, lg, d in logs]
    r = ToolResult(server="s", tool="t", content=[], logs=notes, logs_dropped=dropped if notes else 0)
    b = result_bundle(r)
    assert b["text/plain"].startswith("s.t · ok")
    if notes and dropped:
        assert (
            f"the last {len(notes)} of {len(notes) + dropped:,} messages ({dropped:,} dropped)"
            in b["text/plain"]
        )
    elif notes:
        noun = "message" if len(notes) == 1 else "messages"
        assert f"server log: {len(notes)} {noun}:" in b["text/plain"]
    assert "<script" not in b["text/html"]


_rows = st.builds(
    ServerStatus,
    name=st.text(min_size=1, max_size=10),
    transport=st.sampled_from(["stdio", "http", "sse", "inprocess", "?"]),
    state=st.sampled_from(["connected", "failed", "reconnecting", "disabled", "disconnected", "x"]),
    era=st.none() | st.sampled_from(["modern", "legacy"]),
    server_name=st.none() | st.text(max_size=10),
    tools=st.none() | st.integers(0, 10**4),
    last_latency_ms=st.none() | st.floats(0, 1e6),
    last_error=st.none() | st.text(max_size=300),
    healthy=st.none() | st.booleans(),
    retries=st.integers(0, 100),
)


@SETTINGS
@given(st.lists(_rows, max_size=6))
def test_any_status_table_renders(rows: list[ServerStatus]) -> None:
    from mcpnb.notebook.render import bundle

    b = bundle(StatusTable(rows))
    assert set(b) >= {"text/plain", "text/html"}
    assert "<script" not in b["text/html"]
    for row in rows:
        assert html_lib.escape(row.name) in b["text/html"]
