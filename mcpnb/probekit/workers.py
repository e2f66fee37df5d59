"""Serve probe-kit from several worker processes on one port (``--http --workers N``).

This process binds the listener itself (``IPPROTO_TCP``, so accepted connections get
``TCP_NODELAY``; see DESIGN: without it every response waits ~40 ms), prints the URL, and hands the
socket to uvicorn's supervisor, which starts N workers that accept from it, restarts a worker that
dies, and stops them all on Ctrl-C or SIGTERM. Each worker builds its server with
:func:`mcpnb.probekit.app.create_app` from the environment set here.

A stop (SIGTERM or SIGINT, to this process or to its whole process group) is quiet: each worker
finishes what it is sending for at most ``http_server.GRACE_S`` (2) seconds, then ends the requests
still running (open streams, long calls) without a word (``http_server.quiet_stops``), cancels its
running tasks, which say so in the store, and exits; this process exits once every worker has,
with :data:`STOPPED` (0). Refused at start (a bad store, a taken port): 2, see ``__main__``. A
worker that dies (killed, crashed) is replaced at once, and this process says so on stderr
(:func:`replaced_line`): its running tasks only turn ``failed`` once their lease runs out.

Workers share nothing but the task store, so more than one worker needs a shared store (SQLite or
Redis): with the memory store a task made on one worker would be unknown to the others.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator
from typing import Any

from mcpnb.probekit.taskstore import LEASE_S, TaskStoreError, open_store, safe_url

LOOPBACK = "127.0.0.1"
BACKLOG = 2048
#: Exit code of a stop asked by SIGTERM or SIGINT.
STOPPED = 0
#: The protocol eras a client can use, by whether one worker or several serve the port.
ONE_WORKER_ERAS = "2026-07-28 and 2025-11-25"
MANY_WORKERS_ERAS = (
    "2026-07-28 only (a 2025-11-25 session lives in the worker that opened it and the next request "
    "may land on another; serve 2025-11-25 clients from a single-worker probe-kit on its own port "
    "with the same --task-store)"
)


def check_workers(workers: int, store_url: str | None) -> str | None:
    """Why this combination cannot work, or None."""
    if workers < 1:
        return f"--workers must be 1 or more (got {workers})"
    if workers == 1:
        return None
    try:
        store = open_store(store_url)
    except TaskStoreError as exc:
        return str(exc)
    if not store.shared:
        return (
            f"--workers {workers} needs a task store the workers share: with {store.url} each worker keeps "
            "its own tasks, so a task started on one would be unknown to the others. Add "
            "--task-store sqlite:///path/tasks.db (one machine) or --task-store redis://127.0.0.1:6379/0"
        )
    return None


def check_store(store_url: str | None) -> str | None:
    """Why the task store cannot be used now (a Redis that is not running, a file that cannot be
    written), or None. Checked before serving: otherwise the URL is printed, plain calls work and
    every task fails."""
    import asyncio

    try:
        store = open_store(store_url)
    except TaskStoreError as exc:
        return str(exc)
    if not store.shared:
        return None

    async def ping() -> None:
        try:
            await store.ping()
        finally:
            await store.close()

    try:
        asyncio.run(ping())
    except TaskStoreError as exc:
        return (
            f"the task store {store.url} is not answering ({_cause(exc)}): start it (for Redis, e.g. "
            "redis-server --port PORT --save '' --appendonly no) or fix --task-store"
        )
    return None


def _cause(exc: TaskStoreError) -> str:
    text = str(exc)
    return text.split(" failed: ", 1)[1] if " failed: " in text else text


def startup_line(workers: int, store_url: str | None) -> str:
    """The second line at start (on stderr; the first, on stdout, is the URL): how many workers,
    which task store (password shown as ``***``), and the protocol eras clients can use."""
    from mcpnb.probekit.taskstore import DEFAULT_URL, ENV

    store = safe_url((store_url or os.environ.get(ENV) or DEFAULT_URL).strip())
    count = f"{workers} worker{'s' if workers != 1 else ''}"
    eras = ONE_WORKER_ERAS if workers == 1 else MANY_WORKERS_ERAS
    return f"probe-kit: {count}, task store {store}; protocol eras: {eras}"


def reachable_warning(host: str, port: int) -> str | None:
    """What to tell a person who binds anything but loopback."""
    if host in (LOOPBACK, "localhost", "::1"):
        return None
    return (
        f"probe-kit: WARNING: listening on {host}:{port} — reachable from other machines on this network. "
        "probe-kit has no authentication: anyone who can reach this port can call its tools, which read "
        "files under --root. Put it behind your hub's proxy or a firewall."
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket whose accepted connections asyncio makes ``TCP_NODELAY``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def serve_workers(host: str, port: int, workers: int, env: dict[str, str]) -> int:
    """Run ``workers`` probe-kit workers on ``host:port`` until SIGTERM or SIGINT; returns
    :data:`STOPPED` once every worker has exited (see the module docstring)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    sock = bind(host, port)
    actual = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"http://{shown}:{actual}/mcp", flush=True)  # the first line: a parent process reads it
    print(startup_line(workers, env.get("MCP_TASK_STORE")), file=sys.stderr, flush=True)
    warning = reachable_warning(host, actual)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    from mcpnb.probekit.app import STATE_KEY_ENV, WORKERS_ENV
    from mcpnb.probekit.http_server import GRACE_S

    os.environ.update({**env, WORKERS_ENV: str(workers)})  # the workers (spawned) inherit it
    os.environ.setdefault(STATE_KEY_ENV, secrets.token_hex(32))  # one key seals every worker's rounds
    config = uvicorn.Config(
        "mcpnb.probekit.app:create_app",
        factory=True,
        workers=workers,
        host=host,
        port=actual,
        http="mcpnb.probekit.app:NoDelayHTTP",
        lifespan="on",
        log_level="warning",
        timeout_graceful_shutdown=GRACE_S,  # a listen stream never ends by itself: do not wait long
    )
    try:
        with _stop_is_an_exception():
            if workers == 1:
                uvicorn.Server(config).run(sockets=[sock])
            else:
                _saying_replacements(Multiprocess)(config, sockets=[sock]).run()
    except (KeyboardInterrupt, _Stop):
        pass  # a stop asked for (uvicorn passes the signal on once it has stopped): not an error
    finally:
        sock.close()
    return STOPPED


def replaced_line(old_pid: int | None, exitcode: int | None, new_pid: int | None, lease_s: str) -> str:
    """What probe-kit says when uvicorn replaces a worker that died: which one, how it ended, and
    what becomes of the tasks it ran (their status stays ``working`` until their lease runs out)."""
    if exitcode is None:
        how = "stopped answering"
    elif exitcode < 0:
        how = f"was killed by {_signal_name(-exitcode)}"
    else:
        how = f"exited with code {exitcode}"
    return (
        f"[probe-kit] worker pid {old_pid} {how}; started pid {new_pid} in its place. Tasks it was "
        f"running stay 'working' until their lease runs out (--task-lease-s, {lease_s} s), then end "
        "as failed; finished tasks keep their results."
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _saying_replacements(supervisor: type[Any]) -> type[Any]:
    """uvicorn's multi-process supervisor, saying on stderr when it replaces a worker that died
    (uvicorn logs it at INFO, below the ``warning`` level probe-kit runs it at)."""

    class Saying(supervisor):  # type: ignore[misc,valid-type]
        def keep_subprocess_alive(self) -> None:
            before = list(self.processes)
            super().keep_subprocess_alive()
            from mcpnb.probekit.app import OPTIONS

            lease = os.environ.get(OPTIONS["task_lease_s"][0]) or f"{LEASE_S:g}"
            for old, new in zip(before, self.processes, strict=False):
                if new is not old:
                    line = replaced_line(old.process.pid, old.process.exitcode, new.process.pid, lease)
                    print(line, file=sys.stderr, flush=True)

    return Saying


class _Stop(Exception):
    """SIGTERM arrived while uvicorn's own handlers were not installed (just before it started, or
    when a single-worker uvicorn passes the signal on after its graceful stop)."""


@contextlib.contextmanager
def _stop_is_an_exception() -> Iterator[None]:
    """SIGTERM raises :class:`_Stop` here instead of killing the process: a single uvicorn server
    re-raises the signal it stopped for, which would end this process by signal (exit -15)
    before it closed its socket and said its exit code."""

    def stop(signum: int, frame: Any) -> None:
        raise _Stop

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
