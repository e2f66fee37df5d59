"""``python -m mcpnb.probekit --http --workers 2`` prints its URL only once every worker serves.

It printed the URL before any worker had started: connections made at once queued in the listen
backlog while the workers still imported, and on a busy machine a first ``server/discover`` waited
past the SDK's 10 s, so a client in ``mode="auto"`` fell back to a 2025-11-25 session that several
workers cannot keep ("Session not found" on the next request).

The workers are real, held at a gate of the test's making: a ``sitecustomize`` on ``PYTHONPATH``
that, in multiprocessing's spawned children only (the workers), writes ``waiting.PID`` and waits
for ``open.PID`` (or ``open.all``). So "not announced yet" is seen while a worker provably cannot
serve, with no clock: stdout is empty while worker B is held, even after worker A has answered a
real request on the port. A worker that fails to start, or workers that never serve within the
bound, stop everything: exit 2, no URL, the reason on stderr, no process of its group left.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import live_processes

from tests.probekit.stores import die_with_parent, free_port
from tests.probekit.test_workers import _workers_of, until

GATE_ENV = "PROBEKIT_TEST_GATES"
BREAK_ENV = "PROBEKIT_TEST_BREAK_ONE"

#: Runs at the start of every Python process on PYTHONPATH; acts only in spawned workers.
SITECUSTOMIZE = f"""
import os, sys, time
from pathlib import Path

_gates = os.environ.get({GATE_ENV!r})
if _gates and "--multiprocessing-fork" in sys.argv:
    _dir, _me = Path(_gates), os.getpid()
    if os.environ.get({BREAK_ENV!r}):
        try:
            os.close(os.open(_dir / "broken", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:  # the first worker: its app cannot be built (create_app refuses the number)
            os.environ["MCP_PROBEKIT_TASK_TTL_MS"] = "soon"
            (_dir / ("broken.%d" % _me)).touch()
            (_dir / ("open.%d" % _me)).touch()
    (_dir / ("waiting.%d" % _me)).touch()
    while not (_dir / ("open.%d" % _me)).exists() and not (_dir / "open.all").exists():
        time.sleep(0.02)
"""


class Gated:
    """``probe-kit --http --workers 2`` (SQLite store) whose workers wait at the test's gates."""

    def __init__(self, tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.gates = tmp_path / "gates"
        self.gates.mkdir()
        site = tmp_path / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        self.port = free_port()
        self.log = tmp_path / "stderr.log"
        store = f"sqlite://{tmp_path / 'tasks.db'}"
        run = [sys.executable, "-m", "mcpnb.probekit", "--http", "--workers", "2", "--port", str(self.port),
               "--task-store", store, "--root", str(tmp_path), *extra]  # fmt: skip
        self.proc = subprocess.Popen(
            run,
            stdout=subprocess.PIPE,
            stderr=self.log.open("wb"),
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": path, GATE_ENV: str(self.gates), **(env or {})},
            preexec_fn=die_with_parent,
        )

    def held(self) -> list[int]:
        """The worker pids waiting at their gates, once both are."""

        def waiting() -> list[int] | None:
            pids = sorted(int(p.name.split(".")[1]) for p in self.gates.glob("waiting.*"))
            return pids if len(pids) == 2 else None

        return until(waiting, "both workers at their gates", ticks=1200, every=0.1)

    def open(self, pid: int | str) -> None:
        (self.gates / f"open.{pid}").touch()

    def announced(self) -> bool:
        """Whether probe-kit has written anything on stdout (read nothing)."""
        readable, _, _ = select.select([self.proc.stdout], [], [], 0)
        return bool(readable)

    def first_line(self) -> str:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(self.proc.stdout.readline).result(timeout=120)  # type: ignore[union-attr]

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def group(self) -> list[int]:
        return [pid for pid, (_parent, group) in live_processes().items() if group == self.proc.pid]

    def end(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything of its group still there


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[list[Gated]]:
    made: list[Gated] = []
    yield made
    for one in made:
        one.end()


def _answering_worker(url: str) -> str:
    """The ``worker`` (``pid N (…)``) that answers a fresh 2026-07-28 SDK client on ``url``."""
    import asyncio
    import json

    from mcp import Client

    async def ask() -> str:
        async with Client(url, mode="auto") as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            status = await client.read_resource("probe://status")
            return json.loads(status.contents[0].text)["worker"]

    return asyncio.run(ask())


def test_the_url_waits_until_every_worker_serves(tmp_path: Path, gated: list[Gated]) -> None:
    served = Gated(tmp_path)
    gated.append(served)
    first, second = served.held()
    assert sorted(_workers_of(served.proc.pid, 2) or []) == [first, second]
    assert not served.announced(), "the URL came while no worker could serve"

    served.open(first)  # one worker serves: a real request on the port reaches it (the other is held)
    url = f"http://127.0.0.1:{served.port}/mcp"
    assert _answering_worker(url).startswith(f"pid {first} ")
    assert not served.announced(), "the URL came while a worker could not serve"

    served.open(second)
    assert served.first_line().strip() == url
    assert "probe-kit: 2 workers, task store sqlite://" in served.stderr()
    assert _answering_worker(url).split(" (")[0] in (f"pid {first}", f"pid {second}")


def test_a_worker_that_cannot_start_stops_them_all(tmp_path: Path, gated: list[Gated]) -> None:
    """One worker's app cannot be built; the other is held at its gate. probe-kit used to print the
    URL anyway and start the broken worker again and again."""
    served = Gated(tmp_path, env={BREAK_ENV: "1"})
    gated.append(served)
    marker = until(
        lambda: next(served.gates.glob("broken.*"), None), "a broken worker", ticks=1200, every=0.1
    )
    broken = int(marker.name.split(".")[1])
    assert served.first_line() == "", "a URL was printed for workers that never served"
    code = served.proc.wait(timeout=60)
    err = served.stderr()
    assert code == 2, err
    assert "MCP_PROBEKIT_TASK_TTL_MS='soon': expected a whole number" in err  # the worker's own error
    assert f"probe-kit: worker pid {broken} exited with code 1 before it could serve" in err
    assert "stopped the other workers: nothing is served" in err
    assert until(lambda: not served.group(), "every process of its group gone", ticks=600, every=0.1)


def test_workers_that_never_serve_are_stopped_after_the_bound(tmp_path: Path, gated: list[Gated]) -> None:
    served = Gated(tmp_path, env={"MCP_PROBEKIT_START_TIMEOUT_S": "2"})
    gated.append(served)
    first, second = served.held()  # and never let through
    assert served.first_line() == ""
    code = served.proc.wait(timeout=60)
    err = served.stderr()
    assert code == 2, err
    assert f"2 of 2 workers (pid {first}, {second}) did not start serving within 2 s" in err, err
    assert "MCP_PROBEKIT_START_TIMEOUT_S=SECONDS" in err and "Traceback" not in err, err
    assert until(lambda: not served.group(), "every process of its group gone", ticks=600, every=0.1)


def test_a_stop_while_the_workers_start_is_quiet(tmp_path: Path, gated: list[Gated]) -> None:
    """SIGTERM to the group (a service manager) before the workers serve: exit 0, no URL, nothing left."""
    served = Gated(tmp_path)
    gated.append(served)
    served.held()
    os.killpg(served.proc.pid, signal.SIGTERM)
    assert served.first_line() == ""
    assert served.proc.wait(timeout=60) == 0, served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()
    assert until(lambda: not served.group(), "every process of its group gone", ticks=600, every=0.1)
