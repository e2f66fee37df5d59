"""A worker killed under ``--workers N`` is replaced by uvicorn at once, and probe-kit now says so
on stderr: a classroom sweep saw nothing in the log while a student's task stayed "working" for
the lease (10 s) before it failed. Real processes: ``python -m mcpnb.probekit --http --workers 2``
on 127.0.0.1 with a SQLite store; one worker gets SIGKILL."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from tests.probekit.test_workers import LEASE_S, Worker, _workers_of, until


def test_a_killed_worker_is_replaced_and_the_log_says_so(tmp_path: Path) -> None:
    log = tmp_path / "log"
    parent = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, log, "--workers", "2")
    try:
        first = until(lambda: _workers_of(parent.proc.pid, 2), "two workers", ticks=200, every=0.1)
        victim = first[0]
        os.kill(victim, signal.SIGKILL)

        def replaced() -> Any:
            now = _workers_of(parent.proc.pid, 2)
            said = [line for line in log.read_text().splitlines() if f"worker pid {victim} " in line]
            return (now, said) if now and victim not in now and said else None

        now, said = until(replaced, "the worker is replaced and the log says so", ticks=300, every=0.1)
        (newcomer,) = set(now) - set(first)
        assert said == [
            f"[probe-kit] worker pid {victim} was killed by SIGKILL; started pid {newcomer} in its place. "
            f"Tasks it was running stay 'working' until their lease runs out (--task-lease-s, {LEASE_S} s), "
            "then end as failed; finished tasks keep their results."
        ]
    finally:
        parent.stop()


def test_the_line_says_how_the_worker_ended() -> None:
    from mcpnb.probekit.workers import replaced_line

    assert "exited with code 3;" in replaced_line(10, 3, 11, "10")
    assert "stopped answering;" in replaced_line(10, None, 11, "10")  # hung: uvicorn killed it
    assert "killed by SIGTERM;" in replaced_line(10, -15, 11, "10")
