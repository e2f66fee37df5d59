"""Answers checked against the requests they answer, in mcpnb's HTTP and legacy HTTP+SSE connections.

Over Streamable HTTP the answer to a request's POST that carries another request's id fails that
call at once (:func:`addressed`), and an answer for a request the session never sent is said in the
server's log (:func:`warn_unknown_answers`): the SDK dropped both with a debug line, and the call
waited out its whole timeout. :mod:`mcpnb.client.lean` sees every parsed message and calls these.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

#: The id of the request whose POST response is being read (Streamable HTTP): its answer must be
#: that request's. Set by :func:`expect_answers` around the SDK's readers of a POST's response.
_answering: ContextVar[Any] = ContextVar("mcpnb_answering", default=None)
#: Marks the error a call gets for an answer addressed to another request (``ErrorData.data``).
MISADDRESSED = "mcpnb_misaddressed_answer"


def addressed(message: Any) -> Any:
    """``message``, or an error for the request being answered if it answers another one.

    Over Streamable HTTP the response to a request's POST is that request's answer. The SDK reads
    an answer with another id as an answer all the same: from a JSON body it is dropped (the call
    waited out its whole timeout, then was told to raise tool_timeout), on an event stream it is
    taken as this request's (another call's result, as this one's). Either way it is a server bug:
    the call fails at once and says so, and the server's log has it (``%mcp logs``).
    """
    expected = _answering.get()
    if expected is None:
        return message
    from mcp.shared.dispatcher import coerce_request_id
    from mcp_types import ErrorData, JSONRPCError, JSONRPCResponse

    if not isinstance(message, (JSONRPCResponse, JSONRPCError)):
        return message
    if message.id is not None and coerce_request_id(message.id) == coerce_request_id(expected):
        return message
    if message.id is None and isinstance(message, JSONRPCError):  # refused before its id was read
        return JSONRPCError(jsonrpc="2.0", id=expected, error=message.error)
    said = (
        f"the server answered the POST of request {json.dumps(expected)} with a response for another "
        f"request id ({json.dumps(message.id)}): a bug in the server; that answer was not used"
    )
    _log_for_server(f"[warning] {said}")
    return JSONRPCError(
        jsonrpc="2.0", id=expected, error=ErrorData(code=-32603, message=said, data=MISADDRESSED)
    )


def misaddressed(exc: BaseException) -> str | None:
    """What :func:`addressed` said, if ``exc`` is the error it made for a call; None otherwise."""
    error = getattr(exc, "error", None)
    if type(exc).__name__ != "MCPError" or getattr(error, "data", None) != MISADDRESSED:
        return None
    return str(error.message)


def _log_for_server(line: str) -> None:
    """A line in the log of the connection whose task this is (``%mcp logs NAME``), if any."""
    from mcpnb.client.logfilter import SERVER_LOG

    route = SERVER_LOG.get()
    if route is not None:
        route(line, "transport")


def expect_answers(transport_class: Any, *, mine: Callable[[], bool]) -> None:
    """Wrap the SDK's readers of a POST's JSON and event-stream responses (once) so the answer in
    them is checked against the request that was posted (:func:`addressed`), where ``mine()``
    says the request is mcpnb's (its connections only)."""
    if getattr(transport_class, "_mcpnb_expects", False):
        return
    json_reader = transport_class._handle_json_response
    event_reader = transport_class._handle_sse_event

    async def _handle_json_response(self: Any, response: Any, writer: Any, *, request_id: Any) -> None:
        token = _answering.set(request_id if mine() else None)
        try:
            await json_reader(self, response, writer, request_id=request_id)
        finally:
            _answering.reset(token)

    async def _handle_sse_event(
        self: Any, sse: Any, writer: Any, original_request_id: Any = None, *a: Any, **k: Any
    ):
        token = _answering.set(original_request_id if mine() else None)
        try:
            return await event_reader(self, sse, writer, original_request_id, *a, **k)
        finally:
            _answering.reset(token)

    transport_class._handle_json_response = _handle_json_response
    transport_class._handle_sse_event = _handle_sse_event
    transport_class._mcpnb_expects = True


def warn_unknown_answers(*, mine: Callable[[], bool]) -> None:
    """Say in the server's log when an answer comes for a request that was never sent (once; in
    mcpnb's connections only). The SDK drops it with a debug line: over the legacy HTTP+SSE
    transport every answer comes on the one shared stream, and a server that gets ids wrong left
    its call waiting out the whole timeout with nothing said anywhere. An answer for a request that
    was sent but is no longer waited for (a call that timed out, say) is normal, and not said."""
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    resolve = JSONRPCDispatcher._resolve_pending
    if getattr(resolve, "_mcpnb", False):
        return

    def _resolve_pending(self: Any, request_id: Any, outcome: Any) -> None:
        if mine() and not awaited(self, request_id):
            _log_for_server(f"[warning] {_unknown_answer(self, request_id, outcome)}")
        resolve(self, request_id, outcome)

    _resolve_pending._mcpnb = True  # type: ignore[attr-defined]
    JSONRPCDispatcher._resolve_pending = _resolve_pending  # type: ignore[method-assign]


def awaited(dispatcher: Any, request_id: Any) -> bool:
    """Whether an answer for ``request_id`` is unremarkable: awaited, or for a request this
    session sent (the SDK numbers them 1, 2, ...; a late answer to one is no bug)."""
    from mcp.shared.dispatcher import coerce_request_id

    if request_id is None:
        return False
    key = coerce_request_id(request_id)
    if key in getattr(dispatcher, "_pending", {}):
        return True
    sent = getattr(dispatcher, "_next_id", None)
    return not isinstance(sent, int) or (type(key) is int and 1 <= key <= sent)


def _unknown_answer(dispatcher: Any, request_id: Any, outcome: Any) -> str:
    if request_id is None:
        said = getattr(outcome, "message", None)
        return "the server sent an error for no request (id null)" + (f": {said}" if said else "")
    return (
        f"the server sent an answer for request id {json.dumps(request_id)}, which this session never "
        "sent (a bug in the server): it was dropped; a call waiting for its answer waits out its timeout"
    )
