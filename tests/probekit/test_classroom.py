"""What a teacher's sweep of a class setup found, each against real parts: a redis-server killed
(SIGKILL) and started again empty under running tasks, probe-kit with several HTTP worker processes,
mcpnb pools as students, the SDK's own ``Client``.

- Redis restarted mid-class: the tasks running stay (their worker writes them back), a new task
  during the outage is told "the task store is not answering; try again", the log says so once;
- SQLite: a task's rows deleted under it are written back the same way; a task ended by another
  worker stays ended, and the worker says what it stopped;
- a task store that is not running is refused at start (exit 2), and ``probe://status`` says it is
  down instead of failing;
- one student's unanswered URL consent never opens another student's page (2025-11-25's -32042),
  and on 2026-07-28 each student's own answer rides their own retried call;
- ``--max-tasks 0`` is refused; the start says workers, store and eras; a 2025-11-25 session that
  lands on another worker is told why.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import types

from mcpnb.client.errors import CallError, UrlRequiredError
from mcpnb.client.interaction import CallContext, Interaction
from mcpnb.probekit.responses import ok_text
from mcpnb.probekit.tasks import TaskManager
from mcpnb.probekit.taskstore import TaskStoreError
from tests.probekit.stores import RedisProcess, free_port
from tests.probekit.test_workers import Proceed, Worker, until

LEASE_S = 2.0
#: Long enough to span the outage, with the question at half-way.
LONG = {"steps": 120, "delay": 0.05, "confirm": True}


def _log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


# --- 1. a Redis restart under running tasks ----------------------------------------------------------


def test_a_redis_restart_loses_no_running_task(own_redis: RedisProcess, tmp_path: Path, pool: Any) -> None:
    """The sweep's class: tasks with a question at half-way on two workers; Redis is killed (-9) and
    started again empty on its port a few seconds later. Every task completes, its question answered."""
    log = tmp_path / "probe-kit.log"
    served = Worker(own_redis.url, tmp_path, log, "--workers", "2", "--task-lease-s", str(LEASE_S))
    try:
        until(lambda: "2 workers" in _log(log), "the start line")
        start = next(line for line in _log(log).splitlines() if line.startswith("probe-kit: 2 workers"))
        assert f"task store {own_redis.url}" in start and "2026-07-28 only" in start
        pool.interaction = Proceed()
        pool.connect("probe", url=served.url, wait=30)
        handles = [pool.start_task("probe", "slow_task", LONG) for _ in range(3)]
        for handle in handles:
            until(lambda h=handle: h.refresh() == "working" and "block" in (h.status_message or ""), "work")
        own_redis.kill()  # kill -9: everything in it is gone
        with pytest.raises(CallError) as refused:
            pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
        said = str(refused.value)
        assert f"the task store ({own_redis.url}) is not answering; try again" in said, said
        time.sleep(3)  # the outage goes on while the tasks work (and ask their question)
        own_redis.start()  # the same port, empty
        for handle in handles:
            result = handle.result(timeout=120)
            assert handle.status == "completed" and not result.is_error, (handle.status_message, _log(log))
            assert result.data["confirmed"] is True and len(result.data["steps"]) == LONG["steps"]
        after = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
        assert not after.result(timeout=30).is_error
        text = _log(log)  # before the stop, whose cut streams uvicorn logs
    finally:
        served.stop()
    restored = [line for line in text.splitlines() if "restored from this worker" in line]
    assert len(restored) >= 3 and all("(restarted?)" in line for line in restored), text
    assert "stopped on this worker" not in text and "Traceback" not in text, text
    # said once per outage by each process that met it (two workers), not once per write
    down = [line for line in text.splitlines() if "is not answering (" in line]
    assert 1 <= len(down) <= 2, text
    assert len([line for line in text.splitlines() if "answers again" in line]) == len(down), text
    assert f"{own_redis.url}: write failed" not in text, text  # the old line, once per failed write


@pytest.mark.anyio
async def test_a_manager_restores_what_redis_lost_and_says_so_once(
    own_redis: RedisProcess, capfd: pytest.CaptureFixture[str]
) -> None:
    manager = TaskManager(store=own_redis.url, lease_s=LEASE_S)
    go_on = asyncio.Event()

    async def busy(io: Any) -> types.CallToolResult:  # a progress write every 10 ms, as slow_task does
        step = 0
        while not go_on.is_set():
            step += 1
            await io.progress(step, None, f"step {step}")
            await asyncio.sleep(0.01)
        return ok_text("done")

    try:
        record = await manager.create("busy", busy)
        await _until(lambda: _stored(manager, record.task_id))
        own_redis.kill()
        await asyncio.sleep(0.5)  # fifty progress writes fail meanwhile
        own_redis.start()
        await _until(lambda: _stored(manager, record.task_id))  # back in the (empty) store
        go_on.set()
        await _until(lambda: _stored(manager, record.task_id, "completed"))
        assert (await manager.get(record.task_id)).status == "completed"
    finally:
        go_on.set()
        await manager.shutdown()
    err = capfd.readouterr().err
    assert err.count("is not answering (") == 1 and err.count("answers again") == 1, err
    assert err.count(f"task {record.task_id[:8]}… was missing from the task store") == 1, err
    assert record.task_id not in err, err  # a console a class may see shows no whole (usable) id
    assert "stopped on this worker" not in err and f"{own_redis.url}: write failed" not in err, err


async def _stored(manager: TaskManager, task_id: str, status: str | None = None) -> bool:
    try:
        fields = await manager.store.read(task_id)
    except TaskStoreError:
        return False
    return fields is not None and (status is None or fields["status"] == status)


async def _until(predicate: Any, ticks: int = 1500) -> None:
    for _ in range(ticks):
        if await predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


# --- the same for SQLite: rows deleted under a running task; a task ended elsewhere ---------------


@pytest.mark.anyio
async def test_sqlite_rows_lost_under_a_running_task_are_written_back(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    path = tmp_path / "tasks.db"
    manager = TaskManager(store=f"sqlite://{path}", lease_s=0.4)
    go_on = asyncio.Event()

    async def waits(io: Any) -> types.CallToolResult:
        await go_on.wait()
        return ok_text("kept")

    try:
        record = await manager.create("waits", waits)
        await _until(lambda: _stored(manager, record.task_id, "working"))
        with sqlite3.connect(path) as db:  # as if the file had been emptied under the workers
            db.execute("DELETE FROM fields")
            db.execute("DELETE FROM tasks")
        await _until(lambda: _stored(manager, record.task_id, "working"))  # the heartbeat put it back
        go_on.set()
        await _until(lambda: _stored(manager, record.task_id, "completed"))
    finally:
        go_on.set()
        await manager.shutdown()
    err = capfd.readouterr().err
    assert f"task {record.task_id[:8]}… was missing from the task store" in err, err
    assert "stopped on" not in err, err


@pytest.mark.anyio
async def test_a_task_ended_elsewhere_stays_ended_and_its_worker_says_so(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    manager = TaskManager(store=f"sqlite://{tmp_path / 'tasks.db'}", lease_s=0.4)
    stopped = asyncio.Event()

    async def forever(io: Any) -> types.CallToolResult:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    try:
        record = await manager.create("forever", forever)
        await _until(lambda: _stored(manager, record.task_id, "working"))
        ended = {
            "status": "failed",
            "doc": json.dumps(
                {
                    **json.loads((await manager.store.read(record.task_id))["doc"]),
                    "statusMessage": "ended elsewhere",
                }
            ),
        }
        assert await manager.store.write(record.task_id, ended, expires_at=None)  # another worker ended it
        await asyncio.wait_for(stopped.wait(), 10)
        fields = await manager.store.read(record.task_id)
        assert fields is not None and fields["status"] == "failed"  # not written back, not changed
    finally:
        await manager.shutdown()
    err = capfd.readouterr().err
    assert (
        f"task {record.task_id} (forever) stopped on this worker: another worker ended it as failed" in err
    ), err
    assert "restored" not in err, err


@pytest.mark.anyio
async def test_a_task_whose_next_report_finds_it_ended_elsewhere_says_how(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The worker may learn it from its own refused write (a progress report) before its heartbeat
    reads the task: the line is the same either way."""
    manager = TaskManager(store=f"sqlite://{tmp_path / 'tasks.db'}", lease_s=60)  # no heartbeat read
    ended_elsewhere, stopped = asyncio.Event(), asyncio.Event()

    async def reports(io: Any) -> types.CallToolResult:
        try:
            await ended_elsewhere.wait()
            await io.progress(1, 2, "half way")  # refused: the task is over
            await asyncio.Event().wait()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    try:
        record = await manager.create("reports", reports)
        await _until(lambda: _stored(manager, record.task_id, "working"))
        doc = json.loads((await manager.store.read(record.task_id))["doc"])
        ended = {"status": "cancelled", "doc": json.dumps({**doc, "status": "cancelled"})}
        assert await manager.store.write(record.task_id, ended, expires_at=None)
        ended_elsewhere.set()
        await asyncio.wait_for(stopped.wait(), 10)
        assert (await manager.store.read(record.task_id))["status"] == "cancelled"
    finally:
        await manager.shutdown()
    err = capfd.readouterr().err
    assert (
        f"task {record.task_id} (reports) stopped on this worker: another worker ended it as cancelled" in err
    ), err


# --- 2. a task store that is not running ----------------------------------------------------------


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_task_store_that_is_not_running_is_refused_at_start(workers: str, tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    run = [sys.executable, "-m", "mcpnb.probekit", "--http", "--workers", workers, "--task-store", url,
           "--root", str(tmp_path)]  # fmt: skip
    refused = subprocess.run(run, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and refused.stdout == "", refused
    assert f"probe-kit: the task store {url} is not answering" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_status_says_the_task_store_is_down(tmp_path: Path, pool: Any) -> None:
    from mcpnb.probekit import create_server

    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"  # not running; a password that must not show
    pool.connect("probe", server=create_server(root=tmp_path, task_store=url))
    text = pool.read("probe", "probe://status").text
    status = json.loads(text)
    with pytest.raises(CallError) as failed:  # a task cannot start: said so, not "Internal error"
        pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
    assert status["taskStoreAnswering"] is False and status["tasks"] is None
    assert "is not answering" in status["taskStoreError"] and "hunter2" not in text
    assert status["taskStore"] == url.replace("hunter2", "***")
    said = str(failed.value)
    assert f"the task store ({status['taskStore']}) is not answering; try again" in said, said
    assert "hunter2" not in said


# --- 3. URL consent is one client's -----------------------------------------------------------------


def test_one_clients_url_consent_never_opens_anothers_page(tmp_path: Path, runtime: Any) -> None:
    """2025-11-25's -32042 (``via="error"``): the retry that counts as consent is the asked client's."""
    from mcpnb import Pool

    (tmp_path / "a.txt").write_text("# Page A\n")
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log")
    a, b = Pool(runtime), Pool(runtime)
    try:
        a.connect("probe", url=served.url, era="legacy", wait=30)
        b.connect("probe", url=served.url, era="legacy", wait=30)
        call = {"path": "a.txt", "via": "error"}
        with pytest.raises(UrlRequiredError) as asked_a:
            a.call("probe", "open_local_page", call)  # A is asked, and does not answer yet
        with pytest.raises(UrlRequiredError) as asked_b:
            b.call("probe", "open_local_page", call)  # B is asked too: A's request is not B's consent
        ids = {e["elicitationId"] for e in asked_a.value.elicitations + asked_b.value.elicitations}
        assert len(ids) == 2  # two clients, two elicitations
        opened = b.call("probe", "open_local_page", call)  # B's own retry: B saw it
        assert opened.data["action"] == "accept" and opened.data["title"] == "Page A"
        assert a.call("probe", "open_local_page", call).data["action"] == "accept"  # and A's own
        with pytest.raises(UrlRequiredError):  # one retry per request: the next call asks again
            a.call("probe", "open_local_page", call)
    finally:
        a.close()
        b.close()
        served.stop()


class Consents(Interaction):
    """A student who answers every URL consent request with ``action``; records the pages."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action, self.urls = action, []

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> types.ElicitResult:
        self.urls.append(params.url)
        return types.ElicitResult(action=self.action)


def test_modern_url_consent_is_each_clients_own_answer(tmp_path: Path, runtime: Any) -> None:
    """2026-07-28 (no -32042): each call is answered with an InputRequiredResult holding the URL
    request, and only that client's retry, carrying its own person's answer, opens the page."""
    from mcpnb import Pool

    (tmp_path / "a.txt").write_text("# Page A\n")
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log")
    a, b = Pool(runtime), Pool(runtime)
    a.interaction, b.interaction = Consents("decline"), Consents("accept")
    try:
        a.connect("probe", url=served.url, era="modern", wait=30)
        b.connect("probe", url=served.url, era="modern", wait=30)
        declined = a.call("probe", "open_local_page", {"path": "a.txt"})  # A's person says no
        opened = b.call("probe", "open_local_page", {"path": "a.txt"})  # B's says yes
        assert declined.data["action"] == "decline" and declined.data["preview"] == ""
        assert opened.data["action"] == "accept" and opened.data["title"] == "Page A"
        assert a.call("probe", "open_local_page", {"path": "a.txt"}).data["action"] == "decline"
        assert len(a.interaction.urls) == 2 and len(b.interaction.urls) == 1  # asked every call
        assert a.interaction.urls[0] == b.interaction.urls[0]  # the same page, two consents
    finally:
        a.close()
        b.close()
        served.stop()


# --- 4. small things ----------------------------------------------------------------------------------


def test_max_tasks_below_one_is_refused(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "mcpnb.probekit", "--max-tasks", "0", "--root", str(tmp_path)]
    refused = subprocess.run(run, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and refused.stdout == "", refused
    assert "--max-tasks: must be 1 or more (got 0)" in refused.stderr
    from mcpnb.probekit import create_server

    with pytest.raises(ValueError, match="max_concurrent_tasks must be 1 or more"):  # the env's way in
        create_server(root=tmp_path, max_concurrent_tasks=0)


def test_the_start_says_workers_store_and_eras(tmp_path: Path) -> None:
    from mcpnb.probekit.workers import startup_line

    log = tmp_path / "log"
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, log)  # reads the URL, the first line
    try:
        line = until(
            lambda: next((x for x in _log(log).splitlines() if x.startswith("probe-kit: ")), None), "it"
        )
    finally:
        served.stop()
    assert line == (
        f"probe-kit: 1 worker, task store sqlite://{tmp_path / 'tasks.db'}; "
        "protocol eras: 2026-07-28 and 2025-11-25"
    )
    hidden = startup_line(4, "redis://:hunter2@127.0.0.1:6379/0")
    assert (
        "hunter2" not in hidden and "redis://:***@127.0.0.1:6379/0" in hidden and "2026-07-28 only" in hidden
    )


# --- 5. a 2025-11-25 session on several workers ----------------------------------------------------


def test_a_legacy_session_on_another_worker_is_told_why(tmp_path: Path) -> None:
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log", "--workers", "2")
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}},
    }  # fmt: skip
    try:
        with httpx.Client(timeout=30) as client:
            opened = client.post(served.url, json=hello, headers=headers)
            session = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
        asked = {**headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        answers = []
        for _ in range(200):  # a new connection each time: the kernel hands it to either worker
            with httpx.Client(timeout=30) as client:
                answer = client.post(served.url, json=listing, headers=asked)
            answers.append(answer)
            if answer.status_code == 404:
                break
    finally:
        served.stop()
    lost = answers[-1]
    assert lost.status_code == 404, [a.status_code for a in answers]  # the spec's answer, kept
    error = lost.json()["error"]
    assert error["code"] == -32600 and "lives in the worker that opened it" in error["message"]
    assert "single-worker probe-kit" in error["message"]
