"""The plain-text tables of resources, prompts and logs line up cells of any script."""

from __future__ import annotations

from mcpnb.client.printable import width
from mcpnb.notebook.magics.listings import text_table


def test_hebrew_and_cjk_cells_do_not_push_the_columns_after_them():
    lines = text_table(
        ["name", "title"], [["挨拶", "こんにちは"], ["שלום", "hello"], ["ab", "x"]]
    ).splitlines()
    marks = ["title", "こんにちは", "hello", "x"]
    assert {width(line[: line.index(m)]) for line, m in zip(lines, marks, strict=True)} == {6}


def test_a_hebrew_cell_reads_right_to_left_in_html():
    from mcpnb.notebook.magics.listings import html_table

    html = html_table(["name", "title"], [["greet", "שלום, עולם!"]])
    assert '<td dir="auto">שלום, עולם!</td>' in html and "<td>greet</td>" in html
