"""Requests through a connection: waiting for a live session, and what an SDK failure means.

Every request a connection sends (tools, resources, prompts, tasks) goes through :func:`request`,
so there is one place that turns the SDK's errors into mcpnb's: a −32042 into
:class:`UrlRequiredError`, a forgotten HTTP session into a renewal (and one replay, only for
read-only or idempotent requests), a 401/403 into :class:`AuthError`, a dead transport into
background recovery and a :class:`CallError` that says so, a Streamable HTTP response stream that
ended before its answer into a failed call on a session that goes on (the same one replay), and
any other HTTP error into one that carries the status and the server's own message (the SDK says
only "-32603").

What the HTTP layer sees arrives here too (:func:`note_response`, :func:`transport_failed`), so a
server that died or forgot the session turns the status to ``reconnecting`` as soon as anything
notices, not at the next health probe. A ``failed`` server that time may have fixed is tried again
at once by the next request (:func:`live_client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import weakref
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpnb.client import call_logs, health, stalls
from mcpnb.client.answers import misaddressed
from mcpnb.client.errors import (
    REFUSED_HERE,
    AuthError,
    CallError,
    CallTimeoutError,
    McpnbError,
    MessageTooLargeError,
    NotConnectedError,
    ServerExitedError,
    UrlRequiredError,
    describe,
    leaves,
    out_of_reach,
    over_message_limit,
    unoffered,
)
from mcpnb.client.events import State
from mcpnb.client.interaction import CallContext, current_call
from mcpnb.client.logfilter import SERVER_LOG
from mcpnb.client.results import ToolResult
from mcpnb.client.retry import RetryAfter, is_retryable, not_connected, renew_session, revive
from mcpnb.client.timeouts import Deadline, DeadlinePassed, within

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection
    from mcpnb.client.toolinfo import ToolInfo

_CONNECTION_CLOSED = -32000
_URL_ELICITATION_REQUIRED = -32042
_METHOD_NOT_FOUND = -32601
#: What the SDK makes of an HTTP error response without a JSON-RPC error in its body (-32603
#: "Server returned an error response", -32600 "Session terminated") or with one (any code): when
#: the HTTP layer saw an error answer to this request, its status and message say more.
_HTTP_STAND_INS = frozenset({-32603, -32600, -32000, -32601})


async def live_client(conn: Connection, wait: float | None) -> Any:
    """The live client; waits (up to ``wait``) while a reconnect is under way, and tries a
    ``failed`` server again at once when what failed was something time can fix."""
    if conn.state is State.FAILED and conn.revivable:
        await revive(conn)
    if conn.state in (State.RECONNECTING, State.CONNECTING) and wait:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn._settled.wait(), wait)
    if conn.state is State.CONNECTED and conn.client is not None:
        return conn.client
    if conn.state is State.DISABLED:
        raise NotConnectedError(f"server {conn.name!r} is disabled (enabled: false in its config)")
    raise not_connected(conn)


@dataclass(frozen=True)
class HttpAnswer:
    """An HTTP error response as the server gave it: what the SDK turns into a bare -32603."""

    status: int
    message: str | None
    oauth: bool = False  # a 401 whose challenge points to OAuth metadata: the server signs people in
    scope: str | None = None  # a 403 insufficient_scope: the scope it asks for ("" when it names none)
    retry_after: RetryAfter | None = None  # a 429's or 503's Retry-After: when to ask again
    resuming: bool = False  # the answer to a GET resuming a response stream (Last-Event-ID)

    def text(self) -> str:
        said = f"HTTP {self.status}" + (f" from the server: {self.message}" if self.message else "")
        return f"{said}; {self.retry_after.words()}" if self.retry_after is not None else said


def note_response(
    conn: Connection,
    status: int,
    request_headers: Any,
    message: str | None,
    challenge: str | None = None,
    retry_after: str | None = None,
) -> None:
    """Every HTTP response (on the transport's task): remember errors, spot a forgotten session.

    A server that forgot our session answers 404 (the spec) or 400 with a message that says so
    (server-everything: "Bad Request: No valid session ID provided"). ``retry_after``: the
    response's ``Retry-After`` header, which no retry or reconnect then comes sooner than.
    """
    answers = _answers.get()
    if status < 400:
        if answers is not None:
            answers.clear()  # the request's last answer was not an error (an auth retry went through)
        return
    conn.http_status = status
    conn.http_answer = answer = HttpAnswer(
        status,
        conn.safe(message) if message else None,
        oauth=status == 401 and signs_in_with_oauth(challenge),
        scope=scope_scrubbed(conn, scope_asked(status, challenge)),
        retry_after=RetryAfter.asked(retry_after),
        resuming=bool(request_headers.get("last-event-id")),
    )
    if answers is not None:
        answers.append(answer)
    if request_headers.get("mcp-session-id") and unknown_session(status, message):
        conn.session_expired = True


def signs_in_with_oauth(challenge: str | None) -> bool:
    """A ``WWW-Authenticate`` that names protected-resource metadata (RFC 9728): how an MCP server
    says "sign in with OAuth" (the authorization spec), as opposed to wanting some static token."""
    return bool(challenge) and "resource_metadata" in str(challenge).lower()


def scope_asked(status: int, challenge: str | None) -> str | None:
    """The scope a 403 ``insufficient_scope`` challenge asks for ("" when it names none), read by
    the OAuth provider's own reader so both agree; None for any other answer. The credentials were
    fine, they just do not reach this call: a static token needs different words than a rejected one."""
    if status != 403 or not challenge or "insufficient_scope" not in challenge:
        return None
    import httpx2

    from mcpnb.client.auth.provider import scope_challenge

    # as bytes: httpx2 decoded the header (UTF-8, else Latin-1), and encodes a str one as ASCII, so
    # a challenge with an "é" in it raised here, in the response hook, and lost the answer
    raw = challenge.encode("utf-8", "replace")
    return scope_challenge(httpx2.Response(403, headers={"WWW-Authenticate": raw}))


def scope_scrubbed(conn: Connection, scope: str | None) -> str | None:
    """The scope a 403 names, with the secrets of ``conn`` hidden as in the server's message: the
    challenge is the server's text, and the words of the call's error quote it."""
    return conn.safe(scope) if scope else scope


def unknown_session(status: int, message: str | None) -> bool:
    return status == 404 or (status == 400 and "session" in (message or "").lower())


def unprocessed(answer: HttpAnswer | None) -> bool:
    """Whether the request's own HTTP answer refused it as one of a session the server does not
    know, so that it did not run.

    The 2025-11-25 transports (Session Management): a server that terminated a session "MUST respond
    to requests containing that session ID with HTTP 404 Not Found", and the client "MUST start a
    new session". The 404 is the server's answer *instead of* handling the request: the session it
    names is gone, so there was nothing to run it in (a proxy's 404 did not get it there either).
    Such a call is sent once more on the new session, read-only or not: it runs once, as asked.
    server-everything's 400 "No valid session ID provided" is the same refusal in other words. A
    call that failed otherwise while the session was found gone (its stream cut, another request's
    404, a 404 to the GET resuming its stream after the server had it) may have run, and is not
    repeated unless it is idempotent."""
    return answer is not None and not answer.resuming and unknown_session(answer.status, answer.message)


#: httpx2's words for a connection that was open and broke before its answer (not a refusal).
_CUT = frozenset({"ReadError", "RemoteProtocolError"})
#: How long a session that saw a call's connection cut has to answer a probe to count as alive.
CUT_PROBE_TIMEOUT = 5.0


def cut_short(conn: Connection, exc: BaseException) -> bool:
    """Whether ``exc`` is a Streamable HTTP call's own connection broken mid-answer: a server that
    died, or only a middlebox that closes connections idle too long (the session is fine then)."""
    if conn.transport != "http":  # legacy SSE: every answer comes on the one stream that broke
        return False
    # the 2026-07-28 transport resolves the cut call as CONNECTION_CLOSED, the httpx error unsaid
    closed = getattr(exc, "code", None) == _CONNECTION_CLOSED and type(exc).__name__ == "MCPError"
    return closed or any(type(leaf).__name__ in _CUT for leaf in leaves(exc))


async def still_answers(conn: Connection, client: Any) -> bool:
    """Whether the session answers a probe now (on a new connection): then only the call's own
    connection was cut, and the session goes on; else it is lost, as before.

    One probe at a time per connection: a cut reaches both the HTTP layer's hook
    (:func:`transport_failed`) and the call it broke (:func:`request`), and a middlebox may cut
    several streams at once; each asks the probe already under way for the same session."""
    probing = conn.cut_probe
    if probing is None or probing[0]() is not client or probing[1].done():
        task = asyncio.get_running_loop().create_task(
            _probe_after_cut(conn, client), name=f"mcpnb-cut-probe-{conn.name}"
        )
        conn.cut_probe = probing = (weakref.ref(client), task)
    alive = await asyncio.shield(probing[1])  # one caller cancelled does not cancel the others' probe
    return alive and conn.client is client and conn.state is State.CONNECTED


async def _probe_after_cut(conn: Connection, client: Any) -> bool:
    try:
        await asyncio.wait_for(health.probe(client, conn.era), CUT_PROBE_TIMEOUT)
    except Exception:
        return False
    return True


def transport_failed(conn: Connection, exc: BaseException, stop: asyncio.Event | None = None) -> None:
    """The HTTP layer hit a network error (refused, reset, a stream cut mid-body), maybe on a
    background stream the SDK retries quietly: a live session is lost, say so now."""
    if stop is not None and stop.is_set():
        return
    if conn.state is not State.CONNECTED:
        if isinstance(exc, (ServerExitedError, MessageTooLargeError)):  # while opening: say why it fails
            conn.ended_early = exc
        return
    if type(exc).__name__ not in _NETWORK_ERRORS and not isinstance(exc, OSError):
        return  # timeouts and the like: a slow server is not a dead one
    if getattr(exc, "mcpnb_cut", False):  # a Streamable HTTP connection cut: maybe a middlebox
        client = conn.client
        if client is not None:
            task = asyncio.get_running_loop().create_task(_lost_unless_answering(conn, client, exc))
            _probes.add(task)
            task.add_done_callback(_probes.discard)
        return
    conn.lost(exc)


#: The probes under way after a cut connection (kept, so none is collected while it runs).
_probes: set[asyncio.Task[None]] = set()


async def _lost_unless_answering(conn: Connection, client: Any, exc: BaseException) -> None:
    """A connection of a Streamable HTTP session was cut (a background stream, or a call's own):
    a server that died no longer answers, and the session is lost; a middlebox that closes idle
    connections (a proxy, a load balancer) leaves it answering, and it goes on."""
    if not await still_answers(conn, client) and conn.client is client and conn.state is State.CONNECTED:
        conn.lost(exc, client)


#: httpx2's errors that mean the wire is gone (not timeouts, not bad requests).
_NETWORK_ERRORS = frozenset(
    {"ConnectError", "ReadError", "WriteError", "CloseError", "NetworkError", "RemoteProtocolError"}
)


#: The HTTP error answers to the request the current task is sending. The SDK posts each request in
#: a context copied from the task that sent it, so the response hook fills the sender's own list:
#: two calls failing at once each see their own answer, never the other's.
_answers: ContextVar[list[HttpAnswer] | None] = ContextVar("mcpnb_http_answers", default=None)


#: Listings refused before they are sent to a server whose capabilities lack their family (the
#: Lifecycle: "Only use capabilities that were successfully negotiated"). Tools are the catalog's
#: (no ``tools/list`` without ``tools``); subscriptions and log levels check their own sub-capability.
#: A read or a ``prompts/get`` still goes out: the SDK's low-level ``Server`` declares ``resources``
#: only with a ``resources/list`` handler, and a server that only serves reads (an MCP App's
#: ``ui://`` page, a skill's files) answers them; a -32601 is explained as well afterwards.
_GATED = frozenset({"resources/list", "resources/templates/list", "prompts/list"})


def not_negotiated(conn: Connection, what: str) -> str | None:
    """Why ``what`` (``resources/list``, ``prompts/list``) is not sent: the server's capabilities, from
    ``initialize`` or ``server/discover``, have no ``resources``/``prompts``; in the words of a
    -32601 to it (:func:`~mcpnb.client.errors.unoffered`). None when they have it or are unknown."""
    if what.split(" ", 1)[0] not in _GATED:
        return None
    return unoffered(conn.name, conn.capabilities, what)


async def request(
    conn: Connection,
    what: str,
    send: Callable[[Any], Awaitable[Any]],
    *,
    idempotent: bool = True,
    wait: float | None = None,
    timed: bool = True,
    again: bool = False,
) -> Any:
    """Run ``send(client)``, turning SDK failures into mcpnb errors and dead transports into recovery.

    ``timed``: its round trip is the status table's latency (a tool call's is the tool's own work:
    a 3 s tool made the server look 3 s slow). ``again``: this is the one replay (never a second)."""
    client = conn.client
    if conn.state is not State.CONNECTED or client is None:  # the common case needs no await
        client = await live_client(conn, conn.config.startup_timeout if wait is None else wait)
    refused = not_negotiated(conn, what)
    if refused is not None:
        raise CallError(refused)
    started = conn.clock()
    answers: list[HttpAnswer] = []
    token = _answers.set(answers)
    # the SDK's warnings while this request runs in the caller's task (a failed token refresh, say)
    # go to the server's log, as those of its own tasks do, not to the running cell's stderr
    route = SERVER_LOG.set(conn._on_sdk_log)
    try:
        result = await send(client)
    except (McpnbError, asyncio.CancelledError):
        raise
    except Exception as exc:
        from mcp import MCPError

        answer = answers[-1] if answers else None  # the HTTP answer to this request, if it was an error
        ended = conn.ended_by(client)
        if ended is not None:  # disconnect(), close(), reconnect(): not a lost server, no recovery
            raise CallError(f"{what} did not finish: {conn.name!r} was {ended} while the call ran") from None
        if isinstance(exc, MCPError) and exc.code == _URL_ELICITATION_REQUIRED:
            data = exc.error.data if isinstance(exc.error.data, dict) else {}
            pages = [e for e in data.get("elicitations", []) if isinstance(e, dict)]
            conn.pages.asked(e.get("elicitationId") for e in pages)  # asked anew: not done yet
            raise UrlRequiredError(conn.name, what.removesuffix("()"), pages) from None
        if conn.session_expired:
            said = f" ({answer.text()})" if answer is not None else ""
            refused = unprocessed(answer)
            await renew_session(conn)
            if (idempotent or refused) and not again:
                conn.emit("session", f"retrying {what} once on the new session")
                return await request(conn, what, send, idempotent=False, wait=wait, timed=timed, again=True)
            if refused:  # sent once more already, and refused again on a session just made
                raise CallError(
                    f"{what}: the server did not know the session of {conn.name!r}{said}, also the new "
                    "one it had just made, so the call did not run; it was not sent a third time."
                ) from None
            raise CallError(
                f"{what}: the server forgot the session of {conn.name!r}{said}, so the call may "
                "or may not have run; it was not repeated (not marked read-only or idempotent). "
                "The connection is back: call again if that is safe."
            ) from None
        # only an HTTP answer to this request counts: another call's 401 says nothing of this drop
        status = answer.status if answer is not None else None
        if status == 403 and conn.signs_in:
            from mcpnb.client.auth.provider import take_scope_refusal

            # a step-up authorization (403 insufficient_scope) that did not get the scope: its words
            short = take_scope_refusal(conn.name, str(conn.config.url))
            if short is not None:
                said = str(short).removeprefix(f"server {conn.name!r}: ")
                raise AuthError(f"{what} {said}", server=conn.name, status=403) from None
        if answer is not None and status in (401, 403):
            # a 403 insufficient_scope to a static credential (a token mcpnb cannot sign in again
            # for) names the scope the call needs and the setting that holds the token
            static = answer.scope is not None and not conn.signs_in
            raise conn.auth_refusal(status, answer.oauth, scope=answer.scope, named=static) from None
        if answer is not None and conn.transport == "sse" and conn.why_lost(client) is not None:
            raise refused_post_error(conn, what, answer) from None  # its POST ended the session
        if over_message_limit(exc):  # only this answer's stream ended: the session goes on
            raise CallError(f"{what} on {conn.name!r} failed: {describe(exc)}") from None
        if answer is not None and 400 <= answer.status < 500 and answer.status != 404:
            # the server refused this one request (413 too large, 400, 422, 429): the session is
            # fine, and starting another would lose what the server keeps in it
            raise CallError(f"{what} on {conn.name!r} failed: {answer.text()}") from None
        # a call's own connection cut (a server that died, or a middlebox): does the session answer?
        cut = answer is None and cut_short(conn, exc)
        alive = await still_answers(conn, client) if cut else True
        ended_early = stream_ended(conn, client, exc) if alive else None
        if ended_early is not None:  # only this call's response stream ended: the session goes on
            if idempotent:  # 2026-07-28: "clients MUST re-issue it as a new request"
                conn.emit(
                    "transport",
                    f"the response stream of {what} ended before its answer: sending it again once",
                )
                return await request(conn, what, send, idempotent=False, wait=wait, timed=timed, again=True)
            raise stream_ended_error(conn, what, ended_early, answer) from None
        if cut and alive:
            said = conn.safe(describe(exc))
            if idempotent and not again:
                conn.emit(
                    "transport",
                    f"the connection of {what} was cut before its answer ({said}): sending it again once",
                )
                return await request(conn, what, send, idempotent=False, wait=wait, timed=timed, again=True)
            goes_on = "the server still answers" if conn.era == "modern" else "the session still answers"
            raise CallError(
                f"{what} on {conn.name!r} failed: its connection was cut before the answer came ({said}), "
                f"so it may or may not have run; {goes_on} and goes on (something in "
                "between, a proxy or load balancer, may close connections that stay quiet): call again "
                "if that is safe"
            ) from None
        transport_failed = not isinstance(exc, MCPError) or exc.code == _CONNECTION_CLOSED
        if (transport_failed and is_retryable(exc, http_status=status)) or not alive:
            conn.lost(exc, client, http_status=status)
            back = conn.state is State.RECONNECTING
            then = (
                "reconnecting in the background" if back else f"reconnect with pool.reconnect({conn.name!r})"
            )
            why = conn.safe(conn.why_lost(client) or describe(exc))
            lost = f"the connection to {conn.name!r} was lost ({why})"
            raise CallError(
                f"{what} failed: {lost}; {then}",
                model_text=f"the call failed: {lost}, so it may or may not have run; try again in a moment"
                if back
                else out_of_reach(f"the call failed: {lost}, so it may or may not have run"),
            ) from None
        said = misaddressed(exc)
        if said is not None:  # an answer for another request where this one's belonged
            raise CallError(
                f"{what} on {conn.name!r} failed: {conn.safe(said)} (%mcp logs {conn.name})"
            ) from None
        if isinstance(exc, MCPError) and exc.code == _METHOD_NOT_FOUND:
            said = unoffered(conn.name, conn.capabilities, what)
            if said is not None:
                raise CallError(said) from None
        if answer is not None and isinstance(exc, MCPError) and exc.code in _HTTP_STAND_INS:
            raise CallError(f"{what} on {conn.name!r} failed: {answer.text()}") from None
        said = _first_line(conn.safe(describe(exc)), isinstance(exc, MCPError)) + _details(exc, conn.safe)
        said = said.replace(ASKS_BY_REQUEST, asks_by_request(conn))  # no "--" for a server object
        failed = CallError(f"{what} on {conn.name!r} failed: {said}")
        if isinstance(exc, MCPError):  # as the server sent them (result.raw keeps a result's so)
            failed.code, failed.data, failed.message = exc.code, exc.data, conn.safe(str(exc.message or ""))
        raise failed from None
    finally:
        _answers.reset(token)
        SERVER_LOG.reset(route)
    if timed:
        conn.last_latency_ms = (conn.clock() - started) * 1000
    return result


#: The codes of errors the SDK makes on the client's side (a reply it could not parse, a session
#: that closed, a request that timed out): their later lines are pydantic's dump, not the server's.
_CLIENTS_OWN = frozenset({-32700, -32000, -32001})
#: Characters of what a server's error carried beyond its first line that the message shows.
DETAILS_CHARS = 2000


#: The most of a failure's first line an error shows: a server's JSON-RPC error message of 5,000
#: characters on one line filled a cell (its whole is ``CallError.message``).
FIRST_LINE_CHARS = 1000


def _first_line(said: str, kept: bool) -> str:
    """``said`` with its first line cut at :data:`FIRST_LINE_CHARS` (the lines after it are
    :func:`_details`', which cuts them itself); ``kept``: the whole is the error's ``.message``."""
    first, sep, rest = said.partition("\n")
    if len(first) <= FIRST_LINE_CHARS:
        return said
    where = ": the error's .message" if kept else ""
    more = len(first) - FIRST_LINE_CHARS
    return f"{first[:FIRST_LINE_CHARS]}… ({more:,} more characters{where}){sep}{rest}"


def _details(exc: BaseException, safe: Callable[[str], str]) -> str:
    """What a server's JSON-RPC error said beyond its message's first line (the rest of it, and its
    ``data``: a traceback, say), on lines of their own: kept to the first line, a server author
    never saw what their server sent (``CallError.data`` has it whole). Made ``safe`` before it is
    cut: a cut must not leave the head of a secret that no scrub would know."""
    import json

    from mcp import MCPError

    if not isinstance(exc, MCPError) or exc.code in _CLIENTS_OWN or exc.data == REFUSED_HERE:
        return ""
    rest = str(exc.message or "").strip().splitlines()[1:]
    data = exc.data
    if isinstance(data, dict):  # {"traceback": "..."}: each text as its lines, not one escaped string
        data = "\n".join(
            f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)}"
            for k, v in data.items()
        )
    elif data is not None and not isinstance(data, str):
        data = json.dumps(data, ensure_ascii=False, default=str)
    text = safe("\n".join([*rest, *([data] if data else [])]).strip())
    if not text:
        return ""
    if len(text) > DETAILS_CHARS:
        text = f"{text[:DETAILS_CHARS]}… ({len(text) - DETAILS_CHARS:,} more characters: the error's .data)"
    return f"\nthe server sent with it:\n{text}"


def refused_post_error(conn: Connection, what: str, answer: HttpAnswer) -> CallError:
    """The call whose legacy HTTP+SSE message POST got an HTTP error: the server's answer, and that
    the session went with it (the SDK's writer sends nothing after a failed POST, so the connection
    was marked lost at once, :class:`~mcpnb.client.transports.MessagePostFailed`)."""
    back = conn.state is State.RECONNECTING
    then = "reconnecting in the background" if back else f"reconnect with pool.reconnect({conn.name!r})"
    ended = (
        f"the legacy HTTP+SSE transport sends nothing after a refused message, so the session ended; {then}"
    )
    said = f"the call failed: the server answered it with {answer.text()}"
    return CallError(
        f"{what} on {conn.name!r} failed: {answer.text()}; {ended}",
        model_text=f"{said}; try again in a moment" if back else out_of_reach(said),
    )


#: How the SDK resolves a request whose Streamable HTTP response stream ended with no answer in
#: it (a clean end: a broken connection reaches :func:`transport_failed` first): not resumable (no
#: event ids), or resuming with ``Last-Event-ID`` failed every time.
_STREAM_ENDED = ("SSE stream ended without a response", "SSE stream ended and reconnection attempts")


def stream_ended(conn: Connection, client: Any, exc: BaseException) -> str | None:
    """The SDK's words if ``exc`` says only this request's HTTP response stream ended before
    its answer, while the connection itself is fine; None otherwise.

    A server may close a request's stream on purpose (SEP-1699 polling) and a proxy may cut a long
    response; with no event store the SDK cannot resume, and resolves the request with
    CONNECTION_CLOSED. The session (its ``Mcp-Session-Id``) is as valid as before: renewing it
    would lose what the server keeps in it. A server that died is told apart by the HTTP layer,
    which saw the wire break and marked the session lost before the SDK gave up on the stream.
    """
    from mcp import MCPError

    if conn.transport != "http" or not isinstance(exc, MCPError) or exc.code != _CONNECTION_CLOSED:
        return None
    said = exc.error.message
    if not said.startswith(_STREAM_ENDED):
        return None
    if conn.why_lost(client) is not None or conn.client is not client or conn.state is not State.CONNECTED:
        return None
    return said


def stream_ended_error(conn: Connection, what: str, said: str, answer: HttpAnswer | None = None) -> CallError:
    """The call whose response stream ended early: it may or may not have run, and it is not sent
    again unasked (not read-only or idempotent, or it was already sent again); the connection
    stays as it is, and calling again (if that is safe) is the remedy. ``answer``: the HTTP error
    the server gave a try to resume the stream, if it gave one."""
    resumed = ""
    if not said.startswith(_STREAM_ENDED[0]):
        resumed = " and resuming it failed" + (f" ({answer.text()})" if answer is not None else "")
    stays = "the connection is fine" if conn.era == "modern" else "the session is still open"
    happened = (
        f"the server ended the call's response stream before answering{resumed} ({said}), "
        "so the call may or may not have run"
    )
    if resumed:
        cannot = "the server would not let the client resume them"
    elif conn.era == "modern":
        cannot = "2026-07-28 has no resumable streams"
    else:
        cannot = "the server cannot resume them: it keeps no event store"
    conn.emit("transport", f"the response stream of {what} ended before its answer; {stays}")
    return CallError(
        f"{what} on {conn.name!r} failed: {happened}. Only this call's stream ended and {stays}: "
        "call again if that is safe. If it keeps happening, something cuts long responses (a "
        f"proxy's time limit, say) and {cannot}.",
        model_text=f"the call failed: {happened}; {stays}: call again if that is safe",
    )


async def call_tool(
    conn: Connection,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    context: CallContext | None = None,
    info: ToolInfo | None = None,
) -> ToolResult:
    """One ``tools/call``: the deadline, progress, the call context people-in-the-loop needs, the result.

    ``info``: the tool, when the caller has just looked it up (the pool has, to check the arguments).
    """
    if info is None:
        info = await conn.tool(name)
    annotations = info.annotations or {}
    idempotent = bool(annotations.get("readOnlyHint") or annotations.get("idempotentHint"))
    task_required = info.task_support == "required"
    idle = conn.config.tool_timeout if timeout is None else timeout
    call_ctx = context or CallContext()
    call_ctx.server, call_ctx.tool = conn.name, name
    started, began = conn.clock(), time.monotonic()  # (a log event's stamp is on the second)
    send = _ToolCall(conn, name, arguments, idle, call_ctx, task_required).send

    # an in-process server runs on this loop: a tool of it that blocks holds every call (stalls.py)
    span = stalls.begin(conn, name)
    try:
        result = await request(conn, f"{name}()", send, idempotent=idempotent, wait=idle, timed=False)
    except CallTimeoutError as exc:
        _ended(call_ctx, exc)
        raise stalls.explained(exc, stalls.finish(span)) from None
    except BaseException as exc:
        _ended(call_ctx, exc)
        stalls.finish(span)
        raise
    _ended(call_ctx, None)
    said = stalls.finish(span)
    out = ToolResult.from_sdk(
        conn.name,
        name,
        result,
        elapsed=conn.clock() - started,
        output_schema=info.output_schema,
        markdown=info.answers_in_markdown or conn.config.markdown,
    )
    out.hide_in_error(conn.safe)
    out.transcript = call_ctx.transcript
    out.logs, out.logs_dropped = call_ctx.kept_logs()
    out.answered_without_asking = list(call_ctx.answered_without_asking)
    if said:
        out.warnings.extend(said)
    if out.is_error and conn.era == "modern" and _NO_PUSH_HERE.search(out.text or ""):
        out.warnings.append(asks_by_request(conn))  # after the server's own words: what to do about them
    if out.is_error:
        await conn.read_stderr()  # a traceback written just before the answer, on another pipe
        pointer = call_logs.logged_during(conn, began)
        if pointer is not None:
            out.warnings.append(pointer)
    return out


#: A tool's error that says it wanted to ask by a request of the server's own, which a 2026-07-28
#: connection cannot carry: FastMCP's "elicitation via server-initiated requests is unavailable on
#: 2026-07-28 connections.", the SDK's NoBackChannelError words when a tool returns them as text.
_NO_PUSH_HERE = re.compile(
    r"server-initiated requests? (?:is |are )?(?:unavailable|not available|not supported)"
    r"|no back-channel for server-initiated",
    re.IGNORECASE,
)
#: What to do about it (the words errors.describe gives the SDK's NoBackChannelError), for a server
#: started as a command or reached at a URL.
ASKS_BY_REQUEST = (
    "This server asks its questions (elicitation, sampling) by requests of its own, which a "
    "2026-07-28 session cannot carry: connect it with --era legacy, before the -- of its command "
    "(era='legacy')"
)


def asks_by_request(conn: Connection) -> str:
    """:data:`ASKS_BY_REQUEST` in the words of how ``conn`` was connected: a server object run
    in-process has no command, so no ``--`` to put the flag before (the advice sent a server
    author in a notebook looking for one)."""
    if conn.transport != "inprocess":
        return ASKS_BY_REQUEST
    head = ASKS_BY_REQUEST.partition(": connect it")[0]
    return (
        f"{head}: connect it with --era legacy, %mcp connect {conn.name} {{{{srv}}}} --era legacy "
        f"(pool.connect({conn.name!r}, server=srv, era='legacy'))"
    )


def _ended(call: CallContext, error: BaseException | None) -> None:
    """Tell whoever asked (:attr:`CallContext.on_end`) that the call is over, once."""
    told, call.on_end = call.on_end, None
    if told is not None:
        with contextlib.suppress(Exception):  # what a notebook does with it must not change the call's end
            told(error)


class _ToolCall:
    """One ``tools/call`` on its way: what :func:`request` sends, and the progress the SDK reports.

    An object with slots, not two closures in :func:`call_tool`: a hundred calls at once keep a
    hundred of these alive for as long as the server works, and each closure's cells, functions and
    tuples were objects the garbage collector tracks (tracked objects alive across its young
    collections are what make it run full collections, each over the whole heap)."""

    __slots__ = ("arguments", "conn", "ctx", "idle", "name", "task_required")

    def __init__(
        self,
        conn: Connection,
        name: str,
        arguments: dict[str, Any] | None,
        idle: float,
        ctx: CallContext,
        task_required: bool,
    ) -> None:
        self.conn, self.name, self.arguments, self.idle = conn, name, arguments, idle
        self.ctx, self.task_required = ctx, task_required

    async def progress(self, value: float, total: float | None, message: str | None) -> None:
        call_ctx = self.ctx
        call_ctx.deadline.touch()  # (a transcript has the notification as sent: transcript.Wire)
        if call_ctx.on_progress is not None:
            await call_ctx.on_progress(value, total, message)

    async def send(self, client: Any) -> Any:
        conn, call_ctx, name, idle = self.conn, self.ctx, self.name, self.idle
        total = max(idle, conn.config.max_total_timeout)
        deadline = call_ctx.deadline = Deadline(idle, total, conn.clock)
        tap = None
        if call_ctx.transcript is not None:  # what the server sends is routed to calls as its questions are
            from mcpnb.client.transcript import wire

            tap = wire(client.session._dispatcher)
            tap.route = conn.asking.current
            tap.enter(call_ctx)  # the whole call: a task's notifications between its polls too
        token = current_call.set(call_ctx)  # modern-era requests arrive in this task and see it
        conn.asking.active_calls.append(call_ctx)  # legacy push requests find their call here
        try:
            # past the deadline this task is cancelled: the SDK tells the server (notifications/cancelled)
            try:
                return await _send_call(
                    client, name, self.arguments, deadline, self.progress, self.task_required
                )
            except Exception as exc:
                from mcpnb.client.tasks import optin

                if not optin.requires_tasks(exc) or conn.era != "modern":
                    raise
                # the server runs this tool only as a task, and said so before running anything
                conn.catalog.learn_task_support(name, "required")
                conn.emit("tasks", f"{name}() runs only as a task on this server: asking for one")
                return await _send_call(client, name, self.arguments, deadline, self.progress, True)
        except DeadlinePassed:
            health.call_timed_out(conn, deadline.last_activity)  # with a probe unanswered: a hung server
            raise CallTimeoutError(
                conn.safe(deadline.message(f"{name}()", conn.name)), model_text=deadline.for_model()
            ) from None
        finally:
            _forget(conn.asking.active_calls, call_ctx)
            current_call.reset(token)
            if tap is not None:
                tap.leave(call_ctx)


def _forget(calls: list[CallContext], call_ctx: CallContext) -> None:
    """Take ``call_ctx`` itself out of the calls in flight. Not ``list.remove``: it compares each
    call before it with ``==``, a dataclass comparison field by field (its deadline's too), so a
    hundred calls at once that end out of order each paid for the ones still running."""
    for i, call in enumerate(calls):
        if call is call_ctx:
            del calls[i]
            return


def _send_call(
    client: Any, name: str, arguments: dict[str, Any] | None, deadline: Deadline, progress: Any, as_task: bool
) -> Awaitable[Any]:
    """SEP-2663: the tasks extension is declared on this request only when a task is wanted (the
    tool requires one); otherwise (the default) a task-optional tool answers as a plain call.
    The plain call's awaitable is handed back as it is (no coroutine of its own per call)."""
    sending = within(deadline, client.call_tool(name, arguments or {}, progress_callback=progress))
    return sending if not as_task else _as_task(sending)


async def _as_task(sending: Awaitable[Any]) -> Any:
    from mcpnb.client.tasks.optin import task_call

    with task_call():
        return await sending
