"""Parts for HTTP servers that misbehave on purpose: an ASGI app (the SDK's own server behind a
fault-injecting proxy, usually) served by uvicorn in a background thread on a free 127.0.0.1 port,
and a request body read whole and handed on."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import uvicorn
from conftest import wait_until

W = TypeVar("W")


class Served:
    """``app`` on a free 127.0.0.1 port; ``url`` ends with ``path``. ``stop()`` ends it."""

    def __init__(self, app: Any, path: str) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}{path}"
        config = uvicorn.Config(app, log_level="critical", lifespan="on", timeout_graceful_shutdown=1)
        self.server = _Quiet(config)
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve([self.sock])), daemon=True
        )
        self.thread.start()
        assert wait_until(lambda: self.server.started), "the server did not start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"


class _Quiet(uvicorn.Server):
    """uvicorn without signal handlers (a background thread may not install them)."""

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()


async def read_body(receive: Any) -> bytes:
    """A request's body, read whole (a GET's is empty)."""
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            return body


def replay(body: bytes, receive: Any) -> Any:
    """``receive`` for the app behind: the body read already, then the server's own (its disconnect)."""
    given = False

    async def replayed() -> dict[str, Any]:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def demo_app(kind: str, *, json_response: bool = False) -> tuple[Any, str]:
    """The SDK's demo server as an ASGI app over ``kind`` ("http": Streamable HTTP at /mcp, "sse":
    legacy HTTP+SSE at /sse), and its path."""
    from servers.demo_server import create_server  # tests/ is on sys.path

    server = create_server()
    if kind == "sse":
        return server.sse_app(sse_path="/sse"), "/sse"
    return server.streamable_http_app(streamable_http_path="/mcp", json_response=json_response), "/mcp"


def demo_behind(
    wrap: Callable[[Any], W], kind: str, *, json_response: bool = False
) -> Iterator[tuple[W, str]]:
    """The demo server over ``kind`` behind ``wrap(app)`` (a fault-injecting proxy), served until
    the generator is closed; yields the wrapper and the URL to connect to."""
    app, path = demo_app(kind, json_response=json_response)
    wrapper = wrap(app)
    running = Served(wrapper, path)
    try:
        yield wrapper, running.url
    finally:
        running.stop()
