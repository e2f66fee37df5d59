"""The server status table as HTML, with coloured state badges.

The text form is :meth:`mcpnb.client.status.StatusTable.__repr__`, reused as-is so the terminal and the
notebook never disagree about what a row says.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.status import COLUMNS, StatusTable, health_text
from mcpnb.notebook.render.html import badge, esc, wrap

# Colour by what a person should do: green nothing, amber wait, red act, grey chosen/idle.
STATE_KINDS = {
    "connected": "ok",
    "ready": "ok",
    "connecting": "warn",
    "reconnecting": "warn",
    "degraded": "warn",
    "failed": "bad",
    "error": "bad",
    "disabled": "off",
    "disconnected": "off",
    "closed": "off",
}


def state_badge(state: str) -> str:
    return badge(state, STATE_KINDS.get(str(state).lower(), ""))


def _row(row: Any) -> str:
    server = " ".join(str(p) for p in (row.server_name, row.server_version) if p)
    latency = f"{row.last_latency_ms:.1f} ms" if row.last_latency_ms is not None else ""
    since = row.since.strftime("%H:%M:%S") if row.since else ""
    proto = row.protocol_version or ""
    era = esc(row.era or "") + (f' <span class="mcpnb-dim">{esc(proto)}</span>' if proto else "")
    error = (
        # a path or URL in it breaks anywhere: the table then fits the output area, not wider
        f'<span style="color: var(--jp-error-color1, #d32f2f); overflow-wrap: anywhere">'
        f"{esc(row.last_error)}</span>"
        if row.last_error
        else ""
    )
    last_ok = f"last ok {row.last_ok:%H:%M:%S}" if getattr(row, "last_ok", None) else "no probe yet"
    health = health_text(row)
    health_cell = badge(health, "ok" if health == "ok" else "bad") if health else ""
    cells = [
        f'<span class="mcpnb-name">{esc(row.name)}</span>',
        esc(row.transport),
        state_badge(row.state),
        f'<span title="{esc(last_ok)}">{health_cell}</span>',
        era,
        esc(server),
        "" if row.tools is None else esc(row.tools),
        esc(latency),
        esc(row.retries) if row.retries else "",
        esc(since),
        error,
    ]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def status_bundle(table: Any) -> dict[str, Any]:
    """``_repr_mimebundle_`` for a StatusTable (any list of ServerStatus rows)."""
    text = repr(table if isinstance(table, StatusTable) else StatusTable(table))
    if not table:
        return {
            "text/plain": text or "(no servers)",
            "text/html": wrap('<div class="mcpnb-dim">(no servers)</div>'),
        }
    cols = COLUMNS
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>"
    html = f"<table><thead>{head}</thead><tbody>{''.join(_row(r) for r in table)}</tbody></table>"
    html += "".join(_instructions(r) for r in table if getattr(r, "instructions", None))
    return {"text/plain": text, "text/html": wrap(html)}


def _instructions(row: Any) -> str:
    """A server's own guide to its tools, folded: one line until a person opens it."""
    return (
        f'<details class="mcpnb-instructions"><summary>Instructions from {esc(row.name)}</summary>'
        f'<div style="white-space: pre-wrap">{esc(row.instructions.strip())}</div></details>'
    )
