"""Server text in plain-text tables: each cell measured in the columns a terminal gives it, so a
CJK name, an emoji or a decomposed letter moves no column after it (``len`` padded them wrong)."""

from __future__ import annotations

import unicodedata

from mcpnb.client.printable import columns_text, width


def starts(lines: list[str], words: list[str]) -> list[int]:
    """The column at which each line's ``words[i]`` starts, as a terminal draws it."""
    return [width(line[: line.index(word)]) for line, word in zip(lines, words, strict=True)]


def test_width_counts_columns_not_characters():
    assert width("abc") == 3 and width("日本") == 4 and width("🎉") == 2 and width("שלום") == 4
    assert width(unicodedata.normalize("NFD", "café")) == 4  # the accent draws on the e
    assert width("zero\u200bwidth") == 9  # a zero-width space draws nothing
    assert width("👨\u200d👩\u200d👧") == 2  # a family joined by ZWJs is one emoji
    assert width("👍🏽") == 2  # a skin tone colours the thumb


def test_a_table_lines_up_cjk_emoji_and_decomposed_cells():
    nfd = unicodedata.normalize("NFD", "café")
    lines = columns_text([["name", "k"], ["検索", "1"], ["👨\u200d👩\u200d👧", "2"], [nfd, "3"], ["ab", "4"]])
    assert starts(lines, ["k", "1", "2", "3", "4"]) == [6] * 5
    assert lines[1] == "検索  1" and lines[4] == "ab    4"
