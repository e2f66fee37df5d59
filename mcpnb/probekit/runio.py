"""How long-running tools talk to the outside while they work: progress and questions.

The same tool body runs in two situations. Called normally, progress goes out as MCP progress
notifications and questions were asked up front by a ``Resolve`` marker (the only way that works in
both eras). Run as a task, progress lands on the task record and a question parks the task in
``input_required`` until the client answers through ``tasks/result`` or ``tasks/update``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from mcp import types
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import AcceptedElicitation
from pydantic import BaseModel

from mcpnb.probekit.responses import ProbeError, from_error


class RunIO(Protocol):
    """What a long-running tool may do besides computing."""

    async def progress(self, done: float, total: float | None, message: str) -> None: ...

    async def ask(self, message: str, schema: type[BaseModel]) -> types.ElicitResult: ...


class ContextIO:
    """RunIO for a normal (non-task) call: MCP progress; answers that a resolver already collected."""

    def __init__(self, ctx: Context | None, answer: Any = None) -> None:
        self.ctx, self.answer = ctx, answer

    async def progress(self, done: float, total: float | None, message: str) -> None:
        if self.ctx is not None:
            await self.ctx.report_progress(done, total, message)

    async def ask(self, message: str, schema: type[BaseModel]) -> types.ElicitResult:
        if isinstance(self.answer, AcceptedElicitation):
            return types.ElicitResult(action="accept", content=self.answer.data.model_dump())
        if self.answer is not None:
            return types.ElicitResult(action=getattr(self.answer, "action", "cancel"))
        raise ProbeError(
            f"This step asks {message!r}, which a plain call cannot ask: run the tool as a task "
            "(%mcp call ... --task, or pool.start_task) and it asks, then goes on."
        )


Runner = Callable[..., Awaitable[types.CallToolResult]]


def task_tool(runner: Runner) -> Callable[..., Awaitable[types.CallToolResult]]:
    """Make the normal MCP tool for a task-capable runner ``async (io, **args) -> CallToolResult``.

    The tool keeps the runner's signature minus ``io`` plus a ``ctx`` parameter, and carries the
    runner as ``task_runner`` so the tasks layer can run the same body in the background.
    """
    sig = inspect.signature(runner)
    params = [p for name, p in sig.parameters.items() if name != "io"]
    resolved = next((p.name for p in params if p.name == "answer"), None)
    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)

    @functools.wraps(runner)
    async def tool(*, ctx: Context, **kwargs: Any) -> types.CallToolResult:
        answer = kwargs.pop("answer", None) if resolved else None
        try:
            return await runner(ContextIO(ctx, answer), **kwargs)
        except ProbeError as exc:
            return from_error(exc)

    ordered = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
    tool.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[*ordered, ctx_param], return_annotation=types.CallToolResult
    )
    tool.__annotations__ = {
        **{k: v for k, v in runner.__annotations__.items() if k != "io"},
        "ctx": Context,
        "return": types.CallToolResult,
    }
    del tool.__wrapped__  # type: ignore[attr-defined]  # inspect must see our signature, not the runner's
    tool.task_runner = runner  # type: ignore[attr-defined]
    tool.task_resolved = {resolved} if resolved else set()  # type: ignore[attr-defined]
    return tool
