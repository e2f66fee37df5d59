"""ServerConfig -> the thing ``mcp.Client`` connects to, one small function per transport.

Everything a transport needs to clean up (an ``httpx2`` client, the stderr pipe of a child process)
lives in the async context manager, so the connection's owner task releases it on every exit path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import ServerExitedError

logger = logging.getLogger("mcpnb")

if TYPE_CHECKING:
    from mcpnb.client.config import ServerConfig

#: ``(status, request_headers, server_message, challenge, retry_after)`` for every HTTP response; the
#: message is read from the body of error responses (a JSON-RPC error's ``message``, else the
#: first text) and of a successful answer that is a web page (its title: a single sign-on page in
#: front of the server, "Sign in – Okta"), of no other (a JSON body or an event stream is the
#: SDK's to read), the challenge is a 401's ``WWW-Authenticate`` header (it says whether the server signs
#: in with OAuth), ``retry_after`` the response's ``Retry-After`` header (None without one).
ResponseHook = Callable[[int, Any, str | None, str | None, str | None], None]
#: Called with any exception the HTTP layer raises (refused, reset, a stream cut mid-body), including
#: on background streams the SDK retries silently: it is how a dead server is seen at once.
FailureHook = Callable[[BaseException], None]
#: How much of an error response's body is kept as "the server's own message".
MESSAGE_LIMIT = 300
#: How much of an error response's body is read for that message (bytes).
BODY_LIMIT = 4096
#: Characters past a cut that are still scanned for secrets first, so a cut never leaves the head of
#: a secret that crosses it (the same margin as a stderr line's, ``callbacks.SECRET_MARGIN``).
SECRET_MARGIN = 2000

#: MCP servers may hold a response stream open for a long time; reads get the SDK's 300 s.
HTTP_CONNECT_TIMEOUT = 30.0
HTTP_READ_TIMEOUT = 300.0
#: How long the legacy HTTP+SSE transport waits for the answer to a message POST. The answer to the
#: message comes on the event stream; the POST itself is answered ``202 Accepted`` as soon as the
#: server has taken the message, so it needs no more than a connect does. (Streamable HTTP is
#: different: its POST carries the answer, and a long read there is a long tool.)
SSE_POST_TIMEOUT = HTTP_CONNECT_TIMEOUT


#: Said once in a server's log when its stderr comes faster than its share of reading (see
#: :data:`STDERR_SHARE`).
STDERR_FLOOD = (
    "[mcpnb] this server writes to stderr faster than mcpnb reads it: its lines are now read at a "
    "fifth of mcpnb's time, so it waits on its full pipe instead of slowing the other servers "
    "(no line is lost)"
)


def http_headers(config: ServerConfig) -> dict[str, str]:
    """Configured headers plus what ``auth`` asks for (bearer/basic), resolved at connect time."""
    import base64

    headers = dict(config.headers)
    auth = config.auth
    if auth is not None and auth.type == "bearer":
        headers["Authorization"] = f"Bearer {auth.resolve_token()}"
    elif auth is not None and auth.type == "basic":
        pair = f"{auth.username or ''}:{auth.resolve_password()}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    return headers


@contextlib.asynccontextmanager
async def open_target(
    config: ServerConfig,
    transport: str | None = None,
    *,
    on_stderr: Callable[[str], None],
    on_stdout: Callable[[str], None],
    on_response: ResponseHook | None = None,
    on_failure: FailureHook | None = None,
    live: Callable[[], bool] | None = None,
    on_pipe: Callable[[StderrPipe], None] | None = None,
) -> AsyncIterator[Any]:
    """Yield what ``mcp.Client(...)`` takes for this server; clean up on exit.

    ``on_stderr(line)`` sees each line a stdio server writes on stderr, ``on_stdout(line)`` each line
    it prints on stdout that is not JSON-RPC (a ``print`` left in: its bug, logged, never in the cell).
    ``on_response(status, request_headers, message, challenge, retry_after)`` sees every HTTP
    response: the SDK reports a 401, a 500 or an expired session only as a generic JSON-RPC error,
    and the status and the server's own words are what tell them apart. ``on_failure(exc)`` sees
    transport errors. ``live()``: whether the session is up (Streamable HTTP: from then on a
    request whose own connection is cut fails alone, :func:`watch_streamable_requests`).
    ``on_pipe(pipe)``: a stdio server's stderr pipe, to read it up to now (:meth:`StderrPipe.catch_up`).
    ``transport``: another than ``config.transport`` (the other HTTP one, for a guessed URL).
    """
    transport = transport or config.transport
    if transport == "stdio":
        async with _stdio(config, on_stderr, on_stdout, on_failure, on_pipe) as target:
            yield target
    elif transport == "http":
        async with _http(config, on_response, on_failure, live) as target:
            yield target
    elif transport == "sse":
        yield _sse(config, on_response, on_failure)
    elif transport == "inprocess":
        from mcpnb.client.inprocess import in_process

        async with in_process(config.server) as target:
            yield target
    else:  # pragma: no cover - config validation rejects this earlier
        raise ValueError(f"unknown transport {transport!r}")


@contextlib.asynccontextmanager
async def _stdio(
    config: ServerConfig,
    on_stderr: Callable[[str], None],
    on_stdout: Callable[[str], None],
    on_failure: FailureHook | None,
    on_pipe: Callable[[StderrPipe], None] | None,
) -> AsyncIterator[Any]:
    import sys

    from mcpnb.client.stdio import stdio_transport

    if sys.platform == "win32":  # no process groups: the SDK's own transport (Job Objects)
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=config.program, args=list(config.args), env=dict(config.env) or None, cwd=config.cwd
        )
        async with _pipe(on_stderr, on_pipe) as errlog:
            yield stdio_client(params, errlog=errlog)
        return

    from mcpnb.client.lean import mark_mine

    mark_mine()  # an answer for a request never sent is said in the server's log, as over HTTP
    async with _pipe(on_stderr, on_pipe) as errlog:
        yield stdio_transport(
            config.name,
            config.program,
            config.args,
            env=config.env,
            cwd=config.cwd,
            errlog=errlog,
            on_bad_line=on_stdout,
            on_exit=on_failure,
            max_message=config.max_message_bytes,
        )


@contextlib.asynccontextmanager
async def _pipe(
    on_line: Callable[[str], None], on_pipe: Callable[[StderrPipe], None] | None
) -> AsyncIterator[Any]:
    pipe = StderrPipe(on_line)
    async with pipe as errlog:
        if on_pipe is not None:
            on_pipe(pipe)
        yield errlog


@contextlib.asynccontextmanager
async def _http(
    config: ServerConfig,
    on_response: ResponseHook | None,
    on_failure: FailureHook | None,
    live: Callable[[], bool] | None = None,
) -> AsyncIterator[Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from mcpnb.client.lean import lean_streamable_http

    lean_streamable_http()  # large results without the SDK's 15× peak while parsing
    timeout = httpx2.Timeout(HTTP_CONNECT_TIMEOUT, read=HTTP_READ_TIMEOUT)
    auth = http_auth(config)
    client = _http_client(
        http_headers(config),
        timeout,
        auth,
        on_response,
        on_failure,
        background_cuts=False,
        verify=tls_context(config),
    )
    if live is not None:
        watch_streamable_requests()
        _requests_watched[client] = live
    async with client as http:
        # a whole tool result is one event in the 2025-11-25 era: the SDK's 1 MiB refuses a 10k-row table
        limit = config.max_message_bytes
        yield streamable_http_client(config.url or "", http_client=http, max_sse_event_size=limit)


#: How many times in a row, with no message between, the GETs resuming one request's stream
#: (``Last-Event-ID``) may be cut and opened again as if the server had ended them; past that a cut
#: is the error it is, and the SDK's own
#: count of failed attempts (two) ends the resuming (see :class:`RequestStream`).
RESUMED_CUTS = 3


@dataclass
class RequestStream:
    """One Streamable HTTP request's own exchange: its POST and the GETs that resume its stream.

    A resumed stream the middlebox cuts again looks to the SDK like one the server ended, and the
    SDK starts its count of attempts afresh after each: a resuming GET cut every time (a tool that
    stays quiet longer than the middlebox allows, a proxy that cuts every GET) went on for ever,
    past the call's own end on 2025-11-25, whose cancellation does not stop it."""

    resumed_cuts: int = 0
    last_event: bytes | None = None  # the id of the newest event its streams brought

    def heard(self, chunk: bytes) -> None:
        """Events in a chunk of its stream: a *new* message (not a resume's priming event, which
        carries none; not the last one sent again, by its SSE id) starts the count of cuts afresh."""
        for event in chunk.split(b"\n\n"):
            if b'"jsonrpc"' not in event:
                continue
            found = _EVENT_ID.search(event)
            said = found.group(1) if found else None
            if said is None or said != self.last_event:
                self.resumed_cuts, self.last_event = 0, said


_EVENT_ID = re.compile(rb"^id: ?([^\r\n]+)", re.MULTILINE)


#: The request whose exchange the current task runs (None: the background stream of server
#: messages, or no Streamable HTTP request of mcpnb's).
_REQUEST_STREAM: ContextVar[RequestStream | None] = ContextVar("mcpnb_request_stream", default=None)
#: The HTTP clients of mcpnb's Streamable HTTP connections (the SDK's transport class is shared),
#: and whether each one's session is up: while it opens, a cut ends the opening as before, in the
#: words that say what the port is (errors.describe of the httpx error).
_requests_watched: weakref.WeakKeyDictionary[Any, Callable[[], bool]] = weakref.WeakKeyDictionary()


def watch_streamable_requests() -> None:
    """Point the SDK's Streamable HTTP transport at :func:`_own_exchange` (once; it acts only on the
    HTTP clients of mcpnb's own connections, :data:`_requests_watched`).

    The SDK sends each request in a task of its transport's task group. A connection cut before
    the answer's headers came (httpx2 ``RemoteProtocolError``: a middlebox closed a POST whose
    2026-07-28 JSON answer was still being worked on) or while a JSON body was read escaped from
    that task and ended the task group: the whole connection, for one call's cut. A cut in an SSE
    body the SDK already turns into that request's failure; now every cut is."""
    import mcp.client.streamable_http as module

    transport_class = getattr(module, "StreamableHTTPTransport", None)
    for name in ("_handle_post_request", "_handle_resumption_request"):
        sending = getattr(transport_class, name, None)
        if sending is None or getattr(sending, "_mcpnb", False):
            continue
        setattr(transport_class, name, _own_exchange(sending))


def _own_exchange(sending: Any) -> Any:
    async def exchange(self: Any, ctx: Any, *args: Any, **kwargs: Any) -> None:
        live = _requests_watched.get(ctx.client)
        if live is None:  # (the SDK's class is shared: anyone else's request passes as it came)
            return await sending(self, ctx, *args, **kwargs)
        import httpx2
        from mcp_types import JSONRPCRequest

        token = _REQUEST_STREAM.set(RequestStream())
        try:
            await sending(self, ctx, *args, **kwargs)
        except (httpx2.ReadError, httpx2.RemoteProtocolError) as exc:
            message = ctx.session_message.message
            resolve = getattr(self, "_resolve_abandoned_request", None)
            if not isinstance(message, JSONRPCRequest) or resolve is None or not live():
                raise  # a notification or an answer to the server (nobody waits on it), or opening
            # CONNECTION_CLOSED naming the httpx error, which requests.cut_short knows as a cut
            said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            await resolve(ctx.read_stream_writer, message.id, said)
        finally:
            _REQUEST_STREAM.reset(token)

    exchange._mcpnb = True  # type: ignore[attr-defined]
    return exchange


def _sse(config: ServerConfig, on_response: ResponseHook | None, on_failure: FailureHook | None) -> Any:
    from mcp.client.sse import sse_client

    from mcpnb.client.errors import MessageTooLargeError
    from mcpnb.client.lean import lean_sse

    def over(limit: int) -> None:  # the session ends with this reason, not a bare "connection closed"
        if on_failure is not None:
            on_failure(MessageTooLargeError(config.name, limit))

    lean_sse(config.max_message_bytes, over)  # a result is one event here; parsed without the 15× peak
    watch_sse_posts()
    verify = tls_context(config)

    def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
        client = _http_client(headers, timeout, auth, on_response, on_failure, verify=verify)
        if on_failure is not None:
            _sse_posts_watched[client] = on_failure
        return client

    return sse_client(
        config.url or "",
        headers=http_headers(config),
        timeout=HTTP_CONNECT_TIMEOUT,
        sse_read_timeout=HTTP_READ_TIMEOUT,
        auth=http_auth(config),
        httpx_client_factory=factory,
    )


class MessagePostFailed(ServerExitedError):
    """A legacy HTTP+SSE session can send nothing more: the POST of one of its messages got an
    HTTP error, or no answer within :data:`SSE_POST_TIMEOUT`.

    The SDK sends a session's messages one POST after another, and its writer stops at the first
    POST that fails (it only logs why): every later request would wait out its whole timeout for an
    answer to a message never sent. Like a server process that exited (hence the base class: said
    as it is, and worth a new session), the session is over.
    """

    def __init__(self, status: int | None, message: str | None = None) -> None:
        self.status, self.message = status, message
        if status is None:
            said = f"the server did not answer a message POST within {SSE_POST_TIMEOUT:g} s"
        else:
            said = f"the server answered a message POST with HTTP {status}" + (
                f" ({message})" if message else ""
            )
        super().__init__(f"{said}; the legacy HTTP+SSE transport sends nothing after that")


#: The HTTP clients of mcpnb's legacy SSE connections, and whom to tell when a message POST fails.
_sse_posts_watched: weakref.WeakKeyDictionary[Any, FailureHook] = weakref.WeakKeyDictionary()


def watch_sse_posts() -> None:
    """Point the SDK's legacy SSE client at :func:`_post_within_origin` (once; it acts only on the
    HTTP clients of mcpnb's own connections, :data:`_sse_posts_watched`)."""
    import mcp.client.sse as module

    sending = getattr(module, "request_within_origin", None)  # an SDK that moved it keeps its own
    if sending is None or getattr(sending, "_mcpnb", False):
        return

    async def request_within_origin(client: Any, method: str, url: Any, **kwargs: Any) -> Any:
        report = _sse_posts_watched.get(client)
        if report is None or method != "POST":
            return await sending(client, method, url, **kwargs)
        return await _post_within_origin(sending, report, client, url, **kwargs)

    request_within_origin._mcpnb = True  # type: ignore[attr-defined]
    module.request_within_origin = request_within_origin  # type: ignore[assignment]


async def _post_within_origin(sending: Any, report: FailureHook, client: Any, url: Any, **kwargs: Any) -> Any:
    """One message POST of a legacy SSE session, bounded by :data:`SSE_POST_TIMEOUT`; its failure
    (the final answer, after any sign-in retry or redirect) is reported before the SDK's writer
    stops at it, so the session is marked lost at once and the calls waiting on it hear why."""
    import httpx2

    kwargs.setdefault("timeout", httpx2.Timeout(SSE_POST_TIMEOUT))
    try:
        response = await sending(client, "POST", url, **kwargs)
    except httpx2.TimeoutException:
        report(MessagePostFailed(None))
        raise
    if response.status_code >= 300:  # the SDK's writer stops at any but a 2xx (a redirect it did not follow)
        message = await server_message(response) if response.status_code >= 400 else None
        report(MessagePostFailed(response.status_code, message))
    return response


def _http_client(
    headers: Any,
    timeout: Any,
    auth: Any,
    on_response: ResponseHook | None,
    on_failure: FailureHook | None = None,
    *,
    background_cuts: bool = True,
    verify: Any = None,
) -> Any:
    """The SDK's HTTP client (its timeouts; redirects stay the SDK's business) plus our hooks.

    ``background_cuts``: whether a cut background stream is reported (legacy HTTP+SSE, where the
    GET stream carries every answer and its end is the session's); Streamable HTTP's GET and
    ``subscriptions/listen`` streams are extras the SDK opens again, see :func:`watched_transport`.
    ``verify``: the server's ``ssl.SSLContext`` (:func:`tls_context`: a client certificate, a CA);
    None: httpx's own."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    if timeout is None:
        timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    kwargs: dict[str, Any] = {"timeout": timeout, "headers": headers, "auth": auth, "verify": verify}
    if on_failure is not None:
        # a transport of our own makes httpx2 drop the environment's proxies: mounted again here
        watched = {"background_cuts": background_cuts}
        own = httpx2.AsyncHTTPTransport(**({"verify": verify} if verify is not None else {}))
        kwargs["transport"] = watched_transport(own, on_failure, **watched)
        kwargs["mounts"] = proxy_mounts(on_failure, verify=verify, **watched) or None
    client = httpx2.AsyncClient(**{k: v for k, v in kwargs.items() if v is not None})
    if on_response is not None:

        async def hook(response: Any) -> None:
            status = response.status_code
            if status >= 400:
                message = await server_message(response)
            else:
                message = await page_title(response) if status < 300 else None
            proxy = response.extensions.get(PROXY_EXTENSION)
            # the proxy's own refusal, not the server's: over https (a CONNECT tunnel) a status is
            # the server's, the proxy's refusal being a ProxyError
            if proxy and status in PROXY_STATUSES and response.request.url.scheme == "http":
                message = f"said by the proxy {proxy}" + (f": {message}" if message else "")
            # a 401's challenge says how to sign in, a 403's which scope the call needs
            challenge = response.headers.get("www-authenticate") if status in (401, 403) else None
            on_response(
                status, response.request.headers, message, challenge, response.headers.get("retry-after")
            )

        client.event_hooks["response"].append(hook)
    return client


async def server_message(response: Any) -> str | None:
    """What the server said in an error response: a JSON-RPC error's message, or its text.

    Redacted before it is cut (:func:`_said`): a server that quotes the headers it got would
    otherwise leave the head of a token at the cut, where no later scrubbing recognises it."""
    import json

    try:
        raw = (await response.aread())[: BODY_LIMIT + SECRET_MARGIN].decode("utf-8", "replace")
    except Exception:  # a body we cannot read still leaves the status
        return None
    secrets = _sent_secrets(response)
    body = _said(raw, secrets, BODY_LIMIT).strip()
    if not body:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else data.get("message") or error
        if isinstance(message, str) and message.strip():
            body = message.strip()
    elif _HTML.match(body):
        body = html_text(body)
    first = body.splitlines()[0] if body else ""
    return _said(first, secrets, MESSAGE_LIMIT) or None


#: How long :func:`page_title` waits for a page's title: a page that trickles (or is held open) must not
#: hold the connect it answered, which would otherwise say "no answer within startup_timeout".
TITLE_WAIT = 1.5
_HEAD_END = re.compile(rb"</title|<body", re.IGNORECASE)


async def page_title(response: Any) -> str | None:
    """The title of a web page answered with a 2xx (``text/html``) where MCP's JSON or event
    stream was asked for: a single sign-on page (an identity-aware proxy, a VPN portal) in front of
    the server says whose sign-in it is. None for every other answer, whose body is never touched
    (an event stream is read by the SDK as it comes, and may never end).

    Only the page's head is read: up to its ``</title>`` or ``<body``, at most :data:`BODY_LIMIT`
    bytes and :data:`TITLE_WAIT` seconds (a portal may stream its page, or hold it open). The raw
    bytes are decoded for the title with a decoder of their own (portals send their pages gzipped,
    as httpx asks) and put back, still encoded, in front of the rest, so whoever reads the body
    next reads all of it. If the read failed or was cut at the wait, that reader gets the bytes
    read, then the error: never a body silently cut short."""
    import anyio
    import httpx2

    content_type = response.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "text/html":
        return None
    decoder = _content_decoder(response)
    stream = response.stream
    head: list[bytes] = []
    page = b""
    failure: BaseException | None = None
    chunks = stream.__aiter__()
    try:
        with anyio.move_on_after(TITLE_WAIT) as waited:
            while sum(map(len, head)) < BODY_LIMIT and len(page) < BODY_LIMIT:
                try:
                    chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    break
                head.append(chunk)
                if decoder is not None:
                    try:
                        page += b"".join(decoder.decode(chunk))
                    except httpx2.DecodingError:
                        decoder = None  # not what its Content-Encoding says: the next reader finds out
                if _HEAD_END.search(page):
                    break
        if waited.cancelled_caught:
            failure = httpx2.ReadTimeout(
                f"the page's head was read for its title for {TITLE_WAIT} s, and the rest not waited for"
            )
    except Exception as exc:  # a body we cannot read: no title, and the next reader gets the error
        failure = exc
    except BaseException:  # cancelled from outside, mid-read: a next reader gets no body cut short
        failure = httpx2.ReadError("the page's read was cancelled while its title was sought")
        raise
    finally:
        response.stream = _prepended(head, chunks, stream, failure)
    text = page[: BODY_LIMIT + SECRET_MARGIN].decode("utf-8", "replace")
    match = re.search(r"<title\b[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
    if match is None:  # no title: the body's text says nothing a person can use (a script, a blob)
        return None
    import html

    title = html.unescape(" ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split()))
    return _said(title, _sent_secrets(response), MESSAGE_LIMIT).strip() or None


def _content_decoder(response: Any) -> Any:
    """A fresh decoder for the response's ``Content-Encoding`` (the response's own is its next
    reader's, and keeps state), or None for an encoding httpx2 cannot decode."""
    from httpx2._decoders import SUPPORTED_DECODERS, MultiDecoder

    codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
    codings = [c for c in codings if c and c != "identity"]
    if any(c not in SUPPORTED_DECODERS for c in codings):
        return None
    try:
        return MultiDecoder(codings)
    except Exception:  # more codings than httpx2 applies: the next reader is told
        return None


def _prepended(head: list[bytes], rest: Any, original: Any, failure: BaseException | None = None) -> Any:
    """A response body whose first chunks were already read (:func:`page_title`): those, then the
    rest (or the error that stopped their read), as one stream; closing it closes the original."""
    import httpx2

    class Prepended(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for chunk in head:
                yield chunk
            if failure is not None:
                raise failure
            async for chunk in _remaining(rest):
                yield chunk

        async def aclose(self) -> None:
            await original.aclose()

    return Prepended()


async def _remaining(chunks: Any) -> AsyncIterator[bytes]:
    while True:
        try:
            chunk = await chunks.__anext__()
        except StopAsyncIteration:
            return
        yield chunk


def _said(text: str, secrets: set[str], limit: int) -> str:
    """``text`` scrubbed of ``secrets``, then cut at ``limit`` characters."""
    from mcpnb.client.redact import scrub

    return scrub(text, secrets)[:limit]


def _sent_secrets(response: Any) -> set[str]:
    """The secrets a server may echo in its error: every secret a live connection's config holds
    (its connection scrubs those again), and the credentials its request carried (the token after
    ``Bearer``: an OAuth access token is known nowhere else). Only headers whose name says secret:
    the others are the config's, or ``Host`` and ``Content-Length``, whose values are words of the
    message."""
    from mcpnb.client.logfilter import known_secrets
    from mcpnb.client.redact import is_secret_key

    found = known_secrets()
    try:
        headers = response.request.headers
    except RuntimeError:  # a response built without its request
        return found
    for name, value in headers.items():
        if value and is_secret_key(name):
            found |= {value, value.partition(" ")[2].strip()}
    return found


_HTML = re.compile(r"\s*<(!doctype html|html)\b", re.IGNORECASE)
#: Where an error page says what happened: Express's <pre>, nginx's <h1>, else the page's <title>.
_SAYS = [
    re.compile(rf"<{tag}\b[^>]*>(.*?)</{tag}>", re.IGNORECASE | re.DOTALL) for tag in ("pre", "h1", "title")
]


def html_text(page: str) -> str:
    """The words of an HTML error page ("Cannot POST /sse"), not its first line ("<!DOCTYPE html>")."""
    import html

    for said in _SAYS:
        match = said.search(page)
        text = " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split()) if match else ""
        if text:
            return html.unescape(text)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


#: Where a response that came through a proxy names it (redacted) in ``response.extensions``.
PROXY_EXTENSION = "mcpnb_proxy"
#: The statuses a proxy answers with itself: it wants credentials, or could not reach the server.
PROXY_STATUSES = frozenset({407, 502, 503, 504})


def shown_proxy(url: Any) -> str:
    """A proxy's URL as it may be said: any ``user:password@`` in it hidden."""
    return re.sub(r"//[^/@]*@", "//***@", str(url).rstrip("/"))


def proxy_mounts(
    on_failure: FailureHook, *, background_cuts: bool = True, verify: Any = None
) -> dict[str, Any]:
    """The environment's proxies (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY, their lower-case
    forms) as httpx2 reads them for a client without a transport of its own, each a watched
    transport; None (a NO_PROXY host) means the client's own, direct one.

    httpx2 honours the environment only when it builds the transport itself, so mcpnb's watched
    one made every MCP request go direct where the SDK's own client (and mcpnb's OAuth requests)
    went through the proxy: behind a corporate proxy the server was "unreachable"."""
    import httpx2

    try:
        from httpx2._utils import get_environment_proxies
    except ImportError:  # pragma: no cover - an httpx2 that moved it: no proxies rather than no client
        return {}
    mounts: dict[str, Any] = {}
    for pattern, url in get_environment_proxies().items():
        if url is None:
            mounts[pattern] = None
            continue
        try:
            # the server's TLS (its client certificate) runs inside the proxy's tunnel
            proxied = httpx2.AsyncHTTPTransport(
                proxy=url, **({"verify": verify} if verify is not None else {})
            )
        except (ValueError, ImportError) as exc:  # socks:// (a desktop's all_proxy), socksio missing
            logger.warning("mcpnb: the proxy %s is not used for MCP servers (%s)", shown_proxy(url), exc)
            continue
        mounts[pattern] = watched_transport(proxied, on_failure, proxy=url, background_cuts=background_cuts)
    if any(mount is not None for mount in mounts.values()):
        mounts.update(direct_to_this_machine())
    return mounts


#: This machine's own addresses, reached directly whatever the proxy settings say (as browsers do):
#: a corporate HTTP_PROXY set for pip and the web made a notebook's own 127.0.0.1 server
#: "unreachable" unless NO_PROXY listed it, where mcpnb had always reached it. (httpx mounts match
#: hosts, not address ranges: 127.0.0.1, not all of 127/8.)
LOOPBACK = ("127.0.0.1", "localhost", "*.localhost", "localhost.localdomain", "[::1]", "0.0.0.0")


def direct_to_this_machine() -> dict[str, None]:
    """httpx mounts that send :data:`LOOPBACK` hosts direct (None: no proxy), for every client that
    reads the environment's proxies: the MCP transport's, and OAuth's side requests."""
    return {f"all://{host}": None for host in LOOPBACK}


def watched_transport(
    inner: Any, on_failure: FailureHook, *, proxy: str | None = None, background_cuts: bool = True
) -> Any:
    """An httpx transport that reports every error ``inner`` raises, while connecting or mid-body.

    The SDK quietly retries its background SSE streams, so a server that died is otherwise seen
    only by the next call; this tells the connection at once. (Built on first use: httpx2 is
    imported lazily.)

    Not so on Streamable HTTP (``background_cuts`` False) when an open connection breaks (a
    read fails, the peer closes it): that is the cut request's trouble, and for a call
    :func:`~mcpnb.client.requests.request` asks the session whether it still answers. A middlebox
    that closes idle connections (a corporate proxy, a load balancer) cuts exactly the stream that
    stays quiet, the GET stream of server messages or a ``subscriptions/listen`` one, while the
    server is well and the calls get through. The GET stream then ends as if the server closed it,
    which the SDK opens again (a broken one it gives up on after two), a GET resuming a request's
    stream only :data:`RESUMED_CUTS` times; a listen stream fails for its listener alone, who
    listens again. Failing to *connect* is still reported: a server that died refuses it.

    ``proxy``: the proxy ``inner`` goes through; its errors and responses carry
    its (redacted) URL, ``exc.mcpnb_proxy`` and ``response.extensions["mcpnb_proxy"]``, so a proxy
    that refused or is down is named, not the server blamed.
    """
    import httpx2

    shown = shown_proxy(proxy) if proxy else None
    kept_open = 0  # POST answer streams in a row that did not end when read to their end (_finish_body)

    async def read_to_end(chunks: Any) -> None:
        nonlocal kept_open
        kept_open = 0 if await _finish_body(chunks) else kept_open + 1

    def cut(exc: Exception) -> bool:  # a connection that was open, broken before its answer
        return isinstance(exc, (httpx2.ReadError, httpx2.RemoteProtocolError))

    def failed(exc: Exception, probe: bool = False) -> None:
        with contextlib.suppress(AttributeError):
            if shown is not None:
                exc.mcpnb_proxy = shown  # type: ignore[attr-defined]
            if probe:  # a cut, not a refusal: lost only if the session no longer answers
                exc.mcpnb_cut = True  # type: ignore[attr-defined]
        on_failure(exc)

    class WatchedStream(httpx2.AsyncByteStream):
        def __init__(self, stream: Any, method: str | None = None, finish: bool = False) -> None:
            self.stream, self.method, self.finish = stream, method, finish
            self.owner = _REQUEST_STREAM.get()  # a GET resuming a request's stream, or the background one
            self.chunks: Any = None  # the inner stream's iterator, once read; None again at its end

        async def __aiter__(self) -> AsyncIterator[bytes]:
            chunks = self.chunks = self.stream.__aiter__()
            try:
                async for chunk in chunks:
                    if self.owner is not None:
                        self.owner.heard(chunk)  # news: the next cut starts a new count
                    yield chunk
                self.chunks = None
            except Exception as exc:
                if self.method is None:
                    failed(exc)
                    raise
                failed(exc, probe=True)  # the session is asked whether it still answers
                if self.method == "GET" and isinstance(exc, httpx2.TransportError) and self._reopened():
                    return  # cut while idle: ended, for the SDK to open again
                raise
            finally:
                # closed here, as httpx closes ours: an async generator left unfinished (every
                # 2025-11-25 answer's event stream, which the SDK leaves once its answer came) is
                # finalized by the loop's hook instead, a self-pipe write and a task per request
                if isinstance(chunks, AsyncGenerator):
                    await chunks.aclose()

        def _reopened(self) -> bool:
            """Whether this cut GET may end as if the server ended it (the SDK opens it again):
            the background stream always, a request's resuming one :data:`RESUMED_CUTS` times in a
            row without news (a job that reports less often than the middlebox allows is resumed
            as long as it reports)."""
            if self.owner is None:
                return True
            self.owner.resumed_cuts += 1
            return self.owner.resumed_cuts <= RESUMED_CUTS

        async def aclose(self) -> None:
            try:
                # a server that keeps its answer streams open is not waited for any more
                if self.finish and kept_open < KEPT_OPEN and self.chunks is not None:
                    await read_to_end(self.chunks)
            finally:
                await self.stream.aclose()

    class WatchedTransport(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: Any) -> Any:
            try:
                response = await inner.handle_async_request(request)
            except Exception as exc:
                # refused: the server is gone, say so now; cut: ask the session first
                failed(exc, probe=not background_cuts and cut(exc))
                raise
            # Streamable HTTP: a cut response is its request's trouble (requests.py asks the
            # session whether it still answers); legacy SSE: every answer comes on one stream
            # a POST's event stream is read to its end if left early, so its connection is kept
            events = response.headers.get("content-type", "").startswith("text/event-stream")
            finish = events and request.method == "POST" and not background_cuts
            response.stream = WatchedStream(
                response.stream, None if background_cuts else request.method, finish
            )
            if shown is not None:
                response.extensions[PROXY_EXTENSION] = shown
            return response

        async def aclose(self) -> None:
            await inner.aclose()

    return WatchedTransport()


#: How long, and how many bytes, a POST's answer stream left before its end is still read to its
#: end so that its connection serves the next request (:func:`_finish_body`).
FINISH_WAIT = 0.5
FINISH_LIMIT = 64 * 1024
#: After this many such streams in a row that did not end, a connection's answer streams are closed
#: at once, as before: its server keeps them open, and each wait holds a connection a moment longer.
KEPT_OPEN = 3


async def _finish_body(chunks: Any) -> bool:
    """Read what is left of a POST's event stream that its reader left once its answer came; False
    if the stream did not end within :data:`FINISH_WAIT` and :data:`FINISH_LIMIT`.

    The SDK closes a 2025-11-25 answer's event stream as soon as the answer is in, a moment before
    the server's own end of it arrives; httpcore then cannot reuse the connection and closes it, so
    every call of that era opened a TCP connection of its own (a connect here, an accept and a new
    HTTP connection on the server). The server ends the stream right after the answer, so the rest
    is a few bytes already on their way. A server that keeps the stream open loses the connection
    as before (and, :data:`KEPT_OPEN` times in a row, is not waited for again). The caller has its
    answer already: this runs in the request's own task, after it."""
    import anyio

    left = FINISH_LIMIT
    with anyio.move_on_after(FINISH_WAIT):
        while left > 0:
            try:
                left -= len(await chunks.__anext__())
            except StopAsyncIteration:
                return True
            except Exception:  # a cut: the connection closes, as it would have
                return True
    return False


def tls_context(config: ServerConfig) -> Any:
    """The ``ssl.SSLContext`` for a server with ``tls`` settings (a client certificate, a CA of its
    own); None without: httpx's default. Built at each connect, so a renewed certificate is read;
    a file or passphrase that is wrong raises :class:`~mcpnb.client.errors.ConfigError` saying so."""
    return config.tls.context() if config.tls is not None else None


def http_auth(config: ServerConfig) -> Any:
    """An ``httpx2.Auth`` for flows that need more than a header (OAuth); None otherwise."""
    if config.auth is None or config.auth.type != "oauth":
        return None
    from mcpnb.client.auth import oauth_provider

    return oauth_provider(config)


class StderrPipe:
    """A pipe whose write end becomes a child's stderr; each line read goes to ``on_line``.

    Without it, a stdio server's stderr lands in whichever notebook cell happens to be running.
    """

    def __init__(self, on_line: Callable[[str], None]) -> None:
        self._on_line = on_line
        self._transport: asyncio.ReadTransport | None = None
        self._protocol: _LineProtocol | None = None
        self.writer: Any = None

    async def __aenter__(self) -> Any:
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")
        loop = asyncio.get_running_loop()
        self._transport, self._protocol = await loop.connect_read_pipe(
            lambda: _LineProtocol(self._on_line), os.fdopen(read_fd, "rb", buffering=0)
        )
        return self.writer

    async def catch_up(self) -> None:
        """Read what the server has written until now, however throttled its stderr is: a call's
        failure points at the traceback its server wrote before answering (the answer comes on
        another pipe), and a server that had just logged much at its start had its reading paused,
        so the traceback still waited in the pipe when the call's error was made (CI, loaded)."""
        if self._protocol is not None:
            await self._protocol.catch_up()

    async def __aexit__(self, *exc: object) -> None:
        """Read what is still in the pipe before closing it: a crashed server's last words (why it
            stopped) were written just before it exited, and lines held back by the flood share wait
            there too. Bounded: a grandchild that kept the pipe open (a daemon in a session of its own,
        which the process group's end does not reach) would never send its end."""
        self.writer.close()  # the child keeps its own copy; reading ends at its EOF or below
        try:
            if self._protocol is not None:
                await self._protocol.drain()
        finally:
            if self._transport is not None:
                self._transport.close()


#: The share of the runtime loop's time one server's stderr may take, and the burst it may take at
#: once: a server that floods stderr (a debug loop, a log level left at TRACE) then slows down
#: itself, its writes waiting on a full pipe, not every other server's calls (it made them ~20×
#: slower). Nothing is lost: what is not read yet waits in the pipe.
STDERR_SHARE = 0.2
STDERR_BURST = 0.005
#: How long a server's end waits for the rest of its stderr (its pipe's end) before closing it, at
#: the most, and while nothing more comes: what an exited process wrote is there at once.
STDERR_DRAIN = 1.0
STDERR_QUIET = 0.1


#: A line that never ends is passed on in pieces once this many bytes of it have come.
STDERR_PIECE = 65536
#: How far back from a piece's end it may end at a space instead.
_PIECE_SLACK = 4096


def _piece_end(buffer: bytes) -> int:
    """Where a piece of a line that never ends is cut: after its last whitespace within
    :data:`_PIECE_SLACK` of its end, the rest waiting for the next piece, so a token is not split
    in two (each piece is redacted alone, and neither half is the secret); at its end when there
    is none (a blob)."""
    start = max(0, len(buffer) - _PIECE_SLACK)
    space = max(buffer.rfind(c, start) for c in (b" ", b"\t", b"\r"))
    return space + 1 if space >= 0 else len(buffer)


class _LineProtocol(asyncio.Protocol):
    def __init__(self, on_line: Callable[[str], None]) -> None:
        self._on_line = on_line
        self._buffer = b""
        self._first = True  # a byte order mark may open the stream, once
        self._transport: asyncio.ReadTransport | None = None
        self._owed = 0.0  # loop seconds taken beyond the share, paid back as time passes
        self._at = time.perf_counter()
        self._flooded = False
        self._throttled = True  # until the server's end: then what is left is read at once
        self.ended = asyncio.Event()  # the pipe's end (every writer closed it) or its close
        self.received = 0  # bytes read: a drain goes on while they keep coming

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        start, spending = time.perf_counter(), time.thread_time()
        self._owed = max(0.0, self._owed - (start - self._at) * STDERR_SHARE)
        self._buffer += data
        if self._first and (len(self._buffer) >= 3 or b"\n" in self._buffer):
            # a BOM at the stream's start is no text: kept, it hid in the log line's first word
            self._first = False
            self._buffer = self._buffer.removeprefix(b"\xef\xbb\xbf")
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._on_line(line.decode("utf-8", "replace").rstrip("\r"))
        if len(self._buffer) > STDERR_PIECE:  # a server that never ends its line still gets logged
            cut = _piece_end(self._buffer)
            self._on_line(self._buffer[:cut].decode("utf-8", "replace"))
            self._buffer = self._buffer[cut:]
        self._at = time.perf_counter()
        # the loop's time this read took: CPU time, not the wall clock, which on a loaded machine
        # also counts the moments the thread waited for a CPU, and called a short traceback a flood
        self._owed += time.thread_time() - spending
        if self._throttled and self._owed > STDERR_BURST and self._transport is not None:
            if not self._flooded:
                self._flooded = True
                self._on_line(STDERR_FLOOD)
            self._transport.pause_reading()
            asyncio.get_running_loop().call_later(self._owed / STDERR_SHARE, self._resume)

    def _resume(self) -> None:
        self._owed, self._at = 0.0, time.perf_counter()
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    async def catch_up(self) -> None:
        """One read of what waits in the pipe now (up to the transport's read size), paused or not:
        a throttle pauses only after a read's lines are passed on."""
        self._resume()
        for _ in range(2):  # the first yield lets the loop poll the pipe, the second runs its read first
            await asyncio.sleep(0)

    async def drain(self) -> None:
        """The server has ended: the rest of its stderr is read at once (at most a pipe's worth),
        until its end, for :data:`STDERR_DRAIN` at the most and while it keeps coming."""
        self._throttled = False
        self._resume()
        deadline = time.monotonic() + STDERR_DRAIN
        while not self.ended.is_set() and time.monotonic() < deadline:
            before = self.received
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ended.wait(), STDERR_QUIET)
            if self.received == before:
                return  # quiet: whoever still holds the pipe writes nothing now

    def eof_received(self) -> bool | None:
        if self._buffer:
            self._on_line(self._buffer.decode("utf-8", "replace"))
            self._buffer = b""
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended.set()
