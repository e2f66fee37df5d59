"""What the hand-written stdio servers share: newline-delimited JSON-RPC on stdin and stdout.

No SDK server sends what they send (garbage, one request at a time), so they are written by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def refuse(request_id: Any, code: int = -32601, message: str = "Method not found") -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def messages() -> Iterator[tuple[Any, Any, dict[str, Any]]]:
    """(method, id, params) of each JSON message read from stdin, in turn (an answer to the server
    has no method); lines that are no JSON are passed over."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        yield message.get("method"), message.get("id"), message.get("params") or {}


def requests() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(method, id, params) of each request read from stdin, in turn; lines that are no JSON,
    notifications and answers to the server are passed over."""
    for method, request_id, params in messages():
        if request_id is not None and method is not None:
            yield method, request_id, params


#: The stateless revision a hand-written server speaks when started as ``modern``.
MODERN = "2026-07-28"


def cache(era: str) -> dict[str, Any]:
    """What a 2026-07-28 server says of how long a listing or discovery may be kept (both fields
    required there); nothing on 2025-11-25."""
    return {"cacheScope": "private", "ttlMs": 0} if era == "modern" else {}


def greeting(
    method: str,
    params: dict[str, Any],
    era: str,
    name: str,
    capabilities: dict[str, Any],
    legacy_capabilities: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The answer to the era's opening request (``server/discover`` on 2026-07-28, ``initialize``
    on 2025-11-25; ``legacy_capabilities`` where that era's differ), None for any other request."""
    if method == "server/discover" and era == "modern":
        server = {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1.0"}}
        return {**cache(era), "supportedVersions": [MODERN], "capabilities": capabilities, "_meta": server}
    if method == "initialize" and era == "legacy":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": capabilities if legacy_capabilities is None else legacy_capabilities,
            "serverInfo": {"name": name, "version": "1.0"},
        }
    return None
