"""The tasks extension's conformance fixtures (SEP-2663), by the names the official suite calls.

Each is the smallest example of one thing a task can do or be: a tool that never runs as a task
(``greet``), one that may (``slow_compute``, which stops when cancelled), one that must
(``failing_job``, which reports a tool error: a *completed* task whose result says ``isError``), one
whose work fails below the tool (``protocol_error_job``: a *failed* task with a JSON-RPC error and
no result),
tasks that wait for a person (``confirm_delete``, and ``multi_input`` with two questions at once),
and a call that first gathers input in rounds and then becomes a task (``test_tool_with_task``).
They run on probe-kit's own tasks layer (:mod:`mcpnb.probekit.tasks_wire`), in both eras.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mcp import MCPError, types
from mcp_types.jsonrpc import INTERNAL_ERROR
from pydantic import BaseModel, Field

from mcpnb.probekit.inputs import NAME_FORM, form
from mcpnb.probekit.responses import content_only, error_response, text
from mcpnb.probekit.runio import RunIO, task_tool
from mcpnb.probekit.state import ProbeState


class Confirm(BaseModel):
    """Whether to go ahead."""

    confirm: bool = Field(title="Delete?", description="Delete it for good?")


class Colour(BaseModel):
    colour: str = Field(title="Colour", description="Your favourite colour")


class Animal(BaseModel):
    animal: str = Field(title="Animal", description="Your favourite animal")


def _result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[text(message)])


async def slow_compute_run(io: RunIO, seconds: float = 1.0) -> types.CallToolResult:
    """Sleeps `seconds` (0-60) and reports; a task of it ends `cancelled` when cancelled meanwhile."""
    seconds = max(0.0, min(float(seconds), 60.0))
    await io.progress(0, 1, f"computing for {seconds:g} s")
    await asyncio.sleep(seconds)
    return _result(f"Computed for {seconds:g} s: 42")


async def failing_job_run(io: RunIO) -> types.CallToolResult:
    """Works for a second, then reports a tool error (isError): the task still completes."""
    await asyncio.sleep(1.0)
    return error_response("failing_job failed on purpose: a tool error, reported as a completed task")


async def protocol_error_job_run(io: RunIO) -> types.CallToolResult:
    """Fails below the tool: a JSON-RPC error (-32603), so its task ends failed, with no result."""
    await asyncio.sleep(0.1)
    raise MCPError(code=INTERNAL_ERROR, message="protocol_error_job failed on purpose (an internal error)")


async def confirm_delete_run(io: RunIO, path: str = "notes.txt") -> types.CallToolResult:
    """Asks whether to delete `path` (nothing is deleted: it is a demo), then says what it did."""
    reply = await io.ask(f"Delete {path}?", Confirm)
    yes = reply.action == "accept" and bool((reply.content or {}).get("confirm"))
    return _result(f"{path} {'deleted (not really: a demo)' if yes else 'kept'}")


async def multi_input_run(io: RunIO) -> types.CallToolResult:
    """Asks two questions at once: the task waits until both are answered, in any order."""
    colour, animal = await asyncio.gather(
        io.ask("What is your favourite colour?", Colour), io.ask("What is your favourite animal?", Animal)
    )
    said = [(r.content or {}).get(k, f"({r.action})") for r, k in ((colour, "colour"), (animal, "animal"))]
    return _result(f"A {said[0]} {said[1]}")


async def test_tool_with_task_run(io: RunIO, user_name: str = "") -> types.CallToolResult:
    """The task part of test_tool_with_task: it greets the name gathered before it started."""
    if not user_name:
        return _result("Hello, whoever you are! (you gave no name when asked before the task started)")
    await io.progress(0, 1, f"greeting {user_name}")
    await asyncio.sleep(0.1)
    return _result(f"Hello, {user_name}! (asked before the task started, used inside it)")


def _gather_name(given: dict[str, Any]) -> dict[str, Any] | types.InputRequiredResult:
    """Before ``test_tool_with_task`` becomes a task: its name, or the round that asks for it."""
    reply = given.get("user_name")
    content = reply.get("content") if isinstance(reply, dict) else getattr(reply, "content", None)
    action = reply.get("action") if isinstance(reply, dict) else getattr(reply, "action", None)
    if isinstance(content, dict) and content.get("name"):
        return {"user_name": str(content["name"])}
    if action in ("decline", "cancel"):  # a no is an answer: asking again would never end
        return {"user_name": ""}
    return types.InputRequiredResult(input_requests={"user_name": form("What is your name?", NAME_FORM)})


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The tasks extension's fixtures."""

    def greet(name: str = "world") -> list[types.TextContent]:
        """Says hello at once: a tool that never runs as a task (no execution.taskSupport)."""
        return [text(f"Hello, {name}!")]

    made: list[Callable[..., Any]] = [greet]
    for runner, support in (
        (slow_compute_run, "optional"),
        (failing_job_run, "required"),
        (protocol_error_job_run, "optional"),
        (confirm_delete_run, "optional"),
        (multi_input_run, "optional"),
        (test_tool_with_task_run, "required"),
    ):
        tool = task_tool(runner)
        tool.__name__ = runner.__name__.removesuffix("_run")
        tool.task_support = support  # type: ignore[attr-defined]
        made.append(tool)
    intake = made[-1]  # test_tool_with_task: the name comes from its input round, not its arguments
    intake.task_intake = _gather_name  # type: ignore[attr-defined]
    intake.input_schema = {"type": "object", "properties": {}}  # type: ignore[attr-defined]
    return content_only(made)
