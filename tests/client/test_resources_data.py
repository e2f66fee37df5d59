"""A resource read as data: ``pool.read(...).data`` is its JSON, ``.df`` its table (CSV, JSON rows,
a Markdown table), as a tool result's ``.data`` and ``.df`` are. A data person's next line after
``%mcp read`` was ``json.loads(r.text)``, or ``pd.read_csv(io.StringIO(r.text))``.

Real server: FastMCP 4 (an implementation we did not write), in process.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpnb.client.errors import McpnbError
from mcpnb.client.frames import NotTabularError

ROWS = [{"city": "Oslo", "temp": 4.5}, {"city": "Lima", "temp": 19.0}]


def shelf() -> Any:
    import fastmcp

    srv = fastmcp.FastMCP("shelf")

    @srv.resource("shelf://weather.json", mime_type="application/json")
    def weather() -> str:
        return json.dumps({"source": "met", "rows": ROWS})

    @srv.resource("shelf://weather.csv", mime_type="text/csv")
    def weather_csv() -> str:
        return "city,temp\nOslo,4.5\nLima,19.0\n"

    @srv.resource("shelf://weather.tsv", mime_type="text/tab-separated-values")
    def weather_tsv() -> str:
        return "city\ttemp\nOslo\t4.5\nLima\t19.0\n"

    @srv.resource("shelf://weather.md", mime_type="text/markdown")
    def weather_md() -> str:
        return "| city | temp |\n| --- | --- |\n| Oslo | 4.5 |\n| Lima | 19.0 |\n"

    @srv.resource("shelf://notes.txt", mime_type="text/plain")
    def notes() -> str:
        return "just words"

    @srv.resource("shelf://blob.json", mime_type="application/json")
    def blob_json() -> bytes:  # JSON sent as a base64 blob
        return json.dumps(ROWS).encode()

    @srv.resource("shelf://logo.bin", mime_type="application/octet-stream")
    def logo() -> bytes:
        return bytes(range(16))

    @srv.resource("shelf://city/{name}", mime_type="application/json")
    def city(name: str) -> str:
        return json.dumps({"name": name, "temp": 4.5})

    return srv


@pytest.fixture
def served(pool: Any) -> str:
    pool.connect("shelf", server=shelf())
    return "shelf"


def test_a_json_resource_is_data_and_its_rows_a_table(pool: Any, served: str) -> None:
    read = pool.read(served, "shelf://weather.json")
    assert read.data == {"source": "met", "rows": ROWS}
    df = read.df
    assert df.to_dict("records") == ROWS
    assert df.attrs == {"source": "met"}  # the fields beside the rows, as result.df keeps them
    assert pool.read(served, "shelf://blob.json").data == ROWS  # JSON sent as a blob reads alike
    assert pool.read(served, "shelf://city/Oslo").data == {"name": "Oslo", "temp": 4.5}  # a template's


@pytest.mark.parametrize("uri", ["shelf://weather.csv", "shelf://weather.tsv", "shelf://weather.md"])
def test_csv_tsv_and_markdown_tables_are_frames(pool: Any, served: str, uri: str) -> None:
    df = pool.read(served, uri).df
    assert list(df.columns) == ["city", "temp"]
    assert df["city"].tolist() == ["Oslo", "Lima"]
    assert [float(t) for t in df["temp"]] == [4.5, 19.0]


def test_what_is_no_json_or_table_says_so_in_one_line(pool: Any, served: str) -> None:
    from mcpnb.client.contents import ContentsError

    notes = pool.read(served, "shelf://notes.txt")
    with pytest.raises(
        ContentsError,
        match=r"^shelf shelf://notes.txt: invalid JSON at line 1, column 1: Expecting value; "
        r"\.text has it as sent$",
    ) as no:
        _ = notes.data
    assert isinstance(no.value, ValueError)  # as json.loads' own error is
    with pytest.raises(NotTabularError, match=r"neither CSV, JSON nor a Markdown table: \.text has it"):
        _ = notes.df
    with pytest.raises(ContentsError, match=r"is binary \(application/octet-stream\), not text: r.save\(\)"):
        _ = pool.read(served, "shelf://logo.bin").data


def test_a_typo_in_a_uri_is_answered_on_the_errors_first_line(pool: Any, served: str) -> None:
    """FastMCP sends data with its refusal ("the server sent with it: uri: …"): the did-you-mean
    was added after that, at the end of the last line of the server's data."""
    with pytest.raises(McpnbError) as said:
        pool.read(served, "shelf://weathr.json")
    first = str(said.value).splitlines()[0]
    assert first.endswith(
        "Resource not found: 'shelf://weathr.json' (MCP error -32602); did you mean 'shelf://weather.json'?"
    )
    assert str(said.value).splitlines()[-1] == "uri: shelf://weathr.json"
