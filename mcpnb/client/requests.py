"""Requests through a connection: waiting for a live session, and what an SDK failure means.

Every request a connection sends (tools, resources, prompts, tasks) goes through :func:`request`,
so there is one place that turns the SDK's errors into mcpnb's: a −32042 into
:class:`UrlRequiredError`, a forgotten HTTP session into a renewal (and one replay, only for
read-only or idempotent requests), a 401/403 into :class:`AuthError`, a dead transport into
background recovery and a :class:`CallError` that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import (
    AuthError,
    CallError,
    CallTimeoutError,
    McpnbError,
    NotConnectedError,
    UrlRequiredError,
    describe,
)
from mcpnb.client.events import State
from mcpnb.client.interaction import CallContext, current_call
from mcpnb.client.results import ToolResult
from mcpnb.client.retry import is_retryable, renew_session
from mcpnb.client.timeouts import Deadline, DeadlinePassed, within

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection

_CONNECTION_CLOSED = -32000
_URL_ELICITATION_REQUIRED = -32042


async def live_client(conn: Connection, wait: float | None) -> Any:
    """The live client; waits (up to ``wait``) while a reconnect is under way."""
    if conn.state in (State.RECONNECTING, State.CONNECTING) and wait:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn._settled.wait(), wait)
    if conn.state is State.CONNECTED and conn.client is not None:
        return conn.client
    if conn.state is State.DISABLED:
        raise NotConnectedError(f"server {conn.name!r} is disabled (enabled: false in its config)")
    why = f": {conn.last_error}" if conn.state is State.FAILED and conn.last_error else ""
    raise NotConnectedError(
        f"server {conn.name!r} is {conn.state}{why}; reconnect it with pool.reconnect({conn.name!r})"
    )

async def request(
    conn: Connection,
    what: str,
    send: Callable[[Any], Awaitable[Any]],
    *,
    idempotent: bool = True,
    wait: float | None = None,
) -> Any:
    """Run ``send(client)``, turning SDK failures into mcpnb errors and dead transports into recovery."""
    from mcp import MCPError

    client = await live_client(conn, conn.config.startup_timeout if wait is None else wait)
    started = conn.clock()
    try:
        result = await send(client)
    except (McpnbError, asyncio.CancelledError):
        raise
    except Exception as exc:
        ended = conn.ended_by(client)
        if ended is not None:  # disconnect(), close(), reconnect(): not a lost server, no recovery
            raise CallError(f"{what} did not finish: {conn.name!r} was {ended} while the call ran") from None
        if isinstance(exc, MCPError) and exc.code == _URL_ELICITATION_REQUIRED:
            data = exc.error.data if isinstance(exc.error.data, dict) else {}
            raise UrlRequiredError(
                conn.name, what.removesuffix("()"), list(data.get("elicitations", []))
            ) from None
        if conn.session_expired:
            await renew_session(conn)
            if idempotent:
                conn.emit("session", f"retrying {what} once on the new session")
                return await request(conn, what, send, idempotent=False, wait=wait)
            raise CallError(
                f"{what}: the server forgot the session of {conn.name!r} mid-call, so the call may "
                "or may not have run; it was not repeated (not marked read-only or idempotent). "
                "The connection is back: call again if that is safe."
            ) from None
        if conn.http_status in (401, 403):
            target = conn.safe(conn.config.target)
            raise AuthError.from_status(conn.name, conn.http_status, target) from None
        transport_failed = not isinstance(exc, MCPError) or exc.code == _CONNECTION_CLOSED
        if transport_failed and is_retryable(exc, http_status=conn.http_status):
            conn.lost(exc, client)
            then = (
                "reconnecting in the background"
                if conn.state is State.RECONNECTING
                else f"reconnect with pool.reconnect({conn.name!r})"
            )
            why = conn.safe(describe(exc))
            raise CallError(
                f"{what} failed: the connection to {conn.name!r} was lost ({why}); {then}"
            ) from None
        raise CallError(f"{what} on {conn.name!r} failed: {conn.safe(describe(exc))}") from None
    conn.last_latency_ms = (conn.clock() - started) * 1000
    return result


async def call_tool(
    conn: Connection,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    context: CallContext | None = None,
) -> ToolResult:
    """One ``tools/call``: the deadline, progress, the call context people-in-the-loop needs, the result."""
    info = await conn.tool(name)
    annotations = info.annotations or {}
    idempotent = bool(annotations.get("readOnlyHint") or annotations.get("idempotentHint"))
    idle = conn.config.tool_timeout if timeout is None else timeout
    call_ctx = context or CallContext()
    call_ctx.server, call_ctx.tool = conn.name, name
    started = conn.clock()

    async def send(client: Any) -> Any:
        total = max(idle, conn.config.max_total_timeout)
        deadline = call_ctx.deadline = Deadline(idle, total, conn.clock)

        async def progress(value: float, total: float | None, message: str | None) -> None:
            deadline.touch()
            if call_ctx.transcript is not None:
                params = {"progress": value, "total": total, "message": message}
                call_ctx.transcript.add("←", "notification", "notifications/progress", params)
            if call_ctx.on_progress is not None:
                await call_ctx.on_progress(value, total, message)

        token = current_call.set(call_ctx)  # modern-era requests arrive in this task and see it
        conn.asking.active_calls.append(call_ctx)  # legacy push requests find their call here
        try:
            # past the deadline this task is cancelled: the SDK tells the server (notifications/cancelled)
            return await within(
                deadline, client.call_tool(name, arguments or {}, progress_callback=progress)
            )
        except DeadlinePassed:
            raise CallTimeoutError(conn.safe(deadline.message(f"{name}()", conn.name))) from None
        finally:
            conn.asking.active_calls.remove(call_ctx)
            current_call.reset(token)

    result = await request(conn, f"{name}()", send, idempotent=idempotent, wait=idle)
    out = ToolResult.from_sdk(
        conn.name, name, result, elapsed=conn.clock() - started, output_schema=info.output_schema
    )
    out.transcript = call_ctx.transcript
    out.logs, out.logs_dropped = call_ctx.kept_logs()
    return out
