"""Tasks through the pool: what ``Pool.start_task``, ``attach_task`` and ``tasks`` do on the runtime loop.

:mod:`.registry` works on one connection and knows nothing of a pool; this module is where a server
name becomes a connection, the pool's registry and runtime are handed in, and a task's later
questions are routed to the cell that started (or attached) it. Each function takes the pool first
and runs on the runtime loop; ``Pool`` keeps the sync and async faces.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import TYPE_CHECKING, Any

from mcpnb.client import stalls
from mcpnb.client.errors import CallError
from mcpnb.client.tasks.extension import input_answerer
from mcpnb.client.tasks.registry import TaskListing, attach_task, server_tasks, start_task

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection
    from mcpnb.client.interaction import CallContext
    from mcpnb.client.pool import Pool
    from mcpnb.client.tasks.handle import TaskHandle


def _handle_options(pool: Pool, conn: Connection, context: CallContext) -> dict[str, Any]:
    """What every handle the pool makes needs: who answers its questions (for ``context``: its
    answers, its cell; never whichever call is in flight), how it hops onto the loop."""
    from mcpnb.client.interaction import current_call

    def in_context(callback: Any) -> Any:
        async def asked(ctx: Any, params: Any) -> Any:
            token = current_call.set(context)
            try:
                return await callback(ctx, params)
            finally:
                current_call.reset(token)

        return asked

    roots = conn._list_roots if conn.config.roots else None  # declared only where roots are configured
    return {
        "answer": input_answerer(
            in_context(conn.asking.on_elicit), sample=in_context(conn.asking.on_sample), list_roots=roots
        ),
        "runner": pool.runtime.run,
        "arunner": pool.runtime.arun,
        "tasks": pool.task_registry,
    }


def _adopt(conn: Connection, handle: TaskHandle, context: CallContext) -> TaskHandle:
    """Send the questions a running task asks later to ``context`` (the cell), until it ends; without
    one, to a context of its own (not to whichever call happens to be in flight), so that the
    questions nobody was asked are said with the task's result. A context with a place to ask
    (``ui``: a cell) has the handle follow the task from now on, so a question reaches the cell
    when the server asks it, not when a cell next waits for the result (a cell that blocks the
    kernel, which could never see the form's click)."""
    context.tool = context.tool or handle.tool or ""
    handle.note_unasked(context.answered_without_asking)
    if not handle.done:
        conn.asking.adopt(
            context, handle.task_id, until=lambda: handle.done or handle.failure is not None, watch=handle
        )
        if context.ui is not None:
            handle.watch()
    return handle


def unsent_ttl(pool: Pool, server: str, ttl_ms: int | None) -> str | None:
    """Why ``ttl_ms`` will not reach ``server`` (None when it will, or none was given): the
    2026-07-28 tasks extension lets the server alone decide how long it keeps a task."""
    if ttl_ms is None or pool.connection(server).era != "modern":
        return None
    return (
        f"{server!r} speaks 2026-07-28, where the server decides how long it keeps a task, "
        f"so a TTL of {ttl_ms} ms cannot be sent (a 2025-11-25 connection takes one)"
    )


def warn_unsent_ttl(pool: Pool, server: str, ttl_ms: int | None) -> None:
    """``Pool.start_task``'s warning, on the caller's thread so that it shows in the cell that asked."""
    why = unsent_ttl(pool, server, ttl_ms)
    if why is not None:  # stacklevel: the caller of Pool.start_task
        warnings.warn(f"{why}; the handle's ttl_ms shows the server's choice", UserWarning, stacklevel=3)


async def start(
    pool: Pool,
    server: str,
    tool: str,
    arguments: dict[str, Any] | None,
    ttl_ms: int | None,
    context: CallContext | None = None,
) -> TaskHandle:
    """Start ``tool`` on ``server`` as a task; its handle at once (see ``Pool.start_task``)."""
    from mcpnb.client.interaction import CallContext, current_call

    conn = pool.connection(server)
    info = await conn.tool(tool)  # unknown or filtered: a clear error, and nothing is sent
    if info.task_support == "forbidden":
        raise CallError(f"{tool}() cannot run as a task on {server!r}: {_no_task(conn)} (nothing was sent)")
    context = context if context is not None else CallContext(server=conn.name, tool=tool)
    options = _handle_options(pool, conn, context)
    # A server may ask before it answers or starts the task (2026-07-28's input rounds, or a
    # 2025-11-25 server that runs the call as a plain one): those questions belong to this call
    # (its answers=, its cell), not to whichever call is in flight.
    token = current_call.set(context)
    conn.asking.active_calls.append(context)
    span = stalls.begin(conn, tool)  # from its creation: an in-process task may block the loop at once
    try:
        handle = await conn.request(
            f"{tool}() as a task", lambda _client: start_task(conn, tool, arguments, ttl_ms=ttl_ms, **options)
        )
    except BaseException:
        stalls.finish(span)
        raise
    finally:
        conn.asking.active_calls.remove(context)
        current_call.reset(token)
    return _adopt(conn, _watched(conn, handle, span), context)


def _watched(conn: Connection, handle: TaskHandle, span: stalls.Span) -> TaskHandle:
    """``handle`` says on its result (and its server's log) what :mod:`~mcpnb.client.stalls` saw
    while the task ran: a tool of an in-process server that held the runtime loop. Its watch ends
    when the handle sees the task end, however it learns it (a wait, a live view's polls). A task
    nobody follows stays among the suspects of a later stall ("one of them blocks"): following it
    here would poll before the caller can set ``handle.answer``, and its questions would go unasked."""

    def ended(_handle: TaskHandle) -> None:
        if not (handle.done or handle.failure is not None):
            return
        stop()
        said = [line for line in stalls.finish(span) if line not in handle.warnings]
        handle.warnings += said
        if handle.landed is not None:
            handle.landed.warnings += [line for line in said if line not in handle.landed.warnings]

    stop = handle.add_listener(ended)
    ended(handle)  # answered at once, or ended before this
    return handle


def _no_task(conn: Connection) -> str:
    """Why a tool runs only as a plain call (a server that was asked anyway answered with an error
    of its own, or ran the call and kept the cell waiting for its end)."""
    from mcpnb.client.tasks.optin import server_offers_tasks

    if not server_offers_tasks(conn.capabilities, conn.era):
        return "the server offers no tasks; call it without task=True (or --task)"
    return (
        "the tool says it runs only as a plain call (execution.taskSupport); "
        "call it without task=True (or --task)"
    )


async def attach(pool: Pool, server: str, task_id: str, context: CallContext | None) -> TaskHandle:
    """A handle for a task started elsewhere (see ``Pool.attach_task``)."""
    from mcpnb.client.interaction import CallContext

    conn = pool.connection(server)
    context = context if context is not None else CallContext(server=conn.name)
    options = _handle_options(pool, conn, context)
    handle = await conn.request(f"tasks/get {task_id}", lambda _client: attach_task(conn, task_id, **options))
    return _adopt(conn, handle, context)


async def listing(pool: Pool, server: str | None) -> TaskListing:
    """Tasks of one server or of every connected one, with a note per server (see ``Pool.tasks``)."""
    conns = [pool.connection(server)] if server is not None else [pool.connection(n) for n in pool.names]
    runtime = pool.runtime
    found = await asyncio.gather(
        *(server_tasks(c, tasks=pool.task_registry, runner=runtime.run, arunner=runtime.arun) for c in conns)
    )
    result = TaskListing()
    for conn, (handles, note) in zip(conns, found, strict=True):
        result.extend(handles)
        if note is not None:
            result.notes[conn.name] = note
    return result
