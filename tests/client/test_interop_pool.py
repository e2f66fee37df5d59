"""The pool with servers we did not write: a mixed pool's task list, arguments checked before
anything is sent, DataFrames from a peer's structured content, and a connect that waits for a
server still starting."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from conftest import connect_everything, demo_command, free_port

from mcpnb import ConnectError, Interaction
from mcpnb.client.errors import ArgumentsError, CallError
from mcpnb.client.tasks import TaskCancelledError
from tests.client.test_interop_sessions import Everything

RESEARCH = "simulate-research-query"


class Decline(Interaction):
    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        return ElicitResult(action="decline")


def test_tasks_of_a_mixed_pool_list_per_server_with_notes(pool, everything, fastmcp_url):
    pool.interaction = Decline()
    connect_everything(pool)  # 2025-11-25, lists tasks
    pool.connect("fm", url=fastmcp_url)  # 2026-07-28 tasks extension: no tasks/list
    pool.connect("time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
    pool.connect("demo", **demo_command(), era="legacy")  # 2025-11-25 without tasks
    assert pool.tools("ev")[RESEARCH].task_support == "required"
    assert pool.tools("time")["get_current_time"].task_support == "forbidden"

    research = pool.call("ev", RESEARCH, {"topic": "listing"}, task=True)
    crawl = pool.call("fm", "crawl", task=True)
    listed = pool.tasks()
    assert research in listed and crawl in listed
    assert set(listed.notes) == {"time", "demo"}  # one line each; nobody's -32601 stops the list
    assert "tasks extension" in listed.notes["time"] and "tasks capability" in listed.notes["demo"]
    assert "time: no tasks" in repr(listed)

    assert research.cancel() == "cancelled"  # 2025-11-25: the answer is the cancelled task
    assert crawl.cancel() == "cancelled"  # SEP-2663: an acknowledgement, then tasks/get
    for handle in (research, crawl):
        with pytest.raises(TaskCancelledError):
            handle.result(timeout=30)
    assert pool.tasks("time") == [] and pool.tasks("time").notes["time"].startswith("no tasks")


def test_call_checks_arguments_before_sending(pool, everything):
    pool.connect("ev", command="node", args=[everything, "stdio"])
    with pytest.raises(ArgumentsError) as info:
        pool.call("ev", "get-sum", {"a": "two", "b": 1})
    assert "ev.get-sum: argument 'a'" in str(info.value) and "nothing was sent" in str(info.value)
    with pytest.raises(ArgumentsError, match=r"(?s)unknown argument 'c'.*nothing was sent"):
        pool.call("ev", "get-sum", {"a": 1, "b": 2, "c": 3})
    # validate=False leaves it to the server, which answers in its own words
    try:
        answer = pool.call("ev", "get-sum", {"a": "two", "b": 1}, validate=False)
    except CallError as exc:
        assert "get-sum" in str(exc)
    else:
        assert answer.is_error
    assert "3" in pool.call("ev", "get-sum", {"a": 1, "b": 2}).text
    # unchecked is not unconverted: a pandas row of numpy values still goes as JSON
    import pandas as pd

    row = pd.DataFrame({"a": [2], "b": [40]}).iloc[0]
    assert pool.call("ev", "get-sum", row, validate=False).text == "The sum of 2 and 40 is 42."


def test_a_typescript_servers_error_code_is_said_once(pool, everything):
    """The TypeScript SDK writes "MCP error -32602: " into the message itself: the error read
    "MCP error -32602: Resource nothing://x not found (MCP error -32602)"."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    with pytest.raises(CallError) as info:
        pool.read("ev", "nothing://x")
    said = str(info.value)
    assert said.endswith(": Resource nothing://x not found (MCP error -32602)") and said.count("-32602") == 1


def test_df_of_one_object_is_one_row(pool, everything):
    pool.connect("ev", command="node", args=[everything, "stdio"])
    weather = pool.call("ev", "get-structured-content", {"location": "Chicago"})
    frame = weather.df
    assert len(frame) == 1 and {"temperature", "conditions", "humidity"} <= set(frame.columns)
    with pytest.raises(ValueError, match="no tables in it"):
        _ = weather.dfs


def test_connect_waits_for_a_server_that_is_still_starting(pool, everything):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(ConnectError, match="refused"):
        pool.connect("late", url=url)  # the default fails at once

    started: list[Everything] = []
    waiting = threading.Event()

    def on_event(event: Any) -> None:
        if event.server == "late" and "waiting for the server" in event.message:
            waiting.set()

    pool.subscribe(on_event)

    def start_when_waited_for() -> None:
        if waiting.wait(30):
            started.append(Everything(everything, "streamableHttp", port))

    starter = threading.Thread(target=start_when_waited_for, daemon=True)
    starter.start()
    try:
        row = pool.connect("late", url=url, wait=60, retry_delay=0.2)
        assert row.state == "connected" and waiting.is_set()
        assert "hi" in pool.call("late", "echo", {"message": "hi"}).text
    finally:
        starter.join(40)
        for server in started:
            server.kill()
