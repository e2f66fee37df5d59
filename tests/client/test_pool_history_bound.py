"""What a pool keeps of the servers it disconnected: the newest few, each its configuration and its
log (what ``reconnect`` and ``logs`` read), never the stopped connection with its tool catalog.

The soak sweep: disconnecting servers of a new name each time kept every stopped connection (an
in-process one about 0.65 MB) and every name's row place, and a closed pool kept them all.
"""

from __future__ import annotations

import gc
import types
import weakref

import pytest
from conftest import demo_command, demo_server_object

from mcpnb import Pool
from mcpnb.client import pool as pool_module
from mcpnb.client.catalog import ToolCatalog
from mcpnb.client.connection import Connection
from mcpnb.client.errors import UnknownServerError
from mcpnb.client.runtime import Runtime

KEPT = 3


@pytest.fixture
def few(monkeypatch):
    """A pool that remembers ``KEPT`` disconnected servers (the real bound, made small)."""
    monkeypatch.setattr(pool_module, "DISCONNECTED_KEPT", KEPT, raising=False)


def churn(pool: Pool, names: list[str]) -> None:
    """Connect each in-process demo server, call it, disconnect it."""
    for name in names:
        pool.connect(name, server=demo_server_object())
        assert pool.call(name, "echo", {"text": name}).data == name
        pool.disconnect(name)


def held_by(pool: Pool, kinds: tuple[type, ...]) -> list[object]:
    """Objects of ``kinds`` that the pool itself holds (its own attributes, followed through
    containers and objects; not through the shared runtime, code or modules)."""
    stop = (
        Runtime,
        Pool,
        types.ModuleType,
        type,
        types.FunctionType,
        types.CodeType,
        types.FrameType,
        weakref.ref,
    )
    seen: set[int] = set()
    found: list[object] = []
    todo = [value for key, value in vars(pool).items() if key != "runtime"]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, stop):
            continue
        seen.add(id(obj))
        if isinstance(obj, kinds):
            found.append(obj)
            continue
        todo.extend(gc.get_referents(obj))
    return found


def test_only_the_newest_disconnected_servers_are_remembered(pool, few):
    names = [f"s{i}" for i in range(KEPT + 3)]
    churn(pool, names)
    assert [n for n in names if pool.was_disconnected(n)] == names[-KEPT:]
    assert len(pool._disconnected) == KEPT and list(pool._order) == names[-KEPT:]  # the rows' places too
    with pytest.raises(UnknownServerError, match="no server named 's0'"):  # forgotten: as if never connected
        pool.call("s0", "echo", {"text": "x"})
    with pytest.raises(UnknownServerError, match="was disconnected"):
        pool.call(names[-1], "echo", {"text": "x"})
    assert pool.reconnect(names[-1]).state == "connected"  # a remembered one, with its configuration
    assert pool.call(names[-1], "echo", {"text": "back"}).data == "back"
    assert [row.name for row in pool.status()] == [names[-1]]


def test_disconnecting_a_remembered_name_again_makes_it_the_newest(pool, few):
    churn(pool, ["a", "b", "c"])
    churn(pool, ["a", "d"])  # "a" again: "b", the oldest now, goes
    assert [n for n in "abcd" if pool.was_disconnected(n)] == ["a", "c", "d"]


def test_a_disconnected_server_keeps_its_log_and_configuration_not_its_connection(pool):
    pool.connect("demo", **demo_command())
    pid = pool.call("demo", "pid").data
    pool.disconnect("demo")
    assert held_by(pool, (Connection, ToolCatalog)) == []
    assert any("demo state: disconnected" in line for line in pool.logs("demo"))  # what it said as it ended
    assert pool.reconnect("demo").state == "connected"
    assert pool.call("demo", "pid").data != pid  # its configuration, started again


def test_a_closed_pool_keeps_no_stopped_connection_and_at_most_the_newest(runtime, few):
    pool = Pool(runtime)
    try:
        names = [f"s{i}" for i in range(KEPT + 2)]
        for name in names:
            pool.connect(name, server=demo_server_object())
        pool.close()
        assert held_by(pool, (Connection, ToolCatalog)) == []
        assert [n for n in names if pool.was_disconnected(n)] == names[-KEPT:]
        with pytest.raises(UnknownServerError, match="this pool was closed"):
            pool.call(names[-1], "echo", {"text": "x"})
        assert pool.reconnect(names[-1]).state == "connected"
        assert pool.call(names[-1], "echo", {"text": "again"}).data == "again"
    finally:
        pool.close()
