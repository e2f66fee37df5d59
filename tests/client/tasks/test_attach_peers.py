"""``pool.attach_task`` against servers we did not write: FastMCP's tasks extension (2026-07-28,
over Streamable HTTP, from a second connection) and server-everything's legacy tasks (2025-11-25, over
stdio, after the registry forgot the task as a kernel restart would).

(Across probe-kit workers sharing a task store: ``tests/probekit/test_workers.py``.)
"""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest

from mcpnb import CallError, Interaction
from mcpnb.client.tasks import TaskCancelledError, TaskExpiredError


class Name(Interaction):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.asked_by = name, []

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        self.asked_by.append(server)
        return ElicitResult(action="accept", content={"name": self.name})


def test_a_fastmcp_task_followed_from_another_connection(pool: Any, fastmcp_url: str) -> None:
    person = Name("Ada")
    pool.interaction = person
    pool.connect("fm", url=fastmcp_url)
    pool.connect("other", url=fastmcp_url)  # another notebook on the same server
    quick = pool.call("fm", "double", {"value": 4}, task=True)
    assert "8" in pool.attach_task("other", quick.task_id).result(timeout=60).text

    asks = pool.call("fm", "greet", task=True)  # never awaited here: its question waits
    attached = pool.attach_task("other", asks.task_id)
    assert attached.tool is None and attached.server == "other"
    assert repr(attached).startswith(f"<TaskHandle other {asks.task_id[:8]} ")  # no tool to name
    answered = attached.result(timeout=60)
    assert "Hello, Ada!" in answered.text and repr(answered).startswith("<ToolResult other ok ")
    assert person.asked_by == ["other"]  # answered with tasks/update through the attaching connection

    long = pool.call("fm", "crawl", task=True)
    follower = pool.attach_task("other", long.task_id)
    assert follower.cancel() == "cancelled"
    with pytest.raises(TaskCancelledError):
        follower.result(timeout=30)
    assert long.refresh() == "cancelled"
    with pytest.raises(TaskExpiredError):
        pool.attach_task("other", "no-such-task")


def test_a_server_everything_task_attached_again_after_the_registry_forgot_it(
    pool: Any, everything: str
) -> None:
    from tests.client.tasks.conftest import Answers

    class FirstChoice(Interaction):
        def __init__(self) -> None:
            super().__init__()
            self.answers = Answers()

        async def elicit(self, server: str, params: Any, call: Any) -> Any:
            return await self.answers(None, params)

    person = FirstChoice()
    pool.interaction = person
    pool.connect("ev", command="node", args=[everything, "stdio"])
    deadline = time.monotonic() + 20
    while "simulate-research-query" not in {t.name for t in pool.tools("ev", refresh=True)}:
        assert time.monotonic() < deadline, "the task tool never appeared"
        time.sleep(0.1)
    started = pool.start_task(
        "ev", "simulate-research-query", {"topic": "python packaging", "ambiguous": True}
    )
    pool.task_registry.forget("ev")  # what a kernel restart leaves behind
    attached = pool.attach_task("ev", started.task_id)
    assert attached is not started and attached.task_id == started.task_id
    result = attached.result(timeout=60)
    assert not result.is_error and "python packaging" in result.text
    assert len(person.answers.seen) == 1  # its question came through tasks/result on the attached handle


def test_a_task_is_attached_by_the_start_of_its_id_as_git_takes_a_commits(pool: Any, everything: str) -> None:
    """The live view shows a task id whole (36 characters); typed by hand, its start is enough where
    it names one task: after a restart (the registry empty) server-everything's tasks/list says
    which ids there are."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    started = pool.start_task("ev", "simulate-research-query", {"topic": "go"})
    pool.task_registry.forget("ev")
    attached = pool.attach_task("ev", started.task_id[:8])
    assert attached.task_id == started.task_id
    assert "go" in attached.result(timeout=60).text
    with pytest.raises(TaskExpiredError, match="knows no task"):  # three characters: a typo, not a start
        pool.attach_task("ev", started.task_id[:3])


def test_the_start_of_several_ids_is_refused_naming_them(pool: Any) -> None:
    from tests.client.tasks.conftest import ODD_TASKS

    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "legacy"])
    ids = [pool.start_task("odd", "echo", {"text": "x", "polls": 50}).task_id for _ in range(2)]
    assert all(i.startswith("task-") for i in ids)
    with pytest.raises(TaskExpiredError) as refused:
        pool.attach_task("odd", "task-")
    said = str(refused.value)
    assert "2 task ids start with 'task-'" in said and all(i in said for i in ids)
    assert "give more of it" in said


def test_a_task_is_not_asked_of_a_tool_that_cannot_be_one(pool: Any, everything: str) -> None:
    """server-everything's ``echo`` says nothing of tasks (so: forbidden). Asked for one anyway, the
    server answered with half a zod error; now nothing is sent, and the message says what to do."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    for start in (
        lambda: pool.start_task("ev", "echo", {"message": "x"}),
        lambda: pool.call("ev", "echo", {"message": "x"}, task=True),
    ):
        with pytest.raises(
            CallError,
            match=r"^echo\(\) cannot run as a task on 'ev': the tool says it runs only as a plain call",
        ):
            start()
    assert "x" in pool.call("ev", "echo", {"message": "x"}).text
    handle = pool.start_task("ev", "simulate-research-query", {"topic": "go"})  # one that can
    assert handle.task_id and "go" in handle.result(timeout=60).text


def test_a_scripts_status_polling_sees_the_task_end(pool: Any, everything: str) -> None:
    """Nothing follows a task started from plain Python (no cell, no live view): ``h.status`` was
    the last known one, "working" long after server-everything had finished the task."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    handle = pool.start_task("ev", "simulate-research-query", {"topic": "go"})
    deadline = time.monotonic() + 60
    while handle.status == "working" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert handle.status == "completed"
    assert "go" in handle.result(timeout=30).text


def test_a_listed_id_that_tasks_get_does_not_know_is_expired_at_once(pool: Any) -> None:
    """Its whole id starts itself: attaching it asked the server again and again (964 tasks/get in
    0.8 s) until Python's recursion limit ended it."""
    from pathlib import Path

    server = Path(__file__).resolve().parents[2] / "servers" / "listed_unknown_task_server.py"
    pool.connect("l", command=sys.executable, args=[str(server)], era="legacy")
    with pytest.raises(TaskExpiredError):
        pool.attach_task("l", "abcd1234ef")
    time.sleep(0.3)  # its stderr lines reach the log
    asked = [line for line in pool.logs("l") if "tasks/get #" in line]
    assert len(asked) <= 2, asked
