"""A session's protocol version is the one its handshake chose, not whatever a later header says.

Over Streamable HTTP the SDK decides per request, from the ``MCP-Protocol-Version`` header, whether
a response stream may start with a priming event and may be closed early for the client to resume
(both need 2025-11-25). A client that shook hands at 2025-11-25 but sends an older header on one
request (the conformance suite's ``server-sse-polling`` does exactly that) would then get a stream
it cannot resume. This ASGI middleware remembers the version each session asked for at
``initialize`` and lifts an older header on that session's later requests up to it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

VERSION_HEADER = b"mcp-protocol-version"
SESSION_HEADER = b"mcp-session-id"
#: Sessions remembered at most (oldest forgotten first); a forgotten one just keeps its headers.
MAX_SESSIONS = 10_000


class SessionEra:
    """Wraps the Streamable HTTP app; see the module docstring."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.versions: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        session = headers.get(SESSION_HEADER)
        if session is not None:
            self._lift(scope, headers, session.decode("latin-1"))
            await self.app(scope, receive, send)
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
        """Read the body (an ``initialize`` is small), replay it, and note the new session's version."""
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
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
