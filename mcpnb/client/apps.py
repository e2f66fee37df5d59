"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, stable 2026-01-26): a tool's own view.

A tool whose ``_meta.ui.resourceUri`` names a ``ui://`` resource has an HTML page that draws its
result; the host reads the page with ``resources/read``, shows it in a sandboxed frame and answers
what the page asks over ``postMessage`` in JSON-RPC (``ui/initialize``, ``tools/call``, …).

This module is which tools have a view, and the page with the Content-Security-Policy it gets;
:mod:`mcpnb.client.app_host` answers one drawn page's messages through the pool. How the page is
drawn (an iframe in a widget) is the notebook's business (``mcpnb.notebook.render.app_view``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpnb.client.contents import pick
from mcpnb.client.toolinfo import ToolInfo

#: The extension's identifier, advertised under ``capabilities.extensions`` at ``initialize``.
EXTENSION = "io.modelcontextprotocol/ui"
#: The one page type the extension defines.
PAGE_TYPE = "text/html;profile=mcp-app"
#: The version of the host ⇄ page protocol this host speaks.
PROTOCOL_VERSION = "2026-01-26"
#: A page drawn in a sandbox of its own opaque origin has no storage: reading ``localStorage``
#: throws. The extension's web hosts give the frame an origin (a proxy) where it works, and pages
#: use it (the MCP Apps PDF viewer keeps its place there), so such a page gets a stand-in in
#: memory, as long-lived as the page; a frame that has storage keeps its own.
STORAGE_STAND_IN = """<script>(() => { for (const name of ["localStorage", "sessionStorage"]) {
  try { window[name]; continue; } catch (refused) {}
  const data = new Map();
  const store = {
    getItem: (key) => (data.has(String(key)) ? data.get(String(key)) : null),
    setItem: (key, value) => { data.set(String(key), String(value)); },
    removeItem: (key) => { data.delete(String(key)); },
    clear: () => data.clear(),
    key: (index) => [...data.keys()][index] ?? null,
    get length() { return data.size; },
  };
  Object.defineProperty(window, name, { configurable: true, get: () => store });
} })();</script>"""
#: Where a frontend may put a script of its own, after the policy and before anything of the page's
#: (``app_view.js`` puts there the one that tells its page from a document the frame was sent to).
#: A comment: inert where nothing replaces it.
FRONTEND_MARK = "<!--mcpnb:frontend-->"
#: Who may call a tool when it says nothing (``_meta.ui.visibility``).
DEFAULT_VISIBILITY = ("model", "app")

#: A CSP source a server may declare: a scheme and a host, ``*.`` allowed first, an optional port,
#: nothing that could end the directive or open another one (``;``, ``,``, quotes, spaces).
_SOURCE = re.compile(r"^(?:https?|wss?)://(?:\*\.)?[A-Za-z0-9.-]+(?::[0-9]{1,5})?/?$")
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
#: A page's own doctype, when it is the first thing in it (a BOM and blank space before it allowed):
#: it stays first, or the page would be drawn in quirks mode. A doctype ends at its first ``>``, as
#: the browser's tokenizer ends it (quotes included).
_DOCTYPE = re.compile(r"^\ufeff?\s*<!doctype\b[^>]*>", re.IGNORECASE)


def extension_settings() -> dict[str, Any]:
    """What the client says of MCP Apps at ``initialize``: the page types it draws."""
    return {"mimeTypes": [PAGE_TYPE]}


def _ui(meta: Mapping[str, Any] | None) -> Mapping[str, Any]:
    ui = (meta or {}).get("ui")
    return ui if isinstance(ui, Mapping) else {}


def view_uri(tool: ToolInfo) -> str | None:
    """The ``ui://`` page that draws ``tool``'s results, or None. The flat ``_meta["ui/resourceUri"]``
    is the deprecated spelling of ``_meta.ui.resourceUri``; servers of 2026 still send both."""
    uri = _ui(tool.meta).get("resourceUri") or (tool.meta or {}).get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


def visibility(tool: ToolInfo) -> tuple[str, ...]:
    """Who may call ``tool``: ``"model"`` (an LLM it is handed to), ``"app"`` (its server's pages)."""
    said = _ui(tool.meta).get("visibility")
    if isinstance(said, list) and all(isinstance(x, str) for x in said):
        return tuple(said)
    return DEFAULT_VISIBILITY


def for_model(tool: ToolInfo) -> bool:
    """Whether a model may be offered ``tool``: not when only its pages may call it."""
    return "model" in visibility(tool)


@dataclass(frozen=True)
class AppPage:
    """A tool's page as read from its server: the HTML and what it asks of the sandbox."""

    server: str
    uri: str
    html: str
    csp: dict[str, list[str]] = field(default_factory=dict)
    #: Sources the server declared that are not plain origins, left out of the policy.
    refused: tuple[str, ...] = ()
    prefers_border: bool | None = None

    @property
    def reaches(self) -> list[str]:
        """The origins the page may reach beyond its host, as its server declared them (the
        extension: a host should warn when a page needs external domains)."""
        return list(dict.fromkeys(source for key in _CSP_KEYS for source in self.csp.get(key, [])))

    @property
    def policy(self) -> str:
        """The Content-Security-Policy the page runs under: the extension's restrictive default,
        opened only to the origins the server declared (``connectDomains``, ``resourceDomains``,
        ``frameDomains``, ``baseUriDomains``). Scripts may also ``eval`` and start workers from
        ``blob:``, as the MCP Apps project's reference host allows (a Three.js page evaluates the
        scene it is given): neither reaches anything beyond the page. What the policy shuts is
        fetches, sockets, images, scripts, styles, fonts, media, frames, forms and links to
        undeclared origins; it does not cover WebRTC (a page may send STUN packets to any address)
        nor the one request of a page that navigates its own frame away (``app_view.js`` stops
        answering it then), which no Content-Security-Policy governs."""
        resources = " ".join(self.csp.get("resourceDomains", []))
        connect = " ".join(self.csp.get("connectDomains", [])) or "'none'"
        frames = " ".join(self.csp.get("frameDomains", [])) or "'none'"
        base = " ".join(self.csp.get("baseUriDomains", [])) or "'self'"
        directives = [
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: {resources}",
            f"style-src 'self' 'unsafe-inline' blob: data: {resources}",
            f"img-src 'self' data: blob: {resources}",
            f"font-src 'self' data: blob: {resources}",
            f"media-src 'self' data: blob: {resources}",
            f"worker-src 'self' blob: {resources}",
            f"connect-src {connect}",
            f"frame-src {frames}",
            "object-src 'none'",
            f"base-uri {base}",
            "form-action 'none'",  # a form's submission is a navigation, which default-src leaves open
        ]
        return "; ".join(" ".join(d.split()) for d in directives)

    @property
    def document(self) -> str:
        """The page with its policy as the very first thing in it (after its ``<!doctype>``, if the
        page starts with one), then a stand-in for the storage such a frame lacks (see
        :data:`STORAGE_STAND_IN`) and the frontend's place (:data:`FRONTEND_MARK`): a frame drawn
        from this text (``srcdoc``) can reach nothing the server did not declare. The page's text
        is never searched for its ``<head>``: the first ``<head`` in it may be inside a comment
        (``<!-- <head> -->``: a policy put there is never applied) or after a script of its own,
        which would run before the policy; a ``<meta>`` before ``<html>`` goes into the head the
        browser makes, and the page's ``<html>`` and ``<head>`` tags after it still count.
        Chromium also applies the frame's ``csp`` attribute (``app_view.js``); Firefox and Safari
        have only this tag."""
        policy = f'<meta http-equiv="Content-Security-Policy" content="{self.policy}">'
        meta = policy + STORAGE_STAND_IN + FRONTEND_MARK
        doctype = _DOCTYPE.match(self.html)
        at = doctype.end() if doctype else 0
        return self.html[:at] + meta + self.html[at:]


def page_from(server: str, uri: str, contents: list[Any]) -> AppPage:
    """The :class:`AppPage` in a ``resources/read`` answer; a ``ValueError`` says what is wrong."""
    page = next((c for c in contents if pick(c, "mime_type", "mimeType") == PAGE_TYPE), None)
    if page is None:
        types = sorted({str(pick(c, "mime_type", "mimeType")) for c in contents}) or ["nothing"]
        raise ValueError(f"{uri} is not an MCP App page: its server sent {', '.join(types)}, not {PAGE_TYPE}")
    text = pick(page, "text")
    if text is None:
        try:
            text = base64.b64decode(pick(page, "blob") or "", validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"{uri}: its blob is not base64 of UTF-8 HTML ({exc})") from None
    ui = _ui(pick(page, "meta", "_meta"))
    declared = ui.get("csp") if isinstance(ui.get("csp"), Mapping) else {}
    csp: dict[str, list[str]] = {}
    refused: list[str] = []
    for key, sources in declared.items():
        if key not in _CSP_KEYS:
            refused.append(f"{key} (not a field of the extension's csp)")
            continue
        for source in sources if isinstance(sources, list) else [sources]:
            if isinstance(source, str) and _SOURCE.match(source):
                csp.setdefault(str(key), []).append(source)
            else:
                refused.append(f"{key}: {source!r}")
    border = ui.get("prefersBorder")
    return AppPage(server, uri, text, csp, tuple(refused), border if isinstance(border, bool) else None)
