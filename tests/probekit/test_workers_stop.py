"""Stopping ``python -m mcpnb.probekit --http --workers 2`` (a real redis-server as its store) with
SIGTERM to its process group, as a service manager or ``kill -TERM -PGID`` does: idle, with a call
in flight, a task running, an open ``subscriptions/listen`` stream, or all three. Every run must
exit 0 with nothing on stderr but probe-kit's own lines (no traceback: uvicorn cancels what is still
running after the two-second grace period, and each cancelled request used to print a
``CancelledError`` traceback), leave no process of its group behind, and save the running task's
end in the store.

The in-flight calls come from the SDK's own ``mcp.Client`` (a client we did not write); the task
from mcpnb's pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import children, live_processes

from tests.probekit.stores import die_with_parent, flush, redis_server  # noqa: F401  (fixture)
from tests.probekit.test_workers import Worker, _workers_of, until

LOADS = ["idle", "call", "task", "listen", "call+task+listen"]
STOPPED_MESSAGE = "cancelled: probe-kit stopped before the task finished"


class Traffic:
    """SDK clients in a thread of their own: a slow call and/or an open listen stream, each
    signalling once the server is at work on it; both end when the server stops."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.calling, self.listening = threading.Event(), threading.Event()
        self.errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []

    def call(self) -> None:
        async def run() -> None:
            from mcp import Client

            async def progressed(progress: float, total: float | None, message: str | None) -> None:
                self.calling.set()

            async with Client(self.url) as client:
                await client.call_tool("slow_compute", {"seconds": 60}, progress_callback=progressed)

        self._start(run)

    def listen(self) -> None:
        async def run() -> None:
            from mcp import Client

            async with Client(self.url) as client, client.listen(tools_list_changed=True) as sub:
                self.listening.set()
                async for _ in sub:
                    pass

        self._start(run)

    def _start(self, run: Callable[[], Any]) -> None:
        def main() -> None:
            try:
                asyncio.run(run())
            except BaseException as exc:  # the server went away under it: expected, kept for a look
                self.errors.append(exc)

        thread = threading.Thread(target=main, daemon=True)
        thread.start()
        self._threads.append(thread)

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=60)


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is ``pgid``."""
    return [pid for pid, (_parent, group) in live_processes().items() if group == pgid]


@pytest.fixture
def redis_store(redis_server: str) -> str:  # noqa: F811
    flush(redis_server)
    return f"{redis_server}/0"


@pytest.fixture
def traffic() -> Iterator[list[Traffic]]:
    made: list[Traffic] = []
    yield made
    for one in made:
        one.join()


@pytest.mark.parametrize("load", LOADS)
def test_sigterm_stops_every_worker_quietly(
    load: str, redis_store: str, tmp_path: Path, pool: Any, traffic: list[Traffic]
) -> None:
    log = tmp_path / "stderr.log"
    parent = Worker(redis_store, tmp_path, log, "--workers", "2")
    try:
        until(lambda: _workers_of(parent.proc.pid, 2), "two worker processes", ticks=300, every=0.1)
        load_on = Traffic(parent.url)
        traffic.append(load_on)
        task_id = None
        if "task" in load:
            pool.connect("probe", url=parent.url, era="modern", wait=30)
            task_id = pool.start_task("probe", "slow_compute", {"seconds": 60}).task_id
        if "call" in load:
            load_on.call()
            assert load_on.calling.wait(60), f"the call never started: {load_on.errors}"
        if "listen" in load:
            load_on.listen()
            assert load_on.listening.wait(60), f"the stream never opened: {load_on.errors}"
        family = sorted(children(parent.proc.pid))
        os.killpg(parent.proc.pid, signal.SIGTERM)
        code = parent.proc.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):  # a stop that failed: nothing left running
            if parent.proc.poll() is None:
                parent.kill()
    stderr = log.read_text(errors="replace")
    assert code == 0, stderr
    assert "Traceback" not in stderr and "CancelledError" not in stderr, stderr
    assert "ERROR" not in stderr, stderr
    assert len(family) >= 2  # the two workers (and multiprocessing's helpers): all in the group
    assert until(lambda: not _group(parent.proc.pid), "every process of the group gone")
    if task_id is not None:
        assert asyncio.run(_stored_status(redis_store, task_id)) == ("cancelled", STOPPED_MESSAGE)


async def _stored_status(url: str, task_id: str) -> tuple[str, str | None]:
    from mcpnb.probekit.taskrecord import TaskRecord
    from mcpnb.probekit.taskstore import open_store

    store = open_store(url)
    try:
        fields = await store.read(task_id)
    finally:
        await store.close()
    assert fields is not None, f"task {task_id} is not in the store"
    record = TaskRecord.from_fields(task_id, fields)
    return record.status, record.status_message


def test_sigterm_stops_one_uvicorn_worker_with_exit_0(tmp_path: Path, traffic: list[Traffic]) -> None:
    """``--host localhost`` serves through uvicorn's own server (one worker), which passes the
    signal it stopped for on to the process: it used to end by SIGTERM (exit -15), not with 0."""
    log = tmp_path / "stderr.log"
    run = [sys.executable, "-m", "mcpnb.probekit", "--http", "--host", "localhost", "--port", "0"]
    proc = subprocess.Popen(
        [*run, "--root", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=log.open("wb"),
        text=True,
        preexec_fn=die_with_parent,
    )
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://localhost:"), log.read_text()
        load_on = Traffic(url)
        traffic.append(load_on)
        load_on.call()
        assert load_on.calling.wait(60), f"the call never started: {load_on.errors}"
        os.killpg(proc.pid, signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    stderr = log.read_text(errors="replace")
    assert code == 0, stderr
    assert "Traceback" not in stderr and "ERROR" not in stderr, stderr
