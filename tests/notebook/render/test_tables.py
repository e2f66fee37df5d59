"""Structured content to DataFrame: what is not one table says so, and how to get one."""

from __future__ import annotations

import pytest

from mcpnb.client.frames import NotTabularError, to_dataframe


def test_several_tables_name_the_ones_to_pick():
    with pytest.raises(NotTabularError, match=r"several tables \(findings, related\).*\.data\['findings'\]"):
        to_dataframe({"findings": [{"a": 1}], "related": [{"b": 2}], "counts": {"x": 1}})


def test_one_table_among_other_keys_is_the_table():
    frame = to_dataframe({"findings": [{"rule": "S-EVAL", "line": 3}], "counts": {"high": 1}})
    assert list(frame["rule"]) == ["S-EVAL"]
