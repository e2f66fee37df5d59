"""How a resource's contents (``%mcp read``, ``pool.read``) and a prompt's messages (``%mcp prompt``,
``pool.prompt``) look: text shown, a blob's too when its type is text and its bytes UTF-8, other
blobs summarised (size and type), images and audio inline."""

from __future__ import annotations

from typing import Any

from mcpnb.client.contents import wire
from mcpnb.client.files import files_in
from mcpnb.client.printable import printable
from mcpnb.client.toolinfo import says_markdown
from mcpnb.notebook.render.content import read_hint, render_block, save_hints
from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.render.html import esc, wrap


def contents_bundle(contents: Any) -> dict[str, Any]:
    """The display of a :class:`~mcpnb.client.contents.ResourceContents`."""
    server, uri = contents.server, contents.uri
    whole = f"all of it: r = {read_hint(server, uri)}, then r.text"
    saves = save_hints(files_in(list(contents), server), f"r = {read_hint(server, uri)}, then r")
    blocks = [
        render_block(
            {"type": "resource", "resource": wire(c)},
            server=server,
            text_limit=DEFAULTS.text_limit,
            whole=whole,
            save_hint=saves.get(i),
            embedded=False,  # read, not embedded in anything
        )
        for i, c in enumerate(contents)
    ]
    head = (
        f'<div class="mcpnb-head"><span class="mcpnb-name">{esc(server)}</span> <code>{esc(uri)}</code></div>'
    )
    bundle: dict[str, Any] = {}
    for b in blocks:
        for mime, value in b.mime.items():
            bundle.setdefault(mime, value)
    bundle["text/html"] = wrap(head, "".join(b.html for b in blocks))
    bundle["text/plain"] = printable("\n".join([f"{server} {uri}", *(b.text for b in blocks)]))
    return bundle


def messages_bundle(prompt: Any) -> dict[str, Any]:
    """The display of a :class:`~mcpnb.client.contents.PromptMessages`, role by role (drawn as
    Markdown where the prompt's description says so: the fetch server's "as markdown")."""
    markdown = says_markdown(prompt.description)
    parts = [
        (
            str(getattr(m, "role", None) or "?"),
            render_block(
                m.content,
                server=prompt.server,
                text_limit=DEFAULTS.text_limit,
                at=f"p[{i}].content",
                markdown=markdown,
            ),
        )
        for i, m in enumerate(prompt)
    ]
    said = f" — {prompt.description}" if prompt.description else ""
    text = "\n".join([f"{prompt.server}.{prompt.name}{said}", *(f"[{role}] {b.text}" for role, b in parts)])
    head = f'<div class="mcpnb-head"><span class="mcpnb-name">{esc(prompt.server)}.{esc(prompt.name)}</span>'
    head += f'<span class="mcpnb-dim">{esc(prompt.description or "")}</span></div>'
    body = "".join(f"<div><b>{esc(role)}</b>{b.html}</div>" for role, b in parts)
    return {"text/plain": printable(text), "text/html": wrap(head, body)}
