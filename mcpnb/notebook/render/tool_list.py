"""The tools listing: :class:`ToolList` and its bundle.

A listing is what people scan to decide what to call, so each row keeps the description short (the
full text is one click away, written once in the page), marks required parameters with ``*`` and turns
behaviour hints into badges (read-only, destructive, ...). The ``title`` and ``hints`` columns appear
only when some tool has one: an empty column is noise.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.printable import columns_text, printable
from mcpnb.notebook.render.defaults import DEFAULTS, resolve_limit
from mcpnb.notebook.render.html import badge, esc, rtl_dir, wrap
from mcpnb.notebook.render.status_table import state_badge

SHORT_DESCRIPTION = 90

# (annotation key, value that earns a badge, label, colour)
HINTS = [
    ("readOnlyHint", True, "read-only", "ok"),
    ("destructiveHint", True, "destructive", "bad"),
    ("destructiveHint", False, "non-destructive", ""),
    ("idempotentHint", True, "idempotent", ""),
    ("openWorldHint", True, "open-world", "warn"),
    ("openWorldHint", False, "closed-world", ""),
]


def short(text: str | None, limit: int = SHORT_DESCRIPTION) -> str:
    """The first sentence or line of a description, cut at ``limit`` characters. A line that a
    description wraps mid-sentence (a docstring's) runs on into the next: "…, compose the" read as
    the whole of it."""
    lines: list[str] = []
    for line in (text or "").strip().splitlines():
        if not line.strip() or (lines and line.lstrip().startswith("#")):
            break  # a paragraph ends, or a Markdown heading starts another
        lines.append(line.strip())
        if line.lstrip().startswith("#") or line.rstrip().endswith((".", "!", "?", ":", ";", "。")):
            break  # a heading is a line of its own
    first = " ".join(lines)
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def hint_labels(tool: Any) -> list[tuple[str, str]]:
    """(label, colour) for each declared behaviour hint, then ``page`` for an MCP App tool (a page
    of its own) and ``pages only`` for one a model is never offered; undeclared hints show nothing."""
    from mcpnb.client.apps import for_model, view_uri

    ann = tool.annotations or {}
    if ann.get("readOnlyHint") is True:  # read-only makes the other hints meaningless
        labels = [("read-only", "ok"), *[(lab, k) for key, v, lab, k in HINTS[3:] if ann.get(key) is v]]
    else:
        labels = [(label, kind) for key, value, label, kind in HINTS if ann.get(key) is value]
    return (
        labels + [("page", "")] * (view_uri(tool) is not None) + [("pages only", "")] * (not for_model(tool))
    )


#: Characters of a tool's parameters in the text listing: the needed ones always show, optional
#: ones while they fit, the rest counted (a browser tool with eleven made every row 250 wide).
PARAMS_WIDTH = 60


def params_text(tool: Any, width: int = PARAMS_WIDTH) -> str:
    needed = set(tool.needed)
    shown: list[str] = []
    size = 0
    for name in tool.parameters:
        if name in needed or size + len(name) <= width:
            shown.append(name + ("*" if name in needed else ""))
            size += len(shown[-1]) + 2
    hidden = len(tool.parameters) - len(shown)
    return ", ".join(shown) + (f", … +{hidden}" if hidden else "")


def _params_html(tool: Any) -> str:
    props = tool.input_schema.get("properties", {}) if isinstance(tool.input_schema, dict) else {}
    required = set(tool.needed)
    out = []
    for name in tool.parameters:
        spec = props.get(name) if isinstance(props.get(name), dict) else {}
        kind = spec.get("type", "")
        kind = "|".join(map(str, kind)) if isinstance(kind, list) else str(kind)
        star = "<b>*</b>" if name in required else ""
        tip = spec.get("description") or ""
        title = f' title="{esc(tip)}"' if tip else ""
        type_html = f'<span class="mcpnb-dim">: {esc(kind)}</span>' if kind else ""
        out.append(f"<code{title}>{esc(name)}{star}</code>{type_html}")
    return ", ".join(out)


def _description_html(text: str) -> str:
    """The first line, cut; when that hides anything, a click unfolds the whole description."""
    first = short(text)
    if not text or first == text.strip():
        return esc(first)
    # written once: a title= copy of it too made a 5.4 KB description 13.7 KB of HTML per row
    return (
        f'<details class="mcpnb-more"><summary>{esc(first)}</summary>'
        f'<span style="white-space:pre-wrap">{esc(text.strip())}</span></details>'
    )


def _cells(tool: Any) -> dict[str, str]:
    return {
        "server": esc(tool.server),
        "tool": f'<span class="mcpnb-name">{esc(tool.name)}</span>',
        "title": esc(tool.title or ""),
        "description": _description_html(tool.description or ""),
        "parameters": _params_html(tool),
        "hints": " ".join(badge(label, kind) for label, kind in hint_labels(tool)),
    }


COLUMNS = ["server", "tool", "title", "description", "parameters", "hints"]


def columns_for(tools: list[Any]) -> list[str]:
    """Every column, less ``title`` and ``hints`` when no tool has one."""
    drop = set()
    if not any(t.title for t in tools):
        drop.add("title")
    if not any(hint_labels(t) for t in tools):
        drop.add("hints")
    return [c for c in COLUMNS if c not in drop]


def _text_cells(t: Any) -> dict[str, str]:
    """A row of the text listing, each cell :func:`printable` before the columns are measured."""
    cells = {
        "server": t.server,
        "tool": t.name,
        "title": t.title or "",
        "description": short(t.description, 60),
        "parameters": params_text(t),
        "hints": " ".join(label for label, _ in hint_labels(t)),
    }
    return {column: printable(text) for column, text in cells.items()}


def more_hint(hidden: int, noun: str, made_by: str, total: int) -> str:
    """``… 5812 more tools (…)`` under a listing cut at ``listing_limit`` rows, saying where they all
    are (``.df``, on the listing kept in a variable) and how to draw every row."""
    keep = f".df has them all (r = {made_by}, then r.df)" if made_by else ".df has them all"
    return f"… {hidden} more {noun} ({keep}; %config Mcp.listing_limit = {total} draws every row)"


def tools_text(tools: list[Any], limit: int) -> str:
    if not tools:
        return "(no tools)"
    shown = tools[:limit]
    columns = columns_for(shown)
    table = [columns, *([_text_cells(t)[c] for c in columns] for t in shown)]
    lines = columns_text(table)
    if len(tools) > limit:
        lines.append(more_hint(len(tools) - limit, "tools", "%mcp tools …", len(tools)))
    return "\n".join(lines)


def not_listed_note(listing: Any) -> str:
    """The servers whose items a listing of every server lacks, and why (their state)."""
    missed = getattr(listing, "not_listed", None) or {}
    if not missed:
        return ""
    said = ", ".join(f"{name} ({why})" for name, why in missed.items())
    return f"not listed: {said}; %mcp status says more"


def problem_lines(tools: list[Any]) -> list[str]:
    """``⚠ server.tool: inputSchema is invalid: …`` for each tool whose schema is broken: said under
    the listing a server's author looks at, before a call goes out unchecked."""
    return [f"⚠ {t.server}.{t.name}: {said}" for t in tools for said in t.schema_problems]


def tools_bundle(tools: list[Any], *, limit: int | None = None) -> dict[str, Any]:
    """``_repr_mimebundle_`` for a tools listing (any list of :class:`~mcpnb.client.toolinfo.ToolInfo`)."""
    n = resolve_limit(limit, DEFAULTS.listing_limit)
    note = not_listed_note(tools)
    note_html = f'<div class="mcpnb-dim">{esc(note)}</div>' if note else ""
    stale = getattr(tools, "stale", None)  # a server that is down: its state above its old tools
    stale_html = (
        f'<div class="mcpnb-block">{state_badge(stale.state)} {esc(stale.said)}'
        f'<div class="mcpnb-dim">below: its tools {esc(stale.fetched)}</div></div>'
        if stale
        else ""
    )
    stale_text = stale.text() + "\n" if stale else ""
    if not tools:
        said = getattr(tools, "empty", None) or "(no tools)"
        return {
            "text/plain": printable(stale_text + said + (f"\n{note}" if note else "")),
            "text/html": wrap(stale_html + f'<div class="mcpnb-dim">{esc(said)}</div>' + note_html),
        }
    shown = tools[:n]
    columns = columns_for(shown)
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr>"
    body = "".join(
        "<tr>" + "".join(f"<td{rtl_dir(cells[c])}>{cells[c]}</td>" for c in columns) + "</tr>"
        for cells in (_cells(t) for t in shown)
    )
    html = f"{stale_html}<table><thead>{head}</thead><tbody>{body}</tbody></table>"
    if len(tools) > n:
        more = more_hint(len(tools) - n, "tools", "%mcp tools …", len(tools))
        html += f'<div class="mcpnb-dim">{esc(more)}</div>'
    example = f"{shown[0].server}.{shown[0].name}"  # how to see one in full, with a real name
    html += f'<div class="mcpnb-dim">* required parameter · one in full: %mcp tools {esc(example)}</div>'
    html += note_html
    problems = problem_lines(tools)
    html += "".join(f'<div class="mcpnb-block">{badge(line, "warn")}</div>' for line in problems)
    text = printable(stale_text + "\n".join([tools_text(tools, n), *([note] if note else []), *problems]))
    return {"text/plain": text, "text/html": wrap(html)}
