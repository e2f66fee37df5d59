"""``structuredContent``: a table preview when it has a table's shape, else a collapsible JSON view.

Previews stop at the display limit and say how much is hidden; the whole value stays on the result
(``.data``, ``.df``), so truncation never loses data, only screen space.
"""

from __future__ import annotations

import json
from typing import Any

from mcpnb.client.frames import is_tabular, to_dataframe
from mcpnb.notebook.render.html import badge, esc, pre, truncate

_OPEN_LINES = 40  # short JSON starts unfolded; long JSON starts folded


def schema_badge(result: Any) -> tuple[str, str]:
    """(HTML, text) saying whether the data matches the tool's outputSchema; empty when none declared."""
    valid = result.schema_valid
    if valid is None:
        return "", ""
    if valid:
        return badge("✓ outputSchema", "ok", "structured content matches the tool's outputSchema"), "schema ✓"
    error = result.schema_error or "does not match"
    return badge("⚠ outputSchema", "warn", error), f"schema ⚠ {error}"


def _table(data: Any, limit: int) -> tuple[str, str]:
    df = to_dataframe(data)
    rows, cols = df.shape
    shown = df.head(limit)
    more = rows - len(shown)
    caption = f"{rows} row{'s' if rows != 1 else ''} × {cols} column{'s' if cols != 1 else ''}"
    html = f'<div class="mcpnb-dim">structured content · {esc(caption)}</div>' + shown.to_html(
        index=False, border=0, escape=True, na_rep="", max_cols=50
    )
    text = f"structured content ({caption}):\n" + (shown.to_string(index=False, max_cols=20) if cols else "")
    if more:
        note = f"… {more} more row{'s' if more != 1 else ''} (result.df has them all)"
        html += f'<div class="mcpnb-dim">{esc(note)}</div>'
        text += "\n" + note
    return html, text


def _kind(data: Any) -> str:
    if isinstance(data, dict):
        return f"object, {len(data)} key{'s' if len(data) != 1 else ''}"
    if isinstance(data, list):
        return f"list, {len(data)} item{'s' if len(data) != 1 else ''}"
    return "null" if data is None else type(data).__name__


def _json_view(data: Any, limit: int, json_limit: int) -> tuple[str, str]:
    shown_data = data
    notes = []
    if isinstance(data, list) and len(data) > limit:
        shown_data = data[:limit]
        notes.append(f"… {len(data) - limit} more items (result.data has them all)")
    try:
        dumped = json.dumps(shown_data, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # circular or otherwise undumpable: still show something
        dumped = repr(shown_data)
    dumped, hidden = truncate(dumped, json_limit)
    if hidden:
        notes.append(f"… {hidden} more characters of JSON")
    is_open = " open" if dumped.count("\n") < _OPEN_LINES else ""
    html = (
        f"<details{is_open}><summary>structured content · {esc(_kind(data))}</summary>{pre(dumped)}"
        + "".join(f'<div class="mcpnb-dim">{esc(n)}</div>' for n in notes)
        + "</details>"
    )
    text = f"structured content ({_kind(data)}):\n{dumped}" + "".join("\n" + n for n in notes)
    return html, text


def render_structured(result: Any, limit: int, json_limit: int) -> tuple[str, str]:
    """The structured section (HTML, text), with a schema warning line above it on a mismatch."""
    data = result.data
    warn_html = warn_text = ""
    if result.schema_valid is False:
        msg = f"⚠ does not match the tool's outputSchema: {result.schema_error}"
        warn_html = f'<div class="mcpnb-block"><span class="mcpnb-badge mcpnb-warn">{esc(msg)}</span></div>'
        warn_text = msg + "\n"
    if is_tabular(data):
        try:
            html, text = _table(data, limit)
        except Exception:  # a shape pandas still refuses: the JSON view always works
            html, text = _json_view(data, limit, json_limit)
    else:
        html, text = _json_view(data, limit, json_limit)
    return warn_html + f'<div class="mcpnb-block">{html}</div>', warn_text + text
