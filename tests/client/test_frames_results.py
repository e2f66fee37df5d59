"""``result.df`` from what real servers send: nothing silently lost or overwritten, nothing a person
cannot display, no table from a failed call.

Hand-written results come from tests/servers/odd_results_server.py (no SDK server sends them);
pydantic rows from the SDK's ``MCPServer`` in-process.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from pydantic import BaseModel

from mcpnb.client.frames import FrameWarning, NotTabularError, to_dataframe
from mcpnb.notebook.render import result_bundle

ODD = str(Path(__file__).resolve().parents[1] / "servers" / "odd_results_server.py")


@pytest.fixture
def odd(pool):
    pool.connect("odd", command=sys.executable, args=[ODD], tool_timeout=10)
    return pool


def test_half_of_an_emoji_is_a_replacement_in_df_and_display_and_kept_in_data(odd):
    result = odd.call("odd", "half_emoji")
    assert result.data[0]["title"] == "party \ud83c" and result.text.endswith("\ud83c")  # as sent
    with pytest.warns(FrameWarning, match="result.df: it held half of a character"):
        df = result.df
    assert df["title"].tolist() == ["party \ufffd", "cake \U0001f382"]
    df.to_html().encode("utf-8")  # what a notebook's display of it needs
    assert result.data[0]["title"] == "party \ud83c"  # .df changed a copy only

    bundle = result_bundle(result)
    for value in bundle.values():
        value.encode("utf-8")
    said = "⚠ this result holds half of a character (an unpaired UTF-16 surrogate"
    assert said in bundle["text/plain"] and "party \ufffd" in bundle["text/plain"]
    assert "(! this result holds half of a character" in repr(result)
    repr(result).encode("utf-8")
    assert "half of a character" not in result_bundle(odd.call("odd", "summary_beside_rows"))["text/plain"]


def test_a_dotted_key_beside_the_same_path_nested_keeps_both_columns(odd):
    """pandas flattened ``{"a.b": 1, "a": {"b": 2}}`` into one column ``a.b`` holding 2."""
    result = odd.call("odd", "dotted_keys")
    with pytest.warns(FrameWarning, match=r"'b' inside 'a' is column 'a.b \(2\)'"):
        df = result.df
    assert df.columns.tolist() == ["a.b", "a.b (2)"]
    assert df["a.b"].tolist() == [1, 3] and df["a.b (2)"].tolist() == [2, 4]
    text = result_bundle(result)["text/plain"]
    assert "a.b  a.b (2)" in text and "'b' inside 'a' is column 'a.b (2)' ('a.b' is another's name)" in text


class Address(BaseModel):
    city: str
    zip: str


class Customer(BaseModel):
    id: int
    address: Address | None


def test_an_optional_nested_model_null_in_some_rows_adds_no_column_of_nulls(pool):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("crm", log_level="WARNING")

    @server.tool()
    def customers() -> list[Customer]:
        """Customers, some without an address."""
        return [Customer(id=1, address=Address(city="Oslo", zip="0150")), Customer(id=2, address=None)]

    pool.connect("crm", server=server)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to say: nothing was changed
        df = pool.call("crm", "customers").df
    assert df.columns.tolist() == ["id", "address.city", "address.zip"]
    assert df["address.city"].tolist()[0] == "Oslo" and pd.isna(df["address.city"].tolist()[1])
    # null in every row: nothing inside it to stand for it, so the column stays
    assert to_dataframe([{"id": 1, "address": None, "x": {"y": 1}}]).columns.tolist() == [
        "id",
        "address",
        "x.y",
    ]


def test_df_of_a_failed_call_raises_whatever_it_sent(odd):
    """A pipeline ``df = pool.call(...).df`` carried on with a failed call's rows."""
    failed = odd.call("odd", "failed_with_rows")
    assert failed.is_error and failed.data["rows"] == [{"a": 1}]  # what it sent is there
    for attribute in ("df", "dfs"):
        with pytest.raises(NotTabularError) as raised:
            getattr(failed, attribute)
        assert str(raised.value) == (
            "odd.failed_with_rows failed, so there is no table: no such table: sales "
            "(it sent structured content too: result.structured, result.data)"
        )
    text_only = odd.call("odd", "worded_error")  # the same kind of error as a failure in text only
    with pytest.raises(NotTabularError) as raised:
        _ = text_only.df
    assert str(raised.value) == "odd.worded_error failed, so there is no table: disk full"


def test_the_fields_beside_the_rows_are_the_frames_attrs_and_the_display_says_so(odd):
    """``.df`` of ``{"mean": 1.5, "n": 4, "by_group": [...]}`` was the groups alone."""
    result = odd.call("odd", "summary_beside_rows")
    df = result.df
    assert df.columns.tolist() == ["group", "mean"] and df.attrs == {"mean": 1.5, "n": 4}
    line = "result.df holds the rows; the other fields are in result.data and df.attrs"
    bundle = result_bundle(result)
    assert line in bundle["text/plain"] and line in bundle["text/html"]
    assert line not in result_bundle(odd.call("odd", "dotted_keys"))["text/plain"]  # no fields: no line
    # plain values only: a list beside the rows stays in result.data
    frame = to_dataframe({"total": 2, "tags": ["x"], "rows": [{"k": 1}]})
    assert frame.attrs == {"total": 2}
