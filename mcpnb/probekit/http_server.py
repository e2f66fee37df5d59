"""Serve probe-kit over Streamable HTTP on the *current* event loop, loopback only.

A notebook cannot call ``anyio.run`` or ``MCPServer.run()``: the kernel loop is already running.
So uvicorn serves a socket we bind ourselves (127.0.0.1, port 0 = a free port) as a task on the
running loop, and the handle stops it cleanly. Streams are resumable: an event store keeps what was
sent, and each SSE response starts with a priming event that carries a ``retry`` hint.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

import uvicorn
from mcp.server.mcpserver import MCPServer

from mcpnb.probekit.eventstore import MemoryEventStore
from mcpnb.probekit.sessionera import SessionEra

HOST = "127.0.0.1"
#: The ``retry`` (ms) every SSE priming event suggests: how soon a client should reconnect.
RETRY_MS = 500
#: Seconds a stopping server gives open requests and streams before it closes them: a client's
#: listening stream never ends by itself, and uvicorn would otherwise wait for it (a minute and more).
GRACE_S = 2


class _QuietStop(logging.Filter):
    """A stop cancels the streams still open after :data:`GRACE_S`: expected, so no error and no
    traceback in whichever cell stopped the server (uvicorn logs both at ERROR)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError) and "graceful shutdown" in str(error):
            return False
        return "graceful shutdown exceeded" not in record.getMessage()


_QUIET_STOP = _QuietStop()


def quiet_stops() -> None:
    """Have uvicorn's stop say nothing of the streams it cancels (:class:`_QuietStop`), once per
    process: a probe-kit served from a cell, each worker of ``--workers``, and ``uvicorn --factory
    mcpnb.probekit.app:create_app`` run by hand."""
    log = logging.getLogger("uvicorn.error")
    if _QUIET_STOP not in log.filters:
        log.addFilter(_QUIET_STOP)


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: inside a kernel, SIGINT must interrupt the cell, not stop us."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class HttpHandle:
    """A running HTTP server: its URL and how to stop it."""

    url: str
    port: int
    server: uvicorn.Server = field(repr=False)
    task: asyncio.Task[None] = field(repr=False)

    @property
    def running(self) -> bool:
        return not self.task.done()

    async def stop(self) -> None:
        """Ask uvicorn to exit and wait for it; idempotent."""
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def serve_http(server: MCPServer, *, host: str = HOST, port: int = 0) -> HttpHandle:
    """Start ``server`` at ``http://127.0.0.1:PORT/mcp`` on the running loop and return the handle."""
    if host != HOST:
        raise ValueError(f"probe-kit only listens on {HOST} (got {host!r})")
    # IPPROTO_TCP, not 0: asyncio turns TCP_NODELAY on for accepted connections only when the
    # listener's proto says TCP. Without it Nagle meets the client's delayed ACK and every response
    # whose body uvicorn writes after its headers waits ~40 ms (48 ms vs 7 ms per call, measured).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.setblocking(False)
    actual = sock.getsockname()[1]
    app = SessionEra(server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=RETRY_MS))
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=GRACE_S)
    quiet_stops()
    uv = _Server(config)
    task = asyncio.get_running_loop().create_task(uv.serve(sockets=[sock]), name=f"probe-kit-http-{actual}")
    try:
        while not uv.started:
            if task.done():
                task.result()  # re-raise the startup failure
                raise RuntimeError("probe-kit HTTP server exited during startup")
            await asyncio.sleep(0.01)
    except BaseException:
        uv.should_exit = True
        task.cancel()
        sock.close()
        raise
    return HttpHandle(url=f"http://{HOST}:{actual}/mcp", port=actual, server=uv, task=task)
