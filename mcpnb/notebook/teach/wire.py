"""Speak MCP by hand: JSON-RPC over Streamable HTTP with nothing in between, for teaching.

mcpnb's client hides the protocol; a lesson sometimes has to show it. ``Wire(url, era)`` sends one
message at a time with the standard library (no SDK) and returns an :class:`Exchange` that shows
what went out, what came back and the HTTP headers that matter. The two eras differ exactly where
a learner should look: the 2025-11-25 era opens a session (``initialize``, an ``Mcp-Session-Id``
header on every later request); the 2026-07-28 era has no session, so every request carries the
protocol version, the client's name and its capabilities in ``params._meta`` (and mirrors the
method in headers). Only 127.0.0.1 servers the notebook started are meant to be spoken to.
"""

from __future__ import annotations

import html
import itertools
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
CLIENT_INFO = {"name": "by-hand", "version": "1.0"}
#: Methods whose name (or uri, or task id) a modern request mirrors in the ``Mcp-Name`` header
#: (SEP-2243; the tasks extension, SEP-2663, adds its three methods).
NAMED = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
#: Response headers a lesson points at; the others (date, server, ...) are noise here.
SHOWN_HEADERS = ("content-type", "mcp-session-id")


@dataclass
class Exchange:
    """One request (or notification) and what the server answered, as plain data."""

    request: dict[str, Any]
    status: int
    headers: dict[str, str]
    response: dict[str, Any] | None = None  # None for a notification (HTTP 202, no body)
    sent_headers: dict[str, str] = field(default_factory=dict)
    fold_meta: bool = False  # show a modern request's envelope as "as before" (it never changes)

    @property
    def result(self) -> Any:
        """The JSON-RPC ``result`` (None when the server answered with an ``error``)."""
        return (self.response or {}).get("result")

    @property
    def error(self) -> Any:
        return (self.response or {}).get("error")

    def _text(self) -> str:
        sent = {k: v for k, v in self.sent_headers.items() if k.lower().startswith("mcp")}
        got = {k: v for k, v in self.headers.items() if k in SHOWN_HEADERS}
        shown = self.request
        if self.fold_meta and "_meta" in shown.get("params", {}):
            shown = {**shown, "params": {**shown["params"], "_meta": "(the same envelope as before)"}}
        lines = [f"→ POST  {json.dumps(sent)}" if sent else "→ POST", _pretty(shown)]
        lines.append(f"← HTTP {self.status}  {json.dumps(got)}")
        if self.response is not None:
            lines.append(_pretty(self.response))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._text()

    def _repr_html_(self) -> str:
        return f"<pre style='font-size:12px;line-height:1.3'>{html.escape(self._text())}</pre>"


class NothingListening(ConnectionRefusedError):
    """No server at a Wire's address any more.

    A lesson makes its Wire from the address of the probe-kit its first cell started; that cell
    run with ``--restart`` (or after ``%mcp serve --stop``) starts a new probe-kit on a new free
    port, and the old address goes dead (run again as it is, it leaves the one serving alone). urllib said
    only ``<urlopen error [Errno 111] Connection refused>`` under a traceback of its own internals,
    which told a student nothing about which cell to run again.
    """

    def __init__(self, url: str) -> None:
        super().__init__(
            f"nothing answers at {url} any more: the probe-kit this Wire was made for has stopped "
            "(%mcp serve after --stop starts a new one, on a new port). Run the cell "
            "that makes this Wire (`teach.Wire(url, ...)`) again, after the cells that set `url`"
        )
        self.url = url


def _pretty(message: Any) -> str:
    text = json.dumps(message, indent=2, ensure_ascii=False)
    return text if len(text) < 4000 else text[:4000] + "\n  … (cut)"


class Wire:
    """A hand-cranked MCP client for one era: ``send(method, params)`` → :class:`Exchange`.

    ``era="legacy"`` speaks 2025-11-25 (call ``send("initialize", ...)`` first; the session id it
    gets back is sent from then on); ``era="modern"`` speaks 2026-07-28 (no session: ``_meta`` on
    every request). ``tasks=True`` declares the tasks extension in the modern capabilities.
    """

    def __init__(self, url: str, era: str = "modern", *, tasks: bool = False, timeout: float = 30) -> None:
        if era not in ("legacy", "modern"):
            raise ValueError(f"era must be 'legacy' or 'modern', not {era!r}")
        self.url, self.era, self.timeout = url, era, timeout
        self.session_id: str | None = None
        self.capabilities: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}} if tasks else {}
        self._ids = itertools.count(1)
        self._envelope_shown = False

    @property
    def version(self) -> str:
        return LEGACY_VERSION if self.era == "legacy" else MODERN_VERSION

    def message(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> dict:
        """The JSON-RPC message ``send`` would post (modern requests gain their ``_meta``)."""
        params = dict(params or {})
        if self.era == "modern" and not notify:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                **params.get("_meta", {}),
            }
        body: dict[str, Any] = {"jsonrpc": "2.0"}
        if not notify:
            body["id"] = next(self._ids)
        body["method"] = method
        if params:
            body["params"] = params
        return body

    def headers(self, body: dict[str, Any]) -> dict[str, str]:
        out = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.era == "modern":
            out["MCP-Protocol-Version"] = MODERN_VERSION
            out["Mcp-Method"] = body["method"]
            key = NAMED.get(body["method"])
            if key and key in body.get("params", {}):
                out["Mcp-Name"] = str(body["params"][key])
        elif body["method"] != "initialize":
            out["MCP-Protocol-Version"] = LEGACY_VERSION
        if self.session_id:
            out["Mcp-Session-Id"] = self.session_id
        return out

    def send(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        """Post one request and wait for its response."""
        return self._post(self.message(method, params))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        """Post one notification (no id, no answer expected)."""
        return self._post(self.message(method, params, notify=True))

    def _post(self, body: dict[str, Any]) -> Exchange:
        headers = self.headers(body)
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with _opener(self.url).open(request, timeout=self.timeout) as resp:
                status, got, raw = resp.status, _lower(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as exc:  # a JSON-RPC error may come with a 4xx status
            status, got, raw = exc.code, _lower(exc.headers), exc.read().decode()
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError):
                raise
            raise NothingListening(self.url) from None
        if body.get("method") == "initialize" and got.get("mcp-session-id"):
            self.session_id = got["mcp-session-id"]
        fold = self._envelope_shown and self.era == "modern"
        self._envelope_shown = self._envelope_shown or "_meta" in body.get("params", {})
        return Exchange(body, status, got, _parse(raw, got.get("content-type", "")), headers, fold)


def _opener(url: str) -> urllib.request.OpenerDirector:
    """A server on this machine is reached directly, never through an ``http_proxy`` from the env."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host in ("127.0.0.1", "localhost", "::1"):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def _parse(raw: str, content_type: str) -> dict[str, Any] | None:
    """The JSON-RPC response in a JSON body or in the last ``data:`` event of an SSE stream."""
    if not raw.strip():
        return None
    if "text/event-stream" in content_type:
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
        messages = [json.loads(d) for d in data if d]
        responses = [m for m in messages if "id" in m and ("result" in m or "error" in m)]
        return (responses or messages or [None])[-1]
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return {"not JSON": raw[:500]}
