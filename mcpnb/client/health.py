"""Health of one connection: a cheap probe, a latency history, and when to give up on a session.

A probe is the cheapest request each era offers: ``ping`` on legacy (2025-11-25) sessions, a
``server/discover`` on modern ones (which have no ``ping``), ``tools/list`` when neither exists.

A probe that times out while tool calls run, or while the server answers or reports progress, is
not counted by itself (a server may answer one request at a time, and still run calls the client
gave up on); it is when a call times out too and the server has sent nothing at all (no answer to
anything, no progress, no notification) since either was sent (:func:`call_timed_out`): a hung
server that callers keep calling is found as one nobody calls is.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcpnb.client.connection import Connection

#: One failed probe marks a server unhealthy; this many in a row replace its session.
RECONNECT_AFTER_FAILURES = 3
#: Latencies kept per server.
HISTORY = 20
#: A probe never waits longer than this (nor longer than the interval).
MAX_PROBE_TIMEOUT = 10.0


def probe_timeout(interval: float) -> float:
    return max(0.1, min(MAX_PROBE_TIMEOUT, interval))


@dataclass
class HealthState:
    """What the probes have seen so far."""

    latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=HISTORY))
    last_ok: datetime | None = None
    consecutive_failures: int = 0
    last_failure: str | None = None
    #: When the server last sent anything on its session (an answer or an error to any request, a
    #: notification, progress among them), on the connection's clock (see :func:`listen`).
    last_heard: float = -math.inf
    #: When it last answered a request (any, one given up on too) or reported progress: signs it
    #: works through requests, which a log line from a thread of its own is not.
    last_working: float = -math.inf
    #: A probe that went unanswered while calls ran (when it was sent), and a call that timed out
    #: (its last sign of life): each waits for the other (see :meth:`silent_since`).
    probe_unanswered: float | None = None
    call_unanswered: float | None = None

    @property
    def healthy(self) -> bool | None:
        """None until the first probe; False from the first failure until a probe succeeds (or a
        new session starts)."""
        if self.consecutive_failures:
            return False
        return True if self.last_ok else None

    def ok(self, latency_ms: float) -> None:
        self.latencies_ms.append(latency_ms)
        self.last_ok = datetime.now()
        self.consecutive_failures = 0
        self.last_failure = None

    def new_session(self, now: float) -> None:
        """A fresh handshake just succeeded (at ``now``): the old session's failed probes and
        unanswered requests no longer count."""
        self.consecutive_failures = 0
        self.last_failure = None
        self.last_heard = self.last_working = now
        self.probe_unanswered = self.call_unanswered = None

    def silent_since(self) -> float | None:
        """When the server last answered, if both a probe and a call have gone unanswered since:
        it then answers nothing, however many calls wait on it (None: no such pair). Taken once."""
        probe, call = self.probe_unanswered, self.call_unanswered
        if probe is None or call is None or self.last_heard >= min(probe, call):
            return None
        self.probe_unanswered = self.call_unanswered = None
        return self.last_heard

    def failed(self, reason: str) -> None:
        self.consecutive_failures += 1
        self.last_failure = reason

    @property
    def should_reconnect(self) -> bool:
        return self.consecutive_failures >= RECONNECT_AFTER_FAILURES


async def probe(client: Any, era: str | None) -> float:
    """Send one probe; return its latency in ms (raise whatever the transport raises)."""
    from mcp import MCPError

    started = time.monotonic()
    try:
        if era == "modern":
            from mcp_types.version import LATEST_MODERN_VERSION

            await client.session.send_discover(LATEST_MODERN_VERSION)
        else:  # the session's ping: the client's is marked deprecated (gone in 2026-07-28), and
            # silencing that warning around an await silenced every task's warnings meanwhile
            await client.session.send_ping()
    except MCPError as exc:
        if exc.code != -32601:  # method not found: fall back to the one request every server has
            raise
        await client.list_tools(cache_mode="bypass")
    return (time.monotonic() - started) * 1000


def listen(dispatcher: Any, state: HealthState, clock: Callable[[], float]) -> None:
    """Note in ``state`` each time the server sends anything on this session: every answer and
    every notification read passes through the JSON-RPC dispatcher's two plain (not async) steps,
    stood in for on this one dispatcher (one function call per message; the class's own step is
    looked up each time, so a patch of it, such as :mod:`.answers`', still applies; nothing here
    holds the connection). A direct dispatcher (an ``MCPServer`` in this process on 2026-07-28)
    has neither: its server runs on this loop and answers each probe, and an answered probe is
    noted by :func:`monitor`."""
    for step in ("_resolve_pending", "_dispatch_notification"):
        if callable(getattr(type(dispatcher), step, None)):
            setattr(dispatcher, step, _noting(dispatcher, step, state, clock))


def _noting(dispatcher: Any, step: str, state: HealthState, clock: Callable[[], float]) -> Callable[..., Any]:
    sdk = type(dispatcher)
    answers = step == "_resolve_pending"

    def heard(*args: Any) -> Any:
        state.last_heard = now = clock()
        if answers or getattr(args[0] if args else None, "method", None) == "notifications/progress":
            state.last_working = now
        return getattr(sdk, step)(dispatcher, *args)

    return heard


def call_timed_out(conn: Connection, quiet_since: float) -> None:
    """A tool call's deadline passed, the call having last heard of the server at ``quiet_since``
    (its start or its last progress, on the connection's clock). Counted against the server's
    health only when a probe also went unanswered and nothing at all came from the server since
    either was sent (:meth:`HealthState.silent_since`): a slow tool alone, or one on a server that
    answers anything meanwhile (another call, progress, a probe), is never the server's failure."""
    from mcpnb.client.events import State

    state = conn.health
    if state.last_heard >= quiet_since or conn.state is not State.CONNECTED or conn.client is None:
        return
    state.call_unanswered = quiet_since
    _judge_silence(conn)


def _judge_silence(conn: Connection) -> bool:
    """Count the server's silence as a failure if a probe and a call went unanswered (True: the
    session was handed to recovery)."""
    quiet = conn.health.silent_since()
    if quiet is None:
        return False
    since = f" for {conn.clock() - quiet:.1f} s" if math.isfinite(quiet) else ""
    why = (
        "calls time out and the server answers nothing: no answer, progress or notification"
        f"{since} (a probe and a tool call went unanswered)"
    )
    _failed(conn, "unanswered", why)
    if conn.health.should_reconnect:
        conn.lost(TimeoutError(why))
        return True
    return False


def _failed(conn: Connection, what: str, why: str) -> None:
    """One failure counted and said: unhealthy from the first."""
    was = conn.health.healthy
    conn.health.failed(why)
    conn.emit("health", f"{what} ({conn.health.consecutive_failures} in a row): {why}", ok=False)
    if was is not False:
        conn.emit("health", "unhealthy", ok=False)


async def monitor(conn: Connection) -> None:
    """Probe ``conn`` every ``health_check_interval`` seconds while it is connected.

    One failure marks it unhealthy (shown in the status table); a forgotten session is renewed;
    :data:`RECONNECT_AFTER_FAILURES` in a row replace the session. A probe that times out while
    tool calls run, or while the server answers or reports progress, does not count by itself: a
    server that handles one request at a time answers it after the call (even one we gave up on,
    which it may still run: replacing the session would end that work), and a call's own deadline
    says when waiting is too long. When that deadline passes too, and the server has said nothing
    since either was sent, it counts (:func:`call_timed_out`).
    """
    from mcpnb.client.errors import McpnbError, describe
    from mcpnb.client.events import State
    from mcpnb.client.retry import renew_session

    interval = conn.config.health_check_interval
    timeout = probe_timeout(interval)
    while True:
        await asyncio.sleep(interval)
        if conn.state is not State.CONNECTED or conn.client is None:
            continue
        sent, client = conn.clock(), conn.client
        try:
            latency = await asyncio.wait_for(probe(client, conn.era), timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if conn.client is not client:  # the session was ended or lost meanwhile: nothing to judge
                continue
            busy = len(conn.asking.active_calls)
            # with no call of ours running, only an answer or progress since shows it works on
            # requests (ones we gave up on that it still runs): a log line alone is no excuse
            heard = (conn.health.last_heard if busy else conn.health.last_working) >= sent
            if isinstance(exc, TimeoutError) and (busy or heard):
                # a server may answer one request at a time (JSON-RPC allows it): alone, the probe
                # does not judge a server busy with calls, ours or ones we gave up on that it still
                # runs (their progress, their late answers); with a call that timed out, unheard,
                # it does
                if heard:
                    said = "not counted (the server said something since it was sent)"
                else:
                    conn.health.probe_unanswered = sent
                    said = "not counted unless a call times out unanswered too"
                running = f" while {busy} call(s) run" if busy else ""
                conn.emit("health", f"probe unanswered within {timeout:g} s{running}: {said}")
                if _judge_silence(conn):
                    return
                continue
            why = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else describe(exc)
            _failed(conn, "probe failed", why)
            if conn.session_expired:
                # a new session brings its own monitor; this one ends (and a renewal that cannot
                # reach the server has already handed over to the backoff loop)
                with contextlib.suppress(McpnbError):
                    await renew_session(conn)
                return
            if conn.health.should_reconnect:  # the loss says why (a bare TimeoutError: "timed out")
                in_a_row = f"{why} to {RECONNECT_AFTER_FAILURES} health probes in a row"
                conn.lost(TimeoutError(in_a_row) if isinstance(exc, TimeoutError) else exc)
                return
            continue
        conn.health.last_heard = conn.clock()  # (a direct dispatcher's answers are noted only here)
        recovered = conn.health.healthy is False
        conn.health.ok(latency)
        conn.last_latency_ms = latency  # the status table's latency: the server's, measured
        conn.emit("health", f"probe ok in {latency:.1f} ms", ok=True, latency_ms=latency)
        if recovered:
            conn.emit("health", "healthy again", ok=True)
