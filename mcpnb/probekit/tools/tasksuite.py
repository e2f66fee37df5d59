"""The tasks extension's conformance fixtures (SEP-2663), by the names the official suite calls.

Each is the smallest example of one thing a task can do or be: a tool that never runs as a task
(``greet``), one that may (``slow_compute``, which stops when cancelled), one that must
(``failing_job``, which reports a tool error: a *completed* task whose result says ``isError``), one
whose work fails below the tool (``protocol_error_job``: a *failed* task with a JSON-RPC error and
no result),
tasks that wait for a person (``confirm_delete``, and ``multi_input`` with two questions at once),
and a call that first gathers input in rounds and then becomes a task (``test_tool_with_task``).
They run on probe-kit's own tasks layer (:mod:`mcpnb.probekit.tasks_wire`), in both eras.

Two more are probe-kit's own (structured results, the ``tasks`` toolset): a task may ask its client
more than a form. ``draft_with_model`` works a while, then asks the client's model for a completion;
``client_roots`` asks the client which folders it shares. Called plainly they ask the same way
(mid-call on 2025-11-25, by an input round on 2026-07-28); a client that did not declare ``sampling``
or ``roots`` is not asked, and the result says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from mcp import MCPError, types
from mcp_types.jsonrpc import INTERNAL_ERROR
from pydantic import BaseModel, Field

from mcpnb.probekit.inputs import NAME_FORM, form, said
from mcpnb.probekit.responses import content_only, error_response, ok_structured, text
from mcpnb.probekit.runio import CannotAsk, RunIO, task_tool
from mcpnb.probekit.schemas import INT, OPT_S, B, arr, obj, top
from mcpnb.probekit.state import ProbeState


class Confirm(BaseModel):
    """Whether to go ahead."""

    confirm: bool = Field(title="Delete?", description="Delete it for good?")


class Colour(BaseModel):
    colour: str = Field(title="Colour", description="Your favourite colour")


class Animal(BaseModel):
    animal: str = Field(title="Animal", description="Your favourite animal")


#: The longest text argument a task tool copies into its result (and so into its task's record,
#: which the store keeps and every tasks/get reads): said in the schema as ``maxLength``, so a client
#: knows before it sends (a 3.5 MB topic, written into 10 outline points, made an 80 MB record).
MAX_COPIED = 500
Copied = Annotated[str, Field(max_length=MAX_COPIED)]


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


DRAFT = top(
    "Draft",
    {
        "topic": {"type": "string"},
        "outline": arr({"type": "string"}),
        "asked": B,
        "draft": OPT_S,
        "model": OPT_S,
        "stopReason": OPT_S,
    },
)
ROOTS = top(
    "ClientRoots",
    {"asked": B, "count": INT, "roots": arr(obj({"uri": {"type": "string"}, "name": OPT_S}))},
)


async def draft_with_model_run(
    io: RunIO, topic: str, points: int = 3, delay: float = 0.2, max_tokens: int = 200
) -> types.CallToolResult:
    """Outlines `topic` in `points` steps (0-10), `delay` seconds each (0-10), then asks the client's
    model (sampling/createMessage) to draft a paragraph from the outline. Run it as a task to watch it
    go working → input_required (the model's turn) → completed; a client that offers no model gets
    the outline alone, and says so."""
    points, delay = max(0, min(int(points), 10)), max(0.0, min(float(delay), 10.0))
    outline: list[str] = []
    for n in range(1, points + 1):
        await io.progress(n - 1, points + 1, f"outlining point {n}/{points}")
        await asyncio.sleep(delay)
        outline.append(f"{n}. {topic}: point {n}")
    await io.progress(points, points + 1, "asking the client's model for a draft")
    prompt = f"Write one short paragraph about {topic!r} from this outline:\n" + "\n".join(outline)
    data: dict[str, Any] = {"topic": topic, "outline": outline, "asked": False}
    data.update(draft=None, model=None, stopReason=None)
    try:
        reply = await io.sample(prompt, max(1, min(int(max_tokens), 4000)))
    except CannotAsk as exc:
        head = f"Outline of {topic!r} ({len(outline)} points); no draft: {exc}"
    else:
        data.update(asked=True, draft=said(reply), model=reply.model, stopReason=reply.stop_reason)
        head = f"Draft about {topic!r} by {reply.model}:\n{data['draft']}"
    await io.progress(points + 1, points + 1, "done")
    return ok_structured(DRAFT, data, head + "\n\nOutline:\n" + ("\n".join(outline) or "(none)"))


async def client_roots_run(io: RunIO) -> types.CallToolResult:
    """Asks the client which folders it shares with servers (roots/list) and lists them; a client
    that declared no roots is not asked, and the result says so."""
    try:
        listed = (await io.roots()).roots
    except CannotAsk as exc:
        return ok_structured(ROOTS, {"asked": False, "count": 0, "roots": []}, str(exc))
    rows = [{"uri": str(root.uri), "name": root.name} for root in listed]
    lines = [f"- {row['name'] or '(no name)'}: {row['uri']}" for row in rows]
    head = f"The client shares {len(rows)} root{'s' * (len(rows) != 1)}"
    return ok_structured(ROOTS, {"asked": True, "count": len(rows), "roots": rows}, "\n".join([head, *lines]))


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
    return [*content_only(made), *_own_tools()]


def _own_tools() -> list[Callable[..., Any]]:
    """probe-kit's own task tools that ask the client's model and roots (structured results)."""
    made: list[Callable[..., Any]] = []
    for runner, schema in ((draft_with_model_run, DRAFT), (client_roots_run, ROOTS)):
        tool = task_tool(runner)
        tool.__name__ = runner.__name__.removesuffix("_run")
        tool.task_support = "optional"  # type: ignore[attr-defined]
        tool.output_schema = dict(schema)  # type: ignore[attr-defined]
        made.append(tool)
    return made


# The copied arguments' caps as real annotations (this module's are strings, which the tool the
# tasks layer builds from a runner would resolve elsewhere): a schema's maxLength, checked on call.
confirm_delete_run.__annotations__["path"] = Copied
draft_with_model_run.__annotations__["topic"] = Copied
