"""The status table shows health, retries and errors in text and HTML, one row per server."""

from __future__ import annotations

from datetime import datetime

import pytest

from mcpnb.client.status import ServerStatus, StatusTable


def _table() -> StatusTable:
    return StatusTable(
        [
            ServerStatus(
                "good", "stdio", "connected", era="modern", tools=3, healthy=True, last_ok=datetime.now()
            ),
            ServerStatus("sick", "http", "reconnecting", healthy=False, retries=2, last_error="lost"),
            ServerStatus("new", "inprocess", "connecting"),
        ]
    )


def test_text_table_has_health_and_retries():
    lines = repr(_table()).splitlines()
    assert lines[0].split()[:5] == ["name", "transport", "state", "health", "era"]
    good, sick, new = lines[1:]
    assert " ok " in good and "unhealthy" in sick and " 2 " in sick
    assert "ok" not in new.split() and "unhealthy" not in new  # no probe yet: no verdict


def test_html_table_has_badges_and_lookup_by_name():
    table = _table()
    html = table._repr_mimebundle_()["text/html"]
    assert html.count("<tr>") == 4
    assert "unhealthy" in html and "last ok" in html and "no probe yet" in html
    assert table["sick"].retries == 2
    with pytest.raises(KeyError, match=r"no row 'sik'; did you mean 'sick'\? \(rows: good, sick, new\)"):
        table["sik"]
    assert list(table.df["name"]) == ["good", "sick", "new"]


def test_one_row_prints_as_the_table_does():
    row = _table()["sick"]
    assert str(row) == repr(StatusTable([row])) and str(row).splitlines()[1].split()[:3] == [
        "sick",
        "http",
        "reconnecting",
    ]
    assert repr(row).startswith("ServerStatus(name='sick'")  # the repr stays the dataclass's, for debugging


def test_the_latency_is_the_servers_not_a_tools_work(pool):
    """A 3 s tool once made the status say the server took 3019 ms: a tool call's round trip is
    the tool's work. Listings and health probes measure the server."""
    from conftest import demo_command, wait_until

    pool.connect("demo", **demo_command(), health_check_interval=0)
    listed = pool.status()["demo"].last_latency_ms
    assert listed is not None and listed < 500  # tools/list at connect
    pool.call("demo", "slow", {"seconds": 0.6})
    assert pool.status()["demo"].last_latency_ms == listed
    pool.connect("probed", **demo_command(), health_check_interval=0.2)
    first = pool.status()["probed"].last_latency_ms
    assert wait_until(lambda: pool.status()["probed"].last_latency_ms != first)  # a probe measured it


def test_a_cjk_name_does_not_push_the_columns_after_it():
    """``len`` counted 日本 as 2 columns: its row's transport started 2 columns right of the others'."""
    from mcpnb.client.printable import width

    lines = repr(StatusTable([ServerStatus("日本", "stdio", "connected"), ServerStatus("abcd", "http", "x")]))
    rows = lines.splitlines()
    assert [width(r[: r.index(t)]) for r, t in zip(rows, ["transport", "stdio", "http"], strict=True)] == [
        6
    ] * 3
