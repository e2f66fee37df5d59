"""Legacy (SEP-1686) tasks against a third-party server: server-everything's simulate-research-query."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcpnb.client.tasks import TaskCancelledError, TaskRegistry, list_tasks, start_task, task_support
from tests.client.tasks.conftest import Answers, seen_statuses

TOOL = "simulate-research-query"
pytestmark = pytest.mark.anyio


@asynccontextmanager
async def open_everything(path: str, answers: Any = None) -> AsyncIterator[Client]:
    params = StdioServerParameters(command="node", args=[path, "stdio"])
    kwargs = {"elicitation_callback": answers} if answers is not None else {}
    async with Client(params, mode="legacy", **kwargs) as client:
        for _ in range(500):  # the task tool is registered just after initialization
            tools = {t.name: t for t in (await client.list_tools()).tools}
            if TOOL in tools:
                break
            await anyio.sleep(0.01)
        assert task_support(tools[TOOL]) == "required"
        yield client


async def test_research_query_asks_then_completes(everything: str) -> None:
    answers = Answers()  # picks the first offered interpretation
    async with open_everything(everything, answers) as client:
        handle = await start_task(client, TOOL, {"topic": "python packaging", "ambiguous": True})
        assert handle.status == "working" and handle.poll_interval_ms == 1000 and handle.ttl_ms == 300_000
        seen = seen_statuses(handle)
        result = await handle
    (question,) = answers.seen
    chosen = answers.seen[0].requested_schema["properties"]["interpretation"]["oneOf"][0]["const"]
    assert "multiple interpretations" in question.message
    assert "input_required" in seen and seen[-1] == "completed" and handle.status == "completed"
    assert not result.is_error and f"**Clarification**: {chosen}" in result.text
    assert result.server == "mcp-servers/everything" and result.tool == TOOL


async def test_research_query_cancel_and_list(everything: str) -> None:
    tasks = TaskRegistry()
    async with open_everything(everything, Answers()) as client:
        handle = await start_task(client, TOOL, {"topic": "cancel me"}, tasks=tasks)
        assert await handle.arefresh() == "working"
        assert await handle.acancel() == "cancelled"
        with pytest.raises(TaskCancelledError):
            await handle
        listed = await list_tasks(client, tasks=tasks)
        assert handle in listed and handle.status == "cancelled"
        assert await handle.arefresh() == "cancelled"


async def test_a_task_that_ended_elsewhere_lists_with_the_time_it_ran(everything: str) -> None:
    """Another notebook lists a task ours ended: it ran from createdAt to lastUpdatedAt, not 0 s."""
    async with open_everything(everything, Answers()) as client:
        handle = await start_task(client, TOOL, {"topic": "ended elsewhere"}, tasks=TaskRegistry())
        await anyio.sleep(0.3)
        assert await handle.acancel() == "cancelled"
        (other,) = [h for h in await list_tasks(client, tasks=TaskRegistry()) if h.task_id == handle.task_id]
    assert other is not handle and other.tool is None and other.status == "cancelled"
    ran = other.elapsed
    assert ran >= 0.3  # it was created at least 0.3 s before the cancel
    await anyio.sleep(0.05)
    assert other.elapsed == ran  # ended: frozen, not counting on
