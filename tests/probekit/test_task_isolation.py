"""2025-11-25 ``tasks/list`` lists the requestor's own tasks only (the spec's "Task Isolation and
Access Control": "receivers MUST ensure the returned task list includes only tasks associated with
the requestor's authorization context"; probe-kit has no authorization, so the context is the
session). A classroom sweep saw one student's ``tasks/list`` hand out all eight students' task ids,
and then read another's result with them.

A task id stays a capability (the spec's fallback without authorization: ids nobody can guess):
whoever holds one may still get, wait for and cancel that task, from any session or worker.

Two students are two sessions of the SDK's own client (``mcp.Client``, a client we did not write)
on one server: in-process, over HTTP on 127.0.0.1 (each with its own ``Mcp-Session-Id``), and on
each task store (memory, SQLite, Redis). (The 2026-07-28 era has no ``tasks/list`` at all:
test_tasks_wire holds it to -32601.)
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from mcpnb.probekit import create_server, serve_http
from mcpnb.probekit.taskstore import open_store
from tests.probekit.stores import STORES, redis_server, store_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.anyio

QUICK = {"steps": 1, "delay": 0}
SLOW = {"steps": 400, "delay": 0.05}


async def start(client: Client, arguments: dict[str, Any] = QUICK) -> str:
    """A 2025-11-25 task-augmented ``tools/call``, sent raw; the new task's id."""
    send = client.session._dispatcher.send_raw_request
    created = await send("tools/call", {"name": "slow_task", "arguments": arguments, "task": {}}, {})
    return created["task"]["taskId"]


async def listed(client: Client) -> list[str]:
    """Every page of ``tasks/list`` as the SDK's own request and result types read it."""
    ids: list[str] = []
    cursor: str | None = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await client.session.send_request(types.ListTasksRequest(params=params), types.ListTasksResult)
        ids += [t.task_id for t in page.tasks]
        cursor = page.next_cursor
        if cursor is None:
            return ids


async def get(client: Client, task_id: str) -> types.GetTaskResult:
    params = types.GetTaskRequestParams(task_id=task_id)
    return await client.session.send_request(types.GetTaskRequest(params=params), types.GetTaskResult)


@contextlib.asynccontextmanager
async def student(url: str) -> AsyncIterator[Client]:
    """One student's 2025-11-25 session over HTTP: the SDK's client on its own ``httpx`` client."""
    http = httpx.AsyncClient(timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        yield client


async def _two_students_list_only_their_own(ann: Client, bob: Client) -> None:
    anns = [await start(ann), await start(ann)]
    bobs = [await start(bob)]
    anns.append(await start(ann))
    assert await listed(ann) == anns
    assert await listed(bob) == bobs
    for task_id in anns + bobs:  # 128 random bits each, from the OS: nothing to guess from another
        assert re.fullmatch(r"[0-9a-f]{32}", task_id), task_id
    assert len(set(anns + bobs)) == 4
    # the id is the capability: Bob, who was given Ann's id, may read it (not list it)
    assert (await get(bob, anns[0])).task_id == anns[0]
    assert anns[0] not in await listed(bob)


async def test_two_in_process_sessions_list_only_their_own_tasks(project: Path, store_url: str) -> None:  # noqa: F811
    server = create_server(root=project, task_store=store_url, poll_interval_ms=10)
    async with Client(server, mode="legacy") as ann, Client(server, mode="legacy") as bob:
        await _two_students_list_only_their_own(ann, bob)
        async with Client(server, mode="legacy") as cleo:  # a new session starts with none
            assert await listed(cleo) == []


async def test_two_http_sessions_list_only_their_own_tasks(project: Path) -> None:
    handle = await serve_http(create_server(root=project, poll_interval_ms=10))
    try:
        async with student(handle.url) as ann, student(handle.url) as bob:
            await _two_students_list_only_their_own(ann, bob)
    finally:
        await handle.stop()


async def test_a_task_id_still_reads_answers_and_cancels_from_another_session(project: Path) -> None:
    """What the listing no longer gives away still works for whoever holds the id (as documented):
    another session waits for its result and cancels another task by id."""
    server = create_server(root=project, poll_interval_ms=10)
    async with Client(server, mode="legacy") as ann, Client(server, mode="legacy") as bob:
        done, running = await start(ann), await start(ann, SLOW)
        send = bob.session._dispatcher.send_raw_request
        result = await send("tasks/result", {"taskId": done}, {})
        assert result["structuredContent"]["totalPrimes"] >= 0
        cancelled = await send("tasks/cancel", {"taskId": running}, {})
        assert cancelled["status"] == "cancelled"
        assert (await get(ann, running)).status == "cancelled"
        assert await listed(bob) == []


async def test_the_store_keeps_a_token_not_the_session_id(project: Path, tmp_path: Path) -> None:
    """What binds a task to its session is a random token: the ``Mcp-Session-Id`` never reaches the
    store (a shared Redis is readable by whoever runs it). Raw JSON-RPC over HTTP, to see the header."""
    url = f"sqlite://{tmp_path / 'tasks.db'}"
    handle = await serve_http(create_server(root=project, task_store=url, poll_interval_ms=10))
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            session_id = await _open(http, handle.url)
            call = {"name": "slow_task", "arguments": QUICK, "task": {}}
            created = await _rpc(http, handle.url, session_id, "tools/call", call)
            task_id = created["result"]["task"]["taskId"]
            page = await _rpc(http, handle.url, session_id, "tasks/list", {})
            assert [t["taskId"] for t in page["result"]["tasks"]] == [task_id]
        store = open_store(url)
        try:
            fields = await store.read(task_id)
        finally:
            await store.close()
        assert fields is not None and fields["context"].startswith("session-")
        assert all(session_id not in value for value in fields.values())
    finally:
        await handle.stop()


HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def _open(http: httpx.AsyncClient, url: str) -> str:
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    opened = await http.post(
        url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, headers=HEADERS
    )
    session_id = opened.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=done, headers=_session(session_id))
    return session_id


def _session(session_id: str) -> dict[str, str]:
    return {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}


async def _rpc(
    http: httpx.AsyncClient, url: str, session_id: str, method: str, params: dict[str, Any]
) -> Any:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = await http.post(url, json=message, headers=_session(session_id))
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        data = [
            line[5:] for line in answer.text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
        return json.loads(data[-1])
    return answer.json()
