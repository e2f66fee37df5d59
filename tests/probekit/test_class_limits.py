"""The limits a probe-kit a class shares needs, from a security sweep of a 2-worker probe-kit on Redis
with three students (the 2025-11-25 spec's Tasks "Resource Management": per-requestor limits, a
bounded wait, cheap counts):

- one student's unanswered tasks held every worker slot for good: now a client may have only so many
  unfinished tasks on a worker (refused at creation with a JSON-RPC error that says the limit and how
  many are open), a task waits for an answer only so long (then it fails, saying so, and frees its
  slot), and a queued task says why it waits;
- ``probe://status`` read every task to count them (1.4-2 s with 20,000): it reads a bounded number;
- a 3.5 MB ``topic`` made an 80 MB task record, rewritten every heartbeat: copied arguments have a
  ``maxLength`` in the schema, and a heartbeat writes only what changed;
- a POST without ``Mcp-Session-Id`` was read whole before the SDK's 4 MiB limit applied (400 MB:
  a worker at 1.2 GB): it is answered 413 once past the limit, the rest unread;
- ``slow_task``'s trial division ran on the event loop (every client of that worker stalled): its
  blocks run in a thread.

Real parts throughout: probe-kit served over HTTP on loopback with a real redis-server (and as
``python -m mcpnb.probekit`` with the flags), the SDK's own ``Client`` as students.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import Client, MCPError, types
from mcp.client.streamable_http import streamable_http_client

from mcpnb.probekit import create_server, serve_http
from mcpnb.probekit.tasks import REQUESTOR, TOO_MANY_TASKS, TaskManager
from mcpnb.probekit.taskstore import TaskStoreError
from mcpnb.probekit.taskstore.memory import MemoryStore
from mcpnb.probekit.taskstore.sqlite import SqliteStore
from mcpnb.probekit.tools import demo
from tests.probekit.stores import flush, redis_server  # noqa: F401  (fixture)
from tests.probekit.taskclient import TasksClient, ack, rpc
from tests.probekit.test_workers import Worker


@contextlib.asynccontextmanager
async def student(url: str) -> AsyncIterator[Any]:
    """One student: the SDK's client over its own ``httpx`` client (its own cookie: its identity)."""
    http = httpx.AsyncClient(timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http), extensions=[TasksClient()]) as c:
        yield c


async def start(client: Any, tool: str, arguments: dict[str, Any]) -> str:
    created = await client.session.call_tool(tool, arguments, allow_claimed=True)
    return created.task_id


async def state(client: Any, task_id: str) -> dict[str, Any]:
    return (await rpc(client.session, "tasks/get", task_id)).model_dump(by_alias=True, exclude_none=True)


async def settles(client: Any, task_id: str, wanted: set[str]) -> dict[str, Any]:
    for _ in range(600):
        now = await state(client, task_id)
        if now["status"] in wanted:
            return now
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} stayed {now['status']}: {now.get('statusMessage')}")


@pytest.fixture
def redis_url(redis_server: str) -> str:  # noqa: F811
    flush(redis_server)
    return f"{redis_server}/0"


# --- 1. one student cannot hold every slot, nor for good ---------------------------------------------


@pytest.mark.anyio
async def test_one_student_is_capped_told_why_and_their_waits_end(project: Path, redis_url: str) -> None:
    """The sweep's "slots": a student's unanswered confirm_delete tasks held every slot, for good.
    Now they hold none while they wait (another student's task runs), a third is refused (the limit
    and how many are open, in the error), a task that must queue says why, and the unanswered ones
    fail once their wait runs out, saying so."""
    server = create_server(
        root=project,
        task_store=redis_url,
        max_concurrent_tasks=2,
        max_tasks_per_client=2,
        task_input_timeout_s=3,
    )
    handle = await serve_http(server)
    try:
        async with student(handle.url) as hog, student(handle.url) as other, student(handle.url) as busy:
            held = [await start(hog, "confirm_delete", {"path": f"x{i}"}) for i in range(2)]
            for task_id in held:
                await settles(hog, task_id, {"input_required"})
            with pytest.raises(MCPError) as refused:
                await start(hog, "confirm_delete", {"path": "x2"})
            said = refused.value.error
            assert said.code == TOO_MANY_TASKS
            assert (
                "you have 2 unfinished tasks" in said.message and "the limit is 2 per client" in said.message
            )
            assert said.data["limit"] == 2 and sorted(said.data["openTaskIds"]) == sorted(held)

            quick = await start(other, "slow_task", {"steps": 1, "delay": 0})  # the questions hold no slot
            assert (await settles(other, quick, {"completed", "failed", "cancelled"}))[
                "status"
            ] == "completed"

            long = [await start(busy, "slow_task", {"steps": 1000, "delay": 0.05}) for _ in range(2)]
            for task_id in long:
                await settles(busy, task_id, {"working"})
            waiting = await start(other, "slow_task", {"steps": 1, "delay": 0})  # both slots at work
            queued = await state(other, waiting)
            assert queued["status"] == "working", queued
            assert queued["statusMessage"] == (
                "queued: waiting for a worker slot; this worker runs 2 tasks at once (--max-tasks), all "
                "busy, and 0 more wait ahead of this one"
            )
            status = json.loads((await other.read_resource("probe://status")).contents[0].text)
            assert status["limits"]["maxTasksPerClient"] == 2 and status["limits"]["inputTimeoutSeconds"] == 3
            assert status["thisWorker"] == {"working": 2, "inputRequired": 2, "queued": 1, "slots": 2}
            for task_id in long:
                await ack(busy.session, "tasks/cancel", task_id)
            assert (await settles(other, waiting, {"completed", "failed", "cancelled"}))[
                "status"
            ] == "completed"

            for task_id in held:  # nobody answers: each wait ends, saying so
                ended = await settles(hog, task_id, {"failed", "completed", "cancelled"})
                assert ended["status"] == "failed", ended
                assert ended["error"]["message"].startswith("No answer came within 3 s (this server's limit")
            again = await start(hog, "slow_task", {"steps": 1, "delay": 0})  # under the cap again
            assert (await settles(hog, again, {"completed", "failed"}))["status"] == "completed"
    finally:
        await handle.stop()


@pytest.mark.anyio
async def test_an_answered_task_takes_a_slot_again() -> None:
    """A task gives its slot back while it waits for an answer and takes one again once answered:
    with one slot, a second task runs meanwhile, and the first still completes."""
    manager = TaskManager(max_concurrent=1)
    order: list[str] = []

    async def asks(io: Any) -> types.CallToolResult:
        from mcpnb.probekit.tools.tasksuite import Confirm

        reply = await io.ask("Go on?", Confirm)
        order.append(f"asks: {reply.action}")
        return types.CallToolResult(content=[])

    async def quick(io: Any) -> types.CallToolResult:
        order.append("quick")
        return types.CallToolResult(content=[])

    first = await manager.create("asks", asks)
    await until_status(manager, first.task_id, "input_required")
    second = await manager.create("quick", quick)
    await until_status(manager, second.task_id, "completed")
    (key,) = (await manager.get(first.task_id)).pending
    await manager.accept(first.task_id, {key: {"action": "accept", "content": {"confirm": True}}})
    await until_status(manager, first.task_id, "completed")
    assert order == ["quick", "asks: accept"]
    third = await manager.create("quick", quick)  # the slot was given back at the end
    await until_status(manager, third.task_id, "completed")
    await manager.shutdown()


@pytest.mark.anyio
async def test_a_burst_of_calls_is_capped_too() -> None:
    """Calls that arrive together count each other (the task is counted before it is stored)."""
    manager = TaskManager(max_per_requestor=3)

    async def waits(io: Any) -> types.CallToolResult:
        await asyncio.sleep(3600)
        raise AssertionError("not reached")

    token = REQUESTOR.set("client:a")
    try:
        made = await asyncio.gather(*(manager.create("w", waits) for _ in range(5)), return_exceptions=True)
    finally:
        REQUESTOR.reset(token)
    assert sum(isinstance(m, MCPError) for m in made) == 2, made
    await manager.create("w", waits)  # another client (none: stdio, in-process) is not capped
    await manager.shutdown()


def test_the_flags_reach_every_worker(redis_url: str, tmp_path: Path) -> None:
    """``--max-tasks-per-client`` and ``--task-input-timeout-s`` on ``--workers 2``: both workers
    enforce them (probe://status says so), and a bad value is refused at start."""
    root = tmp_path / "root"
    root.mkdir()
    extra = ("--workers", "2", "--max-tasks-per-client", "3", "--task-input-timeout-s", "90")
    served = Worker(redis_url, root, tmp_path / "probe-kit.log", *extra)
    seen: dict[str, dict[str, Any]] = {}

    async def sample() -> None:
        for _ in range(40):  # fresh connections land on both workers
            async with student(served.url) as someone:
                found = json.loads((await someone.read_resource("probe://status")).contents[0].text)
            seen[found["worker"]] = found["limits"]
            if len(seen) == 2:
                return

    try:
        anyio.run(sample)
    finally:
        served.stop()
    assert seen, "no status read"
    for limits in seen.values():
        assert limits["maxTasksPerClient"] == 3 and limits["inputTimeoutSeconds"] == 90, seen
    bad = subprocess.run(
        [sys.executable, "-m", "mcpnb.probekit", "--max-tasks-per-client", "-1"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "must be 0 (no limit) or more" in bad.stderr, bad.stderr


# --- counts stay cheap ---------------------------------------------------------------------------------


class NoScan(MemoryStore):
    """A memory store that refuses to read every task (what probe://status did to count them)."""

    async def scan(self, names: Any) -> list[tuple[str, dict[str, str]]]:
        raise TaskStoreError("scan: every task read")


@pytest.mark.anyio
async def test_counts_read_a_bounded_number_of_tasks() -> None:
    manager = TaskManager(store=NoScan())

    async def quick(io: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[])

    made = [await manager.create("q", quick) for _ in range(5)]
    for record in made:
        await until_status(manager, record.task_id, "completed")
    counts, whole = await manager.count(limit=3)
    assert sum(counts.values()) == 3 and whole is False
    counts, whole = await manager.count()
    assert counts["completed"] == 5 and whole is True
    await manager.shutdown()


async def until_status(manager: TaskManager, task_id: str, status: str) -> None:
    for _ in range(400):
        if (await manager.get(task_id)).status == status:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{task_id} never {status}")


# --- 2. arguments copied into records are capped; heartbeats write what changed ---------------------------


@pytest.mark.anyio
async def test_copied_arguments_have_a_max_length(project: Path) -> None:
    server = create_server(root=project)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["draft_with_model"].input_schema["properties"]["topic"]["maxLength"] == 500
        assert tools["confirm_delete"].input_schema["properties"]["path"]["maxLength"] == 500
        assert tools["start_feature"].input_schema["properties"]["feature"]["maxLength"] == 2000
        result = await client.call_tool("draft_with_model", {"topic": "x" * 501, "points": 10, "delay": 0})
        assert result.is_error and "at most 500 characters" in result.content[0].text


class Recording(SqliteStore):
    """A SQLite store that remembers which fields each write carried."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.writes: list[set[str]] = []

    async def write(self, task_id: str, fields: dict[str, str], **kw: Any) -> Any:
        self.writes.append(set(fields))
        return await super().write(task_id, fields, **kw)


@pytest.mark.anyio
async def test_a_heartbeat_does_not_rewrite_an_unchanged_record(tmp_path: Path) -> None:
    """A task that waits for an answer changes nothing: its heartbeats renew the lease only."""
    store = Recording(f"sqlite://{tmp_path / 'tasks.db'}")
    manager = TaskManager(store=store, lease_s=0.2)  # a beat every 0.05 s
    answered = asyncio.Event()

    async def asks(io: Any) -> types.CallToolResult:
        from mcpnb.probekit.tools.tasksuite import Confirm

        await io.ask("x" * 10_000, Confirm)
        answered.set()
        return types.CallToolResult(content=[])

    record = await manager.create("asks", asks)
    await until_status(manager, record.task_id, "input_required")
    before = len(store.writes)
    for _ in range(400):
        if len(store.writes) >= before + 4:
            break
        await asyncio.sleep(0.01)
    beats = store.writes[before:]
    assert len(beats) >= 4 and all("doc" not in written and "lease" in written for written in beats), beats
    await manager.shutdown()


# --- 3. a big body is not read past the SDK's limit ------------------------------------------------------


@pytest.mark.anyio
async def test_a_body_past_the_limit_is_answered_413_unread(project: Path) -> None:
    from mcpnb.probekit.app import build_app

    app = build_app(create_server(root=project))
    pulled = 0
    megabyte = b"x" * (1024 * 1024)

    async def body() -> AsyncIterator[bytes]:
        nonlocal pulled
        for _ in range(64):
            pulled += 1
            yield megabyte

    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    transport = httpx.ASGITransport(app=app)
    inner = app.app  # the SDK's Starlette app: its lifespan runs the session manager
    async with (
        inner.router.lifespan_context(inner),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http,
    ):
        answer = await http.post("/mcp", content=body(), headers=headers)
        assert answer.status_code == 413 and answer.text == "Request body too large"
        assert pulled <= 6, f"{pulled} MiB read of a body the SDK refuses past 4 MiB"
        said = await http.post("/mcp", content=b"x", headers={**headers, "content-length": str(400 << 20)})
        assert said.status_code == 413 and said.text == "Request body too large"
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        shook = await http.post("/mcp", json=hello, headers=headers)  # a handshake still goes through
        assert shook.status_code == 200 and shook.headers.get("mcp-session-id")


# --- 4. slow_task's work is off the event loop ------------------------------------------------------------


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``primes_in`` that waits until the event loop lets it go (or gives up): whether the loop could
    run while a block was being counted."""
    gate = {"started": threading.Event(), "release": threading.Event(), "released": []}
    real = demo.primes_in

    def primes_in(lo: int, hi: int) -> list[int]:
        gate["started"].set()
        gate["released"].append(gate["release"].wait(10))  # False: the loop never got to release it
        return real(lo, hi)

    monkeypatch.setattr(demo, "primes_in", primes_in)
    yield gate
    gate["release"].set()


@pytest.mark.anyio
async def test_slow_task_blocks_leave_the_loop_free(gated: dict[str, Any]) -> None:
    manager = TaskManager()
    record = await manager.create("slow_task", lambda io: demo.slow_task_run(io, steps=1, delay=0))
    while not gated["started"].is_set():  # the block has begun
        await asyncio.sleep(0.01)
    gated["release"].set()  # runs only if the loop is free while the block counts
    await until_status(manager, record.task_id, "completed")
    assert gated["released"] == [True]
    await manager.shutdown()


@pytest.mark.anyio
async def test_slow_task_refuses_more_numbers_than_a_class_can_share() -> None:
    manager = TaskManager()
    record = await manager.create("slow_task", lambda io: demo.slow_task_run(io, steps=1000, block=100_000))
    await until_status(manager, record.task_id, "failed")
    assert "steps x block must be at most 2,000,000" in (await manager.get(record.task_id)).status_message
    await manager.shutdown()
