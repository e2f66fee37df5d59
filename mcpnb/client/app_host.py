"""The host's side of one drawn MCP App page: answering its JSON-RPC through the pool.

A page is a small MCP client of its host, talking over ``postMessage``: ``ui/initialize`` and
``initialized``, then ``tools/call`` to its own server (only tools whose visibility includes
``app``), ``resources/read`` and the listings, and the extension's own requests (a link to open, a
file to save, words and context for a model, a display mode). :class:`AppHost` answers them with no
frontend; what a page asks of the person is noted (:class:`Note`) for whoever draws it
(``mcpnb.notebook.render.app_view``), never done for the page. Which tools have a page, and the
page with its policy, are :mod:`mcpnb.client.apps`.
"""

from __future__ import annotations

import base64
import re
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcpnb.client.apps import PROTOCOL_VERSION, AppPage, visibility
from mcpnb.client.call_logs import KeptLogs
from mcpnb.client.contents import human_size, wire
from mcpnb.client.files import File, files_in
from mcpnb.client.interaction import LOG_LIMIT
from mcpnb.client.redact import REDACTED, is_secret_key
from mcpnb.client.toolinfo import ToolInfo

#: A file a page offers larger than this is kept for Python but offered as no link: the link
#: carries the file itself (a ``data:`` URL) in the widget's state, sent whole at every change.
LINK_LIMIT = 8 * 1024 * 1024
#: What a page handed over that a host keeps (results, messages, files): the newest this many.
KEPT = 200
#: A link a page may show the person: the web, nothing else (no ``javascript:``, ``file:``, ``data:``).
_WEB = re.compile(r"^https?://", re.IGNORECASE)  # a scheme is case-insensitive (RFC 3986)
#: A media type as a data: URL may carry it (anything else there could end the URL's header).
_MIME = re.compile(r"^[\w.+-]+/[\w.+-]+$")

#: Listings a page may ask of its own server (the extension lets a host forward what is not
#: ``ui/``; its SDK's ``listServerResources`` sends the first): method → (result key, pool method).
_LISTINGS = {
    "resources/list": ("resources", "aresources"),
    "resources/templates/list": ("resourceTemplates", "aresource_templates"),
    "prompts/list": ("prompts", "aprompts"),
}

#: What a page may ask before its ``ui/initialize`` was answered. MCP's lifecycle, which the page's
#: handshake copies: "The client SHOULD NOT send requests other than pings before the server has
#: responded to the initialize request"; the SDK's server answers any other with -32602 and drops
#: notifications, and so does this host. A page that obeys loses nothing; one that skips the
#: handshake is answered nothing else.
_BEFORE_HANDSHAKE = ("ui/initialize", "ping")


class AppRefused(Exception):
    """A page asked for something this host does not do or allow: a JSON-RPC error to the page."""

    def __init__(self, message: str, code: int = -32000) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Note:
    """Something the person should see under a page: what it did (``call``, ``link``,
    ``message``, ``context``, ``log``, ``download``), what it may reach (``reach``) or was refused
    (``refused``); ``url`` only for a link to open or a file to save."""

    kind: str
    text: str
    url: str | None = None
    #: the file name a ``download`` note's link saves to (its ``url`` is the file itself)
    download: str | None = None
    #: the tool a ``call`` note is about: a view keeps one line per tool, with a count
    tool: str | None = None


class AppHost:
    """The host for one drawn page: answers its JSON-RPC messages through the pool.

    ``send`` posts a message to the page; ``note`` tells the person what the page did (a tool it
    called, a link it asks to open, a message meant for a model). Calls go to the page's own server
    only, and only to tools whose visibility includes ``"app"``, as the extension requires.
    Everything the page handed over stays here: :attr:`calls` (the results), :attr:`messages`
    (``ui/message``), :attr:`context` (the last ``ui/update-model-context``), :attr:`logs`.
    """

    def __init__(
        self,
        pool: Any,
        tool: ToolInfo,
        page: AppPage,
        arguments: Mapping[str, Any] | None,
        result: Any,
        *,
        send: Callable[[dict[str, Any]], None],
        note: Callable[[Note], None] = lambda _note: None,
        context: Mapping[str, Any] | None = None,
        asking: Callable[[], Any] | None = None,
    ) -> None:
        self.pool, self.tool, self.page = pool, tool, page
        #: Where a question of a tool the page calls goes (a ``CallContext`` for each call): the
        #: cell that drew the page; without one, the pool's default (its policy, on mcpnb's thread).
        self.asking = asking
        self.arguments = dict(arguments or {})
        self.result = result
        self.send, self.note = send, note
        self.context_of_host = host_context(context)
        self.greeted = False  # ui/initialize answered: the page may ask for anything else now
        self.initialized = False  # ui/notifications/initialized heard: the host may speak now
        self.cancelled: str | None = None  # why the call ended without a result, if it did
        # bounded, newest kept: a live page may call a tool, say something or log at every event
        # for as long as it stays open (a dashboard polling each second held every result)
        self._calls: deque[Any] = deque(maxlen=KEPT)
        self._messages: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self.context: dict[str, Any] | None = None
        self._logs = KeptLogs(LOG_LIMIT)
        self._downloads: deque[File] = deque(maxlen=KEPT)
        self._config = _config_of(pool, tool.server)  # the connection the page came from

    @property
    def server(self) -> str:
        return self.tool.server

    @property
    def calls(self) -> list[Any]:
        """The results of the page's tool calls, the newest :data:`KEPT`."""
        return list(self._calls)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The page's ``ui/message`` params, the newest :data:`KEPT`."""
        return list(self._messages)

    @property
    def downloads(self) -> list[File]:
        """The files the page offered, the newest :data:`KEPT`."""
        return list(self._downloads)

    @property
    def logs(self) -> list[dict[str, Any]]:
        """The page's log notifications, the newest within the bounds of a call's log."""
        return self._logs.kept()

    def _reached(self) -> str:
        """The page's server, for a request to it: refused where the name now names another
        connection (MCP Apps: a page talks to "the same server connection only"), so a page drawn
        from one server never calls the one connected under its name since."""
        now = _config_of(self.pool, self.server)
        if self._config is not None and now is not None and now != self._config:
            self.note(
                Note("refused", f"{self.server!r} is now another server: the page is no longer answered")
            )
            raise AppRefused(
                f"{self.server!r} now names another server than the one this page came from: draw "
                "the page again"
            )
        return self.server

    async def receive(self, message: Any) -> None:
        """Handle one message from the page; a request always gets an answer or an error."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return  # not JSON-RPC: the page's own postMessage traffic, none of ours
        method, params = message.get("method"), message.get("params")
        params = params if isinstance(params, dict) else {}
        if not isinstance(method, str):
            return  # an answer to a request of ours (teardown): nothing waits for it
        if "id" not in message:
            if self.greeted:  # before the handshake a page's notifications are dropped, as MCP's are
                await self._notified(method, params)
            return
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            if not self.greeted and method not in _BEFORE_HANDSHAKE:
                raise AppRefused(f"{method} before ui/initialize: a page starts with the handshake", -32602)
            reply["result"] = await self._answer(method, params)
            self.greeted = self.greeted or method == "ui/initialize"
        except AppRefused as refused:
            reply["error"] = {"code": refused.code, "message": str(refused)}
        except Exception as exc:  # a failed call is the page's to show; the host goes on
            reply["error"] = {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}
        self.send(reply)

    async def _answer(self, method: str, params: dict[str, Any]) -> Any:
        if method == "ui/initialize":
            return self._initialize_result()
        if method == "ping":
            return {}
        if method == "tools/call":
            return await self._call(params)
        if method == "resources/read":
            return await self._read(params)
        if method in _LISTINGS:  # its own server's, read only: what the extension's SDK forwards
            key, listing = _LISTINGS[method]
            return {key: [wire(item) for item in await getattr(self.pool, listing)(self._reached())]}
        if method == "ui/open-link":
            return self._open_link(params)
        if method == "ui/message":
            self._messages.append(params)
            self.note(Note("message", f"the page says, for a model: {_content_text(params.get('content'))}"))
            return {}
        if method == "ui/update-model-context":
            self.context = params
            content, data = params.get("content"), params.get("structuredContent")
            said = " ".join(
                [
                    *([_content_text(content)] if content is not None else []),
                    *([_short(data)] if data else []),
                ]
            )
            self.note(Note("context", f"the page set what a model should know: {said}"))
            return {}
        if method == "ui/download-file":
            return await self._download(params)
        if method == "ui/request-display-mode":
            return {"mode": "inline"}  # the frontend answers where it can give more (app_view.js)
        raise AppRefused(f"{method} is not something this host does", code=-32601)

    async def _notified(self, method: str, params: dict[str, Any]) -> None:
        if method == "ui/notifications/initialized" and not self.initialized:
            self.initialized = True  # the extension: nothing goes to the page before this
            self._notify("ui/notifications/tool-input", {"arguments": self.arguments})
            if self.result is not None:
                self._notify("ui/notifications/tool-result", wire_result(self.result))
            elif self.cancelled is not None:
                self._notify("ui/notifications/tool-cancelled", {"reason": self.cancelled})
        elif method == "notifications/message":
            self._logs.add(params)
            level = params.get("level", "info")
            self.note(Note("log", f"{level}: {_short(params.get('data'))}"))

    def deliver(self, result: Any) -> None:
        """The call's result, once it lands (a page drawn while its tool runs): the page hears it
        now if it is ready, else right after its ``initialized``."""
        self.result = result
        if self.initialized:
            self._notify("ui/notifications/tool-result", wire_result(result))

    def cancel(self, reason: str) -> None:
        """The call ended without a result (cancelled, failed, not made): the extension's
        ``tool-cancelled``, with why."""
        self.cancelled = reason
        if self.initialized and self.result is None:
            self._notify("ui/notifications/tool-cancelled", {"reason": reason})

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def _initialize_result(self) -> dict[str, Any]:
        from mcpnb import __version__

        tool = {"name": self.tool.name, "inputSchema": self.tool.input_schema}
        for key, value in (
            ("title", self.tool.title),
            ("description", self.tool.description),
            ("outputSchema", self.tool.output_schema),
            ("annotations", self.tool.annotations),
            ("_meta", self.tool.meta),
        ):
            if value is not None:
                tool[key] = value
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "hostInfo": {"name": "mcpnb", "version": __version__},
            "hostCapabilities": {
                "openLinks": {},
                "downloadFile": {},
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                "message": {"text": {}},
                "updateModelContext": {"text": {}, "structuredContent": {}},
                "sandbox": {"csp": self.page.csp},
            },
            "hostContext": {
                "toolInfo": {"tool": tool},
                "theme": "light",
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "platform": "web",
                "containerDimensions": {"maxHeight": 2000},
                **self.context_of_host,
            },
        }

    async def _call(self, params: dict[str, Any]) -> Any:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not isinstance(arguments, dict | None):
            raise AppRefused("tools/call takes a tool's name and an object of arguments", code=-32602)
        tool = await self.pool.atools(self._reached())
        info = next((t for t in tool if t.name == name), None)
        if info is None:
            raise AppRefused(f"{self.server!r} has no tool {name!r}", code=-32602)
        if "app" not in visibility(info):
            self.note(Note("refused", f"the page asked for {name}, which its server keeps for models"))
            raise AppRefused(f"{name} is not callable from an app (its visibility is model only)")
        started = time.perf_counter()
        context = self.asking() if self.asking is not None else None
        result = await self.pool.acall(self._reached(), name, arguments or {}, context=context)
        self._calls.append(result)
        took = f"{(time.perf_counter() - started) * 1000:.0f} ms"
        outcome = "failed" if result.is_error else "✓"
        shown = {
            k: REDACTED if is_secret_key(k) else v for k, v in (arguments or {}).items()
        }  # saved notebooks
        said = f"the page called {name}({_short(shown)}) {outcome} in {took}"
        self.note(Note("call", said, tool=name))
        return wire_result(result)

    async def _read(self, params: dict[str, Any]) -> Any:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise AppRefused("resources/read takes a uri", code=-32602)
        contents = await self.pool.aread(self._reached(), uri)
        return {"contents": [wire(c) for c in contents]}

    async def _download(self, params: dict[str, Any]) -> Any:
        """Files the page offers (a sandboxed page cannot save one): each a link under the page,
        saved only when the person clicks it (the extension: a host SHOULD ask first), and kept
        in :attr:`downloads` for Python. A ``resource_link`` to the web is shown as a link to
        open; one to the page's server is read there, as the host fetches it."""
        contents = params.get("contents")
        if not isinstance(contents, list) or not contents:
            raise AppRefused("ui/download-file takes a non-empty list of contents", code=-32602)
        files: list[tuple[File, bytes]] = []
        for item in contents:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "resource_link" and isinstance(item.get("uri"), str):
                if _WEB.match(item["uri"]):
                    self.note(Note("link", "the page offers a file to download from", url=item["uri"]))
                    continue
                found = files_in(
                    [wire(c) for c in await self.pool.aread(self._reached(), item["uri"])], "download"
                )
            elif kind == "resource":
                found = files_in([item], "download")
            else:
                raise AppRefused(f"a file is a resource or a resource_link, not {kind!r}", code=-32602)
            if not found:
                raise AppRefused("an embedded file needs a resource with text or a blob", code=-32602)
            try:
                files += [(file, file.data()) for file in found]
            except ValueError as exc:  # a blob that is not base64
                raise AppRefused(str(exc), code=-32602) from None
        for file, data in files:
            self._downloads.append(file)
            what = f"{file.mime or 'no type'}, {human_size(len(data))}"
            if len(data) > LINK_LIMIT:
                said = f"the page offers {file.name} ({what}), too large for a link: see .downloads"
                self.note(Note("download", said))
            else:
                mime = file.mime if isinstance(file.mime, str) and _MIME.match(file.mime) else None
                url = f"data:{mime or 'application/octet-stream'};base64,{base64.b64encode(data).decode()}"
                self.note(Note("download", f"the page offers a file ({what}):", url=url, download=file.name))
        return {}

    def _open_link(self, params: dict[str, Any]) -> Any:
        url = params.get("url")
        if not isinstance(url, str) or not _WEB.match(url):
            raise AppRefused("only http(s) links open from a page")
        # never opened for the page: the person sees where it goes and clicks, or not. The
        # extension's success (`{}`) means the host opened it; this host did not, so the page hears
        # `isError` (McpUiOpenLinkResult: "the host failed to open the URL (e.g., due to security
        # policy)"), a result rather than an error, and may say the link is under it
        self.note(Note("link", "the page asks to open", url=url))
        return {"isError": True}


def _config_of(pool: Any, server: str) -> Any:
    """The settings ``server`` is connected with now (None where it is not, or cannot say)."""
    try:
        return pool.connection(server).config
    except Exception:  # a name the pool does not know (any more): its own error says so on use
        return None


def host_context(said: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the frontend that draws the page says of itself (theme, styles, locale, time zone, the
    display modes it can give), as ``hostContext`` fields; anything else, or of the wrong shape, is
    left out."""
    said = said if isinstance(said, Mapping) else {}
    out: dict[str, Any] = {}
    if said.get("theme") in ("light", "dark"):
        out["theme"] = said["theme"]
    modes = said.get("availableDisplayModes")
    if isinstance(modes, list) and "inline" in modes:
        out["availableDisplayModes"] = [m for m in modes if m in ("inline", "fullscreen", "pip")]
    for key in ("locale", "timeZone"):
        if isinstance(said.get(key), str) and 0 < len(said[key]) <= 64:
            out[key] = said[key]
    styles = said.get("styles")
    variables = styles.get("variables") if isinstance(styles, Mapping) else None
    if isinstance(variables, Mapping):
        kept = {
            k: v
            for k, v in list(variables.items())[:100]
            if isinstance(k, str) and k.startswith("--") and isinstance(v, str) and len(v) <= 300
        }
        if kept:
            out["styles"] = {"variables": kept}
    return out


def wire_result(result: Any) -> dict[str, Any]:
    """A tool result as ``ui/notifications/tool-result`` carries it: the wire ``CallToolResult``."""
    raw = getattr(result, "raw", result)
    return {k: v for k, v in dict(raw).items() if k != "resultType"}


def _content_text(content: Any) -> str:
    """Content blocks in one line: their text, and what the others are (``[an image/png image]``)."""
    said = []
    for block in content if isinstance(content, list) else [content]:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if isinstance(block.get("text"), str):
            said.append(block["text"])
        elif kind in ("image", "audio"):
            said.append(f"[an {block.get('mimeType') or kind} {kind}]")
        elif kind == "resource_link":
            said.append(f"[a link to {block.get('uri')}]")
        elif kind == "resource":
            said.append(f"[the resource {(block.get('resource') or {}).get('uri')}]")
    return _short(" ".join(said)) if said else "(nothing)"


def _short(value: Any, limit: int = 160) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
