"""The table of ``%%mcp require`` (a :class:`~mcpnb.client.requirements.Resolution`) as HTML.

One row per server: who asked, whose declaration won, the version wanted and got, a state badge
coloured by what a person should do, and the notes (deduplicated, conflict settled how, missing
tools). The text form is the resolution's own ``repr``, so terminal and notebook say the same.
"""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.render.html import badge, esc, wrap

LEVEL_KINDS = {"ok": "ok", "warn": "warn", "error": "bad"}
HEAD = ["name", "requested by", "source", "version wanted", "version got", "state", "notes"]


def _row(row: Any) -> str:
    state = badge(row.state, LEVEL_KINDS.get(row.level, ""), title=f"{row.action}; {row.level}")
    notes = "".join(f"<div>{esc(n)}</div>" for n in row.notes)
    cells = [
        f'<span class="mcpnb-name">{esc(row.name)}</span>',
        "<br>".join(esc(r) for r in row.requested_by),
        esc(row.source),
        f"<code>{esc(row.version_wanted)}</code>" if row.version_wanted else "",
        esc(row.version_got or ""),
        state,
        notes,
    ]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def resolution_bundle(resolution: Any) -> dict[str, Any]:
    """``_repr_mimebundle_`` for a Resolution."""
    parts = []
    if resolution.rows:
        head = "<tr>" + "".join(f"<th>{h}</th>" for h in HEAD) + "</tr>"
        body = "".join(_row(r) for r in resolution.rows)
        parts.append(f"<table><thead>{head}</thead><tbody>{body}</tbody></table>")
    else:
        empty = "nothing was connected" if resolution.plan.problems else "no servers required"
        parts.append(f'<div class="mcpnb-dim">({empty})</div>')
    footer = resolution.footer()
    if footer:
        items = "".join(f"<li>{esc(line)}</li>" for line in footer)
        parts.append(f'<ul class="mcpnb-dim" style="margin: .2em 0; padding-left: 1.2em">{items}</ul>')
    return {"text/plain": repr(resolution), "text/html": wrap(*parts)}
