"""What ``%mcp tasks`` (``TaskList``, over ``Pool.tasks``) shows of tasks a server no longer has.

A status table of the servers' tasks: a task the server dropped after its TTL, or forgot when it
was started again, is ``expired`` and left out of the default table (counted under it; ``--all``
lists it), while a task that ended but is still kept stays, and a task past its TTL that the server
still keeps says so in words instead of "0.0 s". Real servers: probe-kit in both eras (in-process,
a short ``task_ttl_ms`` so that it drops ended tasks quickly), and server-everything, which forgets
every task when its process is started again.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from mcpnb import Pool
from mcpnb.client.tasks import TaskState
from mcpnb.notebook.magics.listings import TaskList
from mcpnb.probekit import create_server


def wait_for(predicate: Any, ticks: int = 2000, step: float = 0.01) -> Any:
    for _ in range(ticks):
        found = predicate()
        if found:
            return found
        time.sleep(step)
    raise AssertionError("condition never held")


def row(table: TaskList, task_id: str) -> dict[str, str]:
    (found,) = [dict(zip(table.columns, r, strict=True)) for r in table._rows() if r[1] == task_id]
    return found


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_task_the_server_dropped_is_expired_and_left_out(pool: Pool, tmp_path: Path, era: str) -> None:
    # probe-kit keeps an ended task task_ttl_ms after it ended, then forgets it
    pool.connect("probe", server=create_server(root=tmp_path, task_ttl_ms=300, poll_interval_ms=10), era=era)
    kept = pool.start_task("probe", "slow_task", {"steps": 400, "delay": 0.05})  # works on meanwhile
    done = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
    assert done.result(timeout=60).data["totalPrimes"] == 168

    wait_for(lambda: pool.tasks("probe") is not None and done.expired, ticks=500, step=0.05)  # each asks
    listed = pool.tasks("probe")
    assert done in listed and done.expired and not kept.expired  # the pool's listing has them all
    assert "expired (last seen completed)" in repr(done) and "kept here" in repr(done)
    assert done.result().data["totalPrimes"] == 168  # what had landed stays here

    table = TaskList(listed)
    assert done not in table and kept in table and table.hidden == 1
    assert "1 expired task not shown" in repr(table) and "%mcp tasks --all" in repr(table)
    assert "%mcp tasks --all" in table._repr_mimebundle_()["text/html"]
    working = row(table, kept.task_id)
    assert working["status"] == "working"
    # its TTL, counted from its creation as the spec counts it, ran out; the server still keeps it
    wait_for(lambda: kept.ttl_left == 0)
    assert row(TaskList(pool.tasks("probe")), kept.task_id)["ttl left"] == "past its TTL"

    everything = TaskList(pool.tasks("probe"), everything=True)
    assert done in everything and everything.hidden == 0
    gone = row(everything, done.task_id)
    assert gone["status"] == "expired" and gone["ttl left"] == ""
    assert gone["message"] == "the server no longer has it (last seen completed); its result is kept here"
    kept.cancel()
    ended = row(TaskList(pool.tasks("probe")), kept.task_id)  # ended, still kept: listed as it ended
    assert ended["status"] == "cancelled" and ended["ttl left"] in ("past its TTL", "")


def test_a_task_still_kept_lists_its_status_now_not_the_one_first_heard(pool: Pool, tmp_path: Path) -> None:
    """2026-07-28 has no tasks/list: the listing asks about the tasks nothing follows, so a task
    that ended meanwhile is listed as ended (it read 'working' until something asked)."""
    pool.connect("probe", server=create_server(root=tmp_path, poll_interval_ms=10), era="modern")
    handle = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
    listed = wait_for(lambda: [h for h in pool.tasks("probe") if h.state.status == "completed"])
    assert listed == [handle] and not handle.expired
    shown = row(TaskList(pool.tasks("probe")), handle.task_id)
    assert shown["status"] == "completed" and shown["ttl left"] not in ("0.0 s", "past its TTL")


def test_a_ttl_of_null_is_no_limit_and_none_said_is_blank() -> None:
    unlimited = TaskState.from_wire({"taskId": "t1", "status": "working", "ttl": None})
    unsaid = TaskState.from_wire({"taskId": "t2", "status": "working"})
    assert unlimited.unlimited and unlimited.ttl_ms is None
    assert not unsaid.unlimited and unsaid.ttl_ms is None
    assert not TaskState.from_wire({"taskId": "t3", "status": "working", "ttlMs": 5000}).unlimited


def test_server_everything_forgets_its_tasks_when_started_again(pool: Pool, everything: str) -> None:
    """A server we did not write: server-everything (2025-11-25, tasks/list) keeps its tasks in
    memory. Started again, it lists none of them; ours is then expired, not a silent gap."""
    pool.connect("everything", command="node", args=[everything, "stdio"], era="legacy")
    tool = "simulate-research-query"
    wait_for(lambda: any(t.name == tool for t in pool.tools("everything", refresh=True)), ticks=100)
    handle = pool.start_task("everything", tool, {"topic": "forgotten"})
    first = row(TaskList(pool.tasks("everything")), handle.task_id)
    assert first["status"] == "working" and first["ttl left"].endswith("s")  # 5 minutes, counting down
    pool.reconnect("everything")  # a new process: it knows none of the old one's tasks
    wait_for(lambda: pool.connection("everything").state == "connected")
    listed = pool.tasks("everything")
    assert handle in listed and handle.expired
    assert handle not in TaskList(listed) and TaskList(listed).hidden == 1
    assert row(TaskList(listed, everything=True), handle.task_id)["status"] == "expired"
