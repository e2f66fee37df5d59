"""A process that owns stdio servers forks (a worker, a library that forks and returns): the child
owns none of its parent's servers. Its normal exit must not end them, and a child that outlives
its parent must not keep the reaper's watchdog from ending them when the parent is killed."""

from __future__ import annotations

import signal

from conftest import alive

from faults.conftest import FAULTY
from faults.test_killed_parent import _kill_9, _kill_and_wait, _owner, _read

_FORK_AND_EXIT = """
import os, sys
import mcpnb
pool = mcpnb.default_pool()
pool.connect("deaf", command=sys.executable, args=[{faulty!r}, "stdio", "--marks", {marks!r}],
             health_check_interval=0)
server = pool.call("deaf", "pid").data
pid = os.fork()
if pid == 0:
    sys.exit(0)  # a normal exit: atexit handlers run in the child
os.waitpid(pid, 0)
again = pool.call("deaf", "pid").data
print(server, again, flush=True)
pool.close()
"""

_FORK_THEN_DIE = """
import os, signal, sys, time
import mcpnb
pool = mcpnb.default_pool()
deaf = [{faulty!r}, "stdio", "--ignore-term", "--marks", {marks!r}]
pool.connect("deaf", command=sys.executable, args=deaf, health_check_interval=0)
server = pool.call("deaf", "pid").data
worker = os.fork()
if worker == 0:
    time.sleep(60)  # a worker that outlives its parent
    os._exit(0)
print(server, worker, flush=True)
sys.stdin.readline()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_forked_child_exiting_leaves_the_parents_servers_running(marks):
    with _owner(_FORK_AND_EXIT.format(faulty=FAULTY, marks=str(marks.path)), marks) as owner:
        server, again = _read(owner)
        assert owner.wait(60) == 0
    assert server == again, "the child's exit ended the parent's server (a new one answered)"


def test_a_forked_worker_does_not_keep_a_killed_parents_server_alive(marks):
    with _owner(_FORK_THEN_DIE.format(faulty=FAULTY, marks=str(marks.path)), marks) as owner:
        server, worker = (int(x) for x in _read(owner))
        try:
            _kill_9(owner)
            assert _kill_and_wait([server]) == [], "the server outlived its killed owner"
            assert alive(worker)  # the worker still runs: it was not what kept the server
        finally:
            if alive(worker):
                import os

                os.kill(worker, signal.SIGKILL)
