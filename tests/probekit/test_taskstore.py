"""The three task stores keep the same promises: fields, guarded writes, expiry, order, notices.

Each test runs against memory, a SQLite file and a real redis-server (see ``stores.py``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from mcpnb.probekit.taskstore import TaskStore, TaskStoreError, open_store, safe_url
from mcpnb.probekit.taskstore.memory import MemoryStore
from tests.probekit.stores import SHARED, STORES, redis_server, store_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(store_url: str) -> TaskStore:  # noqa: F811
    opened = open_store(store_url)
    yield opened
    await opened.close()


def task(status: str = "working", **more: str) -> dict[str, str]:
    return {"status": status, "doc": "{}", **more}


async def until(predicate, ticks: int = 400) -> None:  # type: ignore[no-untyped-def]
    for _ in range(ticks):
        if await predicate():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("condition never held")


async def test_fields_round_trip_in_creation_order(store: TaskStore) -> None:
    now = time.time()
    await store.insert("b", task(lease="1.5"), created=now + 1, expires_at=None)
    await store.insert("a", task("queued"), created=now, expires_at=now + 60)
    assert await store.read("a") == task("queued")
    assert await store.read("nope") is None
    assert await store.read_many(["b", "nope", "a"]) == [task(lease="1.5"), None, task("queued")]
    if isinstance(store, MemoryStore):  # memory keeps insertion order, which is creation order there
        assert [t for t, _ in await store.scan(["status"])] == ["b", "a"]
    else:
        assert await store.scan(["status", "lease"]) == [
            ("a", {"status": "queued"}),
            ("b", {"status": "working", "lease": "1.5"}),
        ]


async def test_a_finished_task_never_changes_and_the_first_ending_wins(store: TaskStore) -> None:
    await store.insert("t", task(), created=time.time(), expires_at=None)
    assert await store.write("t", {"status": "completed", "doc": '{"n":1}'}, expires_at=None)
    assert not await store.write("t", {"status": "failed", "doc": '{"n":2}'}, expires_at=None)
    assert (await store.read("t"))["status"] == "completed"
    assert await store.write("t", {"note": "x"}, expires_at=None, unless_terminal=False)
    assert not await store.write("gone", task(), expires_at=None)


async def test_a_lease_guard_lets_only_an_expired_lease_be_taken_over(store: TaskStore) -> None:
    await store.insert("t", task(lease="100.0"), created=time.time(), expires_at=None)
    assert not await store.write("t", task("failed"), expires_at=None, lease_before=100.0)  # not older
    assert await store.write("t", task(lease="200.0"), expires_at=None)  # the owner renews
    assert not await store.write("t", task("failed"), expires_at=None, lease_before=150.0)
    assert await store.write("t", task("failed"), expires_at=None, lease_before=250.0)
    assert (await store.read("t"))["status"] == "failed"


async def test_add_sets_a_field_once_and_only_on_an_unfinished_task(store: TaskStore) -> None:
    await store.insert("t", task(), created=time.time(), expires_at=None)
    assert await store.add("t", "answer:input-1", '{"action":"accept"}')
    assert not await store.add("t", "answer:input-1", '{"action":"decline"}')
    assert (await store.read("t"))["answer:input-1"] == '{"action":"accept"}'
    assert not await store.add("nope", "cancel", "1")
    await store.write("t", {"status": "cancelled"}, expires_at=None)
    assert not await store.add("t", "cancel", "1")


async def test_the_store_expires_tasks(store: TaskStore, kind: str) -> None:
    """Redis expires the key itself; SQLite and memory hide it on read and sweep removes it."""
    await store.read("warm-up")  # the first request opens the connection (or the file)
    now = time.time()
    await store.insert("short", task(), created=now, expires_at=now + 1.0)
    await store.insert("long", task(), created=now, expires_at=now + 600)
    assert await store.read("short") is not None
    await until(lambda: _gone(store, "short"))
    assert [t for t, _ in await store.scan(["status"])] == ["long"]
    assert not await store.write("short", task(), expires_at=None)  # an expired task cannot come back
    await store.write("long", task("completed"), expires_at=time.time() - 1)  # ended, TTL already over
    await store.sweep()
    assert await store.read("long") is None and await store.scan(["status"]) == []
    if kind == "sqlite":
        import sqlite3

        with sqlite3.connect(store.path) as db:  # type: ignore[attr-defined]
            assert db.execute("SELECT COUNT(*) FROM tasks").fetchone() == (0,)
            assert db.execute("SELECT COUNT(*) FROM fields").fetchone() == (0,)
    if kind == "redis":  # the key expired in Redis itself, and no TTL-less leftovers
        ttl = await store._redis().pttl("probekit:task:long")  # type: ignore[attr-defined]
        assert ttl == -2


async def _gone(store: TaskStore, task_id: str) -> bool:
    return await store.read(task_id) is None


async def test_a_running_task_keeps_no_expiry_until_given_one(store: TaskStore, kind: str) -> None:
    await store.insert("t", task(), created=time.time(), expires_at=time.time() + 0.5)
    assert await store.write("t", task(), expires_at=None)  # None: keep forever
    await asyncio.sleep(0.7)
    assert await store.read("t") is not None


@pytest.mark.parametrize("kind", SHARED)
async def test_notices_reach_every_listener(store: TaskStore, kind: str, store_url: str) -> None:  # noqa: F811
    other = open_store(store_url)  # a second worker's connection to the same store
    heard: list[str] = []
    listening = asyncio.create_task(other.listen(heard.append))
    try:
        await asyncio.sleep(0.2)  # a listener hears notices from when it started; give it that moment
        await until(lambda: _publish_seen(store, heard, "t1"))
        assert "t1" in heard
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        await other.close()


async def _publish_seen(store: TaskStore, heard: list[str], task_id: str) -> bool:
    if task_id in heard:
        return True
    await store.publish(task_id)
    await asyncio.sleep(0.1)
    return task_id in heard


def test_urls_choose_the_store_and_hide_passwords(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_TASK_STORE", raising=False)
    assert isinstance(open_store(), MemoryStore)
    monkeypatch.setenv("MCP_TASK_STORE", f"sqlite://{tmp_path / 'x.db'}")
    assert type(open_store()).__name__ == "SqliteStore"
    assert type(open_store("redis://127.0.0.1:1/0")).__name__ == "RedisStore"
    with pytest.raises(TaskStoreError, match="unknown task store 'postgres://u:\\*\\*\\*@db:5432/x'"):
        open_store("postgres://u:hunter2@db:5432/x")
    with pytest.raises(TaskStoreError, match="names no file"):
        open_store("sqlite://")
    assert safe_url("redis://:s3cret@127.0.0.1:6379/0") == "redis://:***@127.0.0.1:6379/0"
    assert safe_url("redis://user:s3cret@h/1") == "redis://user:***@h/1"
    assert "s3cret" not in repr(open_store("redis://:s3cret@127.0.0.1:6379/0"))


async def test_a_redis_server_that_is_not_there_is_a_clear_error() -> None:
    from tests.probekit.stores import free_port

    store = open_store(f"redis://:s3cret@127.0.0.1:{free_port()}/0")
    shown = r"task store redis://:\*\*\*@127\.0\.0\.1:\d+/0: read failed"
    with pytest.raises(TaskStoreError, match=shown) as info:
        await store.read("x")
    assert "s3cret" not in str(info.value)
    await store.close()


async def test_a_sqlite_file_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = open_store(f"sqlite://{blocker / 'tasks.db'}")  # a folder that is a file
    with pytest.raises(TaskStoreError, match="cannot open the task store sqlite://"):
        await store.read("x")
    await store.close()


async def test_the_server_says_which_store_and_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from mcp import Client

    from mcpnb.probekit import create_server

    monkeypatch.setenv("MCP_TASK_STORE", f"sqlite://{tmp_path / 'env.db'}")  # the environment's choice
    server = create_server("core", root=tmp_path)
    async with Client(server) as client:
        status = json.loads((await client.read_resource("probe://status")).contents[0].text)
    assert status["taskStore"] == f"sqlite://{tmp_path / 'env.db'}" and status["worker"].startswith("pid ")
    hidden = create_server("core", root=tmp_path, task_store="redis://:s3cret@127.0.0.1:1/0")
    assert hidden.probe_state.tasks.store.url == "redis://:***@127.0.0.1:1/0"  # type: ignore[attr-defined]
    with pytest.raises(TaskStoreError, match="unknown task store"):
        create_server("core", root=tmp_path, task_store="mysql://x")


def test_worker_settings_travel_in_the_environment() -> None:
    from mcpnb.probekit.app import options_from_env, options_to_env

    env = options_to_env(
        {"root": "/r", "task_ttl_ms": 500, "task_lease_s": 2.5, "max_concurrent_tasks": None}, "::1"
    )
    assert env == {"MCP_PROBEKIT_ROOT": "/r", "MCP_PROBEKIT_TASK_TTL_MS": "500",
                   "MCP_PROBEKIT_TASK_LEASE_S": "2.5", "MCP_PROBEKIT_HOST": "::1"}  # fmt: skip
    assert options_from_env(env) == {"root": "/r", "task_ttl_ms": 500, "task_lease_s": 2.5}
    with pytest.raises(ValueError, match="MCP_PROBEKIT_MAX_TASKS='many': expected a whole number"):
        options_from_env({"MCP_PROBEKIT_MAX_TASKS": "many"})
