"""Health of one connection: a cheap probe, a latency history, and when to give up on a session.

A probe is the cheapest request each era offers: ``ping`` on legacy (2025-11-25) sessions, a
``server/discover`` on modern ones (which have no ``ping``), ``tools/list`` when neither exists.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

    def new_session(self) -> None:
        """A fresh handshake just succeeded: the old session's failed probes no longer count."""
        self.consecutive_failures = 0
        self.last_failure = None

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


async def monitor(conn: Connection) -> None:
    """Probe ``conn`` every ``health_check_interval`` seconds while it is connected.

    One failure marks it unhealthy (shown in the status table); a forgotten session is renewed;
    :data:`RECONNECT_AFTER_FAILURES` in a row replace the session. A probe that times out while
    tool calls run does not count: a server that handles one request at a time answers it after
    the call, and the call's own deadline says when waiting is too long.
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
        try:
            latency = await asyncio.wait_for(probe(conn.client, conn.era), timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            busy = len(conn.asking.active_calls)
            if isinstance(exc, TimeoutError) and busy:
                # a server may answer one request at a time (JSON-RPC allows it): the call's own
                # tool_timeout judges a server that is slow to answer now, not the probe
                conn.emit(
                    "health", f"probe unanswered within {timeout:g} s while {busy} call(s) run: not counted"
                )
                continue
            was = conn.health.healthy
            why = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else describe(exc)
            conn.health.failed(why)
            conn.emit(
                "health", f"probe failed ({conn.health.consecutive_failures} in a row): {why}", ok=False
            )
            if was is not False:
                conn.emit("health", "unhealthy", ok=False)
            if conn.session_expired:
                # a new session brings its own monitor; this one ends (and a renewal that cannot
                # reach the server has already handed over to the backoff loop)
                with contextlib.suppress(McpnbError):
                    await renew_session(conn)
                return
            if conn.health.should_reconnect:
                conn.lost(exc)
                return
            continue
        recovered = conn.health.healthy is False
        conn.health.ok(latency)
        conn.last_latency_ms = latency  # the status table's latency: the server's, measured
        conn.emit("health", f"probe ok in {latency:.1f} ms", ok=True, latency_ms=latency)
        if recovered:
            conn.emit("health", "healthy again", ok=True)
