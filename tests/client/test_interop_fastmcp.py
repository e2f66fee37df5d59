"""The 2026-07-28 tasks extension (SEP-2663) against an implementation we did not write: FastMCP 4
with ``fastmcp-tasks``, in its own venv, over Streamable HTTP (see ``tests/peers/fastmcp_venv.py``).

What it checks is what broke with third-party servers: acknowledgements from ``tasks/cancel`` and
``tasks/update``, plain calls of task-optional tools staying plain, quick results when a task is
asked for, required-task tools answered in the task, a failing task, and HTTP errors with words.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpnb import CallError, Interaction
from mcpnb.client.tasks import TaskCancelledError


def runs(pool: Any) -> dict[str, int]:
    """How often each task-capable tool started on the server, as a task or plainly."""
    return dict(pool.call("fm", "runs").data)


def delta(before: dict[str, int], after: dict[str, int], key: str) -> int:
    return after.get(key, 0) - before.get(key, 0)


def test_task_support_comes_from_the_extension_capability(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    conn = pool.connection("fm")
    assert conn.era == "modern" and "io.modelcontextprotocol/tasks" in conn.capabilities.extensions
    tools = pool.tools("fm")
    # 2026-07-28 tools carry no execution.taskSupport: the server decides per request
    assert tools["double"].task_support == "optional" and tools["greet"].task_support == "optional"


def test_a_plain_call_of_a_task_optional_tool_stays_plain(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    before = runs(pool)
    result = pool.call("fm", "double", {"value": 21})
    after = runs(pool)
    assert not result.is_error and "42" in result.text
    # no task on the server: the call did not declare the extension (SEP-2663, per request)
    assert delta(before, after, "double:plain") == 1 and delta(before, after, "double:task") == 0
    assert pool.tasks("fm") == []


def test_an_asked_for_task_is_seen_soon_and_polled_no_faster_than_asked_after(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    before = runs(pool)
    handle = pool.call("fm", "double", {"value": 4}, task=True)
    assert handle.task_id and handle.poll_interval_ms == 5000  # FastMCP's suggested interval
    result = handle.result(timeout=60)
    assert not result.is_error and "8" in result.text and handle.status == "completed"
    assert delta(before, runs(pool), "double:task") == 1
    # a quick look first (the task takes 0.1 s: waiting FastMCP's 5 s interval, the result came 5 s
    # late), doubling, never past the interval ("SHOULD respect the pollInterval")
    waits = list(handle.waits)
    assert waits[0] == 0.1 and waits == sorted(waits) and max(waits) <= 5.0
    assert handle in pool.tasks("fm")


def test_cancel_is_acknowledged_then_read_with_tasks_get(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    handle = pool.call("fm", "crawl", task=True)
    assert handle.refresh() == "working"
    assert handle.cancel() == "cancelled"  # the ack carries no task: tasks/get said so
    with pytest.raises(TaskCancelledError):
        handle.result(timeout=30)
    assert handle.refresh() == "cancelled"
    # over Streamable HTTP every tasks/* request names its task in Mcp-Name (SEP-2663 routing)
    sent = [tuple(pair) for pair in pool.call("fm", "task_headers").data]
    assert ("tasks/cancel", handle.task_id) in sent and ("tasks/get", handle.task_id) in sent


class Name(Interaction):
    """Answers every form with a name, and counts the questions."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.asked = name, []

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        self.asked.append(params.message)
        return ElicitResult(action="accept", content={"name": self.name})


def test_a_required_task_tool_answers_its_question_in_the_task(pool, fastmcp_url):
    person = Name("Ada")
    pool.interaction = person
    pool.connect("fm", url=fastmcp_url)
    result = pool.call("fm", "greet")  # a plain call; the server answers -32021: tasks only
    assert not result.is_error and "Hello, Ada!" in result.text
    assert person.asked == ["What is your name?"]  # inputRequests, answered with tasks/update (ack)
    assert pool.tools("fm")["greet"].task_support == "required"  # learnt from the server's answer
    handle = pool.call("fm", "greet", task=True)  # asked for: a handle, answered the same way
    assert "Hello, Ada!" in handle.result(timeout=60).text and len(person.asked) == 2


def test_a_required_task_tool_reports_progress_through_a_plain_call(pool, fastmcp_url):
    from mcpnb import CallContext

    pool.connect("fm", url=fastmcp_url, tool_timeout=30)
    seen: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    result = pool.call("fm", "stepper", {"steps": 3}, context=CallContext(on_progress=on_progress))
    assert not result.is_error and "3 steps done" in result.text
    assert seen, "the task's status never reached the call's progress"


def test_a_failing_task_is_an_error_result_with_the_servers_words(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    handle = pool.call("fm", "explode", task=True)
    result = handle.result(timeout=60)
    assert handle.status == "failed" and result.is_error
    assert "the reactor melted" in result.text


def test_an_http_error_shows_its_status_and_the_servers_message(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)
    pool.call("fm", "fail_next_post", {"status": 500, "message": "the database is on fire"})
    with pytest.raises(CallError) as info:
        pool.call("fm", "echo", {"text": "hi"})
    assert "HTTP 500" in str(info.value) and "the database is on fire" in str(info.value)
    assert pool.call("fm", "echo", {"text": "hi"}).text == "hi"  # one bad answer is not a dead server
    assert pool.status()["fm"].state == "connected"


def test_a_file_fastmcp_sends_is_saved_under_its_name_as_sent(pool, fastmcp_url, tmp_path):
    """FastMCP's ``File`` is an embedded blob named by a ``file:///export.zip`` URI."""
    pool.connect("fm", url=fastmcp_url)
    result = pool.call("fm", "export")
    written = result.save(tmp_path)
    assert written == tmp_path / "export.zip"
    assert written.read_bytes() == b"PK\x03\x04" + bytes(range(256))  # the server's EXPORT, byte for byte
