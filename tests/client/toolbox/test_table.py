"""The toolbox's plain-text table lines up cells of any script."""

from __future__ import annotations

from mcpnb.client.printable import width
from mcpnb.client.toolbox.table import COLUMNS, text_table


def test_a_cjk_tool_name_does_not_push_the_columns_after_it():
    rows = [["検索", "i18n", "検索", "クエリ", "yes"], ["search", "web", "search", "q", "yes"]]
    lines = text_table(COLUMNS, rows).splitlines()
    assert [
        width(line[: line.index(w)]) for line, w in zip(lines, ["server", "i18n", "web"], strict=True)
    ] == [8] * 3
