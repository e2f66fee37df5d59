"""The toolbox and its specs as a plain-text table (the notebook room draws the HTML one)."""

from __future__ import annotations

from mcpnb.client.printable import columns_text

COLUMNS = ["name", "server", "tool", "parameters", "strict?"]


def text_table(columns: list[str], rows: list[list[str]]) -> str:
    return "\n".join(columns_text([columns, *rows]))
