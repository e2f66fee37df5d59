"""A server that answers a request with the id of another one.

Over Streamable HTTP the answer to a request's POST is that request's: the SDK dropped a JSON one
with another id (the call waited out its whole tool_timeout, then was told to raise it) and took
an event stream's as this request's (another call's result, as this one's). Now the call fails at
once and says why, and the server's log has it. Over the legacy HTTP+SSE transport every answer
comes on one shared stream: an answer for a request never sent is at least said in the log.

The SDK's ``MCPServer`` behind the proxy of :mod:`faults.test_sse_post_failures`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import wait_until

from faults.test_sse_post_failures import PATIENT, Proxy, answer_with, served
from mcpnb import CallError
from mcpnb.client.errors import CallTimeoutError

#: How far off the spoiled answers' ids are.
OFF = 1000


def _misaddressed(message: dict[str, Any]) -> dict[str, Any]:
    if "result" in message or "error" in message:
        return {**message, "id": message["id"] + OFF}
    return message


async def answer_for_another_id(message: dict[str, Any], scope: Any, receive: Any, send: Any) -> None:
    """The request goes through to the server (``scope["app"]``); the answer in its response (a
    JSON body, or an event on the POST's stream) comes back with another id."""
    from faults.test_sse_post_failures import _rewrite_events

    start: dict[str, Any] = {}
    json_body: list[bytes] = []

    async def rewriting(event: dict[str, Any]) -> None:
        if event["type"] == "http.response.start":
            start.update(event)
            if not _is_json(start):  # an event stream: passed on event by event
                await send(event)
            return
        body = event.get("body", b"")
        if not _is_json(start):
            await send({**event, "body": _rewrite_events(body, _misaddressed)})
            return
        json_body.append(body)
        if not event.get("more_body"):  # the whole JSON body: rewritten, with its new length
            data = json.dumps(_misaddressed(json.loads(b"".join(json_body)))).encode()
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(data)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": data})

    await scope["app"](scope, receive, rewriting)


def _is_json(start: dict[str, Any]) -> bool:
    return any(
        k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start["headers"]
    )


@pytest.fixture(params=[False, True], ids=["sse-response", "json-response"])
def streamable(request) -> Iterator[tuple[Proxy, str]]:
    yield from served("http", json_response=request.param)


@pytest.mark.timeout(40)  # far below tool_timeout=120: the old code waited that out
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_an_answer_for_another_request_id_fails_the_call_at_once(pool, streamable, era):
    proxy, url = streamable
    pool.connect("web", url=url, era=era, **PATIENT)

    async def spoil(message: dict[str, Any], scope: Any, receive: Any, send: Any) -> None:
        await answer_for_another_id(message, {**scope, "app": proxy.app}, receive, send)

    proxy.spoil = spoil
    with pytest.raises(CallError) as failed:
        pool.call("web", "echo", {"text": "x"})
    assert not isinstance(failed.value, CallTimeoutError)
    message = str(failed.value)
    assert message.startswith("echo() on 'web' failed: the server answered the POST of request "), message
    assert "with a response for another request id" in message and "a bug in the server" in message
    assert "%mcp logs web" in message
    logs = "\n".join(pool.logs("web"))
    assert "[warning] the server answered the POST of request" in logs, logs
    # the session is fine: only that answer was wrong
    assert pool.status()["web"].state == "connected"
    assert pool.call("web", "echo", {"text": "again"}).text == "again"


@pytest.fixture
def legacy_sse() -> Iterator[tuple[Proxy, str]]:
    yield from served("sse")


@pytest.mark.timeout(40)
def test_an_answer_for_a_request_never_sent_is_said_in_the_log_over_legacy_sse(pool, legacy_sse):
    proxy, url = legacy_sse
    pool.connect("old", url=url, transport="sse", **PATIENT)
    spoiled: list[Any] = []

    def rewrite(message: dict[str, Any]) -> dict[str, Any]:
        if ("result" in message or "error" in message) and not spoiled:
            spoiled.append(message["id"])
            return _misaddressed(message)
        return message

    proxy.rewrite = rewrite  # answers come on the shared event stream
    with pytest.raises(CallTimeoutError):  # nothing tells which call the answer was meant for
        pool.call("old", "echo", {"text": "x"}, timeout=1)
    proxy.rewrite = None
    assert spoiled
    said = f"[warning] the server sent an answer for request id {spoiled[0] + OFF}, which this session never"
    assert wait_until(lambda: any(said in line for line in pool.logs("old"))), pool.logs("old")
    assert pool.call("old", "echo", {"text": "again"}).text == "again"


@pytest.mark.timeout(40)
def test_an_error_with_no_id_in_answer_to_a_post_is_that_requests_error(pool, streamable):
    """A server that could not read the request says so with ``"id": null``: over Streamable HTTP
    it is the answer to that POST, so the call fails with the server's words (it waited out its
    timeout)."""
    proxy, url = streamable
    pool.connect("web", url=url, **PATIENT)
    error = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: unreadable"},
    }
    proxy.spoil = answer_with(200, "application/json", json.dumps(error))
    with pytest.raises(CallError, match="Invalid Request: unreadable") as failed:
        pool.call("web", "echo", {"text": "x"})
    assert not isinstance(failed.value, CallTimeoutError)
    assert pool.call("web", "echo", {"text": "again"}).text == "again"
