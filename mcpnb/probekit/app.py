"""probe-kit as an ASGI app that any number of worker processes can serve.

``python -m mcpnb.probekit --http --workers N`` uses it; so can uvicorn directly::

    MCP_TASK_STORE=redis://127.0.0.1:6379/0 uvicorn --factory mcpnb.probekit.app:create_app \\
        --workers 4 --port 8000 --http mcpnb.probekit.app:NoDelayHTTP

Each worker builds its own server from the environment (``MCP_TOOLSET``, ``MCP_TASK_STORE``,
``MCP_PROBEKIT_ROOT``, ``MCP_PROBEKIT_TASK_TTL_MS``, ``MCP_PROBEKIT_POLL_INTERVAL_MS``,
``MCP_PROBEKIT_MAX_TASKS``, ``MCP_PROBEKIT_TASK_LEASE_S``, ``MCP_PROBEKIT_HOST``,
``MCP_PROBEKIT_STATE_KEY``, the key that seals a question's ``requestState``; ``--workers`` sets a
fresh one, uvicorn run by hand wants one you set), so they agree on everything; a shared task store
is what lets a task made on one be read, answered and cancelled on another. Requests of the
2026-07-28 era carry everything they need, so any worker can answer them;
2025-11-25 sessions live in one worker's memory, so several workers on one port serve 2026-07-28
clients only (2025-11-25 ones: a single-worker probe-kit on the same store; see docs/classroom.md).

``NoDelayHTTP`` is uvicorn's HTTP protocol with ``TCP_NODELAY`` on every connection: uvicorn binds
its own listener with protocol 0, on which asyncio leaves Nagle's algorithm on, and every response
then waits ~40 ms for a delayed ACK. (``--workers`` here binds the listener with ``IPPROTO_TCP``.)
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Mapping
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

PREFIX = "MCP_PROBEKIT_"
#: create_server keyword -> (environment variable, type)
OPTIONS: dict[str, tuple[str, type]] = {
    "root": (PREFIX + "ROOT", str),
    "task_ttl_ms": (PREFIX + "TASK_TTL_MS", int),
    "poll_interval_ms": (PREFIX + "POLL_INTERVAL_MS", int),
    "max_concurrent_tasks": (PREFIX + "MAX_TASKS", int),
    "task_lease_s": (PREFIX + "TASK_LEASE_S", float),
}
HOST_ENV = PREFIX + "HOST"
#: How many worker processes serve the port (set by ``--workers``; read by each worker's app).
WORKERS_ENV = PREFIX + "WORKERS"
#: The key that seals 2026-07-28 ``requestState`` (set by ``--workers`` for all of them, or by you
#: for uvicorn's own workers): each worker would otherwise seal with a key of its own, and a retry
#: that reached another worker than its first round was refused (-32602, "invalid requestState").
STATE_KEY_ENV = PREFIX + "STATE_KEY"
#: The pid of the process that started the workers (set by ``--workers``): each dies with it, even
#: when it is killed outright (:func:`~mcpnb.probekit.workers.die_with_supervisor`).
SUPERVISOR_ENV = PREFIX + "SUPERVISOR"


def options_from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``create_server`` keywords the environment sets (a bad number names its variable)."""
    env = os.environ if env is None else env
    out: dict[str, Any] = {}
    for keyword, (var, kind) in OPTIONS.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        try:
            out[keyword] = kind(raw)
        except ValueError:
            wanted = "a whole number" if kind is int else "a number"
            raise ValueError(f"{var}={raw!r}: expected {wanted}") from None
    return out


def options_to_env(options: Mapping[str, Any], host: str) -> dict[str, str]:
    """The environment a worker needs to build the same server (the inverse of :func:`options_from_env`)."""
    out = {OPTIONS[k][0]: str(v) for k, v in options.items() if k in OPTIONS and v is not None}
    out[HOST_ENV] = host
    return out


def build_app(server: Any, host: str = "127.0.0.1", *, workers: int = 1) -> Any:
    """The Streamable HTTP app of ``server``, as ``serve_http`` serves it: resumable streams, and a
    session's era kept from its handshake. On a loopback ``host`` the SDK also checks ``Host``
    headers (DNS-rebinding protection); on any other it cannot know the names clients will use."""
    from mcpnb.probekit.eventstore import MemoryEventStore
    from mcpnb.probekit.http_server import RETRY_MS
    from mcpnb.probekit.sessionera import SessionEra

    inner = server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=RETRY_MS, host=host)
    return SessionEra(inner, workers=workers)


def create_app() -> Any:
    """The uvicorn factory (``--factory mcpnb.probekit.app:create_app``): one worker's app, whose
    stop is quiet (:func:`~mcpnb.probekit.http_server.quiet_stops`)."""
    from mcpnb.probekit.http_server import quiet_stops
    from mcpnb.probekit.server import create_server

    supervisor = os.environ.get(SUPERVISOR_ENV, "")
    if supervisor.isdigit() and int(supervisor) != os.getpid():  # a worker, not --workers 1's own
        from mcpnb.probekit.workers import die_with_supervisor

        die_with_supervisor(int(supervisor))
    quiet_stops()

    key = os.environ.get(STATE_KEY_ENV)
    server = create_server(**options_from_env(), state_keys=[key] if key else None)
    workers = os.environ.get(WORKERS_ENV, "")
    return build_app(
        server, os.environ.get(HOST_ENV, "127.0.0.1"), workers=int(workers) if workers.isdigit() else 1
    )


class NoDelayHTTP(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol, with ``TCP_NODELAY`` set on each accepted connection."""

    def connection_made(self, transport: Any) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # a connection that is already gone
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
