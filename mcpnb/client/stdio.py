"""stdio servers: the child process, its pipes, and how it ends, on a clock a kernel shutdown allows.

The SDK's ``stdio_client`` speaks the same newline-delimited JSON-RPC; mcpnb owns the process because:

- **Kernel shutdown.** jupyter_client asks a kernel to shut down, sends SIGTERM 2.5 s later and
  SIGKILL at 5 s. A server in its own session (so Ctrl-C in the kernel does not kill it) survives
  its kernel unless it is ended inside that window. The SDK's clock (2 s for stdin EOF, 2 s after
  SIGTERM, per server) does not fit; ours is :data:`EOF_GRACE` + :data:`TERM_GRACE`, shortened by
  :func:`hurry`, and every live child is listed so :func:`end_all_now` can end them from any thread.
  A kernel killed outright (SIGKILL) ends nothing itself: :mod:`mcpnb.client.reaper` does.
- **Garbage on stdout** (a ``print`` in a server) is the server's bug: the line goes to the
  server's own log, not as an SDK traceback into whichever cell is running.
- **A missing cwd** is reported by the OS as the *command* not being found; we say what is missing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from mcpnb.client import reaper
from mcpnb.client.errors import ConfigError, MessageTooLargeError, ServerExitedError
from mcpnb.client.pipes import MessageReader, MessageWriter

#: The terminal width a child is told (``COLUMNS``) unless its ``env`` says otherwise: its stderr is
#: no terminal, so rich (the SDK's and FastMCP's log handler) lays it out at 80 columns, and with
#: time, level and place beside it a traceback came to the log in ~35-character boxes.
CHILD_COLUMNS = "120"
#: After stdin is closed, how long a server may take to exit on its own.
EOF_GRACE = 1.0
#: After SIGTERM to its process group, how long before SIGKILL.
TERM_GRACE = 1.0
#: The clock once the process is on its way out (kernel shutdown, interpreter exit).
HURRIED = (0.25, 0.25)
#: How long the writer may flush messages already accepted before stdin closes.
_FLUSH = 0.5
_POLL = 0.01
#: How long a server that closed its stdout gets to exit, so the notice can give its exit code.
_EXIT_WAIT = 0.5

_clock = [EOF_GRACE, TERM_GRACE]
_live: dict[int, str] = {}  # pid (= process group id) -> server name, for every child still running
_live_lock = threading.Lock()


def _forget_in_child() -> None:
    """A forked child does not own its parent's servers: its exit must not end them."""
    global _live_lock
    _live_lock = threading.Lock()  # another thread may have held it at the fork
    _live.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def hurry() -> None:
    """From now on, end children on the short clock (the kernel or the interpreter is going away)."""
    _clock[:] = HURRIED


def live_children() -> dict[int, str]:
    """``{pid: server name}`` of the stdio servers this process started and has not ended yet."""
    with _live_lock:
        return dict(_live)


def end_all_now(grace: float = HURRIED[1]) -> list[int]:
    """SIGTERM every live child's process group, SIGKILL what is left after ``grace`` seconds.

    Synchronous and loop-free, so it works when the runtime loop is stuck or already gone; returns
    the pids it had to signal.
    """
    groups = list(live_children())
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_group_alive(g) for g in groups):
        time.sleep(_POLL)
    for pgid in groups:
        _signal_group(pgid, signal.SIGKILL)
    with _live_lock:
        for pgid in groups:
            _live.pop(pgid, None)
    for pgid in groups:
        reaper.unwatch(pgid)
    return groups


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_folder(path: str, server: str, key: str, what: str) -> None:
    """A clear error for a folder a setting names that is not there (the OS would blame the command,
    a server the client)."""
    if not os.path.isdir(path):
        why = "is not a folder" if os.path.exists(path) else "does not exist"
        raise ConfigError(f"{what} {path!r} {why}", server=server, key=key)


def check_cwd(cwd: str | None, server: str) -> None:
    if cwd is not None:
        check_folder(cwd, server, "cwd", "the working directory")


#: The kernel's network settings a server that fetches needs on a corporate machine, passed on as
#: they are: its proxies and the certificate authorities it trusts (a private CA). Without them
#: such a server failed where the kernel itself got through; they say where, not who.
NETWORK_SETTINGS = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
)


def network_secrets(kernel: Mapping[str, str] | None = None) -> set[str]:
    """The passwords in the kernel's proxy settings (``http://user:pass@proxy:3128``), which a
    stdio server gets with them (:data:`NETWORK_SETTINGS`): scrubbed from what it logs."""
    from mcpnb.client.redact import url_secrets

    kernel = os.environ if kernel is None else kernel
    return {s for name in NETWORK_SETTINGS if kernel.get(name) for s in url_secrets(kernel[name]) if s}


def child_environment(
    defaults: Mapping[str, str], env: Mapping[str, str] | None, kernel: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A stdio server's environment: the SDK's minimal one (``PATH``, ``HOME`` and the like: the
    kernel's secrets do not travel to every server), the kernel's :data:`NETWORK_SETTINGS` where
    set, a width for its logs, Python's output unbuffered (a server author's ``print()`` reaches the
    log as it happens, not when the process ends; the SDK flushes its own messages anyway, so this
    costs nothing measurable), then the config's ``env``, which wins."""
    kernel = os.environ if kernel is None else kernel
    network = {name: kernel[name] for name in NETWORK_SETTINGS if kernel.get(name)}
    return {**defaults, **network, "COLUMNS": CHILD_COLUMNS, "PYTHONUNBUFFERED": "1", **(env or {})}


@contextlib.asynccontextmanager
async def stdio_transport(
    server: str,
    command: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: str | None,
    errlog: Any,
    on_bad_line: Callable[[str], None],
    on_exit: Callable[[BaseException], None] | None = None,
    max_message: int | None = None,
) -> AsyncIterator[Any]:
    """Start ``command`` in its own process group; yield the (read, write) streams ``mcp.Client`` takes.

    On exit (normal, error or cancellation) the server is ended: stdin closed, then SIGTERM to its
    group, then SIGKILL, within the current clock; nothing of it outlives this block.
    ``on_exit(error)``: the server closed its stdout (it exited, or was killed) while this block was
    live; without it an idle session would look connected until its next request.
    ``max_message``: the longest line (in characters) taken from the server; a longer one ends
    the session with :class:`MessageTooLargeError` instead of growing until the kernel dies.
    """
    import anyio
    from mcp.client.stdio import get_default_environment

    check_cwd(cwd, server)
    try:
        process = await anyio.open_process(
            [command, *args],
            env=child_environment(get_default_environment(), env),
            stderr=errlog,
            cwd=cwd,
            start_new_session=True,  # its own group: the kernel's Ctrl-C does not reach it; killpg does
        )
    except FileNotFoundError as exc:
        check_cwd(cwd, server)  # removed since the check above: still say so
        raise exc
    with _live_lock:
        _live[process.pid] = server
    reaper.watch(process.pid)  # if this process is killed outright, the server still ends

    ending = anyio.Event()  # we are ending the server: its end of output is no news
    drain = anyio.Event()  # the session stopped reading but the server may still write

    def report(error: BaseException) -> None:
        if on_exit is not None and not ending.is_set():  # an end we did not ask for
            ending.set()  # said once, whichever of the two noticed first
            on_exit(error)

    async def output_ended(too_large: MessageTooLargeError | None) -> None:
        if too_large is not None:
            drain.set()
        elif on_exit is not None and not ending.is_set():
            with anyio.move_on_after(_EXIT_WAIT):
                await process.wait()
        report(too_large or ServerExitedError(_exit_text(process.returncode, reader.heard)))

    async def keep_draining() -> None:
        """Keep a server that still writes after a too-long line from blocking on a full pipe."""
        await drain.wait()
        with contextlib.suppress(Exception), anyio.CancelScope(shield=True):
            while True:
                await process.stdout.receive()

    stopped_reading = anyio.Event()  # a write found its stdin closed: it exited, or is exiting

    def on_broken() -> None:
        stopped_reading.set()
        reader.close()

    async def exit_behind_broken_pipe() -> None:
        """The server stopped reading before its end was said: a handshake written after a server
        that fails at start (a syntax error) had already exited. The write fails the session at
        once with the SDK's bare "Connection closed", and the block ends before the end of its
        output or its exit is noticed; the exit code, waited for here, is what to tell."""
        if on_exit is None or ending.is_set() or not stopped_reading.is_set():
            return
        with anyio.move_on_after(_clock[0]):  # its stdin is closed: as long as a server gets after EOF
            await process.wait()
        if process.returncode is not None:  # still running with its stdin closed: no exit to tell
            report(ServerExitedError(_exit_text(process.returncode, reader.heard)))

    async def watch_exit() -> None:
        """The process ended but its output did not: something it started holds stdout open (a
        ``sh -c`` wrapper's child). The session is over all the same."""
        await process.wait()
        with anyio.move_on_after(_EXIT_WAIT):  # the usual case: end of output follows at once
            await anyio.sleep_forever()
        report(ServerExitedError(_exit_text(process.returncode, reader.heard)))

    # anyio's Process keeps asyncio's, whose pipes the streams use without anyio's extra checkpoint
    pipes = process._process  # type: ignore[attr-defined]
    reader = _Reader(
        pipes.stdout, server=server, on_bad_line=on_bad_line, on_end=output_ended, max_message=max_message
    )
    writer = MessageWriter(pipes.stdin, on_broken=on_broken)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(keep_draining)
            if on_exit is not None:
                tg.start_soon(watch_exit)
            try:
                yield reader, writer
            finally:
                with anyio.CancelScope(shield=True):  # must finish under cancellation, bounded throughout
                    await exit_behind_broken_pipe()
                    ending.set()
                    writer.close()
                    with anyio.move_on_after(_FLUSH):
                        await writer.flush()
                    await _end(process)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _end(process)


async def _end(process: Any) -> None:
    """stdin EOF, then SIGTERM to the group, then SIGKILL; the group is gone (or abandoned) after."""
    import anyio

    pgid = process.pid
    with _live_lock:
        if pgid not in _live:
            return
    eof_grace, term_grace = _clock
    with contextlib.suppress(Exception):
        await process.stdin.aclose()
    await _wait(lambda: process.returncode is not None, eof_grace)
    _signal_group(pgid, signal.SIGTERM)  # also reaches what the server started, if it exited already
    if not await _wait(lambda: not _group_alive(pgid), term_grace):
        _signal_group(pgid, signal.SIGKILL)
        await _wait(lambda: process.returncode is not None, 2.0)
    with contextlib.suppress(Exception):
        await process.stdout.aclose()
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    with contextlib.suppress(Exception):
        transport.close()  # type: ignore[union-attr]
    with _live_lock:
        _live.pop(pgid, None)
    reaper.unwatch(pgid)
    await anyio.lowlevel.checkpoint()


class _Reader(MessageReader):
    """The server's output, noting whether it ever sent a message: one that exits first never
    reached the handshake."""

    heard = False

    async def receive(self) -> Any:
        message = await super().receive()
        self.heard = True
        return message


#: A server that ended well before saying anything: a file that builds a server and never runs it.
NEVER_SERVED = (
    " before it answered: does the file start serving? A server file ends at once unless it runs "
    'the server, as srv.run() under if __name__ == "__main__": does'
)


def _exit_text(code: int | None, heard: bool = True) -> str:
    """Why the session ended, in the process's words; exit code 0 before any message (``heard``
    False) is a file that never starts serving, so it says what such a file lacks."""
    if code is None:
        return "the server closed its output (its process still runs)"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the server process was killed ({name})"
    said = f"the server process exited (exit code {code})"
    return said + NEVER_SERVED if code == 0 and not heard else said


async def _wait(done: Callable[[], bool], timeout: float) -> bool:
    import anyio

    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() >= deadline:
            return False
        await anyio.sleep(_POLL)
    return True
