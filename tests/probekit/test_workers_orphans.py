"""``python -m mcpnb.probekit --http --workers 2`` killed outright (SIGKILL: the kernel's process
group killed, the OOM killer, a teacher's ``kill -9``) runs no cleanup of its own. Its uvicorn
workers went on running, reparented, each holding the listening socket: the port stayed taken and
the next probe-kit on it failed to start. Now each worker dies with its supervisor
(``PR_SET_PDEATHSIG``, Linux). Real processes on 127.0.0.1 with a SQLite store; only the supervisor
gets the SIGKILL, never its group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from pathlib import Path

import pytest
from conftest import live_processes

from tests.probekit.test_workers import Worker, _workers_of, until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")


def _port_free(port: int) -> bool:
    """Whether a listener can bind ``port`` again (``SO_REUSEADDR``, as probe-kit binds: the
    connections the readiness check left in TIME_WAIT do not count, a live listener does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen(1)
        except OSError:
            return False
    return True


def test_workers_die_with_a_supervisor_killed_outright(tmp_path: Path) -> None:
    parent = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log", "--workers", "2")
    workers: list[int] = []
    try:
        workers = until(lambda: _workers_of(parent.proc.pid, 2), "two workers", ticks=300, every=0.1)
        assert not _port_free(parent.port)  # served: the check below can tell a held port

        os.kill(parent.proc.pid, signal.SIGKILL)  # the supervisor alone: no signal reaches a worker
        parent.proc.wait(timeout=30)

        def gone() -> bool:
            alive = live_processes()  # zombies excluded: reparented workers are reaped by init
            return not any(pid in alive for pid in workers)

        until(gone, f"workers {workers} end with their supervisor", ticks=600, every=0.1)
        assert until(lambda: _port_free(parent.port), "the port is free again", ticks=300, every=0.1)
    finally:
        for pid in workers:  # the old code's orphans, by pid: they left the supervisor's tree
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        parent.kill()  # the rest of its process group (multiprocessing's resource tracker)


def test_a_worker_whose_supervisor_is_already_gone_ends_at_once(tmp_path: Path) -> None:
    """The race ``PR_SET_PDEATHSIG`` leaves open: a supervisor that died before its worker asked
    sends nothing, so the worker looks at its parent after asking. Here the "supervisor" named is
    not this process's parent, as for a worker already reparented."""
    import subprocess

    code = (
        "from mcpnb.probekit.workers import die_with_supervisor\ndie_with_supervisor(1)\nprint('still here')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGTERM, done
    assert "still here" not in done.stdout
