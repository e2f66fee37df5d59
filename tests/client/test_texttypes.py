"""Numbers and times a server wrote as text: read as what they are only where no value changes."""

from __future__ import annotations

import json
from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from mcpnb.client.frames import find_table
from mcpnb.client.texttypes import NUMBERS, TIMES, ZONED_TIMES, kinds, read


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["6", "33285.00", None, "-0.5", "1e3", "9007199254740992"], NUMBERS),
        (["6", "-9223372036854775808", "9223372036854775807"], NUMBERS),  # integers: int64
        (["0.5", "9007199254740993"], None),  # beside a fraction a float would round it
        (["6", "n/a"], None),  # one word in it: the column is text
        (["01234", "75001"], None),  # a leading zero: a code, not a number
        (["12345678901234567.89"], None),  # a float would round it
        (["9223372036854775808"], None),  # past int64
        (["1e400"], None),  # past a float
        (["", "5"], None),
        ([" 5"], None),
        (["+5"], None),
        ([None, None], None),  # nothing to read
        ([6, "7"], None),  # a real number beside a text one: as the server mixed them
        (["2026-12-04T14:48:46.191Z", None, "2026-12-04T15:48:46+01:00"], ZONED_TIMES),  # JS Dates
        (["2026-12-04 14:48:46.191000", "2026-12-04T09:00"], TIMES),  # Python's str(datetime)
        (["2026-12-04T14:48:46Z", "2026-12-04 14:48:46"], None),  # with a zone and without
        (["2026-13-04T14:48:46Z"], None),  # no month 13
        (["2026-12-04T14:48:46.123456789Z"], None),  # nanoseconds: past what Python keeps
        (["2026-12-04"], None),  # a date alone: a day, not an instant
    ],
)
def test_which_columns_of_text_are_numbers_or_times(values, kind):
    expected = {"v": kind} if kind else {}
    for shape in (
        [{"v": v} for v in values],
        {"columns": ["v"], "rows": [[v] for v in values]},
        {"v": values},
    ):
        assert kinds(find_table(shape).columns()) == expected


def test_times_written_with_one_offset_keep_it():
    """mcp-server-time answers ``Europe/Paris`` times as ``…+01:00``: ``.df`` showed them in UTC,
    an hour off the zone named beside them. The same instants, in the offset they were written with."""
    frame = pd.DataFrame({"at": ["2026-12-04T15:48:46+01:00", None, "2026-12-05T09:00:00+01:00"]})
    at = read(frame, {"at": ZONED_TIMES})["at"]
    assert str(at.dt.tz) == "UTC+01:00"
    assert at[0] == pd.Timestamp("2026-12-04 14:48:46", tz="UTC") and at[0].hour == 15
    assert pd.isna(at[1]) and at[2].isoformat() == "2026-12-05T09:00:00+01:00"
    utc = read(pd.DataFrame({"at": ["2026-12-04T14:48:46Z"]}), {"at": ZONED_TIMES})["at"]
    assert str(utc.dt.tz) == "UTC"


def test_times_read_as_the_instants_they_write():
    frame = pd.DataFrame({"at": ["2026-12-04T14:48:46.191Z", None, "2026-12-04T15:48:46+01:00"]})
    at = read(frame, {"at": ZONED_TIMES})["at"]
    assert str(at.dt.tz) == "UTC" and at[0] == pd.Timestamp("2026-12-04 14:48:46.191", tz="UTC")
    assert pd.isna(at[1]) and at[2] == pd.Timestamp("2026-12-04 14:48:46", tz="UTC")
    naive = read(pd.DataFrame({"at": ["2026-12-04 14:48:46.191000"]}), {"at": TIMES})["at"]
    assert naive[0] == pd.Timestamp("2026-12-04 14:48:46.191") and naive.dt.tz is None


@pytest.mark.parametrize("kind", [ZONED_TIMES, TIMES])
def test_times_beyond_2262_are_read_in_microseconds_on_every_pandas(kind):
    """A server's "never expires" (``9999-12-31``) and a year-1 placeholder: pandas 2 parsed
    times in nanoseconds, which end in 2262, and ``.df`` raised OutOfBoundsDatetime."""
    zone = "+02:00" if kind == ZONED_TIMES else ""
    texts = [f"9999-12-31T23:59:59{zone}", None, f"0001-01-01T00:00:00{zone}", f"2026-12-06T10:00:00{zone}"]
    at = read(pd.DataFrame({"at": texts}), {"at": kind})["at"]
    assert str(at.dtype).startswith("datetime64[us")
    assert (at[0].year, at[0].hour, at[2].year, at[3].hour) == (9999, 23, 1, 10)
    assert pd.isna(at[1])
    if kind == ZONED_TIMES:
        assert str(at.dt.tz) == "UTC+02:00" and at[3] == pd.Timestamp("2026-12-06 08:00", tz="UTC")


numbers = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(numbers, min_size=1))
def test_numbers_written_as_text_read_back_as_themselves_or_stay_text(values: list) -> None:
    """A server that writes numbers with ``json.dumps`` inside strings: ``.df`` gets each number
    as it was, or, where pandas could not hold one (an integer past 2**53 beside a fraction), the
    column stays the text it was."""
    rows = [{"v": json.dumps(v)} for v in values]
    table = find_table(rows)
    got = read(table.frame(), kinds(table.columns()))["v"].tolist()
    assert got == values or got == [row["v"] for row in rows]
    holdable = all(isinstance(v, int) for v in values) or all(
        isinstance(v, float) or abs(v) <= 2**53 for v in values
    )
    assert got == values if holdable else True  # (else either; the rule above says which)


def test_a_peers_datetimes_are_times_and_its_plain_strings_text_in_df(pool, fastmcp_url):
    """FastMCP (pydantic) writes a ``datetime`` as ISO text and declares it a ``date-time``: a
    time in ``.df``. It declares a ``Decimal`` as a plain string, as it does a ``str`` (nothing
    tells them apart: no format, no pattern), so its money stays the text it declares, as codes
    do, whatever the values look like; ``pd.to_numeric`` reads it. A ``date`` stays text."""
    from mcpnb.notebook.render import result_bundle

    pool.connect("fm", url=fastmcp_url)
    result = pool.call("fm", "orders", {"n": 3})
    assert result.output_schema["properties"]["result"]["items"]["properties"]["total"] == {"type": "string"}
    df = result.df
    assert df["total"].tolist() == ["0.00", "3.10", "6.20"]
    assert pd.to_numeric(df["total"]).sum() == pytest.approx(9.3)
    assert df["placed_at"].tolist()[1] == pd.Timestamp("2026-12-04 14:01", tz="UTC")
    assert df["day"].tolist()[0] == "2026-12-01" and df["code"].tolist() == ["00000", "00001", "00002"]
    text = result_bundle(result)["text/plain"]
    assert "result.df reads placed_at as times (the server wrote them as text)" in text
    assert " 1  3.10   2026-12-04T14:01:00Z" in text  # text, left-aligned, as written


class Place(BaseModel):
    zip: str
    phone: str
    price: Decimal
    tip: Decimal | None


def test_a_declared_string_stays_text_and_a_declared_number_in_text_is_a_number(pool):
    """Zip codes declared ``str`` were ``int64`` while every one looked like a number and text once
    one had a leading zero: the column's type hung on the data. The SDK's ``MCPServer`` declares a
    ``Decimal`` as ``anyOf: [number, string]``: that says it is a number, so ``.df`` reads it."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("addresses", log_level="WARNING")

    @server.tool()
    def places(leading_zero: bool = False) -> list[Place]:
        """Places with zip codes, phone numbers and prices."""
        first = "02134" if leading_zero else "12134"
        return [
            Place(zip=first, phone="5551234", price=Decimal("3.10"), tip=None),
            Place(zip="10001", phone="5559876", price=Decimal("12"), tip=Decimal("0.50")),
        ]

    pool.connect("places", server=server)
    for leading_zero in (False, True):
        df = pool.call("places", "places", {"leading_zero": leading_zero}).df
        assert df["zip"].tolist() == ["02134" if leading_zero else "12134", "10001"]
        assert df["phone"].tolist() == ["5551234", "5559876"]
        assert df["price"].tolist() == [3.1, 12.0] and df["price"].dtype == "float64"
        assert df["tip"].tolist()[1] == 0.5 and pd.isna(df["tip"].tolist()[0])


def test_the_first_rows_find_the_columns_and_every_row_decides():
    """Only columns whose first rows are numbers or times written as text are read whole (a
    display of 100k rows of real numbers builds no column); a word far down keeps one text."""
    from mcpnb.client.frames import text_types

    rows = [{"n": str(i), "m": str(i), "x": i} for i in range(5_000)]
    rows[4_321]["m"] = "n/a"
    for data in (rows, {"columns": ["n", "m", "x"], "rows": [[r["n"], r["m"], r["x"]] for r in rows]}):
        assert text_types(find_table(data)) == {"n": NUMBERS}


def test_one_object_and_a_list_of_values_read_alike():
    from mcpnb.client.frames import to_dataframe

    one = to_dataframe({"total": "3.10", "at": "2026-12-04T14:00:00Z", "sku": "0042"})
    assert one["total"].tolist() == [3.1] and str(one["at"].dtype).startswith("datetime64")
    assert one["sku"].tolist() == ["0042"]
    assert to_dataframe(["1.5", "2", None])["value"].tolist()[:2] == [1.5, 2.0]


def test_the_columns_of_a_table_inside_an_envelope_have_their_schemas():
    """An index in the path (an envelope's list of one object) is the array's items."""
    from mcpnb.client.texttypes import column_schemas

    rows = {
        "type": "array",
        "items": {"type": "object", "properties": {"at": {"type": "string", "format": "date"}}},
    }
    statement = {"type": "object", "properties": {"rows": rows}}
    schema = {"properties": {"data": {"properties": {"statements": {"type": "array", "items": statement}}}}}
    assert column_schemas(schema, ["data", "statements", 0, "rows"]) == {
        "at": {"type": "string", "format": "date"}
    }


def test_the_time_servers_paris_time_shows_in_its_own_offset(pool):
    """The reference time server (mcp-server-time, not ours) over stdio: its ``datetime`` for
    Europe/Paris keeps the offset it was written with in ``.df``, the same instant."""
    import sys

    pool.connect("time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
    result = pool.call("time", "get_current_time", {"timezone": "Europe/Paris"})
    written = result.data["datetime"]
    shown = result.df["datetime"].iloc[0]
    assert shown == pd.Timestamp(written) and shown.isoformat() == pd.Timestamp(written).isoformat()
