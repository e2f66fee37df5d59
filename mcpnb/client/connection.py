"""One server: its owner task, its state machine, and the life of its sessions.

The SDK's ``Client`` must be exited in the task that entered it, and a transport crash lands in that
task. So each session has exactly one long-lived owner task on the runtime loop; callers use the
entered client from their own tasks and only ever see clean errors. When a live session dies, the
connection replaces it (``reconnecting``, with backoff) and callers that arrive meanwhile wait.

What a session calls back into lives in :mod:`.callbacks`; the requests callers make through the
connection (tools, resources, prompts, log level, completion, watching) in :mod:`.operations`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import re
import time
import weakref
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client import health, requests
from mcpnb.client.asking import Asking
from mcpnb.client.cache import TTLCache
from mcpnb.client.callbacks import SessionCallbacks
from mcpnb.client.catalog import ToolCatalog
from mcpnb.client.elicitation.completions import PageCompletions
from mcpnb.client.errors import (
    AuthError,
    ConnectError,
    McpnbError,
    ServerExitedError,
    describe,
    http_refusal,
    http_status_of,
    last_words,
    leaves,
    root_cause,
)
from mcpnb.client.events import ConnectionEvent, EventLog, State
from mcpnb.client.interaction import Interaction
from mcpnb.client.listening import keep_listening
from mcpnb.client.logfilter import SERVER_LOG, known_secrets, remember_secrets
from mcpnb.client.operations import ConnectionRequests, send_log_level
from mcpnb.client.redact import scrub
from mcpnb.client.retry import (
    CRASH_LOOP_WINDOW,
    Attempt,
    Backoff,
    is_retryable,
    open_patiently,
    start_recovery,
)
from mcpnb.client.status import ServerStatus
from mcpnb.client.timeouts import CONNECTING, Deadline, within
from mcpnb.client.watching import ResourceWatch

if TYPE_CHECKING:
    from mcpnb.client.config import ServerConfig

#: How long a stopping owner task may take (a stdio server is gone within ~2 s, see client/stdio.py).
STOP_GRACE = 8.0
#: Why a connection is ``failed`` after a person stopped its connect.
CONNECT_CANCELLED = "connect cancelled"
#: Last lines of a stdio server's stderr kept per connection.
STDERR_LINES = 500
#: The longest wait between reconnect attempts.
MAX_RETRY_DELAY = 30.0

#: JSON-RPC errors a 2026-07-28-only server refuses ``initialize`` with (see _modern_only).
_METHOD_NOT_FOUND = -32601
_UNSUPPORTED_VERSION = -32022

#: The HTTP transports, each the other's fallback where the URL guessed (see _open_guessing).
_OTHER_HTTP = {"http": "sse", "sse": "http"}
_HTTP_NAMES = {"http": "Streamable HTTP", "sse": "legacy SSE"}

#: "modern" also probes (``server/discover``): the SDK's fixed-version mode skips it and then knows
#: neither the server's name nor its capabilities. _install() insists on the modern era instead.
_MODES = {"auto": "auto", "legacy": "legacy", "modern": "auto"}
#: Answers to a handshake a server refuses because it no longer speaks that era (see _refused_era).
_ERA_REFUSALS = (_METHOD_NOT_FOUND, _UNSUPPORTED_VERSION)
#: The SDK's answer to a request it stopped waiting for (its ``server/discover`` probe waits 10 s).
_REQUEST_TIMEOUT = -32001
#: At most this many ``server/discover`` probes per attempt (see _patient_probe): an endless
#: startup_timeout must not probe a server that drops unknown methods for ever.
DISCOVER_TRIES = 3


async def _skip_sdk_validation(name: str, result: Any) -> None:
    """Replaces the SDK's strict outputSchema check, which raises and drops the payload."""


def _answered_with_an_error(exc: BaseException) -> bool:
    """The SDK's words for an HTTP error answer without a JSON-RPC error in it: -32603 "Server
    returned an error response", or -32601 for a 404."""
    leaf = root_cause(exc)
    return type(leaf).__name__ == "MCPError" and getattr(leaf, "code", None) in (-32603, -32601)


def _refused_era(exc: BaseException) -> bool:
    """The server refused the handshake as one that speaks another era: "Method not found" or
    "Unsupported protocol version" (what a 2026-07-28-only server answers ``initialize`` with)."""
    return any(
        type(leaf).__name__ == "MCPError" and getattr(leaf, "code", None) in _ERA_REFUSALS
        for leaf in leaves(exc)
    )


def _load_sdk() -> None:
    """Import what a session needs (the SDK, the transports, the tasks extension), in a worker thread."""
    import mcp.client.sse
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401

    import mcpnb.client.tasks
    import mcpnb.client.transcript
    import mcpnb.client.transports  # noqa: F401
    from mcpnb.client.logfilter import install

    install()  # the SDK's loggers exist now: hide credentials, route its warnings to server logs


#: A server's "Session not found" that says no more (probe-kit's own says why itself).
_BARE_FORGOT = re.compile(r"Session not found(?: \(MCP error|;|$)")
#: Why a server answers "Session not found" to the session it has just started, and what to do.
FORGOT_SESSION = (
    "the server did not know the session it had just started: several server processes behind one "
    "address share no 2025-11-25 session (probe-kit's --workers, a load balancer); connect with "
    "--era modern (era='modern'), whose requests need no session"
)


class Connection(SessionCallbacks, ConnectionRequests):
    """A live (or failed, or disabled) connection to one MCP server. Lives on the runtime loop."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        # The transport in use: config.transport, or the other HTTP one where the URL's guess was
        # refused (see _open_guessing)
        self.transport: str = config.transport
        self.events = EventLog()
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.stderr_count = 0  # lines ever written, and where this session's began: see session_stderr
        self._session_stderr_from = 0
        self._stderr_pipe: Any = None  # a stdio server's (transports.StderrPipe): see read_stderr
        self.session_stdout: list[str] = []  # this start's first lines on stdout that are no JSON-RPC
        self.sdk_said: str | None = None  # the SDK's last warning or error in this start's tasks
        self.state = State.DISABLED if not config.enabled else State.DISCONNECTED
        self.since = datetime.now()
        self.last_error: str | None = None
        self.last_latency_ms: float | None = None
        self.retries = 0
        self.health = health.HealthState()
        self.backoff = Backoff(config.retry_delay, MAX_RETRY_DELAY, rng=rng or random.Random())
        self.clock = clock
        self.catalog = ToolCatalog(self)
        self.tool_cache = self.catalog.cache  # what status() and the pool read without I/O
        # prompts/list: read by every %mcp prompt (to check its arguments) and by Tab completion
        self.prompt_cache: TTLCache[list[Any]] = TTLCache(config.cache_ttl, clock)
        self.client: Any = None
        self.protocol_version: str | None = None
        self.server_info: Any = None
        self.capabilities: Any = None
        self.instructions: str | None = None
        self._owner: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[Any] | None = None  # resolved once the owner's session is up
        self._stop: asyncio.Event | None = None
        self._background: set[asyncio.Task[Any]] = set()  # health loop, list_changed listener
        self._recovery: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()  # set whenever the state is not connecting/reconnecting
        self._settled.set()
        # Sessions ended on purpose, and how ("disconnected", "reconnected by you"): a call still
        # running on one learns why it was cut off, and its failure is not taken for a lost server.
        self._ended_by: list[tuple[weakref.ref[Any], str]] = []
        # The last session that died under us, and why (its process's exit code, say): the calls
        # it takes down hear only "connection closed", and this is what they tell the person.
        self._lost_why: tuple[weakref.ref[Any], str] | None = None
        self.http_status: int | None = None
        self.http_answer: requests.HttpAnswer | None = None  # the last HTTP error, with the server's words
        self.web_page: str | None = None  # the title of a web page answered where MCP was asked for
        self.session_expired = False
        # What the transport said while a session was being opened (the process exited, code 3):
        # the handshake itself then fails only with "connection closed".
        self.ended_early: BaseException | None = None
        self.revivable = False  # failed, but time may fix it: the next request tries again at once
        # Sessions a reconnect opened that died within CRASH_LOOP_WINDOW, one after another: the
        # next reconnect goes on counting from there (retry.reconnect_with_backoff), so a server
        # that crashes soon after each start is given up on instead of restarted forever.
        self.quick_losses = 0
        self.reopened = False  # the current session was opened by a reconnect, not by a person
        # An 'auto' era connection's era as its server answered it (see _mode): an automatic
        # reconnect goes straight to it instead of probing again
        self.learned_era: str | None = None
        # The seconds each unanswered ``server/discover`` probe of the session being opened waited
        # (see _patient_probe): a handshake after them is a guess, not the server's answer
        self._unanswered_probes: list[float] = []
        # This connection's last era was such a guess: an automatic reconnect probes once, not
        # DISCOVER_TRIES times (a server that drops discover would cost ~20 s each time)
        self._era_guessed = False
        # Why the last session died under us, until a reconnect replaces it; then what the first
        # result says of it (see restart_note): the new process remembers nothing of the old one's
        self._lost_to: str | None = None
        self.restart_note: str | None = None
        self.attempt: Attempt | None = None  # a reconnect attempt under way, while it lasts
        # The probe asking whether a session whose connection was cut still answers (its client, the
        # task): one at a time, however many cuts and calls ask (requests.still_answers)
        self.cut_probe: tuple[weakref.ref[Any], asyncio.Task[bool]] | None = None
        self._secrets = config.secrets()
        if config.transport == "stdio":  # the kernel's proxy settings go to the child: a password too
            from mcpnb.client.stdio import network_secrets

            self._secrets |= network_secrets()
        remember_secrets(self, self._secrets)  # scrubbed from the HTTP client's and the SDK's logs too
        self.interaction: Interaction | None = None  # None: the process-wide default
        self.asking = Asking(self)  # the SDK callbacks for elicitation, sampling and logs
        self.log_level = "info"  # what the server should send (setLevel, or the 2026 per-request opt-in)
        self.log_level_chosen = False  # set_log_level was called: a new 2025-11-25 session is told again
        self.watch = ResourceWatch(self)  # resources this client subscribed to
        self.pages = PageCompletions()  # pages the server said are done (a -32042 retry waits on it)

    # ------------------------------------------------------------------ identity and state
    @property
    def name(self) -> str:
        return self.config.name

    @property
    def era(self) -> str | None:
        """``"modern"`` (2026-07-28, stateless) or ``"legacy"`` (handshake) once connected."""
        if self.protocol_version is None:
            return None
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        return "modern" if self.protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"

    @property
    def server_name(self) -> str | None:
        return getattr(self.server_info, "name", None)

    @property
    def server_version(self) -> str | None:
        return getattr(self.server_info, "version", None)

    def safe(self, text: str) -> str:
        """``text`` with every secret this server's config knows replaced by ``***``, and, when
        mcpnb signs in (OAuth), the tokens it holds (known to the log filter only, as they change)."""
        if self.signs_in:
            return scrub(text, self._secrets | known_secrets())
        return scrub(text, self._secrets)

    def emit(self, kind: str, message: str, **detail: Any) -> None:
        self.events.emit(ConnectionEvent(self.name, kind, self.safe(message), detail=detail))

    def set_state(self, state: State, message: str = "", **detail: Any) -> None:
        previous, self.state, self.since = self.state, state, datetime.now()
        if state is State.FAILED or (state is State.RECONNECTING and message):
            self.last_error = self.safe(message)  # reconnecting: why, while it lasts
        elif state is State.CONNECTED:
            self.last_error = None
            if previous is State.RECONNECTING and self._lost_to is not None:  # replaced automatically
                why, self._lost_to = self._lost_to, None
                # an in-process server is the same object again: what it holds is still there
                self.restart_note = None if self.transport == "inprocess" else self._restarted(why)
        if state in (State.CONNECTING, State.RECONNECTING):
            self._settled.clear()
        else:
            self._settled.set()
        text = self.safe(message) if message else f"{previous} -> {state}"
        self.events.emit(ConnectionEvent(self.name, "state", text, state, previous, detail))

    def status(self) -> ServerStatus:
        tools = self.tool_cache.peek()
        return ServerStatus(
            name=self.name,
            transport=self.transport,
            state=str(self.state),
            era=self.era,
            protocol_version=self.protocol_version,
            server_name=self.server_name,
            server_version=self.server_version,
            tools=None if tools is None else sum(map(self.catalog.filter.allows, tools)),  # callable ones
            last_latency_ms=self.last_latency_ms,
            last_error=self._row_error(),
            since=self.since,
            # the probes speak of a live session only: a failed server was once "failed · ok"
            healthy=self.health.healthy if self.state is State.CONNECTED else None,
            last_ok=self.health.last_ok,
            retries=self.retries,
            instructions=self.instructions,
        )

    def _restarted(self, why: str) -> str:
        """What the first result after an automatic reconnect says: its server answers from a fresh
        start (server-sequential-thinking's thoughtHistoryLength was back to 1, and nothing said so).
        A stdio server is a new process; over HTTP only the session is known to be new."""
        if self.transport == "stdio":
            return self.safe(
                f"the server was restarted before this call (its last process was lost: {why}); "
                "what it held in memory is gone"
            )
        return self.safe(
            f"the server was reconnected with a new session before this call (the last one was lost: "
            f"{why}); what it held for the old session may be gone"
        )

    def _row_error(self) -> str | None:
        """The status row's last error: while a live session is unhealthy, why the probes say so
        (the row read "connected · unhealthy" with no reason, or an older error's)."""
        failure = self.health.last_failure
        if self.state is State.CONNECTED and self.health.healthy is False and failure:
            return self.safe(f"unhealthy: {failure}")
        return self.last_error

    def __repr__(self) -> str:
        return f"<Connection {self.name} {self.transport} {self.state}>"

    # ------------------------------------------------------------------ lifecycle
    async def start(self, *, wait: float = 0.0) -> None:
        """Connect, bounded by ``startup_timeout``; raise :class:`ConnectError` and stay ``failed``.

        ``wait`` > 0 keeps trying (with backoff) for that many seconds while the server is not
        answering yet (see :func:`mcpnb.client.retry.open_patiently`).
        """
        if self.state is State.DISABLED:
            return
        await self.halt("reconnected by you")  # on the transport that last answered: no new guess
        self.quick_losses, self.reopened = 0, False
        # a person's connect probes the era afresh (the server may have been upgraded meanwhile),
        # and what it hears first is no news of a restart: they started it
        self.learned_era = self._lost_to = self.restart_note = None
        self._era_guessed = False
        self.set_state(State.CONNECTING, f"connecting to {self.config.target}")
        try:
            await self._open_guessing(wait)
        except asyncio.CancelledError:
            self._connect_cancelled()
            raise
        except BaseException as exc:
            reason = self.failure_reason(exc)
            self.revivable = isinstance(exc, Exception) and self.time_may_fix(exc)
            self.set_state(State.FAILED, reason)
            raise ConnectError(self.name, self.safe(reason)) from None
        self.set_state(State.CONNECTED, self.connected_message())

    def _connect_cancelled(self) -> None:
        """A person's connect was stopped (an interrupt, a timeout around ``aconnect``): ``failed``
        at once. Ending the server it was starting can take seconds (a process that ignores SIGTERM
        waits for the SIGKILL), and the status said "connecting" all that time, to a person who had
        just stopped it. An automatic reconnect (``reconnecting``) is left to whoever stopped it."""
        if self.state is State.CONNECTING:
            self.revivable = False
            self.set_state(State.FAILED, CONNECT_CANCELLED)

    async def _open_guessing(self, wait: float) -> None:
        """The first session; where the URL's path guessed the transport and the server refused it
        with a 4xx, the other HTTP transport at the same URL: what the spec asks of clients that
        support older servers (POST an initialize; on a 4xx, GET an SSE stream). Its reconnects
        then keep to the transport that answered."""
        try:
            await open_patiently(self, wait)
            return
        except Exception as exc:
            modern = self._modern_only(exc)
            if modern is not None:
                raise McpnbError(modern) from None
            if not self._refused_as(exc):
                raise
            first = self.failure_reason(exc, hint=False)
        guess, self.transport = self.transport, _OTHER_HTTP[self.transport]
        other = _HTTP_NAMES[self.transport]
        self.emit("transport", f"{first}; trying {other} at the same URL")
        try:
            await open_patiently(self, wait)
        except Exception as exc:
            second = self.failure_reason(exc, hint=False)
            self.transport = guess
            if second == first:
                raise McpnbError(f"{first} (tried as {_HTTP_NAMES[guess]} and {other} alike)") from None
            raise McpnbError(f"{first}; as {other}: {second}") from None

    def _refused_as(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a guessed transport's refusal: a 4xx that is not about credentials
        (401, 403, 407) or about pace (429)."""
        if not self.config.transport_guessed or self.transport not in _OTHER_HTTP:
            return False
        if any(isinstance(leaf, AuthError) for leaf in leaves(exc)):
            return False
        status = self._refusal_status(exc)
        return status is not None and 400 <= status < 500 and status not in (401, 403, 407, 429)

    def _modern_only(self, exc: BaseException) -> str | None:
        """Why a connect with ``era='legacy'`` failed, where the server refused ``initialize`` as a
        2026-07-28-only server does; None for any other failure.

        Such a server has no handshake: it answers ``initialize`` with "Method not found" (-32601),
        or with "Unsupported protocol version" (-32022) listing the versions it speaks (the
        TypeScript SDK's modern-only endpoint), over HTTP with a 400. That is no wrong transport:
        trying legacy SSE at the same URL only adds a second, misleading refusal; the era is what
        to change (the other way round, :meth:`_open` says "only speaks the handshake era")."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if self.config.era != "legacy" or self.transport == "sse":
            return None
        leaf = next((x for x in leaves(exc) if type(x).__name__ == "MCPError"), None)
        code = getattr(leaf, "code", None)
        data = getattr(getattr(leaf, "error", None), "data", None)
        supported = data.get("supported") if isinstance(data, dict) else None
        speaks = [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []
        if code == _UNSUPPORTED_VERSION:
            if not speaks or not set(speaks) <= set(MODERN_PROTOCOL_VERSIONS):
                return None  # it names handshake versions too: some other disagreement
        elif code != _METHOD_NOT_FOUND:
            return None
        said = self.failure_reason(exc, hint=False)
        versions = " and ".join(speaks) if speaks else "2026-07-28"
        return (
            f"the server speaks only {versions} (it refused initialize: {said}); use era 'auto' or 'modern'"
        )

    def _refusal_status(self, exc: BaseException) -> int | None:
        return http_status_of(exc) or (self.http_status if _answered_with_an_error(exc) else None)

    def connected_message(self) -> str:
        return f"connected: {self.server_name or '?'} {self.server_version or ''} ({self.era})".strip()

    async def open_session(self) -> None:
        """One attempt at a fresh session: owner task, handshake, first tool list. Raises on failure.

        An 'auto' era connection whose server answered the handshake goes straight to it (see
        :meth:`_mode`); where the server now refuses it as one that no longer speaks that era
        (upgraded between two starts), the same attempt probes the era again.
        """
        mode = self._mode()
        try:
            await self._open_session(mode)
        except Exception as exc:
            if mode == _MODES[self.config.era] or not _refused_era(exc):
                raise
            self.learned_era = None
            self.emit(
                "era", f"the server refused the {mode} handshake it answered before: asking its era again"
            )
            await self._open_session(_MODES[self.config.era])

    def _mode(self) -> str:
        """The SDK's connect mode: the config's era; for 'auto', the handshake directly once the
        server is known to speak only that. Probing costs a server built on the old SDK a pydantic
        dump of ~95 lines on stderr each time (it knows no ``server/discover``), and each automatic
        reconnect probed again: the log's last lines were that dump, not why the server crashed."""
        if self.config.era == "auto" and self.learned_era == "legacy":
            return "legacy"
        return _MODES[self.config.era]

    async def _open_session(self, mode: str) -> None:
        # The first import of the SDK takes seconds on a busy machine: not on startup_timeout's clock,
        # and not on the runtime loop, which keeps serving the other connections meanwhile.
        await asyncio.to_thread(_load_sdk)
        # startup_timeout, paused while a sign-in waits for another one to finish (see CONNECTING)
        deadline = Deadline(idle=math.inf, total=self.startup_timeout)
        connecting = CONNECTING.set(deadline)  # the owner task below, and what it starts, see it
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "exception not retrieved"
        self._stop = asyncio.Event()
        self.http_status, self.http_answer, self.session_expired = None, None, False
        self.web_page = None
        self.ended_early = None
        self._session_stderr_from = self.stderr_count
        self.session_stdout = []
        self.sdk_said = None
        self._unanswered_probes = []
        self._ready = ready
        self._owner = loop.create_task(self._own(ready, self._stop, mode), name=f"mcpnb-owner-{self.name}")
        CONNECTING.reset(connecting)
        # the first tool list is asked from this task (and the probes started from it): an
        # in-process server answers in the asker's context, and what it logs there (an invalid
        # result) belongs in its log, not the running cell
        route = SERVER_LOG.set(self._on_sdk_log)
        try:
            await self._open(ready, deadline)
        finally:
            SERVER_LOG.reset(route)

    async def _open(self, ready: asyncio.Future[Any], deadline: Deadline) -> None:
        """The session's first steps once its transport is up: handshake, first tool list, probes."""
        try:
            client = await within(deadline, asyncio.shield(ready))
            self._install(client)
            self.prompt_cache.clear()  # a new session's server may offer other prompts
            if self.config.era == "modern" and self.era != "modern" and self._unanswered_probes:
                raise McpnbError(  # not "it speaks only": it never said
                    f"{self._silence_of_probes()}, and it answered the {self.protocol_version} handshake "
                    "instead; raise startup_timeout if it is just slow, or use era 'auto' or 'legacy'"
                )
            if self.config.era == "modern" and self.era != "modern":
                raise McpnbError(
                    f"the server only speaks the handshake era ({self.protocol_version}), not 2026-07-28; "
                    "use era 'auto' or 'legacy'"
                )
            listing = self.clock()
            await within(deadline, self.catalog.fetch())
            self.last_latency_ms = (self.clock() - listing) * 1000  # the status's first latency
            if self.log_level_chosen and self.era != "modern":  # 2025-11-25 forgets it with the session
                await within(deadline, send_log_level(client, self.log_level))
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                self._connect_cancelled()  # before the wait for its server's process to end
            await self.end_session()
            self.client = None
            raise
        self.health.new_session(self.clock())  # the old session's failed probes say nothing of this one
        self._start_background()  # its probes and listener, in this context: their warnings are its

    @property
    def startup_timeout(self) -> float:
        """``startup_timeout``, but never shorter than a person needs to approve an OAuth login."""
        auth = self.config.auth
        if auth is not None and auth.asks_a_person:
            from mcpnb.client.auth import authorization_ui

            return max(self.config.startup_timeout, authorization_ui().timeout)
        return self.config.startup_timeout

    def failure_reason(self, exc: BaseException, *, hint: bool = True) -> str:
        """Why a session could not be opened, for a person. ``hint=False``: without the advice to
        try the other HTTP transport (it has been tried)."""
        if self.ended_early is not None and not isinstance(exc, asyncio.CancelledError):
            exc = self.ended_early  # the process's exit, not the "connection closed" it caused
        if isinstance(exc, TimeoutError) and not isinstance(exc, McpnbError):
            return self._silence_reason()
        if isinstance(exc, asyncio.CancelledError):
            return CONNECT_CANCELLED
        auth_failure = next((leaf for leaf in leaves(exc) if isinstance(leaf, AuthError)), None)
        if auth_failure is not None:  # an OAuth flow's own message beats the 401 that started it
            return str(auth_failure)
        if self.http_status in (401, 403):
            answer = self.http_answer
            oauth = answer is not None and answer.oauth
            scope = answer.scope if answer is not None and not self.signs_in else None
            return str(self.auth_refusal(self.http_status, oauth, scope=scope, at_connect=True))
        status = self._refusal_status(exc)
        if status is not None and status >= 400:
            answer = self.http_answer
            said = answer.message if answer is not None and answer.status == status else None
            text = http_refusal(status, said, self.safe(self.config.target), self.transport if hint else "")
            asked = answer.retry_after if answer is not None and answer.status == status else None
            return f"{text}; {asked.words()}" if asked is not None else text
        reason = describe(exc, page=self.web_page)
        if _BARE_FORGOT.search(reason) and FORGOT_SESSION not in reason:  # another process answered
            reason += f"; {FORGOT_SESSION}"
        return self._with_last_words(reason)

    def auth_refusal(
        self,
        status: int,
        oauth: bool,
        *,
        scope: str | None = None,
        named: bool = True,
        at_connect: bool = False,
    ) -> AuthError:
        """The 401/403 (``at_connect``, or to one call), with what was sent in the words of the
        settings that hold it; ``scope``: what a 403 insufficient_scope to a static credential asks
        for; ``named=False``: the generic words (a call's refusal that says nothing more specific)."""
        from mcpnb.client.config.auth import credentials_sent

        config = self.config
        auth = config.auth
        credentials = credentials_sent(auth, config.headers, config.url) if named else None
        answer = self.http_answer
        return AuthError.from_status(
            self.name,
            status,
            self.safe(config.target),
            sent_credentials=config.sends_credentials,
            oauth=oauth,
            credentials=credentials,
            reread=auth is not None and bool(auth.token_env or auth.password_env),
            scope=scope if credentials is not None else None,
            source=config.source,
            at_connect=at_connect,
            said=answer.message if answer is not None and answer.status == status else None,
            certificate=config.tls is not None and bool(config.tls.cert),
        )

    @property
    def signs_in(self) -> bool:
        """mcpnb gets its own tokens (OAuth): a scope it lacks is its to ask for, not the person's."""
        return self.config.auth is not None and self.config.auth.type == "oauth"

    @property
    def session_stderr(self) -> list[str]:
        """The stderr lines the server wrote in its latest start: an earlier process's last words (a
        crash that has since been fixed) must not explain why this one failed, nor mcpnb's flood
        notice, which amid a traceback hid the place it named. The log keeps them all."""
        from mcpnb.client.transports import STDERR_FLOOD

        count = min(self.stderr_count - self._session_stderr_from, len(self.stderr))
        return [line for line in list(self.stderr)[len(self.stderr) - count :] if line != STDERR_FLOOD]

    async def read_stderr(self) -> None:
        """Take in what a stdio server has written on stderr until now: its answer comes on another
        pipe, so a failed call would otherwise be told of before the traceback written ahead of it."""
        if self._stderr_pipe is not None:
            await self._stderr_pipe.catch_up()

    def _with_last_words(self, reason: str) -> str:
        """``reason``, and the stderr line of a stdio server that says why it stopped, if any."""
        said = last_words(self.session_stderr) if self.config.transport == "stdio" else None
        if not said and (logged := self._in_process_words()):
            return f"{reason}; the server logged: {logged} (%mcp logs {self.name})"
        return f"{reason} (server stderr: {said})" if said else reason

    def time_may_fix(self, exc: BaseException) -> bool:
        """Whether trying again later may succeed: a retryable failure, but not a program that
        writes text instead of JSON-RPC where the answer should be (each call waited out
        startup_timeout again for it). Text on stdout in a start that failed otherwise (a banner,
        then an exit) is a print() in the way, not the reason: it does not stop the retries."""
        if self.session_stdout and self._unanswered(exc):
            return False
        return is_retryable(exc, http_status=self.http_status)

    def _unanswered(self, exc: BaseException) -> bool:
        """The handshake waited out startup_timeout (what :meth:`_silence_reason` explains)."""
        if self.ended_early is not None:
            return False
        return isinstance(exc, TimeoutError) and not isinstance(exc, McpnbError)

    def _silence_reason(self) -> str:
        """Why the handshake got no answer: a stdio program that prints something other than
        JSON-RPC is no MCP server (or is one with a print() in the way); else it may just be slow,
        and what it last wrote on stderr may say why."""
        waited = f"no answer within startup_timeout={self.startup_timeout:g} s"
        if self.session_stdout:  # only a stdio server's stdout gets there
            return (
                f"{waited}: it wrote {self.session_stdout[0][:120]!r} on stdout, which is not JSON-RPC; is "
                f"{self._started_program()!r} an MCP server over stdio? (a print() to stdout gets in the way)"
            )
        if self.sdk_said:  # the SDK gave up in a task of its own (said in this start's tasks only)
            return f"{waited}: the MCP SDK said {self.sdk_said[:300]!r} (%mcp logs {self.name})"
        return self._with_last_words(
            f"{waited}; raise startup_timeout for server {self.name!r} if it is just slow"
        )

    def _started_program(self) -> str:
        """The program as a person names it: the script or module an interpreter runs, not only
        the interpreter (every Python server was "is '/usr/bin/python3' an MCP server?")."""
        program, args = self.config.program, list(self.config.args)
        if len(args) > 1 and args[0] == "-m":
            return self.safe(f"{program} -m {args[1]}")
        if (
            args
            and not args[0].startswith("-")
            and Path(program).name.startswith(("python", "node", "uv", "deno"))
        ):
            return self.safe(f"{program} {args[0]}")
        return program

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event, mode: str) -> None:
        """The owner task: enter the transport and client, wait for stop, exit in this same task."""
        from mcp import Client
        from mcp.client.extension import advertise
        from mcp.types import Implementation

        from mcpnb import __version__
        from mcpnb.client import apps
        from mcpnb.client.tasks import input_answerer, tasks_extension
        from mcpnb.client.transports import open_target

        SERVER_LOG.set(self._on_sdk_log)  # SDK warnings from this session's tasks go to its log
        client: Any = None
        try:
            self._check_roots()
            async with contextlib.AsyncExitStack() as stack:
                target = await stack.enter_async_context(
                    open_target(
                        self.config,
                        self.transport,
                        on_stderr=self._on_stderr,
                        on_stdout=self._on_stdout,
                        # (status, request headers, message, challenge[, Retry-After])
                        on_response=self._on_response,
                        on_failure=lambda exc: self._transport_failed(exc, stop, ready),
                        live=lambda: self.state is State.CONNECTED and not stop.is_set(),
                        on_pipe=lambda pipe: setattr(self, "_stderr_pipe", pipe),
                    )
                )
                roots = self._list_roots if self.config.roots else None  # declared only where configured
                client = Client(
                    target,
                    mode=mode,
                    client_info=Implementation(name="mcpnb", version=__version__),
                    message_handler=self._on_message,
                    elicitation_callback=self.asking.on_elicit,
                    sampling_callback=self.asking.on_sample,
                    logging_callback=self.asking.on_log,
                    list_roots_callback=roots,  # a server then asks for them
                    log_level=self.log_level,
                    # 2026-07-28 servers make tasks only for clients that declare the extension;
                    # call_tool() then waits for the task's result transparently
                    # MCP Apps: a tool's page is drawn in a notebook (mcpnb.notebook.render.app_view)
                    extensions=[
                        tasks_extension(
                            answer=input_answerer(
                                self.asking.on_elicit, sample=self.asking.on_sample, list_roots=roots
                            )
                        ),
                        advertise(apps.EXTENSION, apps.extension_settings()),
                    ],
                )
                self._patient_probe(client)
                await stack.enter_async_context(client)
                ready.set_result(client)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not stop.is_set():
                self.lost(exc, client)  # the transport died under a live session
            else:  # ended on purpose, and its end failed (an in-process server's lifespan)
                self._on_session_end_error(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if not ready.done():
                ready.set_exception(ConnectionError("the connection ended before it was ready"))

    def _transport_failed(self, exc: BaseException, stop: asyncio.Event, ready: asyncio.Future[Any]) -> None:
        """The transport says the session is over (:func:`~mcpnb.client.requests.transport_failed`);
        while it opens, the opening fails now: a legacy SSE handshake whose POST was refused is
        answered by nothing (the SDK's writer stopped), and waited out its whole startup_timeout."""
        requests.transport_failed(self, exc, stop)
        if isinstance(exc, ServerExitedError) and not ready.done():
            ready.set_exception(exc)

    def _patient_probe(self, client: Any) -> None:
        """A ``server/discover`` probe that got no answer is asked again while startup_timeout leaves
        time for another and the handshake after it.

        The SDK's ``mode='auto'`` takes any error of its probe for "a legacy server", its own 10 s
        timeout too: a 2026-07-28 server still starting (a cold instance, workers still importing)
        got a 2025-11-25 ``initialize`` session, which it may not keep (probe-kit's workers keep
        2026-07-28 sessions only: "Session not found"). A refusal ("Method not found", a real
        legacy server) still falls back at once; so does the last probe's timeout (a server that
        drops a method it does not know), as a guess :meth:`_install` says and does not remember.
        The SDK builds its session inside ``__aenter__`` and negotiates there, so the probe is
        wrapped as the session is built.
        """
        from mcp.client import session as sdk_session
        from mcp.shared.exceptions import MCPError

        deadline = CONNECTING.get()  # this attempt's startup_timeout, as the owner task sees it
        build = client._build_session

        async def build_session(stack: Any) -> Any:
            session = await build(stack)
            probe = session.send_discover

            async def send_discover(version: str) -> Any:
                while True:
                    waited = sdk_session.DISCOVER_TIMEOUT_SECONDS
                    try:
                        return await probe(version)
                    except MCPError as exc:
                        if exc.code != _REQUEST_TIMEOUT:
                            raise
                        self._unanswered_probes.append(waited)
                        left = deadline.remaining() if deadline is not None else None
                        # another probe, and still half a probe's time for the handshake after it
                        # (startup_timeout=30 s: a second probe at 10 s, the handshake at 20 s)
                        tried = len(self._unanswered_probes)
                        tries = 1 if self._era_guessed else DISCOVER_TRIES
                        if tried >= tries or left is None or left <= 1.5 * waited:
                            raise
                        self.emit("era", f"server/discover got no answer in {waited:g} s: asking again")

            session.send_discover = send_discover
            return session

        client._build_session = build_session

    def _era_note(self) -> None:
        """What the log says of an era chosen after unanswered probes (see :meth:`_patient_probe`)."""
        waits = self._unanswered_probes
        if not waits:
            return
        silence = self._silence_of_probes()
        if self.era == "modern":
            self.emit(
                "era", f"{silence}, then one was answered: a {self.protocol_version} session", guessed=False
            )
        else:
            self.emit(
                "era",
                f"{silence}: used the {self.protocol_version} initialize handshake, which the server "
                "answered; a guess, not its answer to discover, so the next connect asks again",
                guessed=True,
            )

    def _silence_of_probes(self) -> str:
        waits = self._unanswered_probes
        probes = f"{len(waits)} probes" if len(waits) > 1 else "1 probe"
        return f"server/discover got no answer in {waits[-1]:g} s ({probes})"

    def _install(self, client: Any) -> None:
        from mcpnb.client import doors

        client.session.validate_tool_result = _skip_sdk_validation
        # tasks only when asked, transcripts, resultType read as complete, lean large results
        doors.install(client.session, lambda said: self.emit("server", said))
        health.listen(client.session._dispatcher, self.health, self.clock)  # when the server last spoke
        self.client = client
        self.protocol_version = client.protocol_version
        if self.config.era == "auto" and self.transport != "inprocess":  # in-process: another path
            # a handshake sent because discover went unanswered says nothing of the server's era
            self._era_guessed = bool(self._unanswered_probes) and self.era != "modern"
            self.learned_era = None if self._era_guessed else self.era
        self._era_note()
        self.server_info = client.server_info
        self.capabilities = client.server_capabilities
        # a server may write its own settings (a key from its env) into what it says of itself
        self.instructions = self.safe(client.instructions) if client.instructions else None

    def _start_background(self) -> None:
        if self.watch.uris:
            self._spawn(self.watch.resume(), "resubscribe")
        if self.config.health_check_interval > 0:
            self._spawn(health.monitor(self), "health")
        if self.era == "modern" and any(self._changes_said()):
            self._spawn(self._listen(), "listen")

    def _changes_said(self) -> tuple[bool, bool]:
        """Whether the server says when its tools, and its prompts, change (``listChanged``)."""

        def said(kind: str) -> bool:
            return bool(getattr(getattr(self.capabilities, kind, None), "list_changed", False))

        return said("tools"), said("prompts")

    def _spawn(self, coro: Any, what: str) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=f"mcpnb-{what}-{self.name}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _listen(self) -> None:
        """Modern era: list_changed arrives on a ``subscriptions/listen`` stream (teed to _on_message).

        A lost stream (a middlebox closed it while it was quiet) is opened again, with the watch's
        policy (:func:`~mcpnb.client.listening.keep_listening`); the SDK replays nothing, so what
        changed meanwhile is asked for again (the lists' caches are dropped).
        """
        tools, prompts = self._changes_said()
        await keep_listening(
            self,
            lambda client: client.listen(tools_list_changed=tools, prompts_list_changed=prompts),
            stream="the subscriptions/listen stream",
            unheard="list changes are not heard",
            reopened=lambda: self._missed_changes(tools, prompts),
        )

    def _missed_changes(self, tools: bool, prompts: bool) -> None:
        """A listen stream opened again: what changed while none was open was told to nobody."""
        if tools:
            self.tool_cache.invalidate()
        if prompts:
            self.prompt_cache.clear()
        said = "listening again after the subscriptions/listen stream broke: the lists are asked for anew"
        self.emit("cache", said, reason="relisten")

    async def stop(self, why: str = "disconnected") -> None:
        """Close the session (the child process exits); state becomes ``disconnected``.

        ``why`` is what a call still running on the session is told.
        """
        await self.halt(why)
        if self.state is not State.DISABLED:
            self.set_state(State.DISCONNECTED, "disconnected")

    def cancel_background(self) -> None:
        """Stop the health loop and the list_changed listener (a new session starts its own)."""
        for task in list(self._background):
            task.cancel()

    async def halt(self, why: str | None = "disconnected") -> None:
        """Stop recovery and background work, then the session itself.

        Every way of ending a connection comes through here, so none leaves a recovery behind: the
        client is let go *first*, and a call that fails on it afterwards is told ``why`` instead of
        starting a reconnect (see :meth:`lost`). ``why=None``: not ended on purpose, but replaced
        at once (a session the server forgot, :func:`~mcpnb.client.retry.renew_session`): the first
        result on the new one says what may be gone with it (:meth:`_restarted`).
        """
        if self.client is not None and why is not None:
            self._ended_by = [(r, w) for r, w in self._ended_by if r() is not None]
            self._ended_by.append((weakref.ref(self.client), why))
        elif self.client is not None:
            answer = self.http_answer
            said = answer.text() if answer is not None else f"HTTP {self.http_status or 404}"
            self._lost_to = f"the server forgot it ({said})"
        self.client = None
        recovery, self._recovery = self._recovery, None
        self.watch.cancel()  # its listen stream belongs to the session that is ending
        self._unsaid_changes = None  # the next session's first list_changed is said (callbacks.py)
        current = asyncio.current_task()
        tasks = [t for t in (*self._background, recovery) if t is not None and t is not current]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_GRACE)
        await self.end_session()
        self.client = None

    async def end_session(self) -> None:
        """End the current session and wait for its owner task to finish (its transport closed,
        its process ended). Kept as ``_owner`` until then: a second caller (a recovery cancelled
        by ``disconnect``) waits for the same end instead of returning while it is still under way."""
        owner = self._owner
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        ready = self._ready
        if ready is not None and (not ready.done() or ready.cancelled() or ready.exception() is not None):
            owner.cancel()  # still handshaking (or failed by the transport meanwhile): it never looks at stop
        done, _ = await asyncio.wait({owner}, timeout=STOP_GRACE)
        if not done:
            owner.cancel()
            await asyncio.wait({owner}, timeout=STOP_GRACE)
        if self._owner is owner:  # not a newer session started meanwhile
            self._owner = None
        if owner.done() and not owner.cancelled():
            owner.exception()  # retrieved: a crash was already reported through _lost

    # ------------------------------------------------------------------ recovery
    def ended_by(self, client: Any) -> str | None:
        """How a session was ended on purpose (``"disconnected"``...), or None if it was not."""
        return next((w for r, w in self._ended_by if client is not None and r() is client), None)

    def why_lost(self, client: Any) -> str | None:
        """Why ``client``'s session died under us, as :meth:`lost` heard it, or None."""
        if client is None or self._lost_why is None:
            return None
        ref, why = self._lost_why
        return why if ref() is client else None

    def lost(self, exc: BaseException, client: Any = None, *, http_status: int | None = None) -> None:
        """A live session died (process killed, server restarted, probes failing): replace it.

        ``client`` is the session that failed; a failure of any other than the current one (ended
        on purpose, or already replaced) changes nothing. ``http_status``: the HTTP answer to the
        request that failed, if it had one (an earlier request's 401 is no reason to give up).
        """
        if self.state is not State.CONNECTED or self.client is None:  # None: being ended on purpose
            return
        if client is not None and client is not self.client:
            return
        why = describe(exc)
        lived = (datetime.now() - self.since).total_seconds()  # since it was connected
        self.quick_losses = self.quick_losses + 1 if self.reopened and lived < CRASH_LOOP_WINDOW else 0
        self._lost_why = (weakref.ref(self.client), why)
        self._lost_to = why
        self.client = None
        if self._stop is not None:
            self._stop.set()  # let the owner task close what is left of the transport
        reason = f"connection lost: {why}"
        retryable = is_retryable(exc, http_status=http_status)
        if not retryable or self.config.max_retries <= 0:
            self.revivable = retryable
            self.set_state(State.FAILED, reason)
            return
        start_recovery(self, reason)
