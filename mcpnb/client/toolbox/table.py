"""The toolbox and its specs as a plain-text table (the notebook room draws the HTML one)."""

from __future__ import annotations

COLUMNS = ["name", "server", "tool", "parameters", "strict?"]


def text_table(columns: list[str], rows: list[list[str]]) -> str:
    table = [columns, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table)
