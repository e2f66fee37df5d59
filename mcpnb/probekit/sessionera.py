"""A session's protocol version is the one its handshake chose, not whatever a later header says.

Over Streamable HTTP the SDK decides per request, from the ``MCP-Protocol-Version`` header, whether
a response stream may start with a priming event and may be closed early for the client to resume
(both need 2025-11-25). A client that shook hands at 2025-11-25 but sends an older header on one
request (the conformance suite's ``server-sse-polling`` does exactly that) would then get a stream
it cannot resume. This ASGI middleware remembers the version each session asked for at
``initialize`` and lifts an older header on that session's later requests up to it.

It also gives each HTTP client a cookie of its own (:data:`~mcpnb.probekit.consents.CLIENT_COOKIE`)
on its first answer, and counts the request that lacked one as carrying it: the 2026-07-28 era has
no session, and what probe-kit keeps per client (``dice_history``) must be that client's
(:func:`mcpnb.probekit.consents.requester`).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

from mcpnb.probekit.consents import CLIENT_COOKIE

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

VERSION_HEADER = b"mcp-protocol-version"
SESSION_HEADER = b"mcp-session-id"
#: Sessions remembered at most (oldest forgotten first); a forgotten one just keeps its headers.
MAX_SESSIONS = 10_000
#: The largest request body read (the SDK's own Streamable HTTP limit, which it answers with 413).
MAX_BODY = DEFAULT_MAX_REQUEST_BODY_SIZE


#: What a worker of several adds to the SDK's 404 "Session not found" (the 2025-11-25 spec's answer
#: to an unknown session id, after which a client starts a new session, which again lands on any
#: worker): why, and what to do, for the person reading the error.
ONE_WORKER_SESSIONS = (
    "Session not found: this probe-kit serves one port from several worker processes, and a "
    "2025-11-25 session lives in the worker that opened it; this request reached another. Use the "
    "2026-07-28 era here (the default), or a single-worker probe-kit for 2025-11-25 clients."
)


class SessionEra:
    """Wraps the Streamable HTTP app; see the module docstring. ``workers``: how many processes
    serve the port (more than one: an unknown session is explained, see :data:`ONE_WORKER_SESSIONS`)."""

    def __init__(self, app: App, *, workers: int = 1) -> None:
        self.app = app
        self.workers = workers
        self.versions: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_client_cookie(scope, send)
        headers = dict(scope.get("headers") or [])
        session = headers.get(SESSION_HEADER)
        if session is not None:
            self._lift(scope, headers, session.decode("latin-1"))
            await self.app(scope, receive, _explain_unknown_session(send) if self.workers > 1 else send)
        elif scope.get("method") == "POST":
            await self._watch_handshake(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _lift(self, scope: Scope, headers: dict[bytes, bytes], session: str) -> None:
        agreed = self.versions.get(session)
        said = headers.get(VERSION_HEADER, b"").decode("latin-1")
        if agreed is None or not said or said >= agreed:  # ISO dates compare as strings
            return
        scope["headers"] = [(k, agreed.encode() if k == VERSION_HEADER else v) for k, v in scope["headers"]]

    async def _watch_handshake(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body (an ``initialize`` is small), replay it, and note the new session's version.

        Read no further than the SDK would take (:data:`MAX_BODY`): a body past it is answered
        as the SDK answers it (413, "Request body too large") without being held in memory (a
        400 MB POST had made a worker 1.2 GB before the SDK's own limit could apply)."""
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > MAX_BODY:
            await _too_large(scope, receive, send)
            return
        chunks, more, size = [], True, 0
        while more:
            message = await receive()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await _too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False) and message["type"] == "http.request"
        body = b"".join(chunks)
        asked = _initialize_version(body)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def watch(message: Message) -> None:
            if asked and message["type"] == "http.response.start":
                session = dict(message.get("headers") or []).get(SESSION_HEADER)
                if session is not None:
                    self._remember(session.decode("latin-1"), asked)
            await send(message)

        await self.app(scope, replay, watch)

    def _remember(self, session: str, version: str) -> None:
        self.versions[session] = version
        while len(self.versions) > MAX_SESSIONS:
            self.versions.pop(next(iter(self.versions)))


#: The client cookie as it appears in a ``Cookie`` header (a quick look before any parsing).
_MINE = f"{CLIENT_COOKIE}=".encode()


def _with_client_cookie(scope: Scope, send: Send) -> Send:
    """``send``, setting a new client cookie on the answer if the request had none (the request
    itself then counts as carrying it, so even a client's first call is told apart)."""
    cookies = [v for k, v in scope.get("headers") or [] if k == b"cookie"]
    if any(_MINE in v for v in cookies):  # every request after a client's first: no parsing
        return send
    sent = b"; ".join(cookies).decode("latin-1")
    jar: SimpleCookie = SimpleCookie()
    with contextlib.suppress(CookieError):  # a malformed cookie header: give a fresh one
        jar.load(sent)
    if CLIENT_COOKIE in jar:
        return send
    token = secrets.token_urlsafe(18)
    pair = f"{CLIENT_COOKIE}={token}"
    others = [(k, v) for k, v in scope.get("headers") or [] if k != b"cookie"]
    scope["headers"] = [*others, (b"cookie", (f"{sent}; {pair}" if sent else pair).encode("latin-1"))]
    setting = f"{pair}; Path=/; HttpOnly; SameSite=Strict".encode("latin-1")

    async def send_with_cookie(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*(message.get("headers") or []), (b"set-cookie", setting)]}
        await send(message)

    return send_with_cookie


def _explain_unknown_session(send: Send) -> Send:
    """``send``, with the SDK's 404 "Session not found" JSON-RPC error worded by
    :data:`ONE_WORKER_SESSIONS` (still 404, still -32600: only the message says more)."""
    held: list[Message] = []

    async def explained(message: Message) -> None:
        if message["type"] == "http.response.start" and message.get("status") == 404:
            held.append(message)
            return
        if not held or message["type"] != "http.response.body":
            await send(message)
            return
        start, body = held.pop(), message.get("body", b"")
        try:
            answer = json.loads(body)
            if answer["error"]["message"] == "Session not found":
                answer["error"]["message"] = ONE_WORKER_SESSIONS
                body = json.dumps(answer).encode()
        except (ValueError, KeyError, TypeError):
            pass  # not the SDK's answer: as it was
        headers = [(k, v) for k, v in start.get("headers") or [] if k != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({**message, "body": body, "more_body": False})

    return explained


async def _too_large(scope: Scope, receive: Receive, send: Send) -> None:
    """The SDK's answer to a body over its limit, word for word (its ``RequestBodyLimitMiddleware``)."""
    from starlette.responses import Response

    await Response("Request body too large", status_code=413)(scope, receive, send)


def _initialize_version(body: bytes) -> str | None:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    version = (message.get("params") or {}).get("protocolVersion")
    if not isinstance(version, str):
        return None
    return version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
