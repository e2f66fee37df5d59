"""What a shared probe-kit's task store shows to the students around it, from a class sweep:

- a Redis password given in the URL's query string (``?password=``, which redis-py reads) showed in
  clear in ``probe://status``, in the error every student got while the store was down and on the
  teacher's console: every password form is masked everywhere;
- a Redis without a password (what the docs said) let any student's kernel on a one-machine hub
  list, read and forge every task: probe-kit warns at start, and takes the password from
  ``MCP_TASK_STORE_PASSWORD`` (kept off the command line);
- SQLite's ``tasks.db`` was created 0644 in a 0755 folder: it is now 0600 in 0700 folders, and a
  file others can read is warned about at start;
- a 60 KB task id came back as a 60 KB error (ids in messages are cut);
- an answer or a cancel from another client than the task's creator overruled it silently: the
  task now says so in its status message.

Real parts: probe-kit worker processes, redis-server processes of the tests' own on free loopback
ports, SQLite files, the SDK's own ``Client`` and mcpnb pools as students.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client, MCPError, types
from mcp.client.streamable_http import streamable_http_client

from mcpnb.client.interaction import Interaction
from mcpnb.probekit.responses import ok_text
from mcpnb.probekit.tasks import TaskError, TaskManager
from mcpnb.probekit.taskstore import NotBackYet, open_store, safe_url
from tests.probekit.stores import RedisProcess, die_with_parent, free_port
from tests.probekit.taskclient import TasksClient, ack, rpc
from tests.probekit.test_workers import Worker, until

PASSWORD = "s3cretPW-for-the-class"


def _log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def _redis_with_password(folder: Path) -> Iterator[int]:
    """A redis-server of this test's own that wants :data:`PASSWORD`; yields its port."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: .ci/run installs it (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "-", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(folder), "--logfile", str(folder / "redis.log")],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(f"requirepass {PASSWORD}\n".encode())  # as docs/classroom.md does: not in argv
    proc.stdin.close()
    try:
        for _ in range(500):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(64).startswith(b"-NOAUTH"):  # up, and it wants the password
                    break
            assert proc.poll() is None, (folder / "redis.log").read_text()[-2000:]
            time.sleep(0.02)
        else:
            pytest.fail("redis-server did not answer within 10 s")
        yield port
    finally:
        proc.kill()
        proc.wait(timeout=10)


# --- every password form is masked, everywhere -----------------------------------------------------


def test_every_password_form_is_masked() -> None:
    for url, shown in [
        ("redis://:pw1234@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("redis://user:pw1234@h/1", "redis://user:***@h/1"),
        ("redis://127.0.0.1:6379/0?password=pw1234", "redis://127.0.0.1:6379/0?password=***"),
        ("redis://h/0?db=1&PassWord=pw1234&x=1", "redis://h/0?db=1&PassWord=***&x=1"),
        ("unix:///run/redis.sock?password=pw1234&db=0", "unix:///run/redis.sock?password=***&db=0"),
        ("rediss://h/0?ssl_password=pw1234", "rediss://h/0?ssl_password=***"),
        ("redis://:p@ss:w0rd@[::1]:6379/0", "redis://:***@[::1]:6379/0"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("sqlite:///srv/probe-kit/tasks.db", "sqlite:///srv/probe-kit/tasks.db"),
    ]:
        assert safe_url(url) == shown, url
    store = open_store("unix:///run/redis.sock?password=pw1234")
    assert "pw1234" not in repr(store) and "pw1234" not in store.url


def _student_reads(url: str) -> tuple[str, str | None]:
    """probe://status as a student reads it, and the error a student gets starting a task (or None)."""

    async def run() -> tuple[str, str | None]:
        http = httpx.AsyncClient(timeout=30)
        async with (
            http,
            Client(streamable_http_client(url, http_client=http), extensions=[TasksClient()]) as c,
        ):
            text = (await c.read_resource("probe://status")).contents[0].text  # type: ignore[union-attr]
            try:
                await c.session.call_tool("slow_task", {"steps": 1, "delay": 0}, allow_claimed=True)
            except MCPError as exc:
                return text, json.dumps(exc.error.model_dump(mode="json"))
            return text, None

    return asyncio.run(run())


def test_a_query_string_password_shows_nowhere(tmp_path: Path) -> None:
    """The sweep's 3a: probe://status, the error while the store is down, the teacher's console."""
    log = tmp_path / "probe-kit.log"
    with _redis_with_password(tmp_path) as port:
        url = f"redis://127.0.0.1:{port}/0?password={PASSWORD}"
        served = Worker(url, tmp_path, log, "--workers", "2")
        try:
            status, refused = _student_reads(served.url)
            assert refused is None, refused  # the password works
            assert json.loads(status)["taskStore"] == f"redis://127.0.0.1:{port}/0?password=***"
            assert PASSWORD not in status
        except BaseException:
            served.stop()
            raise
    try:  # the redis-server is gone now: what every student reads meanwhile
        status, refused = _student_reads(served.url)
        assert json.loads(status)["taskStoreAnswering"] is False, status
        assert "password=***" in json.loads(status)["taskStoreError"] and PASSWORD not in status, status
        assert refused is not None and "is not answering" in refused and "password=***" in refused
        assert PASSWORD not in refused, refused
        until(lambda: "is not answering (" in _log(log), "the console's outage line")
    finally:
        served.stop()
    console = _log(log)
    assert f"task store redis://127.0.0.1:{port}/0?password=***" in console, console
    assert PASSWORD not in console, console


# --- a Redis without a password is warned about; the environment can give the password -------------


def test_a_redis_without_a_password_is_warned_about_at_start(own_redis: RedisProcess, tmp_path: Path) -> None:
    log = tmp_path / "probe-kit.log"
    served = Worker(own_redis.url, tmp_path, log, "--workers", "2")
    try:
        until(lambda: "2 workers" in _log(log), "the start line")
    finally:
        served.stop()
    warning = next(line for line in _log(log).splitlines() if "WARNING" in line)
    assert warning.startswith(f"probe-kit: WARNING: the task store {own_redis.url} has no password"), warning
    for why_and_how in ("every student's kernel", "read its questions and results", "requirepass",
                        "MCP_TASK_STORE_PASSWORD=", "redis://:PASSWORD@127.0.0.1:6379/0"):  # fmt: skip
        assert why_and_how in warning, (why_and_how, warning)


def test_the_password_may_come_from_the_environment(
    tmp_path: Path, pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The docs' command: the password on stdin for Redis and in the environment for probe-kit, so
    no command line (which ``ps`` shows every account) holds it; nothing to warn about."""
    log = tmp_path / "probe-kit.log"
    with _redis_with_password(tmp_path) as port:
        monkeypatch.setenv("MCP_TASK_STORE_PASSWORD", PASSWORD)
        served = Worker(f"redis://127.0.0.1:{port}/0", tmp_path, log, "--workers", "2")
        try:
            assert PASSWORD not in " ".join(served.args)
            pool.connect("probe", url=served.url, wait=30)
            done = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
            assert not done.result(timeout=60).is_error and done.status == "completed"
        finally:
            served.stop()
    assert "WARNING" not in _log(log) and PASSWORD not in _log(log), _log(log)


def test_a_unix_socket_only_its_owner_may_open_is_not_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "redis.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        path.chmod(0o700)
        assert open_store(f"unix://{path}").exposure() == []
        path.chmod(0o777)  # any account may connect
        assert "has no password" in " ".join(open_store(f"unix://{path}").exposure())
    assert open_store("redis://:pw1234@127.0.0.1:1/0").exposure() == []
    assert open_store("redis://127.0.0.1:1/0?password=pw1234").exposure() == []


# --- SQLite: the file and the folders it makes are this account's alone -----------------------------


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


@pytest.mark.anyio
async def test_a_sqlite_store_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "made" / "here" / "tasks.db"
    with _umask(0o022):  # the usual one: files 0644, folders 0755
        store = open_store(f"sqlite://{path}")
        try:
            await store.insert("t1", {"status": "working", "doc": "{}"}, created=1.0, expires_at=None)
            assert await store.read("t1") == {"status": "working", "doc": "{}"}
        finally:
            await store.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (path.parent, path.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for companion in path.parent.glob("tasks.db-*"):  # SQLite gives -wal and -shm the file's mode
        assert stat.S_IMODE(companion.stat().st_mode) == 0o600, companion
    assert open_store(f"sqlite://{path}").exposure() == []


def test_a_sqlite_file_others_can_read_is_warned_about_at_start(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    path.touch()
    path.chmod(0o644)  # made before, by hand or by an older probe-kit
    log = tmp_path / "probe-kit.log"
    served = Worker(f"sqlite://{path}", tmp_path, log)
    try:
        until(lambda: "probe-kit: 1 worker" in _log(log), "the start line")
    finally:
        served.stop()
    assert (
        f"probe-kit: WARNING: the task store file {path} can be read by other accounts on this machine"
        in _log(log)
    ), _log(log)
    assert f"chmod 600 {path}" in _log(log)


# --- task ids in messages ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_long_task_id_is_cut_in_messages() -> None:
    manager = TaskManager()
    huge = "A" * 60_000
    try:
        for ask in (manager.get, manager.cancel, manager.request_cancel):
            with pytest.raises(TaskError) as said:
                await ask(huge)
            assert len(str(said.value)) < 300 and "(60000 characters)" in str(said.value), ask
        with pytest.raises(TaskError) as said:
            await manager.accept(huge, {"input-1": {"action": "accept"}})
        assert len(str(said.value)) < 300
        record = await manager.create("quick", _quick)
        with pytest.raises(TaskError, match=f"No task '{record.task_id}x'"):  # a real id: whole
            await manager.get(record.task_id + "x")
    finally:
        await manager.shutdown()
    assert len(str(NotBackYet("redis://h/0", huge))) < 400


async def _quick(io: Any) -> types.CallToolResult:
    return ok_text("done")


def test_a_long_task_id_is_cut_over_the_wire(tmp_path: Path) -> None:
    """The sweep's 3b: tasks/get, tasks/cancel and tasks/update with a 60 KB id, against probe-kit."""
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log")

    async def run() -> list[str]:
        said = []
        http = httpx.AsyncClient(timeout=30)
        async with (
            http,
            Client(streamable_http_client(served.url, http_client=http), extensions=[TasksClient()]) as c,
        ):
            for method in ("tasks/get", "tasks/cancel", "tasks/update"):
                extra = (
                    {"input_responses": {"input-1": {"action": "accept"}}} if method == "tasks/update" else {}
                )
                with pytest.raises(MCPError) as refused:
                    if method == "tasks/get":
                        await rpc(c.session, method, "A" * 60_000)
                    else:
                        await ack(c.session, method, "A" * 60_000, **extra)
                said.append(str(refused.value))
        return said

    try:
        for message in asyncio.run(run()):
            assert len(message) < 300 and "(60000 characters)" in message, message[:300]
    finally:
        served.stop()


# --- answers and cancels by another client -----------------------------------------------------------


class Held(Interaction):
    """Answers each question "no" once ``go`` is set (at once if it is set already)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()
        self.asked = 0

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        self.asked += 1
        while not self.go.is_set():
            await asyncio.sleep(0.02)
        return types.ElicitResult(action="accept", content={"confirm": False})


def _other_client(url: str, answer: str | None = None, cancel: str | None = None) -> None:
    """Another student (the SDK's own Client, its own cookie) answers ``answer``'s question "yes"
    or cancels ``cancel``, with the ids in hand."""

    async def run() -> None:
        http = httpx.AsyncClient(timeout=30)
        async with (
            http,
            Client(streamable_http_client(url, http_client=http), extensions=[TasksClient()]) as c,
        ):
            if answer is not None:
                for _ in range(500):
                    state = await rpc(c.session, "tasks/get", answer)
                    if state.status == "input_required":
                        break
                    await asyncio.sleep(0.02)
                responses = {
                    key: {"action": "accept", "content": {"confirm": True}}
                    for key in state.input_requests or {}
                }
                assert responses, state
                await ack(c.session, "tasks/update", answer, input_responses=responses)
            if cancel is not None:
                await ack(c.session, "tasks/cancel", cancel)

    asyncio.run(run())


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_answer_or_cancel_from_another_client_is_said(tmp_path: Path, pool: Any, workers: str) -> None:
    """The sweep's 1: B answered A's question before A did and cancelled A's other task; A's pool
    read a result it never chose, and nothing said so. Now the task says who else acted; A's own
    answers say nothing."""
    served = Worker(f"sqlite://{tmp_path / 'tasks.db'}", tmp_path, tmp_path / "log", "--workers", workers)
    person = Held()
    pool.interaction = person
    try:
        pool.connect("probe", url=served.url, wait=30)
        person.go.set()  # A answers its own question
        own = pool.start_task("probe", "confirm_delete", {"path": "alice/essay.docx"})
        assert "kept" in own.result(timeout=60).text
        assert "another client" not in (own.status_message or ""), own.status_message

        person.go.clear()  # A is slow to answer; B answers first
        asked = pool.start_task("probe", "confirm_delete", {"path": "alice/essay-final.docx"})
        _other_client(served.url, answer=asked.task_id)
        # B's answer is acknowledged at once and delivered soon after (another worker's goes
        # through the store): A answers once it has landed, and so finds the question answered
        until(lambda: asked.refresh() != "input_required", "B's answer to land", ticks=600)
        person.go.set()
        result = asked.result(timeout=60)
        assert "deleted" in result.text  # B's "yes" won: the spec lets it, but now A is told
        assert asked.status_message == (
            "completed (input-1 was answered by another client than the one that started this task)"
        ), asked.status_message

        slow = pool.start_task("probe", "slow_task", {"steps": 400, "delay": 0.05})
        until(lambda: slow.refresh() == "working", "the slow task to work")
        _other_client(served.url, cancel=slow.task_id)
        until(lambda: slow.refresh() == "cancelled", "the cancel to land", ticks=600)
        assert slow.status_message == "cancelled by another client than the one that started this task"
        mine = pool.start_task("probe", "slow_task", {"steps": 400, "delay": 0.05})
        until(lambda: mine.refresh() == "working", "the second slow task to work")
        mine.cancel()
        until(lambda: mine.refresh() == "cancelled", "A's own cancel to land", ticks=600)
        assert "another client" not in (mine.status_message or ""), mine.status_message
    finally:
        person.go.set()
        served.stop()


@pytest.mark.anyio
async def test_the_note_travels_through_the_store_to_the_worker_running_the_task(tmp_path: Path) -> None:
    """Two workers on one store: the one that did not start the task takes the other client's
    answer and cancel, and the worker running it says so in the task."""
    url = f"sqlite://{tmp_path / 'tasks.db'}"
    runs, other = TaskManager(store=url, lease_s=2.0), TaskManager(store=url, lease_s=2.0)

    async def asks(io: Any) -> types.CallToolResult:
        from mcpnb.probekit.tools.tasksuite import Confirm

        reply = await io.ask("Delete it?", Confirm)
        await asyncio.sleep(30)  # until cancelled
        return ok_text(str(reply.content))

    try:
        record = await runs.create("asks", asks, context="client-alice")
        for _ in range(500):
            if (await other.get(record.task_id)).status == "input_required":
                break
            await asyncio.sleep(0.01)
        await other.accept(
            record.task_id, {"input-1": {"action": "accept", "content": {"confirm": True}}}, by="client-bob"
        )
        for _ in range(500):
            message = (await other.get(record.task_id)).status_message or ""
            if "answered by another client" in message:
                break
            await asyncio.sleep(0.01)
        assert (
            message == "working (input-1 was answered by another client than the one that started this task)"
        )
        await other.request_cancel(record.task_id, by="client-bob")
        for _ in range(500):
            found = await other.get(record.task_id)
            if found.terminal:
                break
            await asyncio.sleep(0.01)
        assert found.status == "cancelled"
        assert found.status_message == (
            "cancelled by another client than the one that started this task "
            "(input-1 was answered by another client than the one that started this task)"
        )
    finally:
        await other.shutdown()
        await runs.shutdown()


@pytest.mark.anyio
async def test_a_legacy_cancel_from_another_session_is_said(tmp_path: Path) -> None:
    """2025-11-25: another session's ``tasks/cancel`` still cancels (the id is the capability), and
    the task says it was not its own session's; its own session's cancel says nothing more."""
    from mcpnb.probekit import create_server

    server = create_server(root=tmp_path, poll_interval_ms=10)
    async with Client(server, mode="legacy") as ann, Client(server, mode="legacy") as bob:
        started = []
        for _ in range(2):
            call = {"name": "slow_task", "arguments": {"steps": 400, "delay": 0.05}, "task": {}}
            created = await ann.session._dispatcher.send_raw_request("tools/call", call, {})
            started.append(created["task"]["taskId"])
        by_bob = await bob.session._dispatcher.send_raw_request("tasks/cancel", {"taskId": started[0]}, {})
        by_ann = await ann.session._dispatcher.send_raw_request("tasks/cancel", {"taskId": started[1]}, {})
    assert by_bob["status"] == "cancelled"
    assert by_bob["statusMessage"] == "cancelled by another client than the one that started this task"
    assert by_ann["status"] == "cancelled" and "another client" not in by_ann.get("statusMessage", "")
