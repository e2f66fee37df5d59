"""One MCP content block (text, image, audio, resource link, embedded resource) to HTML and text.

Blocks arrive as SDK pydantic models, but :func:`field` also reads wire-shaped dicts (camelCase), so
results rebuilt from saved JSON render the same way. Everything a server sent is escaped; images and
audio are inlined as ``data:`` URIs only for media types a browser treats as inert in ``<img>``/``<audio>``.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from mcpnb.client.contents import b64_size, blob_text, human_size, media_label, not_an_image
from mcpnb.client.files import File
from mcpnb.notebook.render.html import badge, esc, pre, truncate, web_link, without_ansi
from mcpnb.notebook.render.markdown import markdown_to_html

# SVG inside <img> runs no scripts, so it is as safe to inline as the raster formats.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/gif", "image/svg+xml", "image/webp"})
# The keys a Jupyter frontend understands for a standalone image in the bundle.
#: Image types that also get a bundle entry of their own (for frontends without HTML). Not SVG: a
#: frontend may put an ``image/svg+xml`` entry in the page as markup, where the server's
#: ``<script>`` and ``onload`` run; the HTML draws it through ``<img>``, which runs none.
BUNDLE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif"})
#: Bytes of an image past which it gets no bundle entry of its own: the HTML's ``data:`` URI is then
#: its one copy (a 5 MB screenshot was saved twice, 13 MB of base64 in the .ipynb). The HTML is the
#: one kept because it is what JupyterLab, Notebook, VS Code and nbconvert's HTML draw (they prefer
#: ``text/html`` to ``image/png``); what draws no HTML (a PDF export) shows the text's summary.
BUNDLE_IMAGE_LIMIT = 256 * 1024
_AUDIO = re.compile(r"^audio/[\w.+-]+$")
_MARKDOWN = re.compile(r"markdown", re.IGNORECASE)


@dataclass
class Rendered:
    """One block's HTML and terminal text, plus extra mime entries for the bundle (first image)."""

    html: str
    text: str
    mime: dict[str, Any] = field(default_factory=dict)


def get(block: Any, attr: str, alias: str | None = None) -> Any:
    """Read a field from an SDK model (snake_case) or a wire dict (camelCase alias)."""
    if isinstance(block, dict):
        return block.get(alias or attr)
    return getattr(block, attr, None)


def sget(block: Any, attr: str, alias: str | None = None) -> str | None:
    """A field as a string (or None): wire dicts from anywhere may hold any JSON type in any field."""
    value = get(block, attr, alias)
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)


def block_type(block: Any) -> str:
    value = get(block, "type")
    return value if isinstance(value, str) else "unknown"


def is_markdown(block: Any, mime_type: str | None = None) -> bool:
    """A server marks Markdown through a mime type (resources) or ``_meta`` (text blocks)."""
    if isinstance(mime_type, str) and _MARKDOWN.search(mime_type):
        return True
    meta = get(block, "meta", "_meta")
    if isinstance(meta, dict):
        for key in ("mimeType", "mime_type", "contentType", "content-type", "format"):
            value = meta.get(key)
            if isinstance(value, str) and _MARKDOWN.search(value):
                return True
    return False


def audience_of(block: Any) -> list[str]:
    """The annotated audience as strings (empty when not annotated)."""
    ann = get(block, "annotations")
    audience = get(ann, "audience") if ann is not None else None
    if audience is None:
        return []
    return [str(a) for a in audience] if isinstance(audience, list) else [str(audience)]


def annotations_line(block: Any) -> tuple[str, str]:
    """Audience, priority and lastModified as one dim line (HTML, text); empty when there are none."""
    ann = get(block, "annotations")
    if ann is None:
        return "", ""
    audience = audience_of(block)
    priority = get(ann, "priority")
    modified = sget(ann, "last_modified", "lastModified")
    parts = []
    if audience:
        parts.append("for " + " & ".join(audience))
    if priority is not None:
        parts.append(f"priority {priority}")
    if modified:
        parts.append(f"modified {modified}")
    if not parts:
        return "", ""
    text = " · ".join(parts)
    return f'<div class="mcpnb-dim">{esc(text)}</div>', f"  ({text})"


def _text_body(text: str, markdown: bool, text_limit: int, whole: str) -> tuple[str, str]:
    shown, hidden = truncate(text, text_limit)
    more = f"… {hidden} more characters ({whole})" if hidden else ""
    body = f'<div class="mcpnb-md">{markdown_to_html(without_ansi(shown))}</div>' if markdown else pre(shown)
    if more:
        body += f'<div class="mcpnb-dim">{esc(more)}</div>'
    return body, shown + ("\n" + more if more else "")


def _media(kind: str, data: Any, mime: Any, save_hint: str | None = None) -> Rendered:
    """Inline image or audio, or a one-line summary when the type or the data is not safe to inline.
    ``save_hint``: how to save it, said in text (a terminal shows no image) and beside a summary."""
    mime_s = mime if isinstance(mime, str) else "unknown type"
    size = b64_size(data) if isinstance(data, str) else None
    label = media_label(kind, mime_s, size)
    wrong = not_an_image(data, mime_s) if size is not None and kind == "image" else None
    if wrong is not None:
        label += f", {wrong}"
    extra: dict[str, Any] = {}
    if size is not None and wrong is None and kind == "image" and mime_s in IMAGE_TYPES:
        html = f'<img src="data:{esc(mime_s)};base64,{esc(data)}" alt="{esc(label)}" title="{esc(label)}">'
        if mime_s in BUNDLE_IMAGE_TYPES and size is not None and size <= BUNDLE_IMAGE_LIMIT:
            extra[mime_s] = data
    elif size is not None and kind == "audio" and _AUDIO.match(mime_s):
        html = f'<audio controls src="data:{esc(mime_s)};base64,{esc(data)}" title="{esc(label)}"></audio>'
    else:
        html = badge(label, "off")
        if save_hint and size is not None:
            html += f' <span class="mcpnb-dim">save it: <code>{esc(save_hint)}</code></span>'
    hint = f"\n  save it: {save_hint}" if save_hint and size is not None else ""
    return Rendered(html, f"[{label}]{hint}", extra)


def read_hint(server: str, uri: str) -> str:
    return f"%mcp read {shlex.quote(server)} {shlex.quote(uri)}"


def _uri_html(uri: str) -> str:
    """Only web URIs become links: a ``javascript:`` or custom-scheme href is never emitted."""
    if uri.startswith(("http://", "https://")):
        return web_link(uri, f"<code>{esc(uri)}</code>")
    return f"<code>{esc(uri)}</code>"


def save_hints(files: list[File], owner: str) -> dict[int, str]:
    """How to save each file, by block index (``result.save('.') (as sales.xlsx)``; with the
    block's index where there are several); ``owner`` is the expression before ``.save``. Into a
    folder, not to the server's name as a path: saved into a folder, a server's name never
    replaces a different file (a hint copied as it is must not clobber the notebook beside it)."""
    several = len(files) > 1
    return {
        f.index: f"{owner}.save('.'" + (f", which={f.index})" if several else ")") + f" (as {f.name})"
        for f in files
    }


def _resource_link(block: Any, server: str) -> Rendered:
    uri = sget(block, "uri") or ""
    name = sget(block, "title") or sget(block, "name") or uri
    desc = sget(block, "description")
    mime = sget(block, "mime_type", "mimeType")
    size = get(block, "size")
    size_s = human_size(size) if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None
    facts = " · ".join(p for p in (mime, size_s) if p)
    hint = read_hint(server, uri)
    html = (
        f'<div class="mcpnb-card">🔗 <b>{esc(name)}</b> {_uri_html(uri)}'
        + (f" <span class='mcpnb-dim'>{esc(facts)}</span>" if facts else "")
        + (f"<div>{esc(desc)}</div>" if desc else "")
        + f'<div class="mcpnb-dim">read it: <code>{esc(hint)}</code></div></div>'
    )
    text = f"→ {name} <{uri}>" + (f" [{facts}]" if facts else "") + (f" — {desc}" if desc else "")
    return Rendered(html, text + f"\n  {hint}")


def _embedded(
    block: Any, server: str, text_limit: int, whole: str, save_hint: str | None, what: str | None
) -> Rendered:
    """A resource's contents in a block (``what`` says how it came: ``embedded resource``)."""
    res = get(block, "resource") or {}
    uri = sget(res, "uri") or ""
    mime = sget(res, "mime_type", "mimeType")
    text = get(res, "text")
    blob = get(res, "blob")
    head_facts = " · ".join(p for p in (what, mime) if p)
    head = f'<div>📄 {_uri_html(uri)} <span class="mcpnb-dim">{esc(head_facts)}</span></div>'
    if isinstance(text, str):
        body, body_text = _text_body(text, is_markdown(res, mime), text_limit, whole)
        return Rendered(f'<div class="mcpnb-card">{head}{body}</div>', f"[resource {uri}]\n{body_text}")
    size = b64_size(blob) if isinstance(blob, str) else None
    size_s = human_size(size) if size is not None else "invalid base64"
    summary = f"blob, {size_s}, {mime or 'unknown type'}"
    extra: dict[str, Any] = {}
    hint = f"save it: {save_hint}" if save_hint else read_hint(server, uri)
    body = f'<div class="mcpnb-dim">{esc(summary)} · <code>{esc(hint)}</code></div>'
    text_s = f"[resource {uri}: {summary}]" + (f"\n  save it: {save_hint}" if save_hint else "")
    if isinstance(mime, str) and size is not None:
        if mime in IMAGE_TYPES or _AUDIO.match(mime):
            media = _media("image" if mime in IMAGE_TYPES else "audio", blob, mime)
            body += media.html
            extra = media.mime
        elif (decoded := blob_text(blob, mime)) is not None:
            shown, shown_text = _text_body(decoded, is_markdown(res, mime), text_limit, whole)
            body += shown
            text_s += "\n" + shown_text
    return Rendered(f'<div class="mcpnb-card">{head}{body}</div>', text_s, extra)


def render_block(
    block: Any,
    *,
    server: str,
    text_limit: int,
    at: str = "result.content[i]",
    whole: str | None = None,
    markdown: bool = False,
    save_hint: str | None = None,
    embedded: bool = True,
) -> Rendered:
    """HTML and text for one block; unknown block types show as escaped JSON rather than vanish.

    ``at`` is the Python expression of the block (``whole`` overrides the hint built from it), so a
    text cut at ``text_limit`` says where all of it is. ``markdown``: the tool says its text is
    Markdown (a block's own mark, ``_meta`` or a mime type, says so too). ``save_hint``: how to
    save a file the block holds (:func:`save_hints`): a resource's, instead of how to read it again;
    an image's or a sound's in text. ``embedded=False``: a resource block holds what
    ``resources/read`` gave, not a resource embedded in a result or a prompt, and says no such thing.
    """
    kind = block_type(block)
    if kind == "text":
        text = get(block, "text")
        text = text if isinstance(text, str) else str(text)
        drawn = markdown or is_markdown(block)
        html, plain = _text_body(text, drawn, text_limit, whole or f"all of it: {at}.text")
        out = Rendered(html, plain)
    elif kind in ("image", "audio"):
        out = _media(kind, get(block, "data"), get(block, "mime_type", "mimeType"), save_hint)
    elif kind == "resource_link":
        out = _resource_link(block, server)
    elif kind == "resource":
        what = "embedded resource" if embedded else None
        out = _embedded(block, server, text_limit, whole or f"all of it: {at}.resource.text", save_hint, what)
    else:
        dump = getattr(block, "model_dump", None)
        raw = dump(mode="json", by_alias=True, exclude_none=True) if dump else block
        shown = json.dumps(raw, indent=2, default=str, ensure_ascii=False)
        out = Rendered(
            f'<div class="mcpnb-dim">{esc(kind)} block</div>{pre(shown)}', f"[{kind} block] {shown}"
        )
    ann_html, ann_text = annotations_line(block)
    audience = audience_of(block)
    html = out.html + ann_html
    if audience and "user" not in audience:
        # Meant for the model, not the person: keep it, folded away.
        html = f"<details><summary class='mcpnb-dim'>for the assistant</summary>{html}</details>"
    return Rendered(f'<div class="mcpnb-block">{html}</div>', out.text + ann_text, out.mime)
