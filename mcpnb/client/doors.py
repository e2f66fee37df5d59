"""The one wrapper around a session's outgoing requests, for everything mcpnb does to them.

Every request a session sends leaves through its dispatcher's ``send_raw_request`` (stdio, HTTP,
in-process alike), and mcpnb acts there for four reasons, each kept in its own module:

- a ``tools/call`` declares the tasks extension only when a task is wanted
  (:mod:`mcpnb.client.tasks.optin`);
- a call that asked for a transcript records what went out and what came back
  (:mod:`mcpnb.client.transcript`), and has the session's :class:`~mcpnb.client.transcript.Wire`
  record, while it is in flight, the messages the door does not see as they cross;
- a 2026-07-28 result without ``resultType`` is read as ``complete`` (:mod:`mcpnb.client.resulttype`);
- a tool result's ``structuredContent`` goes past the session's deep copy (:mod:`mcpnb.client.lean`);
- a caller that asked for it gets the answer as sent too (:data:`KEPT`: a ``tools/list`` the SDK
  refuses whole for one bad tool, whose sound tools :mod:`mcpnb.client.catalog` keeps).

Each used to wrap the door on its own: four coroutine frames on every request, the hot path of
every call. Here one door applies them in a fixed order, and that order is written down once:
the params are rewritten before the transcript records them (it shows what was sent), and the
result is recorded as the server sent it, before it is filled in or handed over.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from mcpnb.client import lean, resulttype
from mcpnb.client.interaction import current_call
from mcpnb.client.tasks import optin

#: Set by a caller that wants the answers to its requests as the server sent them: the door appends
#: each, before the session validates it (a refused answer is still there to read).
KEPT: ContextVar[list[Any] | None] = ContextVar("mcpnb_kept_answers", default=None)


def install(session: Any, note: Callable[[str], None] | None = None, *, lean_results: bool = True) -> None:
    """Wrap ``session``'s door once (idempotent); ``note`` hears what is said of the server's
    results (once per session). ``lean_results=False`` leaves the session's ``call_tool`` as it is
    (a session mcpnb did not open, such as one handed to ``TasksClient``)."""
    dispatcher = session._dispatcher
    if getattr(dispatcher, "_mcpnb_door", False):
        return
    send = dispatcher.send_raw_request
    fill = resulttype.filler(session, note or (lambda _said: None))
    hand_over = lean.hand_over(session) if lean_results else None
    from mcpnb.client.transcript import tap_notifications, wire

    tap = wire(dispatcher)

    # Every argument passes through as given: the SDK also uses keyword-only ones (the courtesy
    # cancel after an interrupt sends ``_related_request_id``; dropping it loses the cancel).
    async def door(method: str, params: Any, *args: Any, **kwargs: Any) -> Any:
        if method == "tools/call":
            params = optin.outgoing(params)
        call = current_call.get()
        record = None if call is None else call.transcript
        if record is not None:
            if not tap.writes_requests:  # (a JSON-RPC session's request: as written, with the SDK's _meta)
                record.add("→", "request", method, params)
            args, kwargs = tap.with_progress(call, args, kwargs)
            tap.enter(call)  # the wire records the server's messages while the call is in flight
        parsing = lean.IN_MCPNB.set(True)  # the lean parser, for this request's answer only
        try:
            raw = await send(method, params, *args, **kwargs)
        except Exception as exc:
            if record is not None:
                record.add("←", "error", method, {"error": str(exc)})
            raise
        finally:
            lean.IN_MCPNB.reset(parsing)
            if record is not None:
                tap.leave(call)
        if record is not None:
            record.add("←", "response", method, raw)
        kept = KEPT.get()
        if kept is not None:
            kept.append(raw)
        raw = fill(method, raw)
        return raw if hand_over is None else hand_over(method, raw)

    dispatcher.send_raw_request = door
    tap_notifications(dispatcher)
    dispatcher._mcpnb_door = True
