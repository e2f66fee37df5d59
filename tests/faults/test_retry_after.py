"""``Retry-After``: a server (or the proxy before it) that answers 429 or 503 says when to come back.

mcpnb ignored it: the message never said how long to wait, and ``connect(wait=8)`` asked a proxy
that wanted 30 s five times in those 8 s. Now the words say until when, and no connect, reconnect
or retry comes sooner than the server asked (up to :data:`mcpnb.client.retry.RETRY_AFTER_CAP`).

The server is the SDK's ``MCPServer`` (tests/servers/demo_server.py) behind a small ASGI gate
(:class:`Gate`) that answers the requests a test names in its own way and counts what came, served
by uvicorn on 127.0.0.1. The other fault tests of this sweep use the gate too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from conftest import wait_until
from servers.asgi import demo_behind, read_body, replay  # tests/ is on sys.path

from faults.conftest import QUICK
from mcpnb import CallError, ConnectError
from mcpnb.client.errors import NotConnectedError

Answer = Callable[[Any], Awaitable[None]]


@dataclass
class Rule:
    """Answer the requests whose JSON-RPC method is in ``methods`` (None: every request, GETs too)
    with ``answer``, ``count`` times (-1: until the rule is removed)."""

    methods: set[str] | None
    answer: Answer
    count: int = -1


@dataclass
class Gate:
    """An ASGI gate in front of an MCP app: what no rule takes passes through."""

    app: Any
    rules: list[Rule] = field(default_factory=list)
    seen: list[tuple[str, str | None]] = field(default_factory=list)  # (HTTP method, JSON-RPC method)

    def answer(self, methods: set[str] | None, answer: Answer, count: int = -1) -> None:
        self.rules = [Rule(methods, answer, count)]

    def open(self) -> None:
        self.rules = []

    def posts(self, *methods: str) -> int:
        """How many POSTs of these JSON-RPC methods came (whether a rule answered them or not)."""
        return sum(1 for verb, method in self.seen if verb == "POST" and method in methods)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method = None
        if scope["method"] == "POST":
            body = await read_body(receive)
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            method = message.get("method") if isinstance(message, dict) else None
            receive = replay(body, receive)
        self.seen.append((scope["method"], method))
        for rule in self.rules:
            if rule.count != 0 and (rule.methods is None or method in rule.methods):
                rule.count -= 1 if rule.count > 0 else 0
                return await rule.answer(send)
        await self.app(scope, receive, send)


def refuse(status: int, content_type: str, body: str, *headers: tuple[str, str]) -> Answer:
    """An HTTP error answer, as a proxy or a server in trouble gives it."""

    async def answer(send: Any) -> None:
        raw = [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(body.encode())).encode()),
        ]
        raw += [(k.encode(), v.encode()) for k, v in headers]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body.encode()})

    return answer


async def hang(send: Any) -> None:
    """Accept the request and never answer it (cancelled when the server stops)."""
    await asyncio.sleep(3600)


async def cut(send: Any) -> None:
    """Start an answer, then drop the connection in the middle of it."""
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": b'{"jsonrpc": "2.0", "id": ', "more_body": True})
    raise ConnectionAbortedError("cut on purpose")


def gated(kind: str = "http") -> Iterator[tuple[Gate, str]]:
    """The SDK's demo server over ``kind`` behind a :class:`Gate`; yields it and the URL."""
    yield from demo_behind(Gate, kind)


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    yield from gated()


TOO_MANY = '{"error": "rate_limited", "message": "Too many requests, slow down"}'
BAD_GATEWAY = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
UNAVAILABLE = "<html><head><title>503 Service Unavailable</title></head><body><h1>Busy</h1></body></html>"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_call_refused_with_429_says_how_long_the_server_asks_to_wait(pool, gate, era):
    gate_, url = gate
    pool.connect("s", url=url, era=era, **QUICK)
    gate_.answer({"tools/call"}, refuse(429, "application/json", TOO_MANY, ("Retry-After", "5")), count=1)
    with pytest.raises(CallError) as failed:
        pool.call("s", "echo", {"text": "x"})
    message = str(failed.value)
    assert "HTTP 429 from the server: Too many requests, slow down" in message, message
    assert "the server asks to wait 5 s (Retry-After, until " in message, message
    assert pool.call("s", "echo", {"text": "again"}).text == "again"  # the session is fine


@pytest.mark.timeout(60)
def test_a_connect_refused_with_503_says_when_to_try_again_in_the_error_and_the_status(pool, gate):
    gate_, url = gate
    gate_.answer(None, refuse(503, "text/html", UNAVAILABLE, ("Retry-After", "30")))
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", **QUICK)
    assert "HTTP 503 Service Unavailable" in str(failed.value)
    assert "the server asks to wait 30 s (Retry-After, until " in str(failed.value), failed.value
    row = pool.status()["s"]
    assert row.state == "failed" and "the server asks to wait 30 s (Retry-After" in row.last_error, row
    # the next call does not try again while the server asks to wait: it says when it will
    asked = gate_.posts("initialize")
    with pytest.raises(NotConnectedError) as refused:
        pool.call("s", "echo", {"text": "x"})
    assert gate_.posts("initialize") == asked  # nothing was sent
    assert "the next call after " in str(refused.value) and "tries again" in str(refused.value)


@pytest.mark.timeout(60)
def test_connect_with_wait_never_asks_sooner_than_retry_after(pool, gate):
    gate_, url = gate
    gate_.answer(None, refuse(502, "text/html", BAD_GATEWAY, ("Retry-After", "30")))
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", wait=8, **QUICK)
    message = str(failed.value)
    # asked once, told to wait 30 s: longer than the 8 s of wait, so no second try (it made five)
    assert gate_.posts("initialize") == 1, gate_.seen
    assert "the server asks to wait 30 s (Retry-After, until " in message, message
    assert "longer than the" in message and "wait=8" in message, message


@pytest.mark.timeout(60)
def test_a_reconnect_waits_as_long_as_retry_after_asks(pool, gate):
    gate_, url = gate
    pool.connect("s", url=url, era="legacy", **QUICK)
    delays: list[float] = []
    pool.subscribe(lambda e: e.kind == "retry" and e.server == "s" and delays.append(e.detail["delay"]))
    # the session is lost (its answer cut off); the server then asks every reconnect to wait 30 s
    gate_.rules = [
        Rule({"tools/call"}, cut, count=1),
        Rule(None, refuse(503, "text/html", UNAVAILABLE, ("Retry-After", "30"))),
    ]
    with pytest.raises(CallError):
        pool.call("s", "echo", {"text": "x"})
    assert wait_until(lambda: len(delays) >= 1), delays
    # the cut call's probe (does the session still answer?) was answered 503 with Retry-After: the
    # first attempt already waits the 30 s asked for, not the backoff's 0.05 s
    assert delays[0] > 25, delays
    row = pool.status()["s"]
    assert row.state == "reconnecting", row
    assert row.last_error.startswith("reconnecting (attempt 1/3) in "), row.last_error
    assert "the server asks to wait 30 s (Retry-After, until " in row.last_error, row.last_error
    assert gate_.posts("initialize") == 1  # the first connect's: no attempt before the 30 s
    pool.disconnect("s")


def test_retry_after_reads_seconds_and_http_dates():
    from mcpnb.client.retry import retry_after_seconds

    now = datetime(2026, 12, 5, 22, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("30", now) == 30.0
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=90), usegmt=True), now) == 90.0
    assert retry_after_seconds(format_datetime(now - timedelta(seconds=90), usegmt=True), now) == 0.0
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None, now) is None


#: ``Retry-After`` values no server should send, as a hostile or broken one may: twelve digits of
#: seconds (a datetime cannot hold them), a superscript two (``str.isdigit`` says yes, ``float`` no),
#: an Arabic-Indic three (``float`` reads it as 3, RFC 9110 allows ASCII digits only), 400 digits,
#: and an HTTP-date in the year 9999.
HOSTILE_RETRY_AFTER = ["999999999999", "\u00b2", "\u0663", "1" * 400, "Fri, 31 Dec 9999 23:59:59 GMT"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("value", HOSTILE_RETRY_AFTER)
def test_a_connect_refused_with_a_hostile_retry_after_names_the_503(pool, gate, value):
    gate_, url = gate
    gate_.answer(None, refuse(503, "text/html", UNAVAILABLE, ("Retry-After", value)))
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", **QUICK)
    message = str(failed.value)
    assert "HTTP 503 Service Unavailable" in message, message
    assert "Error" not in message, message  # no OverflowError, ValueError from reading the header
    if value.isascii():  # a wait beyond a year is said as such, and mcpnb waits 5 min of it
        assert "the server asks to wait more than a year (Retry-After; mcpnb waits 5 min of it" in message
    else:  # not a number: no wait is said
        assert "Retry-After" not in message, message
    assert pool.status()["s"].state == "failed"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("value", HOSTILE_RETRY_AFTER[:2])
def test_a_call_refused_with_429_and_a_hostile_retry_after_fails_alone(pool, gate, era, value):
    gate_, url = gate
    pool.connect("s", url=url, era=era, **QUICK)
    opened = gate_.posts("initialize")
    gate_.answer({"tools/call"}, refuse(429, "application/json", TOO_MANY, ("Retry-After", value)), count=1)
    with pytest.raises(CallError) as failed:
        pool.call("s", "echo", {"text": "x"})
    message = str(failed.value)
    assert "HTTP 429 from the server: Too many requests, slow down" in message, message
    assert "connection" not in message and "Error" not in message, message
    assert pool.status()["s"].state == "connected"
    assert pool.call("s", "echo", {"text": "again"}).text == "again"  # the same session
    assert gate_.posts("initialize") == opened


@pytest.mark.timeout(60)
def test_a_long_retry_after_keeps_the_next_call_away_only_as_long_as_the_cap(pool, gate, monkeypatch):
    from mcpnb.client import retry

    monkeypatch.setattr(retry, "RETRY_AFTER_CAP", 0.5)  # 5 min stands in as half a second
    gate_, url = gate
    gate_.answer(None, refuse(503, "text/html", UNAVAILABLE, ("Retry-After", "9999999999")))  # 317 years
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", **QUICK)
    assert "the server asks to wait more than a year (Retry-After; mcpnb waits 1 s of it, until " in str(
        failed.value
    )
    gate_.open()

    def call_goes_through() -> bool:
        try:
            return pool.call("s", "echo", {"text": "back"}).text == "back"
        except NotConnectedError as refused:  # within the cap: said, nothing sent
            assert "the next call after " in str(refused) and "tries again" in str(refused)
            return False

    # the server's 317 years are not waited for: once the cap is over, a call tries again
    assert wait_until(call_goes_through), pool.status()["s"]
    assert pool.status()["s"].state == "connected"


# A 403 insufficient_scope to a call names the scope it asks for: the server's own words, from the
# same gate. Whatever of the connection's secrets the server puts there (it has the token and the URL)
# is hidden, as it is in the server's message.

TOKEN = "hSecretHeaderValue9923y"
QUERY_SECRET = "qSecretQueryValue7731x"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["http", "sse"])
def test_the_scope_a_call_is_refused_for_hides_the_connections_secrets(pool, kind):
    from mcpnb.client.errors import AuthError

    for gate_, url in gated(kind):
        transport = {"transport": "sse"} if kind == "sse" else {}
        headers = {"Authorization": f"Bearer {TOKEN}"}
        pool.connect("s", url=f"{url}?token={QUERY_SECRET}", headers=headers, **transport, **QUICK)
        challenge = f'Bearer error="insufficient_scope", scope="write {TOKEN} {QUERY_SECRET}"'
        gate_.answer(
            {"tools/call"}, refuse(403, "text/plain", "no", ("WWW-Authenticate", challenge)), count=1
        )
        with pytest.raises(AuthError) as refused:
            pool.call("s", "echo", {"text": "x"})
        said = f"{refused.value}\n{refused.value.for_model}"
        assert "this call needs the scope write *** ***" in said, said
        assert TOKEN not in said and QUERY_SECRET not in said, said
        pool.disconnect("s")


@pytest.mark.timeout(60)
def test_a_scope_challenge_with_a_letter_beyond_ascii_fails_the_call_alone(pool, gate):
    from mcpnb.client.errors import AuthError

    gate_, url = gate
    pool.connect("s", url=url, headers={"Authorization": f"Bearer {TOKEN}"}, **QUICK)
    challenge = 'Bearer error="insufficient_scope", scope="écrire"'
    gate_.answer({"tools/call"}, refuse(403, "text/plain", "no", ("WWW-Authenticate", challenge)), count=1)
    with pytest.raises(AuthError) as refused:
        pool.call("s", "echo", {"text": "x"})
    assert "this call needs the scope écrire" in str(refused.value), refused.value
    assert pool.call("s", "echo", {"text": "again"}).text == "again"  # the session went on
