"""Serve probe-kit from several worker processes on one port (``--http --workers N``).

This process binds the listener itself (``IPPROTO_TCP``, so accepted connections get
``TCP_NODELAY``; see DESIGN: without it every response waits ~40 ms) and hands the socket to
uvicorn's supervisor, which starts N workers that accept from it, restarts a worker that dies, and
stops them all on Ctrl-C or SIGTERM. Each worker builds its server with
:func:`mcpnb.probekit.app.create_app` from the environment set here.

The URL (the first stdout line, which a parent process or a teacher waits for) is printed only once
every worker serves: each has built its app and accepts from the socket, as it says over uvicorn's
health-check pipe (:func:`_announcing`). Printed any earlier, connections made at once queued in the
listen backlog while the workers still imported; on a busy machine a first ``server/discover``
waited past the SDK's 10 s and a client in ``mode="auto"`` fell back to a 2025-11-25 session, which
several workers cannot keep. A worker that ends before it serves, or workers not serving within
:data:`START_TIMEOUT_S` (``MCP_PROBEKIT_START_TIMEOUT_S``), stop them all: the reason on stderr,
no URL, exit code :data:`NOT_STARTED` (2).

A stop (SIGTERM or SIGINT, to this process or to its whole process group) is quiet: each worker
finishes what it is sending for at most ``http_server.GRACE_S`` (2) seconds, then ends the requests
still running (open streams, long calls) without a word (``http_server.quiet_stops``), cancels its
running tasks, which say so in the store, and exits; this process exits once every worker has,
with :data:`STOPPED` (0). Refused at start (a bad store, a taken port, a worker that cannot
start): 2, see ``__main__``. A worker that dies (killed, crashed) once all serve is replaced at
once, and this process says so on stderr (:func:`replaced_line`): its running tasks only turn
``failed`` once their lease runs out.

A supervisor killed outright (SIGKILL: the OOM killer, ``kill -9``) runs none of that: its workers
went on running, each holding the socket, so the port stayed taken. On Linux each worker asks,
first thing in its app factory, to get SIGTERM when its supervisor dies (``PR_SET_PDEATHSIG``,
:func:`die_with_supervisor`), and so stops as it would on a SIGTERM; elsewhere they still outlive
it. uvicorn starts every worker from the supervisor's main thread (the first ones, replacements,
those SIGHUP or SIGTTIN ask for), the thread whose end ``PR_SET_PDEATHSIG`` watches.

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
import time
from collections.abc import Callable, Iterator
from typing import Any

from mcpnb.probekit.taskstore import LEASE_S, TaskStoreError, open_store, safe_url

LOOPBACK = "127.0.0.1"
BACKLOG = 2048
#: Exit code of a stop asked by SIGTERM or SIGINT.
STOPPED = 0
#: Exit code when the workers could not all start serving (nothing was served; the URL never shown).
NOT_STARTED = 2
#: Seconds every worker gets to start serving (import, build its app, accept): a loaded machine
#: took tens of seconds; ``MCP_PROBEKIT_START_TIMEOUT_S`` gives another bound.
START_TIMEOUT_S = 120.0
START_TIMEOUT_ENV = "MCP_PROBEKIT_START_TIMEOUT_S"
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
    :data:`STOPPED` once every worker has exited, or :data:`NOT_STARTED` if they could not all
    start (see the module docstring)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    sock = bind(host, port)
    actual = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host

    def announce() -> None:
        # what it says on stderr first: a reader of the URL finds it written already
        print(startup_line(workers, env.get("MCP_TASK_STORE")), file=sys.stderr, flush=True)
        warning = reachable_warning(host, actual)
        if warning:
            print(warning, file=sys.stderr, flush=True)
        print(f"http://{shown}:{actual}/mcp", flush=True)  # the first line: a parent process reads it

    from mcpnb.probekit.app import STATE_KEY_ENV, SUPERVISOR_ENV, WORKERS_ENV
    from mcpnb.probekit.http_server import GRACE_S

    # the workers (spawned) inherit it; each dies with this process (:func:`die_with_supervisor`)
    os.environ.update({**env, WORKERS_ENV: str(workers), SUPERVISOR_ENV: str(os.getpid())})
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
    outcome = STOPPED
    try:
        with _stop_is_an_exception():
            if workers == 1:
                outcome = _serve_one(_announcing_server(uvicorn.Server, announce)(config), sock)
            else:
                supervisor = _announcing(_saying_replacements(Multiprocess))(
                    config, sockets=[sock], announce=announce, timeout=start_timeout()
                )
                supervisor.run()
                outcome = NOT_STARTED if supervisor.failed else STOPPED
    except (KeyboardInterrupt, _Stop):
        pass  # a stop asked for (uvicorn passes the signal on once it has stopped): not an error
    finally:
        sock.close()
    return outcome


def die_with_supervisor(supervisor: int) -> None:
    """Have this process get SIGTERM when ``supervisor``, its parent, dies, however it dies (Linux's
    ``PR_SET_PDEATHSIG``; elsewhere nothing). SIGTERM, not SIGKILL: a worker stops as on any
    SIGTERM, ending its open requests and its running tasks, which say so in the store. A parent
    already gone before this was asked sends nothing, so the parent is looked at after: this
    process was reparented, and ends at once the same way."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0) != 0:
            return  # refused (a sandbox, say): the worker may outlive a SIGKILLed supervisor, as before
    except (OSError, AttributeError):  # no prctl in this C library
        return
    if os.getppid() != supervisor:
        signal.raise_signal(signal.SIGTERM)


def start_timeout() -> float:
    """:data:`START_TIMEOUT_S`, or the seconds ``MCP_PROBEKIT_START_TIMEOUT_S`` gives (a number above 0)."""
    raw = os.environ.get(START_TIMEOUT_ENV, "").strip()
    try:
        given = float(raw)
    except ValueError:
        return START_TIMEOUT_S
    return given if given > 0 else START_TIMEOUT_S


def _serve_one(server: Any, sock: socket.socket) -> int:
    """One uvicorn server in this process (``--workers 1`` on a host of the person's choosing)."""
    from uvicorn.config import STARTUP_FAILURE

    try:
        server.run(sockets=[sock])
    except SystemExit as exc:  # uvicorn's own "could not start": its reason is logged above
        if exc.code != STARTUP_FAILURE:
            raise
        print("probe-kit: the server could not start (its error is above)", file=sys.stderr, flush=True)
        return NOT_STARTED
    return STOPPED


def _announcing_server(server: type[Any], announce: Callable[[], None]) -> type[Any]:
    """uvicorn's server, announcing once it accepts (its app built, its lifespan started)."""

    class Announcing(server):  # type: ignore[misc,valid-type]
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                announce()

    return Announcing


def _announcing(supervisor: type[Any]) -> type[Any]:
    """uvicorn's multi-process supervisor, announcing once every worker it started serves.

    Each uvicorn worker answers pings on its health-check pipe with whether its server has started
    (app built, lifespan run, accepting from the socket): one ping at a time is kept in flight per
    worker, so no stale answer is read later. A worker that ends first, or a bound passed, stops
    them all (SIGTERM, then SIGKILL after a grace) and says why; a SIGINT or SIGTERM meanwhile is a
    plain stop."""

    class Announcing(supervisor):  # type: ignore[misc,valid-type]
        def __init__(
            self, config: Any, sockets: list[socket.socket], *, announce: Callable[[], None], timeout: float
        ) -> None:
            super().__init__(config, sockets)
            self.announce = announce
            self.timeout = timeout
            #: Why the workers could not start, or None.
            self.failed: str | None = None

        def init_processes(self) -> None:
            super().init_processes()
            problem = self._wait_until_serving()
            if problem is None:
                if not self.should_exit.is_set():
                    self.announce()
                return
            self.failed = problem
            print(f"probe-kit: {problem}", file=sys.stderr, flush=True)
            self._stop_all()
            self.should_exit.set()

        def _wait_until_serving(self) -> str | None:
            from multiprocessing.connection import wait

            deadline = time.monotonic() + self.timeout
            waiting = list(self.processes)
            asked: set[int] = set()
            while waiting:
                self.handle_signals()
                if self.should_exit.is_set():
                    return None
                for process in list(waiting):
                    if _serves(process, asked):
                        waiting.remove(process)
                    elif not process.process.is_alive():
                        return (
                            f"worker pid {process.pid} {_ended(process.exitcode)} before it could serve "
                            "(its own message, if any, is above); stopped the other workers: nothing "
                            "is served"
                        )
                left = deadline - time.monotonic()
                if waiting and left <= 0:
                    pids = ", ".join(str(p.pid) for p in waiting)
                    return (
                        f"{len(waiting)} of {len(self.processes)} workers (pid {pids}) did not start "
                        f"serving within {self.timeout:g} s: still loading on a very busy machine, or "
                        f"stuck (more time: {START_TIMEOUT_ENV}=SECONDS); stopped every worker: nothing "
                        "is served"
                    )
                if waiting:
                    handles = [p.parent_conn for p in waiting] + [p.process.sentinel for p in waiting]
                    wait(handles, timeout=min(left, 0.5))  # an answer, an exit, or a look at signals
            return None

        def _stop_all(self) -> None:
            from mcpnb.probekit.http_server import GRACE_S

            for process in self.processes:
                process.terminate()  # only those still running
            for process in self.processes:
                process.process.join(GRACE_S + 5)
                if process.process.is_alive():
                    process.kill()
                    process.process.join()

    return Announcing


def _serves(process: Any, asked: set[int]) -> bool:
    """Whether this uvicorn worker has said its server started; keeps one ping in flight."""
    conn = process.parent_conn
    try:
        if id(process) not in asked:
            conn.send(b"ping")
            asked.add(id(process))
        if not conn.poll(0):
            return False
        asked.discard(id(process))
        return conn.recv() is True
    except (OSError, EOFError):  # it is gone: the caller sees it has ended
        return False


def _ended(exitcode: int | None) -> str:
    """How a process ended, in words."""
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        return f"was killed by {_signal_name(-exitcode)}"
    return f"exited with code {exitcode}"


def replaced_line(old_pid: int | None, exitcode: int | None, new_pid: int | None, lease_s: str) -> str:
    """What probe-kit says when uvicorn replaces a worker that died: which one, how it ended, and
    what becomes of the tasks it ran (their status stays ``working`` until their lease runs out)."""
    return (
        f"[probe-kit] worker pid {old_pid} {_ended(exitcode)}; started pid {new_pid} in its place. "
        "Tasks it was running stay 'working' until their lease runs out "
        f"(--task-lease-s, {lease_s} s), then end as failed; finished tasks keep their results."
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
