"""``dice_history`` is each client's own: on a probe-kit a class shares, one list per worker process
showed every student the others' rolls, and a different list on each worker.

Two students are two SDK clients (``mcp.Client``, a client we did not write), each with its own
HTTP cookie jar: on one probe-kit served over HTTP (both eras: a 2025-11-25 session, the
2026-07-28 cookie), and on ``--workers 2`` with a real redis-server, where one student's
connections land on both workers and see the same list on each. The stores keep the short lists
the same way (memory, SQLite, Redis), and the cookie itself is never written to the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_MODERN_VERSION

from mcpnb.probekit import create_server, serve_http
from mcpnb.probekit.consents import CLIENT_COOKIE
from mcpnb.probekit.taskstore import open_store
from tests.probekit.stores import STORES, flush, redis_server, store_url  # noqa: F401  (fixtures)
from tests.probekit.test_workers import Worker, _workers_of, until

pytestmark = pytest.mark.anyio

#: The totals ``dice_history`` keeps: the last 20.
KEPT = 20


@contextlib.asynccontextmanager
async def student(url: str, mode: str = "auto", cookies: httpx.Cookies | None = None) -> AsyncIterator[Any]:
    """One student's connection: the SDK's client over its own ``httpx`` client (its cookie jar)."""
    http = httpx.AsyncClient(cookies=cookies, timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        client.jar = http.cookies  # type: ignore[attr-defined]
        yield client


async def roll(client: Any) -> int:
    result = await client.call_tool("dice", {"count": 2, "sides": 100})
    return result.structured_content["total"]


async def history(client: Any) -> list[int]:
    return (await client.call_tool("dice_history", {})).structured_content["totals"]


# --- one probe-kit, two students ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_two_students_each_see_their_own_rolls(project: Path, mode: str) -> None:
    handle = await serve_http(create_server(root=project, toolset="apps"))
    try:
        async with student(handle.url, mode) as ann, student(handle.url, mode) as bob:
            anns = [await roll(ann), await roll(ann)]
            bobs = [await roll(bob)]
            anns.append(await roll(ann))
            assert await history(ann) == anns
            assert await history(bob) == bobs
        async with student(handle.url, mode) as cleo:  # a new student starts with none
            assert await history(cleo) == []
    finally:
        await handle.stop()


async def test_in_process_one_server_is_one_person(project: Path) -> None:
    async with Client(create_server(root=project, toolset="apps")) as client:
        rolled = [await roll(client) for _ in range(22)]
        assert await history(client) == rolled[-KEPT:]  # the last 20


# --- several workers, a real redis-server --------------------------------------------------------------


async def _worker_of(client: Any) -> str:
    status = await client.read_resource("probe://status")
    return json.loads(status.contents[0].text)["worker"]


def test_a_student_sees_the_same_history_on_every_worker(redis_server: str, tmp_path: Path) -> None:  # noqa: F811
    flush(redis_server)
    url = f"{redis_server}/0"
    served = Worker(url, tmp_path, tmp_path / "log", "--workers", "2")
    try:
        until(lambda: _workers_of(served.proc.pid, 2), "two worker processes", ticks=300, every=0.1)
        asyncio.run(_both_serving(served.url))
        cookie = asyncio.run(_classroom(served.url))
        keys = asyncio.run(_recent_keys(url))
    finally:
        served.stop()
    assert len(keys) == 2 and all(cookie not in key for key in keys)  # one list per student, hashed


async def _both_serving(url: str) -> None:
    """Wait until each worker has answered a connection (one that rolls nothing). A worker process
    exists well before it accepts: until then every connection queues for the other, and on a busy
    machine a first ``server/discover`` waited past the SDK's 10 s, so ``mode="auto"`` fell back to
    a 2025-11-25 session, which a multi-worker probe-kit cannot keep (the next request reached the
    other worker: "Session not found"). 2026-07-28 only here, so a slow answer is retried, never
    taken for another era."""
    seen: set[str | None] = set()
    deadline = time.monotonic() + 90
    while len(seen - {None}) < 2:
        assert time.monotonic() < deadline, f"only these workers ever answered: {seen - {None}}"
        seen.add(await _answering_worker(url))


async def _answering_worker(url: str) -> str | None:
    """The worker a new 2026-07-28 connection reached, or None if none answered within the SDK's wait."""
    worker = None
    try:
        async with student(url, LATEST_MODERN_VERSION) as someone:
            worker = await _worker_of(someone)
    except* MCPError:  # (the SDK's transport hands it over in an exception group)
        pass
    return worker


async def _classroom(url: str) -> str:
    async with student(url) as ann, student(url) as bob:
        anns, bobs = [await roll(ann)], [await roll(bob), await roll(bob)]
        jar, bobs_jar = ann.jar, bob.jar
    seen: dict[str, list[int]] = {}
    for _ in range(60):  # new connections: the kernel gives each to either worker (not evenly)
        async with student(url, cookies=jar) as again:
            worker = await _worker_of(again)
            anns.append(await roll(again))
            seen[worker] = await history(again)
            assert seen[worker] == anns[-KEPT:], f"on {worker}"  # past 20 rolls, the last 20
        if len(seen) == 2:
            break
    assert len(seen) == 2, f"every connection went to one worker: {list(seen)}"
    async with student(url, cookies=jar) as again:
        assert await history(again) == anns[-KEPT:]
    async with student(url) as newcomer:
        assert await history(newcomer) == []
    async with student(url, cookies=bobs_jar) as bob:
        assert await history(bob) == bobs
    return jar.get(CLIENT_COOKIE)


async def _recent_keys(url: str) -> list[str]:
    import redis.asyncio as aioredis

    client = aioredis.from_url(url, decode_responses=True)
    try:
        return sorted(await client.keys("probekit:recent:*"))
    finally:
        await client.aclose()


# --- the stores' short lists ---------------------------------------------------------------------------


async def test_every_store_keeps_the_newest_values_of_each_list(store_url: str) -> None:  # noqa: F811
    store = open_store(store_url)
    try:
        for value in "abcde":
            await store.remember("one", value, keep=3, ttl_s=60)
        await store.remember("two", "x", keep=3, ttl_s=60)
        assert await store.recall("one") == ["c", "d", "e"]
        assert await store.recall("two") == ["x"]
        assert await store.recall("none") == []
        await store.remember("brief", "y", keep=3, ttl_s=0.05)
        await asyncio.sleep(0.2)
        assert await store.recall("brief") == []
        await store.sweep()
        assert await store.recall("one") == ["c", "d", "e"]
    finally:
        await store.close()
