"""How long-running tools talk to the outside while they work: progress and questions.

The same tool body runs in two situations. Called normally, progress goes out as MCP progress
notifications; a form was asked up front by a ``Resolve`` marker (the only way that works in both
eras), while the client's model (:meth:`RunIO.sample`) and its roots (:meth:`RunIO.roots`) are asked
when the body gets there, through :func:`mcpnb.probekit.inputs.answers`: mid-call on 2025-11-25; on
2026-07-28 the call answers with an ``InputRequiredResult`` and the retried call runs the body again,
the answers of earlier rounds riding its sealed ``requestState``. Run as a task, progress lands on the
task record and a question parks the task in ``input_required`` until the client answers through
``tasks/result`` or ``tasks/update``. Either way a question the client did not declare it can answer
is never asked: :class:`CannotAsk` says so, and a body may catch it and carry on without.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from mcp import types
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import AcceptedElicitation
from pydantic import BaseModel

from mcpnb.probekit.inputs import Ask, answers, completion, modern, roots
from mcpnb.probekit.responses import ProbeError, from_error


class RunIO(Protocol):
    """What a long-running tool may do besides computing."""

    async def progress(self, done: float, total: float | None, message: str) -> None: ...

    async def ask(self, message: str, schema: type[BaseModel]) -> types.ElicitResult: ...

    async def sample(self, prompt: str, max_tokens: int) -> types.CreateMessageResult: ...

    async def roots(self) -> types.ListRootsResult: ...


class CannotAsk(ProbeError):
    """A question the client did not declare it can answer (no ``sampling``, no ``roots``): it was not
    asked. Uncaught, the tool answers with this sentence as its error."""


class InputNeeded(Exception):
    """Raised inside a plain 2026-07-28 call: answer the call with ``result`` (the client retries)."""

    def __init__(self, result: types.InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


class ContextIO:
    """RunIO for a normal (non-task) call: MCP progress; a form a resolver already collected; the
    client's model and roots asked when the body gets there (either era, see the module's text)."""

    def __init__(self, ctx: Context | None, answer: Any = None) -> None:
        self.ctx, self.answer = ctx, answer
        self._keys = itertools.count(1)
        #: Earlier rounds' answers (2026-07-28): the sealed requestState this call was retried with.
        self._kept: dict[str, Any] = _kept_answers(ctx)

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

    async def sample(self, prompt: str, max_tokens: int) -> types.CreateMessageResult:
        request = completion(prompt, max_tokens)
        return await self._asked(f"sample-{next(self._keys)}", request, types.CreateMessageResult)

    async def roots(self) -> types.ListRootsResult:
        return await self._asked(f"roots-{next(self._keys)}", roots(), types.ListRootsResult)

    async def _asked(self, key: str, request: Ask, kind: type[Answered]) -> Answered:
        """The client's answer to ``request``. Keys count up from 1 in the body's order, so every
        round of a retried 2026-07-28 call names each question alike, and an answer an earlier round
        gave (kept in the requestState) is not asked for again."""
        if self.ctx is None:
            raise CannotAsk("This call has no client to ask.")
        if key in self._kept:
            return kind.model_validate(self._kept[key])
        got = await answers(self.ctx, {key: request}, state=json.dumps({KEPT: self._kept}))
        if isinstance(got, types.InputRequiredResult):
            raise InputNeeded(got)
        if isinstance(got, list):
            raise CannotAsk(got[0].text)
        if modern(self.ctx):
            self._kept[key] = got[key].model_dump(by_alias=True, mode="json", exclude_none=True)
        return kind.model_validate(got[key].model_dump(by_alias=True, exclude_none=True))


#: The requestState's field of the answers a plain 2026-07-28 call's earlier rounds gave.
KEPT = "runio-answers"
Answered = TypeVar("Answered", bound=BaseModel)


def _kept_answers(ctx: Context | None) -> dict[str, Any]:
    """The answers earlier rounds gave, from the requestState the SDK unsealed for this call (it
    checked that the state was handed out for this very tool call)."""
    state = getattr(ctx, "request_state", None) if ctx is not None else None
    if not state:
        return {}
    try:
        kept = json.loads(state).get(KEPT)
    except (ValueError, AttributeError):
        return {}
    return kept if isinstance(kept, dict) else {}


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
        except InputNeeded as needed:  # 2026-07-28: the questions first; the retry runs it again
            if resolved:  # the SDK's resolvers own this call's requestState: one flow per call
                return from_error(ProbeError("This tool asks a form up front: run it as a task to ask more."))
            return needed.result  # type: ignore[return-value]

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
