"""``tasks/list`` in pages (2025-11-25: "this operation supports cursor-based pagination"; the
pagination page: opaque cursors, the page size is the server's, an invalid cursor is -32602).

A classroom's shared probe-kit held ~5,800 tasks and answered ``tasks/list`` with all of them at
once (1.2-1.7 s and +130 MB per call). Here: every store pages in creation order without repeats or
gaps while tasks come and go; a page reads in full only its own session's tasks (a session lists
only its own: test_task_isolation); and the pages are walked by three clients: the SDK's own session
with its ``ListTasksRequest``/``ListTasksResult`` types, raw JSON-RPC over HTTP (httpx) against a
real probe-kit process on a real redis-server, and mcpnb's pool.
(2026-07-28 has no ``tasks/list``: SEP-2663's methods are get, update and cancel; test_tasks_wire
checks it stays -32601.)
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client, MCPError, types

from mcpnb.probekit import create_server, tasks_wire
from mcpnb.probekit.taskrecord import TaskRecord
from mcpnb.probekit.taskstore import Fields, TaskStore, open_store
from mcpnb.probekit.taskstore.memory import MemoryStore
from tests.probekit.stores import STORES, redis_server, store_url  # noqa: F401  (fixtures)
from tests.probekit.test_workers import Worker

QUICK = {"steps": 1, "delay": 0}
#: probe-kit's page size (``tasks_wire.LIST_PAGE``; a client must not assume it, a test of it may).
PAGE = 100
Position = tuple[float, str]
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def finished(task_id: str, created: float, context: str | None = None) -> Fields:
    """The store fields of a completed task (as a worker writes them), of session ``context``."""
    result = types.CallToolResult(content=[types.TextContent(type="text", text=f"done {task_id}")])
    record = TaskRecord(
        task_id=task_id, tool="greet", ttl_ms=600_000, created=created, updated=created,
        status="completed", status_message="completed", result=result, finished=created, context=context,
    )  # fmt: skip
    return record.to_fields()


async def fill(
    store: TaskStore, count: int, *, start: float | None = None, contexts: Sequence[str | None] = (None,)
) -> list[str]:
    """``count`` finished tasks created a millisecond apart, of each of ``contexts`` in turn (the
    sessions that made them); their ids in creation order."""
    base = time.time() if start is None else start
    ids = [f"{i:05d}-{uuid.uuid4().hex[:8]}" for i in range(count)]
    for i, task_id in enumerate(ids):
        created = base + i / 1000
        fields = finished(task_id, created, contexts[i % len(contexts)])
        await store.insert(task_id, fields, created=created, expires_at=base + 600)
    return ids


async def context_of(store: TaskStore, task_id: str) -> str:
    """The session token a task was made in, as probe-kit wrote it into the store."""
    fields = await store.read(task_id)
    assert fields is not None
    return fields["context"]


async def walk(store: TaskStore, limit: int, after: Position | None = None) -> list[str]:
    seen: list[str] = []
    while True:
        rows = await store.page(["status"], after, limit)
        seen += [task_id for (_, task_id), _ in rows]
        if len(rows) < limit:
            return seen
        after = rows[-1][0]


# --- the stores -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_store_pages_in_creation_order_while_tasks_come_and_go(store_url: str) -> None:  # noqa: F811
    store = open_store(store_url)
    try:
        now = time.time()
        for task_id, created in [("b", now), ("a", now), ("c", now + 1), ("e", now + 3)]:  # a, b: a tie
            await store.insert(task_id, finished(task_id, created), created=created, expires_at=now + 600)
        await store.insert("d", finished("d", now + 2), created=now + 2, expires_at=now - 1)  # expired
        first = await store.page(["status", "doc"], None, 2)
        assert [(p, sorted(f)) for p, f in first] == [
            ((now, "a"), ["doc", "status"]),
            ((now, "b"), ["doc", "status"]),
        ]
        # between two pages: the task the cursor names expires, an older one and a newer one appear
        await store.write("b", {"status": "completed"}, expires_at=now - 1, unless_terminal=False)
        await store.insert("0", finished("0", now - 5), created=now - 5, expires_at=now + 600)
        await store.insert("f", finished("f", now + 4), created=now + 4, expires_at=now + 600)
        assert await walk(store, 2, after=first[-1][0]) == ["c", "e", "f"]  # no repeat, no gap
        assert await walk(store, 2) == ["0", "a", "c", "e", "f"]
        assert await walk(store, 100) == ["0", "a", "c", "e", "f"]
        assert await store.page(["status"], (now + 4, "f"), 10) == []
    finally:
        await store.close()


class CountingStore(MemoryStore):
    """The memory store, counting the tasks it hands out whole (what the manager then rebuilds; a
    page's look at a task's ``context`` field alone is not counted)."""

    def __init__(self) -> None:
        super().__init__()
        self.handed = 0

    async def read(self, task_id: str) -> Fields | None:
        self.handed += 1
        return await super().read(task_id)

    async def read_many(self, task_ids: Sequence[str]) -> list[Fields | None]:
        return [await self.read(t) for t in task_ids]  # each counted by read (as the memory store does)

    async def scan(self, names: Sequence[str]) -> list[tuple[str, Fields]]:
        found = await super().scan(names)
        self.handed += len(found)
        return found

    async def page(
        self, names: Sequence[str], after: Position | None, limit: int
    ) -> list[tuple[Position, Fields]]:
        found = await super().page(names, after, limit)
        self.handed += sum("doc" in fields for _, fields in found)
        return found


@pytest.mark.anyio
async def test_one_page_reads_one_page_of_a_big_store(project: Path) -> None:
    """A session's page reads its own tasks whole, and of the other sessions' only whose they are."""
    store = CountingStore()
    server = create_server(root=project, task_store=store, poll_interval_ms=10)
    async with Client(server, mode="legacy") as client:
        send = client.session._dispatcher.send_raw_request
        first = await send("tools/call", {"name": "slow_task", "arguments": QUICK, "task": {}}, {})
        mine = await context_of(store, first["task"]["taskId"])
        ids = await fill(store, 6000, contexts=[mine, "session-of-another-student"])
        store.handed = 0
        page = await _list(client)
        assert [t.task_id for t in page.tasks] == [first["task"]["taskId"], *ids[0::2][: PAGE - 1]]
        assert page.next_cursor
        assert store.handed <= PAGE + 1  # the page and the one that says "there is more"
    assert tasks_wire.LIST_PAGE == PAGE


# --- the SDK's session (a client we did not write), in-process, on each store ------------------------


async def _list(client: Client, cursor: str | None = None) -> types.ListTasksResult:
    params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
    return await client.session.send_request(types.ListTasksRequest(params=params), types.ListTasksResult)


@pytest.mark.anyio
async def test_the_sdk_session_walks_the_pages(
    project: Path,
    store_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tasks_wire, "LIST_PAGE", 3, raising=False)
    server = create_server(root=project, task_store=store_url, poll_interval_ms=10)
    async with Client(server, mode="legacy") as client:
        send = client.session._dispatcher.send_raw_request
        made = []
        for _ in range(7):
            created = await send("tools/call", {"name": "slow_task", "arguments": QUICK, "task": {}}, {})
            made.append(created["task"]["taskId"])
        pages, cursor = [], None
        while True:
            page = await _list(client, cursor)
            pages.append([t.task_id for t in page.tasks])
            cursor = page.next_cursor
            if cursor is None:
                break
        assert [len(p) for p in pages] == [3, 3, 1]
        assert [t for p in pages for t in p] == made  # oldest first, each once
        with pytest.raises(MCPError) as info:
            await _list(client, "not-a-cursor")
        assert info.value.code == -32602
        assert "Invalid cursor for tasks/list" in info.value.message and "nextCursor" in info.value.message


@pytest.mark.anyio
async def test_cursors_this_server_did_not_give_are_refused(server: Any) -> None:
    forged = [
        "",
        "%%%",
        "WyJ0YXNrcy1hZnRlci0xIiwxLjAsIngiXQ"[:-3],  # a real one (["tasks-after-1",1.0,"x"]) cut short
        "WyJvdGhlciIsMSwieCJd",  # base64 of ["other",1,"x"]: another format
        "WyJ0YXNrcy1hZnRlci0xIiwiTmFOIiwieCJd",  # the right kind, a time that is not a number
        "x" * 5000,
    ]
    async with Client(server, mode="legacy") as client:
        for cursor in forged:
            with pytest.raises(MCPError) as info:
                await _list(client, cursor)
            assert info.value.code == -32602, cursor
            assert len(info.value.message) < 400  # a huge cursor is not echoed back whole
        assert (await _list(client, tasks_wire.encode_cursor((1.0, "x")))).tasks == []  # a real one


# --- a real probe-kit process on a real redis-server: raw JSON-RPC over HTTP, and mcpnb's pool ----------


def _rpc(http: httpx.Client, url: str, session: str, message: dict[str, Any]) -> dict[str, Any]:
    headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    answer = http.post(url, json=message, headers=headers)
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        data = [
            line[5:] for line in answer.text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
        return json.loads(data[-1])
    return answer.json()


def _open(http: httpx.Client, url: str) -> str:
    hello = {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}},
    }  # fmt: skip
    opened = http.post(url, json=hello, headers=HEADERS)
    session = opened.headers["mcp-session-id"]
    done = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=done)
    return session


def test_a_probe_kit_on_redis_pages_its_tasks_over_http(
    redis_server: str,  # noqa: F811
    tmp_path: Path,
    pool: Any,
) -> None:
    """Two sessions on one probe-kit, each with thousands of tasks: raw JSON-RPC over HTTP walks its
    own pages, and mcpnb's pool (another session) walks its own; neither sees the other's."""
    from tests.probekit.stores import flush

    flush(redis_server)
    url = f"{redis_server}/0"
    count = 2 * PAGE + 36
    served = Worker(url, tmp_path, tmp_path / "log")
    try:
        with httpx.Client(timeout=30) as http:
            session = _open(http, served.url)
            call = {"name": "slow_task", "arguments": QUICK, "task": {}}
            made = {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": call}
            first = _rpc(http, served.url, session, made)["result"]["task"]["taskId"]
            pool.connect("probe", url=served.url, era="legacy", wait=30)
            pools = pool.start_task("probe", "slow_task", QUICK).task_id
            ids = asyncio.run(_fill_both(open_store(url), first, pools, count))
            seen, sizes, cursor, n = [], [], None, 1
            while True:
                params = {} if cursor is None else {"cursor": cursor}
                answer = _rpc(
                    http,
                    served.url,
                    session,
                    {"jsonrpc": "2.0", "id": n, "method": "tasks/list", "params": params},
                )
                page = answer["result"]
                sizes.append(len(page["tasks"]))
                seen += [t["taskId"] for t in page["tasks"]]
                assert all(t["status"] in ("working", "completed") and "ttl" in t for t in page["tasks"])
                cursor, n = page.get("nextCursor"), n + 1
                if cursor is None:
                    break
            assert sizes == [PAGE, PAGE, 37] and seen == [first, *ids[0::2]]
            bad = {"jsonrpc": "2.0", "id": 99, "method": "tasks/list", "params": {"cursor": "nope"}}
            error = _rpc(http, served.url, session, bad)["error"]
            assert error["code"] == -32602 and "Invalid cursor for tasks/list" in error["message"]
        listed = pool.tasks("probe")  # mcpnb's client follows nextCursor to the end
        assert sorted(h.task_id for h in listed) == sorted([pools, *ids[1::2]])
    finally:
        served.stop()


async def _fill_both(store: TaskStore, first: str, second: str, count: int) -> list[str]:
    """``count`` tasks for each of the two sessions that made ``first`` and ``second``, in turn."""
    try:
        contexts = [await context_of(store, first), await context_of(store, second)]
        return await fill(store, 2 * count, contexts=contexts)
    finally:
        await store.close()
