"""A 2026-07-28 task that asks for the client's model completion or its roots (SEP-2663 lets a task
ask for anything the client declared), against FastMCP's tasks package: mcpnb answered forms only,
and such a task failed with "cannot answer a task's 'sampling/createMessage' request"."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import wait_until
from mcp.types import CreateMessageResult, TextContent

from mcpnb import Interaction


class Model(Interaction):
    """Plays the model: answers every sampling request with a line of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        self.prompts.append(params.messages[0].content.text)
        text = TextContent(type="text", text="old pond, a frog jumps")
        return CreateMessageResult(role="assistant", model="a person", content=text)


def test_a_task_that_asks_for_a_completion_gets_the_client_s_answer(pool, fastmcp_url):
    model = Model()
    pool.interaction = model
    pool.connect("fm", url=fastmcp_url)
    result = pool.call("fm", "haiku", {"topic": "ponds"})  # the tool runs only as a task
    assert not result.is_error, result.text
    assert result.text == "a person wrote: old pond, a frog jumps"
    assert model.prompts == ["A haiku about ponds"]
    handle = pool.call("fm", "haiku", {"topic": "frogs"}, task=True)  # asked for: the same answer
    assert handle.result(timeout=60).text == "a person wrote: old pond, a frog jumps"
    assert model.prompts[-1] == "A haiku about frogs"


def test_a_task_that_asks_for_roots_gets_the_configured_ones(pool, fastmcp_url, tmp_path):
    pool.connect("fm", url=fastmcp_url, roots=[str(tmp_path)])
    result = pool.call("fm", "where")
    assert not result.is_error and result.text == tmp_path.as_uri()


def test_a_task_whose_question_is_refused_is_cancelled_not_left_waiting(pool, fastmcp_url):
    """Nobody plays the model (a script's policy refuses sampling): the wait fails, and the task is
    cancelled on the server rather than left in input_required until its TTL."""
    from mcpnb.client.tasks import TaskError

    pool.connect("fm", url=fastmcp_url)
    handle = pool.call("fm", "haiku", {"topic": "refusals"}, task=True)
    with pytest.raises(TaskError, match="was refused"):
        handle.result(timeout=60)
    assert wait_until(lambda: handle.refresh() == "cancelled", timeout=30)
