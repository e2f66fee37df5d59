"""A process that owns stdio servers forks (a worker, a library that forks and returns): the child
owns none of its parent's servers. Its normal exit must not end them, and a child that outlives
its parent must not keep the reaper's watchdog from ending them when the parent is killed.

A pool made before the fork (a module-level ``Pool()``, gunicorn ``--preload``, celery prefork,
``multiprocessing`` with its Linux default) runs on a thread the child does not have: used there,
it refuses at once and says what to do (it waited forever); the child's ``default_pool()`` and
new pools are its own and work."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

from conftest import DEMO, ROOT, alive

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


_POOL_BEFORE_A_FORK = """
import json, multiprocessing, os, sys
import mcpnb
DEMO = [sys.executable, {demo!r}, "stdio"]
pool = mcpnb.Pool()  # made at import time, as a worker's module does
pool.connect("demo", command=DEMO[0], args=DEMO[1:])
shared = mcpnb.default_pool()

def attempt(what, use):
    try:
        return {{"what": what, "said": use()}}
    except Exception as exc:
        return {{"what": what, "error": type(exc).__name__, "mcpnb": isinstance(exc, mcpnb.McpnbError),
                "message": str(exc)}}

def fresh(p):
    p.connect("demo", command=DEMO[0], args=DEMO[1:])
    said = p.call("demo", "echo", {{"text": "child"}}).text
    p.close()
    return said

def child(queue):
    queue.put([
        attempt("inherited call", lambda: pool.call("demo", "echo", {{"text": "x"}}).text),
        attempt("inherited connect", lambda: pool.connect("again", command=DEMO[0], args=DEMO[1:]).state),
        attempt("inherited default", lambda: shared.call("demo", "echo", {{"text": "x"}}).text),
        attempt("default_pool", lambda: [mcpnb.default_pool() is not shared, fresh(mcpnb.default_pool())]),
        attempt("new Pool", lambda: fresh(mcpnb.Pool())),
    ])

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
worker = ctx.Process(target=child, args=(queue,))
worker.start()
worker.join(90)
hung = worker.is_alive()
if hung:
    worker.kill()
said = None if hung else queue.get(timeout=10)
print(json.dumps({{"parent": os.getpid(), "hung": hung, "child": said,
                  "parent still": pool.call("demo", "echo", {{"text": "parent"}}).text}}), flush=True)
pool.close()
"""


def _run_forking(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=240, cwd=str(ROOT)
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_pool_made_before_a_fork_refuses_at_once_in_the_child_and_new_ones_work():
    """A pool made before the fork waited forever in the child (its runtime's thread is not
    there, yet it was not closed); ``default_pool()`` gave the child that same pool."""
    said = _run_forking(_POOL_BEFORE_A_FORK.format(demo=DEMO))
    assert not said["hung"], "the child hung on the pool it inherited"
    inherited_call, inherited_connect, inherited_default, default, new = said["child"]
    for refused in (inherited_call, inherited_connect, inherited_default):
        assert refused["error"] == "ForkedPoolError" and refused["mcpnb"], refused
        assert f"this pool was made in process {said['parent']} before a fork" in refused["message"]
        assert "make a new Pool in this process" in refused["message"]
    assert default == {"what": "default_pool", "said": [True, "child"]}
    assert new == {"what": "new Pool", "said": "child"}
    assert said["parent still"] == "parent"  # the parent's pool and server were left alone
