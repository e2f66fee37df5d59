"""Watched resources across a cut stream and a restarted server: updates keep coming, and a gap
is said.

- 2026-07-28: the ``subscriptions/listen`` stream that carries ``resourceSubscriptions`` is cut by a
  middlebox while it is quiet (``net_proxy.py``'s relay, as in ``test_modern_cuts.py``). It was
  never opened again: updates silently stopped. Now it is, with the list_changed listener's policy
  (``mcpnb.client.listening``); the person is told once, and each watcher is told of its URI once
  per gap, to read it again (nothing replays what the server sent meanwhile).
- Both eras, a stdio server killed and started again: the new session subscribes again (2025-11-25
  ``resources/subscribe``, 2026-07-28 one listen stream) and the server's later updates arrive;
  the watchers are told once to read again, as what they watch may have changed meanwhile.

The server is probe-kit, whose ``probe://status`` changes as tasks start and end.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import _accepts, wait_until

from tests.client.test_modern_cuts import QUIET, relay  # noqa: F401  (relay: a fixture)
from tests.client.test_restart_note_tasks import kill_and_wait
from tests.peers.fastmcp_venv import serving

STATUS = "probe://status"
TASK = {"steps": 1, "delay": 0}
QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}
REOPENED = "broke and was opened again"


@pytest.fixture
def probe_http(tmp_path: Any) -> Iterator[str]:
    """probe-kit over Streamable HTTP on 127.0.0.1: its URL."""
    command = [sys.executable, "-m", "mcpnb.probekit", "--http", "--port", "0", "--root", str(tmp_path)]
    proc, url, port = serving(command, "probe-kit")
    try:
        assert wait_until(lambda: _accepts(port)), "probe-kit never listened"
        yield url
    finally:
        proc.kill()
        proc.wait(10)


def count(pool: Any, name: str, words: str) -> int:
    return sum(words in line for line in pool.logs(name))


def updates(pool: Any, name: str) -> int:
    """Updates the server itself sent (a watcher told after a gap is not one)."""
    return count(pool, name, f"resource updated: {STATUS}")


@pytest.mark.timeout(120)
def test_a_cut_watch_stream_is_opened_again(pool, probe_http, relay, caplog) -> None:  # noqa: F811
    pool.connect("p", url=relay(probe_http), era="modern", config=QUIET)
    heard: list[str] = []
    stop = pool.watch("p", STATUS, heard.append)
    caplog.set_level(logging.WARNING, logger="mcpnb")
    # quiet for longer than the relay allows: cut, and opened again (more than once, by now)
    assert wait_until(lambda: count(pool, "p", REOPENED) >= 2, timeout=30, interval=0.05), pool.logs("p")
    assert heard and set(heard) == {STATUS}  # told once per gap to read it again
    warned = [r.getMessage() for r in caplog.records if REOPENED in r.getMessage()]
    assert len(warned) == 1 and "may have been missed" in warned[0], warned  # the person: once
    # the server's own news reaches the watcher on the stream opened again: right after a new one
    # is acknowledged (the relay cuts it only once it has been quiet for a second)
    for _ in range(3):
        reopened, before = count(pool, "p", REOPENED), updates(pool, "p")
        assert wait_until(lambda: count(pool, "p", REOPENED) > reopened, timeout=30, interval=0.02)  # noqa: B023
        pool.call("p", "slow_task", TASK, task=True).result(timeout=30)
        if wait_until(lambda: updates(pool, "p") > before, timeout=5):  # noqa: B023
            break
    else:
        raise AssertionError(pool.logs("p"))
    stop()
    row = pool.status()["p"]
    assert row.state == "connected" and row.retries == 0, row  # the stream alone, not the session


@pytest.mark.timeout(120)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_restarted_server_is_watched_again(pool, era, tmp_path) -> None:
    args = ["-m", "mcpnb.probekit", "--toolset", "tasks", "--root", str(tmp_path)]
    pool.connect("probe", command=sys.executable, args=args, era=era, **QUICK)
    heard: list[str] = []
    pool.watch("probe", STATUS, heard.append)
    pool.call("probe", "slow_task", TASK, task=True).result(timeout=30)
    assert wait_until(lambda: updates(pool, "probe") >= 1, timeout=10), pool.logs("probe")
    assert wait_until(lambda: STATUS in heard)
    told = len(heard)
    kill_and_wait(pool)
    # told once to read again (the new process starts afresh), whatever the server says next
    assert wait_until(lambda: len(heard) > told, timeout=10), pool.logs("probe")
    assert not any("could not" in line for line in pool.logs("probe")), pool.logs("probe")
    updated = updates(pool, "probe")
    pool.call("probe", "slow_task", TASK, task=True).result(timeout=30)
    assert wait_until(lambda: updates(pool, "probe") > updated, timeout=10), pool.logs("probe")
