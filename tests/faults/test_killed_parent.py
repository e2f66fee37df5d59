"""A process that owns stdio servers is killed outright (SIGKILL: the OOM killer, ``kill -9``): it
runs no cleanup, yet a server that ignores stdin EOF and SIGTERM does not outlive it, because the
reaper's watchdog (``mcpnb/client/reaper.py``) ends what was still running. And while no server
runs, there is no watchdog either."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from conftest import DEMO, ROOT, alive, children, wait_until
from jupyter_client.manager import start_new_kernel

from faults.conftest import FAULTY, QUICK, no_process_left
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


def _kill_and_wait(pids: list[int]) -> list[int]:
    wait_until(lambda: not any(alive(p) for p in pids), timeout=15)
    return [p for p in pids if alive(p)]


def test_a_python_killed_with_sigkill_leaves_no_server(marks):
    code = _OWNER.format(faulty=FAULTY, marks=str(marks.path))
    with subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(ROOT)
    ) as owner:
        try:
            server = int(owner.stdout.readline())  # type: ignore[union-attr]
            watchdogs = children(owner.pid) - {server}  # the reaper's, in a session of its own
            assert alive(server) and len(watchdogs) == 1
            owner.stdin.write("\n")  # type: ignore[union-attr]
            owner.stdin.flush()  # type: ignore[union-attr]
            assert owner.wait(30) == -signal.SIGKILL
            assert _kill_and_wait([server]) == [], "the server outlived its killed owner"
            assert _kill_and_wait(list(watchdogs)) == [], "the watchdog stayed after its work was done"
        finally:
            for pid in marks.pids():
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            if owner.poll() is None:
                owner.kill()


def test_a_kernel_killed_with_sigkill_leaves_no_server(marks):
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
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


def test_the_watchdog_lives_only_while_servers_run(pool, marks):
    from mcpnb.client import reaper

    before = children()
    pool.connect("one", **marks.stdio(), **QUICK)
    pool.connect("two", command=sys.executable, args=[DEMO, "stdio"], **QUICK)
    watchdog = reaper.watchdog_pid()
    assert watchdog is not None and watchdog in children() - before
    pool.disconnect("one")
    assert reaper.watchdog_pid() == watchdog  # "two" still runs: the same watchdog keeps watching
    pool.close()
    assert reaper.watchdog_pid() is None
    no_process_left(marks)  # the watchdog too: it left when the last server ended


def test_a_killed_watchdog_is_replaced_and_the_servers_stay(pool, marks):
    """Someone kills the watchdog: the next server start brings a new one that lists every server,
    and the servers already running are not touched in the swap."""
    from mcpnb.client import reaper

    pool.connect("one", **marks.stdio(), **QUICK)
    first = reaper.watchdog_pid()
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert wait_until(lambda: not alive(first))
    pool.connect("two", **marks.stdio(), **QUICK)
    second = reaper.watchdog_pid()
    assert second not in (None, first) and alive(second)
    assert pool.call("one", "echo", {"text": "still here"}).data == "still here"
    pool.close()
    no_process_left(marks)
