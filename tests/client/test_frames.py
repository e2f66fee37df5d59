"""DataFrames from structured content: the fast path for flat records gives what json_normalize gives,
and a preview builds only the rows it shows."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpnb.client.frames import row_count, to_dataframe

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
    got = to_dataframe(rows)
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
