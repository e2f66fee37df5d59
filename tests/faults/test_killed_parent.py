"""A process that owns stdio servers is killed outright (SIGKILL: the OOM killer, ``kill -9``): it
runs no cleanup, yet a server that ignores stdin EOF and SIGTERM does not outlive it, because the
reaper's watchdog (``mcpnb/client/reaper.py``) ends what was still running. And while no server
runs, there is no watchdog either."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from conftest import DEMO, ROOT, alive, children, started_kernel, wait_until

from faults.conftest import FAULTY
from faults.test_kernel_shutdown import _run

_OWNER = """
import os, signal, sys
import mcpnb
pool = mcpnb.default_pool()
deaf = [{faulty!r}, "stdio", "--ignore-term", "--marks", {marks!r}]
pool.connect("deaf", command=sys.executable, args=deaf, health_check_interval=0)
print(pool.call("deaf", "pid").data, flush=True)
sys.stdin.readline()  # the test has read the pids
os.kill(os.getpid(), signal.SIGKILL)
"""


@contextlib.contextmanager
def _owner(code: str, marks: Any = None) -> Iterator[subprocess.Popen[str]]:
    """A fresh interpreter running ``code`` (no other test's servers in it); afterwards, whatever
    it left behind is killed, so a failing test leaves nothing running."""
    with subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(ROOT)
    ) as owner:
        try:
            yield owner
        finally:
            for pid in marks.pids() if marks is not None else ():
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            if owner.poll() is None:
                owner.kill()


def _read(owner: subprocess.Popen[str]) -> list[str]:
    return owner.stdout.readline().split()  # type: ignore[union-attr]


def _kill_9(owner: subprocess.Popen[str]) -> None:
    """Let the script go on to SIGKILL itself, and see it die that way."""
    owner.stdin.write("\n")  # type: ignore[union-attr]
    owner.stdin.flush()  # type: ignore[union-attr]
    assert owner.wait(30) == -signal.SIGKILL


def _kill_and_wait(pids: list[int]) -> list[int]:
    wait_until(lambda: not any(alive(p) for p in pids), timeout=15)
    return [p for p in pids if alive(p)]


def test_a_python_killed_with_sigkill_leaves_no_server(marks):
    with _owner(_OWNER.format(faulty=FAULTY, marks=str(marks.path)), marks) as owner:
        (server,) = (int(x) for x in _read(owner))
        watchdogs = children(owner.pid) - {server}  # the reaper's, in a session of its own
        assert alive(server) and len(watchdogs) == 1
        _kill_9(owner)
        assert _kill_and_wait([server]) == [], "the server outlived its killed owner"
        assert _kill_and_wait(list(watchdogs)) == [], "the watchdog stayed after its work was done"


def test_a_kernel_killed_with_sigkill_leaves_no_server(marks):
    km, kc = started_kernel()
    try:
        out = _run(
            kc,
            "import os, sys, mcpnb\n"
            "pool = mcpnb.default_pool()\n"
            f"pool.connect('deaf', command=sys.executable, args=[{FAULTY!r}, 'stdio', '--ignore-term', "
            f"'--marks', {str(marks.path)!r}], health_check_interval=0)\n"
            "print(os.getpid(), pool.call('deaf', 'pid').data)\n",
        )
        kernel, server = (int(x) for x in out.split())
        os.kill(kernel, signal.SIGKILL)  # no shutdown request, no hook: the kernel is just gone
        assert _kill_and_wait([server]) == [], "the server outlived its killed kernel"
    finally:
        kc.stop_channels()
        for pid in marks.pids():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        km.shutdown_kernel(now=True)


_LIFETIME = """
import sys
import mcpnb
from mcpnb.client import reaper
pool = mcpnb.Pool()
server = [{demo!r}, "stdio"]
print(reaper.watchdog_pid())
pool.connect("one", command=sys.executable, args=server)
first = reaper.watchdog_pid()
pool.connect("two", command=sys.executable, args=server)
print(first, reaper.watchdog_pid())
pool.disconnect("one")
print(reaper.watchdog_pid())
pool.close()
print(reaper.watchdog_pid(), flush=True)
sys.stdin.readline()
"""


def test_the_watchdog_lives_only_while_servers_run():
    """In a fresh interpreter (here other tests' servers may run): none before the first server,
    one for all of them, still there while one runs, gone with the last."""
    with _owner(_LIFETIME.format(demo=DEMO)) as owner:
        lines = [_read(owner) for _ in range(4)]
        assert lines[0] == ["None"]
        first, same = lines[1]
        assert first == same and first != "None"
        assert lines[2] == [first]  # "two" still runs
        assert lines[3] == ["None"]
        assert not alive(int(first))  # reaped as the last server ended, before close() returned
        assert children(owner.pid) == set()
        owner.stdin.close()  # type: ignore[union-attr]
        assert owner.wait(30) == 0


_REPLACED = """
import os, signal, sys, time
import mcpnb
from mcpnb.client import reaper
pool = mcpnb.Pool()
deaf = [{faulty!r}, "stdio", "--ignore-term", "--marks", {marks!r}]
pool.connect("one", command=sys.executable, args=deaf, health_check_interval=0)
first = reaper.watchdog_pid()
os.kill(first, signal.SIGKILL)
os.waitpid(first, 0)
pool.connect("two", command=sys.executable, args=deaf, health_check_interval=0)
print(first, reaper.watchdog_pid(), pool.call("one", "pid").data, pool.call("two", "pid").data, flush=True)
sys.stdin.readline()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_watchdog_is_replaced_by_one_that_watches_every_server(marks):
    """Someone kills the watchdog: the next server start brings a new one, which lists the server
    that was already running too (the swap touches no server): a SIGKILL then ends both."""
    with _owner(_REPLACED.format(faulty=FAULTY, marks=str(marks.path)), marks) as owner:
        first, second, one, two = (int(x) for x in _read(owner))
        assert second != first and alive(second) and alive(one) and alive(two)
        _kill_9(owner)
        assert _kill_and_wait([one, two]) == [], "a server outlived its killed owner"
