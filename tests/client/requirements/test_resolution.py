"""What ``pool.require`` did, as a plain-text table: cells of any script line up."""

from __future__ import annotations

from mcpnb.client.printable import width
from mcpnb.client.requirements.plan import Plan
from mcpnb.client.requirements.resolution import Resolution, Row


def test_a_cjk_server_name_does_not_push_the_columns_after_it():
    rows = [
        Row("日本", ("notebook",), "notebook", None, None, "connected", "connected", False, "ok"),
        Row("abcdef", ("notebook",), "notebook", None, None, "connected", "connected", False, "ok"),
    ]
    lines = repr(Resolution(Plan("newest"), rows)).splitlines()
    assert {
        width(line[: line.index(m)])
        for line, m in zip(lines, ["requested by", "notebook", "notebook"], strict=True)
    } == {8}
