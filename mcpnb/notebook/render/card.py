"""The layout of one thing in full (a tool, a prompt): a title with its badges, its description as
written, a table of what it takes, then a few ``label: value`` lines (what it returns, how it is
called). ``text/plain`` writes each entry as a line with its description under it: a table of
them is too wide for a terminal."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from mcpnb.client.printable import printable
from mcpnb.notebook.render.html import badge, esc, wrap


@dataclass(frozen=True)
class Entry:
    """One parameter or argument; empty fields are left out (a column none of them fills too)."""

    name: str  # with ``*`` when it must be given
    kind: str = ""
    default: str = ""
    description: str = ""


def secret_variable(name: str) -> str | None:
    """The notebook variable a card's call line names for an argument whose name says it is a
    secret (``password``, ``api_key``: :func:`~mcpnb.client.redact.is_secret_key`), None for any
    other. A value typed onto the ``%mcp`` line stays in the notebook's history and its saved file;
    ``{{password}}`` is read from the kernel when the line runs. The server's name is made a plain
    Python name (``X-Api-Key`` gives ``X_Api_Key``): a ``{{…}}`` runs as Python in the notebook."""
    import keyword
    import re

    from mcpnb.client.redact import is_secret_key

    if not is_secret_key(name):
        return None
    variable = re.sub(r"\W", "_", name.strip()) or "secret"
    if not variable.isidentifier():  # a digit first
        variable = f"_{variable}"
    return f"{variable}_" if keyword.iskeyword(variable) else variable


def secret_trailers(variables: list[str]) -> list[tuple[str, str, bool]]:
    """The card's line saying where the ``{{…}}`` of its call line comes from (none without one)."""
    if not variables:
        return []
    said = ", ".join(f"{{{{{v}}}}}" for v in variables)
    how = f"{variables[0]} = getpass.getpass()"
    return [
        ("secret", f"{said} reads the notebook's variable: set it with {how}, so it is in no cell", False)
    ]


def cleaned(description: str | None) -> str:
    """A description as a docstring is cleaned (a C# or Python server's keeps its source's
    indentation), or a word that there is none."""
    return inspect.cleandoc(description or "") or "(the server gives no description)"


def card_bundle(
    title: str,
    badges: list[tuple[str, str]],
    description: str,
    noun: str,
    entries: list[Entry],
    needed: str | None,
    trailers: list[tuple[str, str, bool]],
) -> dict[str, Any]:
    """The bundle: ``badges`` as (label, colour), the ``entries`` under ``noun`` (``parameter``),
    ``needed`` the note for the ``*`` (None when no entry has one), ``trailers`` as (label, value,
    written as code)."""
    labels = [label for label, _ in badges]
    lines = [title + (f"  [{', '.join(labels)}]" if labels else ""), "", description, ""]
    lines.append(f"{noun}s:" if entries else f"(no {noun}s)")
    for e in entries:
        kind = f": {e.kind}" if e.kind else ""
        lines.append(e.name + kind + (f" (default {e.default})" if e.default else ""))
        lines += [f"    {e.description}"] if e.description else []
    lines += [f"({needed})"] if needed else []
    lines += [f"{label}: {value}" for label, value, _ in trailers]

    columns = [
        (noun, "name", True),
        ("type", "kind", any(e.kind for e in entries)),
        ("default", "default", any(e.default for e in entries)),
        ("description", "description", True),
    ]
    shown = [(head, field) for head, field, used in columns if used]

    def cell(field: str, value: str) -> str:
        return f"<td><code>{esc(value)}</code></td>" if field == "name" else f"<td>{esc(value)}</td>"

    table = (
        "<table><thead><tr>"
        + "".join(f"<th>{head}</th>" for head, _ in shown)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(cell(f, getattr(e, f)) for _, f in shown) + "</tr>" for e in entries)
        + "</tbody></table>"
        if entries
        else f'<div class="mcpnb-dim">(no {noun}s)</div>'
    )
    head = f'<span class="mcpnb-name">{esc(title)}</span>' + "".join(badge(lab, k) for lab, k in badges)
    html = (
        f'<div class="mcpnb-head">{head}</div>'
        f'<div class="mcpnb-block" style="white-space:pre-wrap">{esc(description)}</div>'
        f'<div class="mcpnb-block">{table}</div>'
        + (f'<div class="mcpnb-dim">{esc(needed)}</div>' if needed else "")
        + "".join(
            f'<div class="mcpnb-dim">{esc(label)}: {f"<code>{esc(v)}</code>" if code else esc(v)}</div>'
            for label, v, code in trailers
        )
    )
    return {"text/plain": printable("\n".join(lines)), "text/html": wrap(html)}
