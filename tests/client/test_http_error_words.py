"""HTTP failures said in words a person can act on, not in the SDK's or httpx's.

A fault sweep found messages nobody could act on: ``ReadError`` alone (an SSH port, a reset, a
server that answers ``{}`` and closes), a TLS error put as "connection refused" (https:// to a plain
HTTP port), pydantic's union dump for a body that is not JSON-RPC, anyio's "Child exited without
calling task_status.started()" for an SSE stream that ends before its endpoint event, and "not an MCP
server; check the URL" for one odd answer on a working session (or no words at all when the answer
had no Content-Type).

Servers, all on 127.0.0.1 with a free port: raw asyncio socket servers for what no HTTP server
would do (an SSH banner, a reset, an answer and a close), and the SDK's ``MCPServer``
(``tests/servers/demo_server.py``) over Streamable HTTP and legacy SSE, served by uvicorn behind a
small middleware that spoils its answers on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from servers.asgi import Served, demo_app, read_body, replay  # tests/ is on sys.path

from mcpnb import CallError, ConnectError
from mcpnb.client.errors import describe

#: no retries, no probes: one connect, one answer
ONCE = {"max_retries": 0, "health_check_interval": 0}
USUAL = "(Streamable HTTP servers often serve /mcp, SSE servers /sse, a Gradio app /gradio_api/mcp/)"


# ---------------------------------------------------------------- raw socket servers (wire faults)
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class RawServer:
    """A TCP server on 127.0.0.1 that runs ``handler`` for each connection, on its own loop."""

    def __init__(self, handler: Handler) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(handler, "127.0.0.1", 0), self.loop
        ).result(10)
        self.port = self.server.sockets[0].getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        async def close() -> None:
            self.server.close()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:  # connections still served
                task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def ssh_banner(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """An SSH server: its banner first, then (the client's hello being no SSH) it hangs up."""
    writer.write(b"SSH-2.0-OpenSSH_9.6\r\n")
    await writer.drain()
    await asyncio.sleep(0.5)
    writer.close()


async def reset(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Reads the request, then resets the connection (SO_LINGER 0: an RST, not a FIN)."""
    await reader.read(65536)
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def empty_object(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers one request with ``200 application/json {}``, then closes the connection."""
    await reader.read(65536)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
    await writer.drain()
    await asyncio.sleep(0.5)
    writer.close()


@pytest.fixture
def raw() -> Iterator[Callable[[Handler], RawServer]]:
    started: list[RawServer] = []

    def start(handler: Handler) -> RawServer:
        started.append(RawServer(handler))
        return started[-1]

    yield start
    for server in started:
        server.stop()


# ---------------------------------------------------------------- the SDK's server, spoiled on demand
class Spoiled:
    """The demo server (the SDK's ``MCPServer``) over ``kind`` on 127.0.0.1, in a uvicorn thread.

    ``spoil(mode, method)``: the answers to ``method`` (a JSON-RPC method, or ``"*"`` for every
    request) are spoiled as ``mode`` says until ``spoil("")``.
    """

    def __init__(self, kind: str) -> None:
        app, path = demo_app(kind)
        self.mode, self.method = "", "*"
        self.served = Served(self._wrap(app), path)
        self.port, self.url = self.served.port, self.served.url

    def spoil(self, mode: str, method: str = "*") -> None:
        self.mode, self.method = mode, method

    def stop(self) -> None:
        self.served.stop()

    def _wrap(self, app: Any) -> Any:
        async def spoiling(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or not self.mode:
                return await app(scope, receive, send)
            body = await read_body(receive) if scope["method"] == "POST" else b""
            receive = replay(body, receive)
            if not self._hit(body):
                return await app(scope, receive, send)
            if self.mode == "notjson":
                return await _respond(send, "application/json", b"<html>oops not json")
            if self.mode == "emptyjson":
                return await _respond(send, "application/json", b"")
            if self.mode == "sse_malformed":
                return await _respond(send, "text/event-stream", b"event: message\ndata: {not json\n\n")
            if self.mode == "sse_ends":  # comments only, then the end: no endpoint event
                return await _respond(send, "text/event-stream", b": hello\n\n: still here\n\n")

            async def rewriting(message: dict) -> None:  # textplain, nocontenttype
                if message["type"] == "http.response.start":
                    headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-type"]
                    if self.mode == "textplain":
                        headers.append((b"content-type", b"text/plain"))
                    message = {**message, "headers": headers}
                await send(message)

            return await app(scope, receive, rewriting)

        return spoiling

    def _hit(self, body: bytes) -> bool:
        """Whether the request with ``body`` is one to spoil."""
        import json

        if self.method == "*":
            return True
        with contextlib.suppress(ValueError, AttributeError):
            return json.loads(body).get("method") == self.method
        return False


async def _respond(send: Any, content_type: str, body: bytes) -> None:
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def spoiled() -> Iterator[Callable[[str], Spoiled]]:
    started: list[Spoiled] = []

    def start(kind: str) -> Spoiled:
        started.append(Spoiled(kind))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def refused(pool: Any, url: str, **settings: Any) -> str:
    """The message of the ConnectError connecting ``url`` raises; the status table says the same."""
    with pytest.raises(ConnectError) as info:
        pool.connect("s", url=url, **ONCE, **settings)
    said = str(info.value)
    assert said.startswith("could not connect to 's': "), said
    reason = said.removeprefix("could not connect to 's': ")
    assert pool.status()["s"].last_error == reason
    return reason


# ---------------------------------------------------------------- 3: closed without an answer; TLS
CLOSED = "closed (or reset) the connection without an HTTP answer: is it an HTTP MCP server on that port?"


@pytest.mark.parametrize(
    ("handler", "transport"),
    [(ssh_banner, "http"), (ssh_banner, "sse"), (reset, "http"), (reset, "sse"), (empty_object, "http")],
    ids=["ssh-http", "ssh-sse", "reset-http", "reset-sse", "empty-object-http"],
)
def test_a_connection_closed_without_an_answer_names_the_port_and_asks_if_it_is_mcp(
    pool, raw, handler, transport
):
    """``{}`` to the first request, then a closed connection (the retry as 2025-11-25 finds it
    closed); over legacy SSE ``{}`` is said for what it is, an answer not an event stream."""
    server = raw(handler)
    path = "/mcp" if transport == "http" else "/sse"
    said = refused(pool, f"http://{server.address}{path}", transport=transport)
    assert said == f"the server at {server.address} {CLOSED}", said
    assert "ReadError" not in said


def test_https_to_a_plain_http_port_says_to_use_http(pool, spoiled):
    server = spoiled("http")
    said = refused(pool, server.url.replace("http://", "https://"))
    assert said == f"that port answers plain HTTP, not TLS: use {server.url}", said
    assert "refused" not in said and "WRONG_VERSION_NUMBER" not in said


# ---------------------------------------------------------------- 4: a body that is not JSON-RPC
def test_a_connect_answered_with_a_body_that_is_not_json_rpc_says_so_and_what_came(pool, spoiled):
    server = spoiled("http")
    server.spoil("notjson")
    said = refused(pool, server.url)
    assert said == "the server answered with a body that is not JSON-RPC (not JSON: '<html>oops not json')"


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("notjson", "the server answered with a body that is not JSON-RPC (not JSON: '<html>oops not json')"),
        ("emptyjson", "the server answered with an empty body, not JSON-RPC"),
        ("sse_malformed", "the server answered with an event that is not JSON-RPC (not JSON: '{not json')"),
    ],
    ids=["not-json", "empty", "sse-not-json"],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_call_answered_with_no_json_rpc_says_so_without_pydantics_dump(pool, spoiled, era, mode, words):
    server = spoiled("http")
    pool.connect("s", url=server.url, era=era, **ONCE)
    server.spoil(mode, "tools/call")
    with pytest.raises(CallError) as info:
        pool.call("s", "echo", {"text": "x"})
    assert str(info.value) == f"echo() on 's' failed: {words}"
    assert "validation error" not in str(info.value) and "union[" not in str(info.value)
    server.spoil("")
    assert pool.call("s", "echo", {"text": "y"}).text == "y"  # one answer was bad, not the session


# ---------------------------------------------------------------- 5: an SSE stream with no endpoint
def test_an_sse_stream_that_ends_before_its_endpoint_event_says_so(pool, spoiled):
    server = spoiled("sse")
    server.spoil("sse_ends")
    said = refused(pool, server.url, transport="sse")
    assert said == "the SSE stream ended before the server said where to send messages (no endpoint event)"


# ---------------------------------------------------------------- 9: not JSON, not an event stream
def test_a_connect_answered_with_no_content_type_says_it_and_to_check_the_url(pool, spoiled):
    server = spoiled("http")
    server.spoil("nocontenttype")
    said = refused(pool, server.url)
    assert said == (
        "the server there answers without a Content-Type, not as an MCP server does (JSON or an event "
        f"stream); check the URL {USUAL}"
    )


def test_a_connect_answered_with_text_plain_still_says_to_check_the_url(pool, spoiled):
    server = spoiled("http")
    server.spoil("textplain")
    assert refused(pool, server.url) == f"text/plain answers there, not an MCP server; check the URL {USUAL}"


@pytest.mark.parametrize(("mode", "got"), [("textplain", "text/plain"), ("nocontenttype", "no Content-Type")])
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_one_call_answered_in_another_content_type_blames_that_answer_not_the_url(
    pool, spoiled, era, mode, got
):
    server = spoiled("http")
    pool.connect("s", url=server.url, era=era, **ONCE)
    server.spoil(mode, "tools/call")
    with pytest.raises(CallError) as info:
        pool.call("s", "echo", {"text": "x"})
    said = str(info.value)
    assert (
        said
        == f"echo() on 's' failed: the server answered the request with {got}, not JSON or an event stream"
    )
    assert "check the URL" not in said and "not an MCP server" not in said
    server.spoil("")
    assert pool.call("s", "echo", {"text": "y"}).text == "y"


# ---------------------------------------------------------------- describe, on what the servers raised
def test_describe_tells_a_handshake_from_a_call_by_the_request_that_failed(raw):
    """The same ``ReadError`` (a reset) said at connect and on a session's call: the question about
    the port is for the handshake only. Exceptions raised by httpx against a real server."""
    import httpx2

    server = raw(reset)

    def failure(method: str) -> BaseException:
        async def post() -> None:  # the async client, as the SDK's: its ReadError has no text
            async with httpx2.AsyncClient() as client:
                await client.post(
                    f"http://{server.address}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": method}
                )

        with pytest.raises(httpx2.ReadError) as info:
            asyncio.run(post())
        return info.value

    assert describe(failure("initialize")) == f"the server at {server.address} {CLOSED}"
    assert describe(failure("server/discover")) == f"the server at {server.address} {CLOSED}"
    assert describe(failure("tools/call")) == (
        f"the server at {server.address} closed (or reset) the connection without an answer"
    )
