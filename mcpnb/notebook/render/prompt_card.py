"""One prompt in full: ``%mcp prompts ev.args-prompt``, as ``%mcp tools NAME.TOOL`` shows a tool.

The listing shows each argument's name; a person filling one in wants what it is for, and how
the ``%mcp prompt`` line is written.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.contents import pick
from mcpnb.notebook.render.card import Entry, card_bundle, cleaned, secret_trailers, secret_variable


def prompt_bundle(server: str, prompt: Any) -> dict[str, Any]:
    """``_repr_mimebundle_`` of one prompt (an SDK ``Prompt``, or its wire dict) of ``server``."""
    name, title = pick(prompt, "name") or "", pick(prompt, "title")
    given = pick(prompt, "arguments") or []
    needed = [str(pick(a, "name")) for a in given if pick(a, "required")]
    secret = {a: secret_variable(a) for a in needed}  # a password is never typed onto the line
    words = [f"{a}={{{{{v}}}}}" if v else f"{a}=…" for a, v in secret.items()]
    secrets = [v for v in secret.values() if v]
    arguments = [
        Entry(
            str(pick(a, "name")) + ("*" if pick(a, "required") else ""),
            description=" ".join(str(pick(a, "description") or "").split()),
        )
        for a in given
    ]
    return card_bundle(
        f"{server}.{name}" + (f" · {title}" if title else ""),
        [],
        cleaned(pick(prompt, "description")),
        "argument",
        arguments,
        "* a prompt needs it" if needed else None,
        [("get it", " ".join([f"%mcp prompt {server}.{name}", *words]), True), *secret_trailers(secrets)],
    )
