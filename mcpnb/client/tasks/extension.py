"""The client half of the 2026-07-28 tasks extension, and answering a task's questions.

A ``Client`` built with :func:`tasks_extension` lets modern servers answer ``tools/call`` with a task;
a plain call then still returns the final result (the claim resolver follows the task, keeping the
call's idle clock alive and its progress bar moving). :func:`input_answerer` lets the callbacks a
``Client`` has (forms, sampling, roots) also answer a task's ``inputRequests``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp import types

from mcpnb.client.tasks.errors import TaskError
from mcpnb.client.tasks.state import TaskState
from mcpnb.client.tasks.wire import TASKS_EXTENSION, CreatedTask, Peer, dump

if TYPE_CHECKING:
    from mcpnb.client.tasks.handle import Answer


def tasks_extension(answer: Answer | None = None) -> Any:
    """The ``ClientExtension`` to pass to ``Client(extensions=[...])`` so modern servers create tasks.

    With it, ``client.call_tool`` of a task-capable tool still returns the final result (the claim
    resolver polls, answering ``inputRequests`` with ``answer``), while :func:`start_task` gets the
    task itself. Built lazily so importing :mod:`mcpnb.client.tasks` stays cheap.
    """
    from mcp.client import ClientExtension
    from mcp.client.extension import ClaimContext, ResultClaim

    class TasksExtension(ClientExtension):
        """Client half of SEP-2663: claims ``resultType: "task"`` on ``tools/call``."""

        identifier = TASKS_EXTENSION

        def __init__(self, answer: Answer | None) -> None:
            self.answer = answer

        def claims(self) -> tuple[ResultClaim[CreatedTask], ...]:
            return (ResultClaim(result_type="task", model=CreatedTask, resolve=self._resolve),)

        async def _resolve(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
            from mcpnb.client.tasks.handle import TaskHandle

            peer = Peer(ctx.session)
            state = TaskState.from_wire(
                dump(created), method=f"{ctx.tool_name}()", server=peer.name, status="working"
            )
            handle = TaskHandle(peer, ctx.tool_name, state, answer=self.answer)
            handle.add_listener(_keep_call_alive)
            try:
                result = await handle._wait(None)
            except BaseException:
                # The caller gave up (timeout, interrupt) or following failed: a transparent call
                # must not leave work running on the server that nobody will ever collect.
                await _cancel_quietly(handle)
                raise
            return result.sdk_result

    return TasksExtension(answer)


def _keep_call_alive(handle: Any) -> None:
    """A task the server reports on is alive: restart the calling call's idle clock (tool_timeout),
    and show its progress (or its status message) as the call's progress."""
    from mcpnb.client.interaction import current_call

    call = current_call.get()
    if call is None:
        return
    if call.deadline is not None:
        call.deadline.touch()
    if call.on_progress is not None and not handle.done:
        value, total, message = handle.progress or (0.0, None, handle.status_message)
        shown = asyncio.ensure_future(call.on_progress(value, total, message or handle.status_message))
        _SHOWING.add(shown)  # the loop keeps only weak references to tasks
        shown.add_done_callback(_SHOWING.discard)


_SHOWING: set[asyncio.Future[Any]] = set()


async def _cancel_quietly(handle: Any, grace: float = 5.0) -> None:
    import anyio

    with anyio.move_on_after(grace, shield=True), contextlib.suppress(Exception):
        await handle._cancel()
    if handle._watcher is not None:
        handle._watcher.cancel()


async def follow(handle: Any) -> Any:
    """Wait for a task a plain call started (a tool that requires tasks). If the caller gives up
    (Ctrl-C, a cancelled cell), the task is cancelled on the server too, as a plain call would be."""
    try:
        return await handle._wait(None)
    except asyncio.CancelledError:
        await _cancel_quietly(handle)
        raise


def input_answerer(
    elicit: Callable[..., Any],
    *,
    sample: Callable[..., Any] | None = None,
    list_roots: Callable[..., Any] | None = None,
    context: Any = None,
) -> Answer:
    """An ``answer`` for modern ``inputRequests`` built from a Client's own callbacks.

    The callbacks given to ``Client`` (``elicitation_callback``, ``sampling_callback``,
    ``list_roots_callback``) then serve push requests, multi-round-trip rounds and task questions
    alike: a task may ask what the client declared for any request (SEP-2663), its model's
    completion or its roots as well as a form. ``context`` is passed as ``ctx`` (there is no request
    context for a task question). A request for what no callback here answers, or one a callback
    refuses (sampling, roots), fails the wait with :class:`TaskError`; a refused form is a cancel.
    """
    from pydantic import TypeAdapter, ValidationError

    parse: TypeAdapter[Any] = TypeAdapter(types.InputRequest)

    async def answer(requests: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, request in requests.items():
            method = request.get("method") if isinstance(request, dict) else None
            try:
                parsed = parse.validate_python(request)
            except ValidationError:
                raise TaskError(f"cannot answer a task's {method!r} request (key {key!r})") from None
            if isinstance(parsed, types.ElicitRequest):
                reply = await _awaited(elicit(context, parsed.params))
                out[key] = (
                    types.ElicitResult(action="cancel") if isinstance(reply, types.ErrorData) else reply
                )
                continue
            callback = sample if isinstance(parsed, types.CreateMessageRequest) else list_roots
            if callback is None:
                raise TaskError(f"cannot answer a task's {method!r} request (key {key!r}): not declared")
            args = (context, parsed.params) if isinstance(parsed, types.CreateMessageRequest) else (context,)
            reply = await _awaited(callback(*args))
            if isinstance(reply, types.ErrorData):
                raise TaskError(f"the task's {method!r} request (key {key!r}) was refused: {reply.message}")
            out[key] = reply
        return out

    return answer


def elicitation_answerer(callback: Callable[..., Any], context: Any = None) -> Answer:
    """:func:`input_answerer` for a client that answers forms only."""
    return input_answerer(callback, context=context)


async def _awaited(reply: Any) -> Any:
    return await reply if inspect.isawaitable(reply) else reply
