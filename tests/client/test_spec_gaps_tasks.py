"""Tasks as the 2025-11-25 spec asks of a requestor: ``tasks/list`` walked as every list is (a
repeated cursor ends it), and polling at the server's ``pollInterval``.

Real servers: the SDK's low-level ``Server`` with a ``tasks/list`` that repeats its cursor (a server
we did not write, made to misbehave by a handler of ours), and server-everything's task tools.
"""

from __future__ import annotations

from typing import Any

from conftest import wait_until
from mcp import MCPError, types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from mcpnb import Pool


def stuck_lister(asked: list[str | None]) -> Server[Any]:
    """A 2025-11-25 server that declares ``tasks.list`` and answers every page with the same cursor."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    async def list_tasks(ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        asked.append(params.cursor)
        if len(asked) > 10:  # the old walk never stopped: refused here so that the test ends
            raise MCPError(code=-32603, message="asked too often")
        task = {
            "taskId": f"t{len(asked)}",
            "status": "working",
            "createdAt": "2025-01-01T00:00:00Z",
            "lastUpdatedAt": "2025-01-01T00:00:00Z",
            "ttl": None,
        }
        return {"tasks": [task], "nextCursor": "same"}

    async def declare_tasks(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            caps = result.setdefault("capabilities", {})
            caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        return result

    server: Server[Any] = Server("stuck", version="1.0", on_list_tools=list_tools)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, list_tasks)
    server.middleware.append(declare_tasks)
    return server


def test_a_tasks_list_cursor_handed_out_twice_ends_the_listing(pool: Pool) -> None:
    """It asked again forever (42,000 requests in 8 s, the listing never returned)."""
    asked: list[str | None] = []
    pool.connect("stuck", server=stuck_lister(asked), era="legacy", health_check_interval=0)
    listed = pool.tasks("stuck")
    assert asked == [None, "same"]
    assert sorted(h.task_id for h in listed) == ["t1", "t2"]  # what was listed is kept
    said = [e.message for e in pool.connection("stuck").events.history if e.kind == "paging"]
    assert said == [
        "tasks/list: the server handed out cursor 'same' twice; kept the 2 items listed so far, "
        "the list may be incomplete"
    ]


RESEARCH = "simulate-research-query"  # server-everything: four stages of 1 s, pollInterval 1000 ms


def test_a_task_is_polled_at_the_servers_poll_interval(pool: Pool, everything: str) -> None:
    """ "Requestors SHOULD respect the pollInterval provided in responses": the polls came at
    0.025 s, doubling up to it (seven tasks/get in the first 1.6 s of a task that asks for one a
    second). Now a few quick looks from 0.1 s, then the server's interval. Counted against the
    task's own run, by the server's clock (createdAt..lastUpdatedAt)."""
    pool.connect("ev", command="node", args=[everything, "stdio"], era="legacy", health_check_interval=0)
    assert wait_until(lambda: RESEARCH in [t.name for t in pool.tools("ev", refresh=True)])
    handle = pool.call("ev", RESEARCH, {"topic": "calm polling"}, task=True)
    assert handle.poll_interval_ms == 1000
    assert not handle.result(timeout=60).is_error
    waits = list(handle.waits)
    assert waits[:4] == [0.1, 0.2, 0.4, 0.8] and set(waits[4:]) == {1.0}  # then as asked
    ran = handle.state.span  # seconds, by the server's clock
    assert ran >= 3  # four stages of a second each
    # one poll at once, the quick looks of its first 1.5 s, one per interval after, one that sees it end
    assert handle.polls <= 4 + (ran - 1.5) / 1.0 + 2, (handle.polls, ran)
