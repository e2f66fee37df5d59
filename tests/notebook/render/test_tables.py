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
