"""A connection's side of people-in-the-loop: the SDK callbacks for elicitation, sampling and logs.

Each request is routed to the call it belongs to (see :mod:`mcpnb.client.interaction`), the call's
deadline is paused while a person answers, and the person's time is bounded. A failure of the
interaction itself (a form that cannot be shown) becomes a polite "no" to the server, never an
error that would look like a broken connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import describe
from mcpnb.client.interaction import (
    CallContext,
    Interaction,
    current_call,
    default_interaction,
    note_unasked,
    quote,
)

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection


class _AskFailed(Exception):
    """The interaction itself failed (not the server): the server gets a decline."""


class Asking:
    """Answers one connection's server requests through its interaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        #: Calls in flight (and tasks that may still ask): legacy push requests find their call here.
        self.active_calls: list[CallContext] = []

    @property
    def interaction(self) -> Interaction:
        return self.conn.interaction or default_interaction()

    def adopt(self, context: CallContext, *, until: Callable[[], bool], watch: Any) -> None:
        """Route questions to ``context`` while something outlives its call (a task), until
        ``until()`` is true; ``watch.add_listener`` says when to look again."""
        self.active_calls.append(context)

        def release(_: Any = None) -> None:
            if until() and context in self.active_calls:
                self.active_calls.remove(context)

        watch.add_listener(release)

    def current(self) -> CallContext | None:
        """The call a server request belongs to: the context variable (modern era, same task), or
        the most recent call in flight (legacy push requests arrive on the session's own task)."""
        return current_call.get() or (self.active_calls[-1] if self.active_calls else None)

    async def _ask(self, what: str, ask: Callable[[Interaction, CallContext | None], Awaitable[Any]]) -> Any:
        interaction = self.interaction
        call = self.current()
        if call is not None:
            call.asked.append(what)
            if call.transcript is not None:
                call.transcript.add("←", "request", what)
            if call.deadline is not None:
                call.deadline.pause()
        self.conn.emit("ask", f"the server asks: {what}", call=call.tool if call else None)
        try:
            return await asyncio.wait_for(ask(interaction, call), interaction.timeout)
        except (TimeoutError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a broken UI must never look like a broken server
            self.conn.emit("ask", f"asking failed, so the server is told no: {describe(exc)}")
            raise _AskFailed(describe(exc)) from exc
        finally:
            if call is not None and call.deadline is not None:
                call.deadline.resume()

    async def on_elicit(self, ctx: Any, params: Any) -> Any:
        """The SDK's elicitation callback (both eras, form and URL mode, task questions too)."""
        from mcp.types import ElicitResult

        mode = getattr(params, "mode", "form") or "form"
        server, call = self.conn.name, self.current()
        asked = f"{server} asked {quote(params.message)}"
        try:
            result = await self._ask(
                f"{mode} elicitation: {params.message}", lambda i, c: i.elicit(server, params, c)
            )
        except TimeoutError:
            self.conn.emit("ask", "nobody answered the elicitation in time: declined")
            note_unasked(call, f"{asked} and nobody answered in time: declined")
            return ElicitResult(action="decline")
        except _AskFailed as failed:
            note_unasked(call, f"{asked} and asking failed ({failed}): declined")
            return ElicitResult(action="decline")
        self.conn.emit("ask", f"elicitation answered: {result.action}")
        return result

    async def on_sample(self, ctx: Any, params: Any) -> Any:
        """The SDK's sampling callback: the person plays the model (or it is rejected)."""
        from mcp.types import ErrorData

        server, call = self.conn.name, self.current()
        asked = f"{server} asked for an LLM completion"
        try:
            return await self._ask("sampling (an LLM completion)", lambda i, c: i.sample(server, params, c))
        except TimeoutError:
            note_unasked(call, f"{asked} and nobody answered in time: rejected")
            return ErrorData(code=-1, message="nobody answered the sampling request in time")
        except _AskFailed as failed:
            note_unasked(call, f"{asked} and asking failed ({failed}): rejected")
            return ErrorData(code=-1, message="the client could not ask anyone")

    async def on_log(self, params: Any) -> None:
        """The SDK's logging callback: an event, the call's transcript, and the interaction."""
        self.conn.emit("log", f"{params.level}: {params.data}", level=params.level, logger=params.logger)
        call = self.current()
        if call is not None and call.transcript is not None:
            payload = {"level": params.level, "logger": params.logger, "data": params.data}
            call.transcript.add("←", "notification", "notifications/message", payload)
        try:
            await self.interaction.log(self.conn.name, params, call)
        except Exception as exc:  # a broken log view must not break the session
            self.conn.emit("log", f"showing the log line failed: {describe(exc)}")
