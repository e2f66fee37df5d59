"""The legacy HTTP+SSE transport when a message POST is refused (an HTTP error) or never answered.

The SDK sends a session's messages one POST after another and its writer stops at the first that
fails, only logging why: the call then waited out its whole tool_timeout and was told to raise it,
the status kept saying ``connected``, and a POST never answered held every later call too. Now the
call fails at once with the server's answer, and the connection is marked lost and comes back.

The server is the SDK's ``MCPServer`` (tests/servers/demo_server.py) behind a small ASGI proxy
that spoils the next answer a test asks for (:class:`Proxy`), served by uvicorn on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from conftest import wait_until
from servers.asgi import demo_behind, read_body, replay  # tests/ is on sys.path

from faults.conftest import QUICK
from mcpnb import CallError
from mcpnb.client.errors import CallTimeoutError

#: tool_timeout far beyond the test's own timeout: a call that waits it out fails the test.
PATIENT = {**QUICK, "tool_timeout": 120}

Spoiler = Callable[[dict[str, Any], Any, Any, Any], Awaitable[None]]


class Proxy:
    """An ASGI proxy in front of an MCP app: the next POST whose JSON-RPC method is ``method``
    goes to ``spoil`` (once) instead of through; answers on event streams pass ``rewrite``."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spoil: Spoiler | None = None
        self.method = "tools/call"
        self.rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or self.spoil is None:
            return await self.app(scope, receive, self._rewritten(send))
        body = await read_body(receive)
        try:
            message = json.loads(body)
        except ValueError:
            message = {}
        if not isinstance(message, dict) or message.get("method") != self.method:
            return await self.app(scope, replay(body, receive), self._rewritten(send))
        spoil, self.spoil = self.spoil, None
        await spoil(message, scope, replay(body, receive), send)

    def _rewritten(self, send: Any) -> Any:
        """``send``, with each JSON-RPC message in an event stream's chunks passed to ``rewrite``."""

        async def rewritten(event: dict[str, Any]) -> None:
            rewrite = self.rewrite
            if (
                rewrite is not None
                and event["type"] == "http.response.body"
                and b"data: " in event.get("body", b"")
            ):
                event = {**event, "body": _rewrite_events(event["body"], rewrite)}
            await send(event)

        return rewritten


def _rewrite_events(chunk: bytes, rewrite: Callable[[dict[str, Any]], dict[str, Any]]) -> bytes:
    def one(match: re.Match[bytes]) -> bytes:
        try:
            message = json.loads(match[2])
        except ValueError:
            return match[0]
        return match[1] + json.dumps(rewrite(message)).encode()

    return re.sub(rb"(data: )(\{[^\r\n]*\})", one, chunk)


def answer_with(status: int, content_type: str, body: str) -> Spoiler:
    """What a proxy or a server in trouble answers a POST with."""

    async def spoil(message: dict[str, Any], scope: Any, receive: Any, send: Any) -> None:
        headers = [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body.encode())).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body.encode()})

    return spoil


async def never_answer(message: dict[str, Any], scope: Any, receive: Any, send: Any) -> None:
    await asyncio.sleep(3600)  # cancelled when the server stops


def served(kind: str, *, json_response: bool = False) -> Iterator[tuple[Proxy, str]]:
    """The SDK's demo server over ``kind`` behind a :class:`Proxy`; yields it and the URL."""
    yield from demo_behind(Proxy, kind, json_response=json_response)


@pytest.fixture
def legacy_sse() -> Iterator[tuple[Proxy, str]]:
    yield from served("sse")


def _back(pool, name: str = "old") -> None:
    """The connection came back by itself, and calls work on it."""
    assert wait_until(lambda: pool.status()[name].state == "connected")
    assert pool.call(name, "echo", {"text": "again"}).text == "again"


NGINX_500 = (
    "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body>"
    "<center><h1>500 Internal Server Error</h1></center><hr><center>nginx/1.25.3</center></body></html>"
)
REFUSALS = [
    pytest.param(
        answer_with(500, "text/html", NGINX_500),
        "HTTP 500 from the server: 500 Internal Server Error",
        id="500-html",
    ),
    pytest.param(
        answer_with(503, "text/plain", "upstream overloaded"),
        "HTTP 503 from the server: upstream overloaded",
        id="503",
    ),
    pytest.param(
        answer_with(
            429, "application/json", '{"error": "rate_limited", "message": "Too many requests, slow down"}'
        ),
        "HTTP 429 from the server: Too many requests, slow down",
        id="429-json",
    ),
    pytest.param(
        answer_with(
            400,
            "application/json",
            '{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Bad message"}}',
        ),
        "HTTP 400 from the server: Bad message",
        id="400-jsonrpc",
    ),
]


@pytest.mark.timeout(40)  # far below tool_timeout=120: the old code waited that out
@pytest.mark.parametrize(("spoil", "said"), REFUSALS)
def test_a_refused_message_post_fails_its_call_at_once_and_the_connection_comes_back(
    pool, legacy_sse, spoil, said
):
    proxy, url = legacy_sse
    pool.connect("old", url=url, transport="sse", **PATIENT)
    proxy.spoil = spoil
    with pytest.raises(CallError) as failed:
        pool.call("old", "echo", {"text": "x"})
    assert not isinstance(failed.value, CallTimeoutError)
    message = str(failed.value)
    assert message.startswith(f"echo() on 'old' failed: {said}; "), message
    assert "the session ended" in message and "raise tool_timeout" not in message
    # the connection was marked lost at once, with the server's answer, and reconnected
    logs = "\n".join(pool.logs("old"))
    assert "connection lost: the server answered a message POST with HTTP" in logs, logs
    _back(pool)
    assert pool.status()["old"].retries >= 1


@pytest.mark.timeout(40)
def test_a_message_post_never_answered_fails_the_calls_behind_it_and_the_connection_comes_back(
    pool, legacy_sse, monkeypatch
):
    from mcpnb.client import transports

    # a message POST is answered 202 at once; (raising=False: the old code, without it, still runs)
    monkeypatch.setattr(transports, "SSE_POST_TIMEOUT", 2.0, raising=False)
    proxy, url = legacy_sse
    pool.connect("old", url=url, transport="sse", **PATIENT)
    proxy.spoil = never_answer
    outcomes: dict[str, BaseException | None] = {}

    def call(tag: str) -> None:
        try:
            pool.call("old", "echo", {"text": tag})
            outcomes[tag] = None
        except BaseException as exc:
            outcomes[tag] = exc

    first = threading.Thread(target=call, args=("first",))
    first.start()
    assert wait_until(lambda: proxy.spoil is None)  # its POST is the one never answered
    call("second")  # sent behind it: POSTs go one after another
    first.join(30)
    for tag in ("first", "second"):
        failure = outcomes[tag]
        assert isinstance(failure, CallError) and not isinstance(failure, CallTimeoutError), failure
        assert "did not answer a message POST within 2 s" in str(failure), failure
    _back(pool)


@pytest.mark.timeout(60)  # far below startup_timeout=300: the old code waited that out
@pytest.mark.parametrize(("spoil", "said"), REFUSALS[:2])
def test_a_refused_initialize_post_fails_the_connect_at_once_with_the_servers_answer(
    pool, legacy_sse, spoil, said
):
    """The handshake's POST refused: nothing answers ``initialize`` (the SDK's writer stopped), and
    the connect waited out its whole startup_timeout, then its owner task STOP_GRACE more."""
    from mcpnb import ConnectError

    proxy, url = legacy_sse
    proxy.method, proxy.spoil = "initialize", spoil
    with pytest.raises(ConnectError) as failed:
        pool.connect("old", url=url, transport="sse", era="legacy", **{**QUICK, "startup_timeout": 300})
    status, _, words = said.removeprefix("HTTP ").partition(" from the server: ")
    assert f"answered a message POST with HTTP {status} ({words})" in str(failed.value), str(failed.value)
    assert pool.status()["old"].state == "failed"
    pool.reconnect("old")  # the next POST goes through: the same server, connected
    assert pool.call("old", "echo", {"text": "x"}).text == "x"
