"""One prompt in full: ``%mcp prompts ev.args-prompt``, as ``%mcp tools NAME.TOOL`` shows a tool.

The listing shows each argument's name; a person filling one in wants what it is for, and how
the ``%mcp prompt`` line is written.
"""

from __future__ import annotations

import inspect
from typing import Any

from mcpnb.client.contents import pick
from mcpnb.notebook.render.html import esc, wrap

_NEEDED = "* a prompt needs it"


def prompt_bundle(server: str, prompt: Any) -> dict[str, Any]:
    """``_repr_mimebundle_`` of one prompt (an SDK ``Prompt``, or its wire dict) of ``server``."""
    name, title = pick(prompt, "name") or "", pick(prompt, "title")
    head = f"{server}.{name}" + (f" · {title}" if title else "")
    description = inspect.cleandoc(pick(prompt, "description") or "") or "(the server gives no description)"
    given = pick(prompt, "arguments") or []
    needed = [str(pick(a, "name")) for a in given if pick(a, "required")]
    arguments = [  # (name, * when required; its description in one line)
        (
            str(pick(a, "name")) + ("*" if pick(a, "required") else ""),
            " ".join(str(pick(a, "description") or "").split()),
        )
        for a in given
    ]
    call = " ".join([f"%mcp prompt {server}.{name}", *(f"{a}=…" for a in needed)])

    lines = [head, "", description, "", "arguments:" if arguments else "(no arguments)"]
    for argument, said in arguments:
        lines += [argument] + ([f"    {said}"] if said else [])
    lines += [f"({_NEEDED})"] if needed else []
    lines.append(f"get it: {call}")

    rows = "".join(f"<tr><td><code>{esc(a)}</code></td><td>{esc(said)}</td></tr>" for a, said in arguments)
    table = (
        f"<table><thead><tr><th>argument</th><th>description</th></tr></thead><tbody>{rows}</tbody></table>"
        if arguments
        else '<div class="mcpnb-dim">(no arguments)</div>'
    )
    html = (
        f'<div class="mcpnb-head"><span class="mcpnb-name">{esc(head)}</span></div>'
        f'<div class="mcpnb-block" style="white-space:pre-wrap">{esc(description)}</div>'
        f'<div class="mcpnb-block">{table}</div>'
        + (f'<div class="mcpnb-dim">{_NEEDED}</div>' if needed else "")
        + f'<div class="mcpnb-dim">get it: <code>{esc(call)}</code></div>'
    )
    return {"text/plain": "\n".join(lines), "text/html": wrap(html)}
