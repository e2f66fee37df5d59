"""The reaper: ends this process's stdio servers when this process dies without ending them itself.

A kernel killed with SIGKILL (the OOM killer, ``kill -9``, a frontend's hard kill) runs no cleanup,
and each stdio server lives in a process group of its own (so that the kernel's Ctrl-C does not
reach it): a server that ignores stdin EOF would outlive its kernel. So while any server runs, a
tiny watchdog process holds the read end of a pipe from us, in a session of its own (a signal to
the kernel's group does not reach it). When the pipe closes with groups still listed, we are gone:
it sends them SIGTERM, then SIGKILL. When our last server ends, we close the pipe with nothing
listed and the watchdog exits; the next server starts a new one.

Linux's ``PR_SET_PDEATHSIG`` would need code between fork and exec, which ``anyio.open_process``
does not offer, and it would reach the server's own process only, not what it started.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

#: Seconds the watchdog waits after SIGTERM before SIGKILL.
GRACE = 1.0
#: How long ending the last server waits for the watchdog to exit (it takes milliseconds).
_RETIRE_WAIT = 0.5

#: The watchdog: reads ``+pgid`` / ``-pgid`` lines; at the end of its input, ends the groups still
#: listed. Plain ``python -I -S``: no site, no mcpnb, a few milliseconds to start.
_WATCHDOG = f"""
import os, signal, sys, time
groups = set()
for line in sys.stdin.buffer:
    try:
        (groups.add if line[:1] == b"+" else groups.discard)(int(line[1:]))
    except ValueError:
        pass
def signal_all(groups, sig):
    alive = set()
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
            alive.add(pgid)
        except ProcessLookupError:
            pass
        except PermissionError:
            alive.add(pgid)
    return alive
groups = signal_all(groups, signal.SIGTERM)
deadline = time.monotonic() + {GRACE!r}
while groups and time.monotonic() < deadline:
    time.sleep(0.02)
    groups = signal_all(groups, 0)
signal_all(groups, signal.SIGKILL)
"""

_lock = threading.Lock()
_watchdog: subprocess.Popen[bytes] | None = None
_listed: set[int] = set()


def _forget_in_child() -> None:
    """A forked child drops its copy of the watchdog's pipe: held open by a worker that outlives
    us, it would keep the watchdog from seeing our death. The parent's servers are not ours."""
    global _lock, _watchdog
    _lock = threading.Lock()
    if _watchdog is not None and _watchdog.stdin is not None:
        with contextlib.suppress(OSError):
            _watchdog.stdin.close()
    _watchdog = None
    _listed.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def watch(pgid: int) -> None:
    """A stdio server started in process group ``pgid``: end it if this process dies first."""
    with _lock:
        _listed.add(pgid)
        if not _send(_watchdog, f"+{pgid}"):
            _start()


def unwatch(pgid: int) -> None:
    """The server of ``pgid`` has ended (or is being ended by us): forget it; no servers, no watchdog."""
    global _watchdog
    with _lock:
        if pgid not in _listed:
            return
        _listed.discard(pgid)
        if _watchdog is None:
            return
        _send(_watchdog, f"-{pgid}")
        if not _listed:  # end of input with nothing listed: it exits
            _retire()


def watchdog_pid() -> int | None:
    """The running watchdog's pid (None while no server runs)."""
    with _lock:
        return _watchdog.pid if _watchdog is not None else None


def _start() -> None:
    """A new watchdog that lists every server running now (one that died is replaced this way)."""
    global _watchdog
    if _watchdog is not None:  # it took no line: dead, or past helping; never let it end our servers
        with contextlib.suppress(OSError):
            _watchdog.kill()
        _watchdog.wait()
        _watchdog = None
    try:
        _watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a signal to the kernel's process group does not reach it
        )
    except OSError:  # no watchdog: the servers still end on every orderly exit
        return
    for pgid in _listed:
        if not _send(_watchdog, f"+{pgid}"):
            return


def _retire() -> None:
    """Close the watchdog's input (it ends what is still listed, then exits) and reap it."""
    global _watchdog
    if _watchdog is None:
        return
    watchdog, _watchdog = _watchdog, None
    if watchdog.stdin is not None:
        with contextlib.suppress(OSError):
            watchdog.stdin.close()
    try:  # with nothing listed it exits at once: gone when the last server is, no process left over
        watchdog.wait(_RETIRE_WAIT)
    except subprocess.TimeoutExpired:  # still ending what was listed: reaped in the background
        threading.Thread(target=watchdog.wait, name="mcpnb-reaper-wait", daemon=True).start()


def _send(proc: subprocess.Popen[bytes] | None, line: str) -> bool:
    """Tell the watchdog a line; False when there is none, or it died (then a new one is started)."""
    if proc is None or proc.stdin is None:
        return False
    try:
        proc.stdin.write(f"{line}\n".encode())
        proc.stdin.flush()
    except (OSError, ValueError):
        return False
    return True
