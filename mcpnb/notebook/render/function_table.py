"""The toolbox and its tool specs as a table: name (as the model sees it), server, tool, parameters,
and whether OpenAI strict mode applies (with the keyword that blocks it when it does not)."""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.render.defaults import DEFAULTS, resolve_limit
from mcpnb.notebook.render.html import badge, esc, wrap


def _strict_cell(value: str) -> str:
    if value == "yes":
        return badge("strict", "ok")
    if value.startswith("no: "):
        return badge("not strict", "warn", title=value[4:])
    if value == "no":
        return badge("not strict", "off")
    return '<span class="mcpnb-dim">—</span>'


def _cell(column: str, value: str) -> str:
    return _strict_cell(value) if column == "strict?" else esc(value)


def _table(columns: list[str], rows: list[list[str]], head: str) -> str:
    header = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(c, v)}</td>" for c, v in zip(columns, row, strict=True)) + "</tr>"
        for row in rows
    )
    return (
        f"<div><b>{esc(head)}</b></div><table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
    )


def _more_html(more: str, total: int) -> str:
    """The "… N more" line under a cut table, with how to draw every row."""
    if not more:
        return ""
    return f'<div class="mcpnb-dim">{esc(more)}; %config Mcp.listing_limit = {total} draws every row</div>'


def toolbox_bundle(toolbox: Any) -> dict[str, Any]:
    """A :class:`~mcpnb.client.toolbox.Toolbox`: every function by flat name, and whether it can be
    strict; at most ``listing_limit`` rows drawn (1006 tools drew 529 KB), as the tools listing."""
    from mcpnb.client.toolbox.table import COLUMNS

    limit = resolve_limit(None, DEFAULTS.listing_limit)
    text = toolbox.text(limit)
    if not toolbox:
        return {"text/plain": text, "text/html": wrap(f'<div class="mcpnb-dim">{esc(text)}</div>')}
    head = toolbox.head()
    formats = '"openai" | "openai-responses" | "anthropic" | "gemini"'
    note = _more_html(toolbox.more(limit), len(toolbox))
    note += f'<div class="mcpnb-dim">* required; toolbox.specs({esc(formats)}) gives the specs</div>'
    note += "".join(f'<div class="mcpnb-dim">{esc(line)}</div>' for line in toolbox.left_out())
    return {"text/plain": text, "text/html": wrap(_table(COLUMNS, toolbox.rows(limit), head), note)}


def specs_bundle(specs: Any) -> dict[str, Any]:
    """:class:`~mcpnb.client.toolbox.ToolSpecs`: the names each row gets in that API's ``tools=``
    (at most ``listing_limit`` rows drawn), and what in them is past a limit."""
    limit = resolve_limit(None, DEFAULTS.listing_limit)
    text = specs.text(limit)
    note = _more_html(specs.more(limit), len(specs))
    note += '<div class="mcpnb-dim">* required; a list of dicts: pass it as tools=, specs[0] shows one</div>'
    note += "".join(f'<div class="mcpnb-block">{badge(line, "warn")}</div>' for line in specs.problems())
    return {
        "text/plain": text,
        "text/html": wrap(_table(specs.columns, specs.rows(limit), specs.head()), note),
    }
