"""The pool's task registry stays bounded, and a listing costs no request per finished task.

A soak sweep found ``pool.task_registry`` holding every task ever started (1010 handles, about 50 MB
of RSS per 1000 small tasks, each with its whole result, kept through ``disconnect`` and
``pool.close()``), and ``pool.tasks()`` sending one ``tasks/get`` per handle, finished ones
included (600 finished tasks: 600 requests per listing). Now the registry keeps every running task
and the :data:`KEEP_ENDED` newest ended ones per server, forgets a server's tasks when it is
disconnected and all of them when the pool closes; a listing asks about a finished task only once
its server may have dropped it (its TTL ran out). A handle held in a variable keeps working.

Real servers: probe-kit in-process in both eras, counted by a server middleware (what the server
received, not what the client thinks it sent).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_until
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from mcpnb import Pool
from mcpnb.client.tasks.registry import KEEP_ENDED
from mcpnb.probekit import create_server

QUICK = {"steps": 1, "delay": 0}  # 168 primes, at once
SLOW = {"steps": 400, "delay": 0.05}  # works on while the test runs


def counted_probe(root: Path, received: Counter[str], **tuning: Any) -> Any:
    """probe-kit, counting the requests it receives by method."""
    server = create_server(root=root, poll_interval_ms=10, **tuning)

    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is not None:
            received[ctx.method] += 1
        return await call_next(ctx)

    server.middleware.insert(0, record)
    return server


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_ended_tasks_beyond_the_newest_are_let_go_and_a_held_handle_still_works(
    pool: Pool, tmp_path: Path, era: str
) -> None:
    pool.connect("probe", server=create_server(root=tmp_path, poll_interval_ms=10), era=era)
    running = pool.start_task("probe", "slow_task", SLOW)  # the oldest: kept, whatever the count
    first = pool.start_task("probe", "slow_task", QUICK)
    assert first.result(timeout=60).data["totalPrimes"] == 168
    rest = [pool.start_task("probe", "slow_task", QUICK) for _ in range(KEEP_ENDED + 4)]
    for handle in rest:
        handle.result(timeout=60)

    kept = pool.task_registry.handles("probe")
    assert len(kept) == KEEP_ENDED + 1  # it held all 106
    assert running in kept and first not in kept and rest[:4] == [h for h in rest[:4] if h not in kept]
    assert kept[-KEEP_ENDED:] == rest[-KEEP_ENDED:]  # the newest ended ones
    listed = pool.tasks("probe")
    assert running in listed and first not in listed  # not this handle, at least
    if era == "modern":  # no tasks/list: the tasks we know
        assert len(listed) == KEEP_ENDED + 1
    else:  # 2025-11-25: what the server lists, ours with their tool names
        assert len(listed) == KEEP_ENDED + 6 and [h.tool for h in listed].count("slow_task") == KEEP_ENDED + 1
    assert pool.task_registry.handles("probe") == kept  # ended ones it lists push none of ours out

    # the registry only stopped holding it: the person's variable still works
    assert first.status == "completed" and first.result().data["totalPrimes"] == 168
    assert pool.attach_task("probe", first.task_id).status == "completed"  # the server still has it
    running.cancel()


def test_a_listing_asks_nothing_of_a_finished_task_the_server_still_keeps(pool: Pool, tmp_path: Path) -> None:
    """2026-07-28 has no tasks/list: a listing asked tasks/get of every task we ever started."""
    received: Counter[str] = Counter()
    pool.connect("probe", server=counted_probe(tmp_path, received), era="modern")
    finished = [pool.start_task("probe", "slow_task", QUICK) for _ in range(10)]
    for handle in finished:
        handle.result(timeout=60)
    running = pool.start_task("probe", "slow_task", SLOW)  # nothing follows it: the listing asks

    received.clear()
    listed = pool.tasks("probe")
    assert received["tasks/get"] == 1  # the running one; it was 11
    assert set(listed) == {*finished, running} and all(h.status == "completed" for h in finished)
    running.cancel()


def test_a_finished_task_past_its_ttl_is_asked_about_until_it_is_expired_then_no_more(
    pool: Pool, tmp_path: Path
) -> None:
    # probe-kit drops an ended task task_ttl_ms after it ended; its TTL counts from its creation
    received: Counter[str] = Counter()
    pool.connect("probe", server=counted_probe(tmp_path, received, task_ttl_ms=300), era="modern")
    done = pool.start_task("probe", "slow_task", QUICK)
    assert done.result(timeout=60).data["totalPrimes"] == 168
    assert wait_until(lambda: pool.tasks("probe") is not None and done.expired, timeout=30)
    assert "expired (last seen completed)" in repr(done) and done.result().data["totalPrimes"] == 168

    received.clear()
    assert pool.tasks("probe") == [done]
    assert received["tasks/get"] == 0  # the server said it no longer has it: asking again says the same


def test_a_finished_handle_keeps_its_result_once(pool: Pool, tmp_path: Path) -> None:
    """The handle kept the result read (``landed``) and the reply's ``result`` as sent (``state.raw``)."""
    pool.connect("probe", server=create_server(root=tmp_path, poll_interval_ms=10), era="modern")
    handle = pool.start_task("probe", "slow_task", {"steps": 3, "delay": 0})
    result = handle.result(timeout=60)
    assert "result" not in handle.state.raw and handle.state.result is None
    assert result.data["totalPrimes"] == 430 and result.raw["structuredContent"] == result.data
    assert handle.refresh() == "completed"  # a later tasks/get carries the result again
    assert "result" not in handle.state.raw and handle.result() is result


def test_disconnect_forgets_a_servers_tasks_and_close_forgets_them_all(pool: Pool, tmp_path: Path) -> None:
    for name in ("a", "b"):
        pool.connect(name, server=create_server(root=tmp_path, poll_interval_ms=10), era="modern")
    gone = pool.start_task("a", "slow_task", QUICK)
    stays = pool.start_task("b", "slow_task", QUICK)
    assert gone.result(timeout=60).data == stays.result(timeout=60).data
    registry = pool.task_registry

    pool.disconnect("a")
    assert registry.handles("a") == [] and registry.handles() == [stays]  # "a"'s were kept
    assert list(pool.tasks()) == [stays]  # as before: a listing shows connected servers only
    assert gone.status == "completed" and gone.result().data["totalPrimes"] == 168  # held: still works

    pool.close()
    assert registry.handles() == []  # it held every handle after close
    assert stays.result().data["totalPrimes"] == 168


def test_a_listing_asks_nothing_of_finished_tasks_on_fastmcp(pool: Pool, fastmcp_url: str) -> None:
    """A server we did not write (FastMCP, 2026-07-28), counted by the server: its tasks/* requests
    by ``Mcp-Name`` (the task they are about)."""
    pool.connect("fm", url=fastmcp_url)
    finished = [pool.call("fm", "double", {"value": n}, task=True) for n in range(3)]
    assert [h.result(timeout=60).text for h in finished] == ["0", "2", "4"]
    assert all(h.ttl_ms for h in finished)  # it says how long it keeps them

    def asked() -> int:
        ids = {h.task_id for h in finished}
        sent = pool.call("fm", "task_headers").data
        return sum(1 for method, task_id in sent if method == "tasks/get" and task_id in ids)

    before = asked()
    listed = pool.tasks("fm")
    assert all(h in listed for h in finished) and asked() == before  # one each, before
