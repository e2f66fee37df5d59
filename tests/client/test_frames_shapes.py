"""Shapes a data-scientist sweep found ``.df`` read wrong: a table one level deeper beside a
``meta`` object, a query's repeated column names, text types hidden by the first rows, nested text
columns, columns only later rows have, empty results, pandas' ``orient="split"``, and the text
table's tabs, wide characters and big integers. Real servers: the SDK's ``MCPServer`` in-process."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest
from pydantic import BaseModel

from mcpnb.client.frames import FrameWarning, NotTabularError, find_table, to_dataframe, to_dataframes
from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle

#: Elasticsearch's answer to a search (``_search``, 8.x, its documented shape).
ELASTIC = {
    "took": 3,
    "timed_out": False,
    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
    "hits": {
        "total": {"value": 2, "relation": "eq"},
        "max_score": 1.0,
        "hits": [
            {"_index": "shop", "_id": "a", "_score": 1.0, "_source": {"name": "kettle", "price": 30}},
            {"_index": "shop", "_id": "b", "_score": 0.5, "_source": {"name": "mug", "price": 8}},
        ],
    },
}
#: Solr's ``select`` answer, and Open-Meteo's forecast (units beside columns of values).
SOLR = {
    "responseHeader": {"status": 0, "QTime": 1, "params": {"q": "*:*"}},
    "response": {"numFound": 2, "start": 0, "docs": [{"id": "1"}, {"id": "2"}]},
}
METEO = {
    "latitude": 52.52,
    "hourly_units": {"time": "iso8601", "temperature_2m": "°C"},
    "hourly": {"time": ["2024-01-01T00:00", "2024-01-01T01:00"], "temperature_2m": [1.5, 2.0]},
}


def test_a_table_one_level_down_beside_a_meta_object_is_the_table_and_the_rest_its_attrs():
    frame = to_dataframe({"data": {"items": [{"id": 1}, {"id": 2}]}, "meta": {"page": 1}})
    assert frame["id"].tolist() == [1, 2] and frame.attrs == {"meta": {"page": 1}}
    assert list(to_dataframes({"data": {"items": [{"id": 1}]}, "meta": {"page": 1}})) == ["data.items"]
    hits = to_dataframe(ELASTIC)
    assert hits.columns.tolist() == ["_index", "_id", "_score", "_source.name", "_source.price"]
    assert hits.attrs["took"] == 3 and hits.attrs["total"] == {"value": 2, "relation": "eq"}
    assert hits.attrs["_shards"]["failed"] == 0 and find_table(ELASTIC).where == "hits.hits"
    docs = to_dataframe(SOLR)
    assert docs["id"].tolist() == [1, 2] and docs.attrs["numFound"] == 2
    weather = to_dataframe(METEO)
    assert weather["temperature_2m"].tolist() == [1.5, 2.0] and str(weather["time"].dtype).startswith(
        "datetime64"
    )
    assert weather.attrs["hourly_units"]["temperature_2m"] == "°C"


def test_several_tables_deeper_in_are_named_not_one_row_of_them():
    data = {"data": {"items": [{"id": 1}, {"id": 2}]}, "related": {"items": [{"k": "x"}]}, "page": 1}
    picks = r"several tables \(data\.items, related\.items\).*\.data\['data'\]\['items'\]"
    with pytest.raises(NotTabularError, match=picks):
        to_dataframe(data)
    frames = to_dataframes(data)
    assert list(frames) == ["data.items", "related.items"] and frames["data.items"]["id"].tolist() == [1, 2]


def test_sql_columns_named_twice_are_numbered_and_said():
    joined = {"columns": ["id", "id", "name"], "rows": [[1, 2, "x"], [3, 4, "y"], [5, 6, "z"]]}
    for data in (joined, {**joined, "rows": joined["rows"][:2]}):
        with pytest.warns(FrameWarning, match=r"columns names 'id' again: that column is 'id \(2\)'"):
            frame = to_dataframe(data)
        assert frame.columns.tolist() == ["id", "id (2)", "name"] and frame["id (2)"].tolist()[:2] == [2, 4]
    text = result_bundle(ToolResult(server="s", tool="q", content=[], structured=joined))["text/plain"]
    assert "id  id (2)  name" in text and "that column is 'id (2)'" in text
    with pytest.raises(NotTabularError, match=r"row 1 of 'rows' has 1 value but 'columns' names 2 columns"):
        to_dataframe({"columns": ["a", "b"], "rows": [[1, 2], [3]]})


def test_times_and_numbers_as_text_that_the_first_rows_lack_are_still_read():
    rows: list[dict[str, Any]] = [{"id": i} for i in range(60)]
    rows.append({"id": 60, "when": "2024-01-01T00:00:00Z", "price": "3.50"})
    rows += [{"id": 61, "when": None, "late": None}]
    frame = to_dataframe(rows)
    assert str(frame["when"].dtype) == "datetime64[us, UTC]" and frame["price"].dtype == float
    nulls_first = [{"when": None}] * 60 + [{"when": "2024-01-02 03:04:05"}]
    assert str(to_dataframe(nulls_first)["when"].dtype).startswith("datetime64")


class Shipment(BaseModel):
    sent: datetime
    eta: datetime | None


class Order(BaseModel):
    id: int
    placed: datetime
    shipment: Shipment | None


def test_nested_text_columns_are_typed_as_the_top_ones_are(pool):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("orders", log_level="WARNING")
    when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)

    @server.tool()
    def orders() -> list[Order]:
        """Orders, one not shipped yet."""
        return [
            Order(id=1, placed=when, shipment=Shipment(sent=when, eta=None)),
            Order(id=2, placed=when, shipment=None),
        ]

    pool.connect("orders", server=server)
    frame = pool.call("orders", "orders").df
    assert frame.columns.tolist() == ["id", "placed", "shipment.sent", "shipment.eta"]
    assert frame["shipment.sent"].dtype == frame["placed"].dtype and str(frame["placed"].dtype).startswith(
        "datetime64"
    )
    assert frame["shipment.sent"].tolist()[0] == pd.Timestamp(when)


class Row(BaseModel):
    id: int
    name: str
    shipment: Shipment | None = None


def test_an_empty_list_keeps_the_columns_its_schema_declares(pool):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("empty", log_level="WARNING")

    @server.tool()
    def search(q: str) -> list[Row]:
        """Rows matching q: none."""
        return []

    pool.connect("empty", server=server)
    frame = pool.call("empty", "search", {"q": "nothing"}).df
    assert frame.columns.tolist() == ["id", "name", "shipment.sent", "shipment.eta"] and len(frame) == 0
    assert to_dataframe([]).columns.tolist() == []  # no schema: nothing to say


def test_elasticsearch_through_a_real_server_is_its_hits(pool):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("search", log_level="WARNING")

    @server.tool()
    def search() -> dict[str, Any]:
        """An Elasticsearch answer, as a proxying server passes it on."""
        return ELASTIC

    pool.connect("search", server=server)
    result = pool.call("search", "search")
    assert result.df["_id"].tolist() == ["a", "b"] and result.df.attrs["took"] == 3
    assert list(result.dfs) == ["hits.hits"]
    text = result_bundle(result)["text/plain"]
    assert "hits.hits (2 rows × 5 columns)" in text and "_shards" in text
    assert "2 rows × 5 columns under hits.hits" in repr(result)


def test_the_display_and_repr_count_columns_only_later_rows_have():
    rows: list[dict[str, Any]] = [{"id": i, "status": "ok"} for i in range(50)]
    rows.append({"id": 50, "status": "failed", "error": "timeout", "retry_at": "2026-01-01T00:00:00Z"})
    result = ToolResult(server="s", tool="jobs", content=[], structured=rows)
    text = result_bundle(result)["text/plain"]
    assert "(51 rows × 4 columns)" in text
    assert "… 2 more columns only later rows have: error, retry_at (result.df has them all)" in text
    assert "51 rows × 4 columns (result.df): id, status, error, retry_at" in repr(result)
    assert result.df.columns.tolist() == ["id", "status", "error", "retry_at"]


def test_the_repr_names_columns_as_df_does():
    rows = [{"a": {"b": 2}, "c": 3, "a.b": 1}]
    result = ToolResult(server="s", tool="t", content=[], structured=rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FrameWarning)
        columns = result.df.columns.tolist()
    assert columns == ["c", "a.b", "a.b (2)"]
    assert "1 row × 3 columns (result.df): c, a.b, a.b (2)" in repr(result)


def test_pandas_split_keeps_its_index():
    frame = pd.DataFrame({"n": [3, 1]}, index=["mon", "tue"])
    pd.testing.assert_frame_equal(to_dataframe(json.loads(frame.to_json(orient="split"))), frame)
    assert find_table(json.loads(frame.to_json(orient="split"))).fields == {}


def test_not_tabular_says_json_types():
    with pytest.raises(NotTabularError, match=r"got a list of integer, null, object, string;"):
        to_dataframe([None, {}, 1, "x"])
    with pytest.raises(NotTabularError, match=r"got a boolean;"):
        to_dataframe(True)


def test_the_text_table_escapes_tabs_and_pads_wide_characters_by_width():
    rows = [{"name": "张伟", "n": 1, "note": "a\tb"}, {"name": "Bob", "n": 22, "note": "🎂 cake"}]
    text = result_bundle(ToolResult(server="s", tool="t", content=[], structured=rows))["text/plain"]
    assert "name   n  note\n张伟   1  a\\tb\nBob   22  🎂 cake" in text


def test_integers_past_a_floats_53_bits_show_as_sent_beside_nulls():
    rows = [{"id": 9007199254740993}, {"id": None}, {"id": 1}]
    text = result_bundle(ToolResult(server="s", tool="t", content=[], structured=rows))["text/plain"]
    assert "9007199254740993\n\n               1" in text and "9007199254740992" not in text


def test_a_key_only_a_row_past_the_first_thousand_has_is_still_a_column():
    """Shapes are read one by one in the first rows only (a display of 100,000 rows read them all in
    Python): a later row with keys none of those had is still read."""
    from mcpnb.client.frames import SHAPE_ROWS

    rows = [{"id": i, "at": {"x": i, "y": None if i % 2 else i}} for i in range(SHAPE_ROWS + 500)]
    rows.append({"id": -1, "at": {"x": 0, "y": 0}, "error": {"code": 7}})
    names = [str(n) for n in find_table({"rows": rows}).column_names()]
    assert names == ["id", "at.x", "at.y", "error.code"]
