"""Structured content to DataFrame: what is not one table says so, and how to get one."""

from __future__ import annotations

import pytest

from mcpnb.client.frames import NotTabularError, is_tabular, to_dataframe, to_dataframes


def test_several_tables_name_the_ones_to_pick():
    picks = r"several tables \(findings, related\).*\.dfs.*\.data\['findings'\]"
    with pytest.raises(NotTabularError, match=picks):
        to_dataframe({"findings": [{"a": 1}], "related": [{"b": 2}], "counts": {"x": 1}})
    frames = to_dataframes({"findings": [{"a": 1}], "related": [{"b": 2}, {"b": 3}], "counts": {"x": 1}})
    assert set(frames) == {"findings", "related"} and len(frames["related"]) == 2


def test_a_single_object_is_one_row_with_nested_keys_flattened():
    frame = to_dataframe({"temperature": 22.5, "where": {"city": "Chicago", "zip": "60601"}})
    assert len(frame) == 1 and frame.loc[0, "where.city"] == "Chicago" and frame.loc[0, "temperature"] == 22.5
    assert not is_tabular({"temperature": 22.5})  # not table-shaped: displays keep the JSON view
    with pytest.raises(NotTabularError, match="no tables in it"):
        to_dataframes({"temperature": 22.5})


def test_a_list_of_plain_values_is_one_value_column():
    """A tool's ``list[str]`` arrives as ``{"result": [...]}`` and ``.data`` unwraps it: ``.df`` said
    "not tabular" for what pandas reads as one column."""
    frame = to_dataframe(["a.py", "b.py", None, 3])
    assert list(frame.columns) == ["value"] and list(frame["value"])[:2] == ["a.py", "b.py"]
    assert not is_tabular(["a.py"])  # displays keep the JSON view
    with pytest.raises(NotTabularError, match="not tabular"):
        to_dataframe([1, [2, 3]])  # a nested list is no column of values


def test_one_table_among_other_keys_is_the_table():
    frame = to_dataframe({"findings": [{"rule": "S-EVAL", "line": 3}], "counts": {"high": 1}})
    assert list(frame["rule"]) == ["S-EVAL"]


def test_whole_numbers_with_gaps_show_as_integers():
    """pandas makes ``count`` float when a row lacks it: the table showed ``3.0``, ``17.0``."""
    from mcpnb.client.results import ToolResult
    from mcpnb.notebook.render import result_bundle

    rows = [{"id": 1, "count": 3, "score": 2.5}, {"id": 2, "score": None}]
    rows.append({"id": 3, "count": 17, "score": 4.0})  # score stays as written: it has a fraction
    text = result_bundle(ToolResult(server="s", tool="t", content=[], structured=rows))["text/plain"]
    assert "id  count  score\n 1      3    2.5\n 2\n 3     17    4.0" in text
    assert to_dataframe(rows)["count"].dtype == float  # .df keeps pandas' own types


@pytest.mark.parametrize("header", [True, False])
def test_a_display_reads_a_tables_shape_once(monkeypatch, header):
    """The preview, the row count and the fields beside a table each used to read its shape again,
    and the count built every column of a grid: a 100k-row sheet took 0.6 s to show 20 rows.
    Counted as the work done (cells checked, rows built), not as time."""
    from mcpnb.client import frames
    from mcpnb.client.results import ToolResult
    from mcpnb.notebook.render import result_bundle

    checked = []
    plain = frames._is_scalar
    monkeypatch.setattr(frames, "_is_scalar", lambda v: checked.append(v) or plain(v))
    rows = [[f"r{i}", i, i * 0.5] for i in range(1_000)]
    sheet = {"range": "A1:C1001", "values": [["name", "n", "half"], *rows] if header else rows}
    bundle = result_bundle(ToolResult(server="s", tool="t", content=[], structured=sheet))
    assert "values (1000 rows × 3 columns)" in bundle["text/plain"] and "A1:C1001" in bundle["text/plain"]
    assert len(checked) <= 3 * len(sheet["values"]) + 100  # each cell once, and the few the fields show

    built = []
    monkeypatch.setattr(frames.Table, "rows", lambda self, limit=None: built.append(limit) or [])
    query = {"columns": ["id"], "rows": [[i] for i in range(5_000)], "rowCount": 5_000}
    result_bundle(ToolResult(server="s", tool="t", content=[], structured=query))
    assert built and None not in built  # only the preview's rows are built, never all 5,000


def test_a_cell_holding_a_list_shows_the_json_the_server_sent():
    """A list in a cell (server-memory's ``observations``) showed as Python writes it: ['a', 'b']."""
    from mcpnb.client.results import ToolResult
    from mcpnb.notebook.render import result_bundle

    rows = [{"name": "Ada", "observations": ["wrote the first program", "née Byron"]}]
    bundle = result_bundle(ToolResult(server="s", tool="t", content=[], structured=rows))
    assert 'Ada   ["wrote the first program", "née Byron"]' in bundle["text/plain"]
    assert "[&quot;wrote the first program&quot;" in bundle["text/html"]


def test_a_large_object_shown_as_json_is_written_no_further_than_shown():
    """An object that is no table (a graph of 100k nodes) was written whole as JSON, a second of
    work, and then cut to the 50,000 characters shown."""
    from mcpnb.client.results import ToolResult
    from mcpnb.notebook.render import result_bundle

    written = []

    class Node:
        def __init__(self, i: int) -> None:
            self.i = i

        def __str__(self) -> str:  # how JSON writes what it has no type for (default=str)
            written.append(self.i)
            return f"node {self.i}"

    graph = {"nodes": {"list": [Node(i) for i in range(100_000)]}, "meta": {"n": 100_000}}
    text = result_bundle(ToolResult(server="s", tool="t", content=[], structured=graph))["text/plain"]
    assert '"node 0"' in text and "the rest of the JSON is not shown (result.data has it all)" in text
    assert 0 < len(written) < 10_000
