"""DataFrames from structured content: the fast path for flat records gives what json_normalize gives,
a table written as column names and rows is read as one, and a preview builds only the rows it shows."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpnb.client.frames import (
    NotTabularError,
    find_table,
    grid_key,
    is_tabular,
    row_count,
    split_keys,
    to_dataframe,
)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=3)
)
flat_rows = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), scalars, max_size=4), max_size=8)


@settings(max_examples=150, deadline=None)
@given(flat_rows)
def test_flat_records_match_json_normalize(rows: list[dict]) -> None:
    if not rows or not any(rows):
        return
    expected = pd.json_normalize(rows)
    got = find_table(rows).frame()  # (to_dataframe then reads numbers written as text: texttypes)
    assert got.columns.tolist() == expected.columns.tolist()
    pd.testing.assert_frame_equal(got, expected)


def test_nested_records_are_still_flattened() -> None:
    df = to_dataframe([{"id": 1, "who": {"name": "Ada", "team": {"id": 7}}}, {"id": 2}])
    assert df.columns.tolist() == ["id", "who.name", "who.team.id"]


def test_a_preview_builds_only_the_rows_it_shows() -> None:
    rows = [{"id": i, "v": i * 2} for i in range(10_000)]
    assert len(to_dataframe(rows, limit=20)) == 20 and row_count(rows) == 10_000
    columns = {"a": list(range(30)), "b": list(range(30))}
    assert len(to_dataframe(columns, limit=5)) == 5 and row_count(columns) == 30
    assert row_count({"rows": rows, "total": 10_000}) == 10_000


def test_column_names_with_rows_are_a_table_in_every_spelling():
    frame = pd.DataFrame({"day": ["mon", "tue", "wed"], "n": [3, 1, 4]})
    split = json.loads(frame.to_json(orient="split"))  # pandas' own: columns, index, data
    assert split_keys(split) == ("columns", "data") and is_tabular(split)
    pd.testing.assert_frame_equal(to_dataframe(split), frame)
    names = [{"name": "day", "type": "text"}, {"name": "n", "type": "int"}]
    fields = {"fields": names, "rows": split["data"]}
    pd.testing.assert_frame_equal(to_dataframe(fields), frame)  # names as objects, as SQL drivers give them
    rows = {"columns": ["id"], "rows": [[i] for i in range(500)], "rowCount": 500}
    assert row_count(rows) == 500 and len(to_dataframe(rows, limit=7)) == 7
    gradio = {"headers": ["day", "n"], "data": [["mon", 3], ["tue", 1], ["wed", 4]], "metadata": None}
    assert split_keys(gradio) == ("headers", "data") and find_table(gradio).fields == {"metadata": None}
    pd.testing.assert_frame_equal(to_dataframe(gradio), frame)  # a Gradio Dataframe's value
    empty = to_dataframe({"columns": ["id", "name"], "rows": []})
    assert list(empty.columns) == ["id", "name"] and len(empty) == 0  # a query with no rows keeps its columns


def test_records_beside_their_column_names_are_a_table():
    """Datasette's MCP answer to ``execute_sql`` (datasette-mcp 0.3, recorded): rows as objects
    beside the query's column names; an object cell (a BLOB) and a column no row fills."""
    answer = {
        "database": "shop",
        "columns": ["id", "name", "city", "photo"],
        "rows": [
            {"id": 5, "name": "Customer 5", "city": None, "photo": {"base64": "BQD/"}},
            {"id": 6, "name": "Customer 6", "city": None, "photo": None},
        ],
        "truncated": False,
    }
    table = find_table(answer)
    assert (table.shape, table.key) == ("records", "rows")
    assert table.fields == {"database": "shop", "truncated": False}  # the names are the header, not a field
    frame = to_dataframe(answer)
    assert frame["id"].tolist() == [5, 6] and frame["photo.base64"].tolist()[0] == "BQD/"
    flat = {"columns": ["id", "city", "name"], "rows": [{"name": "Ann", "id": 1}, {"id": 2, "name": "Bo"}]}
    assert list(to_dataframe(flat).columns) == ["id", "city", "name"]  # its order, its empty column
    other = {"columns": ["id"], "rows": [{"id": 1, "extra": 2}]}  # names that leave a key out are a field
    assert find_table(other).fields == {"columns": ["id"]}
    assert list(to_dataframe(other).columns) == ["id", "extra"]
    warned = {"items": [{"id": 1}], "warnings": ["slow query"]}  # any list of plain values is a field
    assert find_table(warned).fields == {"warnings": ["slow query"]}
    graph = {"entities": [{"name": "a"}], "relations": []}  # an empty list may be a table with no rows yet
    with pytest.raises(NotTabularError, match="several tables"):
        find_table(graph)


@pytest.mark.parametrize(
    "data",
    [
        {"columns": ["a", "b"], "rows": [[1, 2], [3]]},  # a row of another width
        {"columns": ["a", 2], "rows": [[1, 2]]},  # a name that is no text
        {"columns": [], "rows": []},
        {"columns": ["a"], "rows": [{"a": 1}]},  # records, read as records
    ],
)
def test_what_is_not_names_with_rows_is_read_as_before(data):
    assert split_keys(data) is None


def test_rows_of_values_are_a_table_named_by_a_header_row():
    """excel-mcp-server's ``read_range``: a sheet's cells as rows, trailing empty cells left out."""
    sheet = {"range": "A1:C3", "values": [["region", "q1", "q2"], ["north", 10, 12], ["south", 7]]}
    assert grid_key(sheet) == "values" and is_tabular(sheet)
    frame = to_dataframe(sheet)
    assert list(frame.columns) == ["region", "q1", "q2"] and frame["region"].tolist() == ["north", "south"]
    assert frame["q2"].isna().tolist() == [False, True]
    numbered = to_dataframe([[1, 2], [3, 4, 5]])  # no header: numbered as pandas numbers them
    assert list(numbered.columns) == [0, 1, 2] and numbered[2].isna().tolist() == [True, False]
    twice = to_dataframe([["a", "a"], [1, 2]])  # a repeated name is no header
    assert list(twice.columns) == [0, 1] and len(twice) == 2


@pytest.mark.parametrize(
    "data",
    [
        {"values": [[1, 2]], "more": [[3]]},  # two lists: which one?
        {"values": [[1, {"a": 2}]]},  # a cell that is an object
        {"values": [[], []]},  # no cell at all
        [[1, 2], 3],  # a row that is no list
    ],
)
def test_what_is_no_grid_of_values(data):
    assert grid_key(data) is None  # (an object of equally long lists is still columns)
    assert not isinstance(data, list) or not is_tabular(data)


def test_a_table_inside_an_envelope_is_found_with_the_plain_values_on_the_way():
    """DBHub's answer to a query (1.4, recorded shape): the rows two objects and a list of one deep."""
    answer = {
        "success": True,
        "data": {
            "statements": [{"sql": "select ...", "rows": [{"id": 1, "count": 4}, {"id": 2}], "count": 2}],
            "source_id": "default",
        },
    }
    table = find_table(answer)
    assert (table.shape, table.where) == ("records", "data.statements[0].rows")
    assert table.fields == {"success": True, "source_id": "default", "sql": "select ...", "count": 2}
    assert to_dataframe(answer)["id"].tolist() == [1, 2]
    named = find_table({"count": 1, "result": {"count": 3, "columns": ["a"], "rows": [[1], [2]]}})
    assert named.where == "result.rows" and named.fields == {"count": 1, "result.count": 3}
    assert to_dataframe({"ok": True, "data": {"a": [1, 2], "b": [3, 4]}})["b"].tolist() == [3, 4]


@pytest.mark.parametrize(
    ("data", "columns"),
    [
        (
            {"temperature": 22, "where": {"city": "Paris"}},
            ["temperature", "where.city"],
        ),  # one row, as before
        (
            {"name": "x", "nested": {"deep": [1, 2, {"k": None}]}},
            ["name", "nested.deep"],
        ),  # one list: no table
        (
            {"root": {"name": "/", "children": [{"name": "a", "children": []}]}},
            ["root.name", "root.children"],
        ),
    ],
)
def test_what_is_no_envelope_stays_one_row(data, columns):
    assert list(to_dataframe(data).columns) == columns
    assert not is_tabular(data)


def test_pandas_own_json_is_a_table():
    """``df.to_dict()`` / ``df.to_json()`` (orient "columns", pandas' default): what a Python server
    returns for a DataFrame; .df was one row of ``region.0``, ``region.1``, ... columns."""
    frame = pd.DataFrame({"region": ["north", "south", "east"], "q1": [10, 7, 3]})
    pd.testing.assert_frame_equal(to_dataframe(json.loads(frame.to_json())), frame)
    assert is_tabular(frame.to_dict()) is False  # int row numbers are not JSON's: the wire has text
    sample = json.loads(frame.sample(frac=1, random_state=1).to_json())  # Vizro's df_info.sample
    assert to_dataframe(sample).to_dict("list") == {
        "index": [0, 2, 1],
        "region": ["north", "east", "south"],
        "q1": [10, 3, 7],
    }


@pytest.mark.parametrize(
    "data",
    [
        {"alice": {"age": 3}, "bob": {"age": 4}},  # keyed by names: rows or columns, who knows
        {"a": {"0": 1}, "b": {"1": 2}},  # other row numbers
        {"a": {"0": [1]}},  # not plain
        {"a": {"0": 1}, "b": 2},
    ],
)
def test_what_is_not_pandas_own_json(data):
    assert not is_tabular(data)


def test_envelopes_are_opened_a_few_deep_only():
    """A server's 3,000 nested objects: the search for a table inside stops (it recursed until
    Python's limit, and is_tabular raised RecursionError)."""
    deep: dict = {"rows": [{"a": 1}]}
    for i in range(3000):
        deep = {"inner": deep, "level": i}
    assert not is_tabular(deep)
    two = {"ok": True, "data": {"statements": [{"rows": [{"a": 1}, {"a": 2}]}]}}  # DBHub's depth
    assert find_table(two).where == "data.statements[0].rows"
