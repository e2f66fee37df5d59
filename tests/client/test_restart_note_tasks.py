"""The restart note reaches the first result after an automatic restart, a task's too.

When a stdio server's process dies and mcpnb starts it again, the first result says the server was
restarted and remembers nothing of the old process (``Connection.restart_note``). Only plain calls
said it: a tool run as a task (``pool.call(..., task=True)``) landed without it, and the next plain
call then said "restarted before this call", long after. Now whichever result lands first says it,
once.

The server is probe-kit over stdio (its ``slow_task`` runs as a task in both eras), killed with
SIGKILL mid-session, as a crash would.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import pytest
from conftest import wait_until

from mcpnb.client import stdio

RESTARTED = "the server was restarted before this call"
QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}
TASK = {"steps": 1, "delay": 0}


def probe_kit(pool: Any, era: str, root: str) -> None:
    args = ["-m", "mcpnb.probekit", "--toolset", "tasks", "--root", root]
    pool.connect("probe", command=sys.executable, args=args, era=era, **QUICK)


def kill_and_wait(pool: Any) -> None:
    """SIGKILL the server's process; wait until the automatic reconnect has a new one connected."""
    before = pool.status()["probe"].retries
    (pid,) = [pid for pid, name in stdio.live_children().items() if name == "probe"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(
        lambda: pool.status()["probe"].state == "connected" and pool.status()["probe"].retries > before,
        timeout=30,
    ), pool.status()["probe"].last_error


def said(result: Any) -> list[str]:
    return [w for w in result.warnings if RESTARTED in w]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_task_result_after_a_restart_says_it_and_the_next_call_does_not(pool, era, tmp_path):
    probe_kit(pool, era, str(tmp_path))
    assert not said(pool.call("probe", "slow_task", TASK, task=True).result(timeout=30))
    kill_and_wait(pool)
    first = pool.call("probe", "slow_task", TASK, task=True).result(timeout=30)
    assert not first.is_error and len(said(first)) == 1, first.warnings
    assert first.warnings[0] == said(first)[0]  # first, as a plain call has it
    later = pool.call("probe", "slow_task", TASK)  # a plain call: it is not "before this call"
    assert not said(later), later.warnings
    assert not said(pool.start_task("probe", "slow_task", TASK).result(timeout=30))


@pytest.mark.timeout(90)
def test_a_plain_result_that_lands_first_says_it_and_the_task_does_not(pool, tmp_path):
    """The note goes with the first result to land, not with the first request sent."""
    probe_kit(pool, "legacy", str(tmp_path))
    kill_and_wait(pool)
    # a task long enough that the plain call lands first even on a loaded machine (its result is
    # built when it ends, by itself: a short one could land first)
    handle = pool.start_task("probe", "slow_task", {"steps": 10, "delay": 0.5})
    plain = pool.call("probe", "slow_task", TASK)
    assert len(said(plain)) == 1, plain.warnings
    assert not said(handle.result(timeout=30))
