"""Large tool results through the SDK's receive path without its needless copies.

Measured on a 1M-row × 5-column result (a 232 MB JSON-RPC message; its Python objects take ~500 MB),
two steps of the SDK's receive path dominated the client's peak memory:

1. **Parsing.** ``jsonrpc_message_adapter.validate_json`` peaks at about 15× the message's size:
   pydantic-core first builds a JSON tree of its own, then validates a union of four message types
   against it (3.7 GB for the 232 MB message, 7–9 s). :func:`parse_message` parses with jiter
   (``pydantic_core.from_json``, which also shares repeated short strings) and validates the Python
   objects: the same message at about 2.5× its size, several times faster. The message types hold
   ``params``/``result`` as ``dict[str, Any]``, so this checks the envelope and keeps the parsed
   values as they are. Small messages keep the SDK's path untouched, and a message the lean path
   refuses (not JSON, not JSON-RPC) goes to the SDK's parser too, so it fails with the SDK's error.
2. **The result's surface check.** ``ClientSession.send_request`` validates a result against the
   negotiated revision's wire type and *dumps it back to JSON-mode Python* (a full deep copy of
   ``structuredContent``, +500 MB, thrown away). That check only looks at the top-level type of
   ``structuredContent`` (an object in 2025-11-25, any JSON value in 2026-07-28), so it is shown
   an empty value of the same type, and the real one is put back on the ``CallToolResult`` the
   session returns.

The same step keeps a tool result the SDK would refuse whole (one bad part failed the call, and
took the good parts with it): a content block MCP does not define (``{"type": "hologram"}``), or
one it defines but not so (an image without ``data``), becomes a text block holding its JSON
(:func:`mcpnb.client.contents.readable_content`), and a 2025-11-25 ``structuredContent`` that is
not an object is handed past the check like any other; an ``isError`` that is no true/false and a
``_meta`` that is no object are read too (:func:`_readable_fields`). What was changed is said on the result
(``ToolResult.warnings``), so the person sees it next to the data. A task's result is read the
same way (:func:`read_tool_result`, which :mod:`mcpnb.client.tasks` uses), the same said of it.

mcpnb's stdio reader calls :func:`parse_message` itself; the SDK's Streamable HTTP and legacy
HTTP+SSE clients are pointed at it by :func:`lean_streamable_http` and :func:`lean_sse`, only inside
mcpnb's own connections (other users of the SDK in the process keep its parser). In-process servers
send no JSON; the hand-over still saves the copy. :func:`hand_over` sets it up per session.

Seeing every message parsed there also lets an answer be checked against the request it answers
(:mod:`mcpnb.client.answers`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from mcpnb.client.answers import addressed, expect_answers, warn_unknown_answers

if TYPE_CHECKING:
    from mcp_types import CallToolResult

#: Messages at least this long (characters or bytes) are parsed lean; smaller ones by the SDK.
LEAN_FROM = 64 * 1024

#: True while mcpnb sends a request (set by :mod:`mcpnb.client.doors`): its answer is parsed lean.
IN_MCPNB: ContextVar[bool] = ContextVar("mcpnb_lean_parse", default=False)
_sse_event_limit: ContextVar[int | None] = ContextVar("mcpnb_sse_event_limit", default=None)
_sse_over: ContextVar[Callable[[int], None] | None] = ContextVar("mcpnb_sse_over_limit", default=None)


class _Held:
    """What the step took off one ``session.call_tool``'s results: the ``structuredContent`` values
    handed past the surface check, and what was changed so the SDK reads the last result."""

    __slots__ = ("said", "structured")

    def __init__(self) -> None:
        self.structured: list[Any] = []
        self.said: list[str] = []


_held: ContextVar[_Held | None] = ContextVar("mcpnb_held_structured", default=None)


def parse_message(data: str | bytes | bytearray, *, lean_from: int = LEAN_FROM) -> Any:
    """One JSON-RPC message, as ``jsonrpc_message_adapter.validate_json(data, by_name=False)`` gives it."""
    from mcp_types import jsonrpc_message_adapter as adapter

    if len(data) >= lean_from:
        from pydantic_core import from_json

        try:
            return adapter.validate_python(from_json(data), by_name=False)
        except ValueError:  # not JSON, or not a message (ValidationError is a ValueError): the SDK says why
            pass
    return adapter.validate_json(data, by_name=False)


class _LeanAdapter:
    """Stands in for the SDK's message adapter in its Streamable HTTP client; lean in mcpnb's tasks."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def validate_json(self, data: Any, **kwargs: Any) -> Any:
        if IN_MCPNB.get() and kwargs == {"by_name": False}:
            return addressed(parse_message(data))
        return self._inner.validate_json(data, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def mark_mine() -> None:
    """Mark the task that opens one of mcpnb's connections (and the session tasks it starts) as
    mcpnb's: there an answer for a request never sent is said in the server's log
    (:func:`~mcpnb.client.answers.warn_unknown_answers`), over every transport."""
    warn_unknown_answers(mine=IN_MCPNB.get)
    IN_MCPNB.set(True)


def lean_streamable_http() -> None:
    """Point the SDK's Streamable HTTP client at :func:`parse_message`, for mcpnb's connections only.

    The module-level adapter is wrapped once; it parses lean only where the flag is set. The SDK
    parses a request's response in a context copied from the task that sent the request (its
    context streams), so :mod:`mcpnb.client.doors` sets the flag around each request mcpnb's session sends;
    this sets it for the task that opens the connection (its background GET stream).
    """
    import mcp.client.streamable_http as module

    adapter = getattr(module, "jsonrpc_message_adapter", None)  # an SDK that moved it keeps its own parser
    if adapter is not None and not isinstance(adapter, _LeanAdapter):
        module.jsonrpc_message_adapter = _LeanAdapter(adapter)  # type: ignore[assignment]
    transport_class = getattr(module, "StreamableHTTPTransport", None)
    if adapter is not None and all(
        hasattr(transport_class, name) for name in ("_handle_json_response", "_handle_sse_event")
    ):
        expect_answers(transport_class, mine=IN_MCPNB.get)
    mark_mine()


class _LeanTypes:
    """``mcp_types`` as the SDK's SSE client module sees it: the same names, the lean adapter."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.jsonrpc_message_adapter = _LeanAdapter(inner.jsonrpc_message_adapter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def lean_sse(max_event_size: int, on_over: Callable[[int], None] | None = None) -> None:
    """The legacy HTTP+SSE client, for mcpnb's connections only: events up to ``max_event_size``
    and :func:`parse_message`; ``on_over(limit)`` hears of an event over the limit first (the SDK
    then ends the stream, and its pending calls would only hear "connection closed").

    Every message arrives there as one server-sent event on the GET stream, and ``sse_client`` takes
    no event limit: the SDK's 1 MiB refuses a 10k-row result and ends the whole connection. Both
    module-level names are wrapped once and act only in the task that opens one of mcpnb's
    connections (where the GET stream's reader runs), which this marks with the flag and the limit.
    """
    import mcp.client.sse as module

    types = getattr(module, "types", None)
    if types is not None and not isinstance(types, _LeanTypes):
        module.types = _LeanTypes(types)  # type: ignore[assignment]
    opener = getattr(module, "sse_within_origin", None)
    if opener is not None and not getattr(opener, "_mcpnb", False):

        @contextlib.asynccontextmanager
        async def sse_within_origin(client: Any, url: Any, **kwargs: Any) -> AsyncIterator[Any]:
            limit, over = _sse_event_limit.get(), _sse_over.get()
            if limit is not None:
                kwargs["max_event_size"] = limit
            async with opener(client, url, **kwargs) as source:
                yield source if limit is None or over is None else _Reported(source, limit, over)

        sse_within_origin._mcpnb = True  # type: ignore[attr-defined]
        module.sse_within_origin = sse_within_origin  # type: ignore[assignment]
    _sse_event_limit.set(max_event_size)
    _sse_over.set(on_over)
    mark_mine()


class _Reported:
    """An event source that reports an event over its limit before the error reaches the SDK."""

    def __init__(self, source: Any, limit: int, on_over: Callable[[int], None]) -> None:
        self._source, self._limit, self._on_over = source, limit, on_over

    def __getattr__(self, name: str) -> Any:  # response, and whatever else the SDK reads
        return getattr(self._source, name)

    async def __aiter__(self) -> AsyncIterator[Any]:
        import httpx2

        from mcpnb.client.errors import over_message_limit

        try:
            async for event in self._source:
                yield event
        except httpx2.SSEError as exc:  # an event over the limit, or no event stream at all
            if over_message_limit(exc):  # (a web page answered the GET: not this, said elsewhere)
                self._on_over(self._limit)
            raise


#: What a server may mean by an ``isError`` that is no true/false but says "no" (any other value,
#: ``"error"`` or ``2``, says it failed). pydantic reads true/false, 0/1 and these words itself.
_NOT_AN_ERROR = frozenset({"", "false", "no", "off", "0", "f", "n", "none", "null", "ok"})


def _readable_fields(raw: dict[str, Any], said: list[str]) -> dict[str, Any]:
    """A result whose ``isError`` is no true/false (``null``, ``"error"``) or whose ``_meta`` is no
    object, made one the SDK reads (a copy), what was changed added to ``said``: the SDK refused the
    whole result for either, its content with it."""
    from pydantic import TypeAdapter, ValidationError

    from mcpnb.client.config.validate import kind
    from mcpnb.client.contents import AS_SENT

    flag = raw.get("isError")
    if "isError" in raw and type(flag) is not bool:
        try:
            TypeAdapter(bool).validate_python(flag)  # "true", 1: pydantic reads those as sent
        except ValidationError:
            read = flag is not None and not (isinstance(flag, str) and flag.strip().lower() in _NOT_AN_ERROR)
            raw = {**raw, "isError": read}
            shown = "" if flag is None else f" ({json.dumps(flag, ensure_ascii=False, default=str)[:40]})"
            said.append(f"result.isError is {kind(flag)}{shown}, not true/false: read as {str(read).lower()}")
    meta = raw.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        raw = {**raw, "_meta": {AS_SENT: meta}}
        said.append(f"result._meta is {kind(meta)}, not an object: kept as sent in result.meta[{AS_SENT!r}]")
    return raw


def _another_answer(raw: dict[str, Any]) -> bool:
    """Whether ``raw`` answers a ``tools/call`` with something other than its result: an input
    round, or a task (either era)."""
    return bool({"task", "inputRequests", "requestState"} & raw.keys()) or raw.get("resultType") not in (
        None,
        "complete",
    )


def _plainly_readable(raw: dict[str, Any]) -> bool:
    """Whether ``raw`` is a result the SDK reads as it is under any protocol version: text blocks
    only (``type`` and ``text``, a string), ``isError`` true/false, ``_meta`` and
    ``structuredContent`` objects, each where present. :func:`readable_result` would change
    nothing on it; said in a few type checks, it spares every such call the blocks' pydantic check
    (about 10 µs of a call's ~300 in-process, issue 13)."""
    content = raw.get("content")
    if type(content) is not list or _another_answer(raw):
        return False
    for block in content:
        if (
            type(block) is not dict
            or len(block) != 2
            or block.get("type") != "text"
            or type(block.get("text")) is not str
        ):
            return False
    return (
        type(raw.get("isError", False)) is bool
        and type(raw.get("_meta", {})) is dict
        and type(raw.get("structuredContent", {})) is dict
    )


def readable_result(raw: dict[str, Any], version: str) -> tuple[dict[str, Any], list[str]]:
    """A ``tools/call`` result as the SDK reads it under the protocol ``version``, and what was
    changed for that, one line each (``(raw, [])`` when nothing was: nothing copied).

    Every way a tool result reaches mcpnb (a plain call's :func:`hand_over`, and a task's result:
    a task-augmented call answered at once, ``tasks/result``, a 2026-07-28 ``tasks/get``) passes
    here, so one malformed part never fails the whole result and each is said the same way:
    blocks the SDK cannot read become text blocks that hold them
    (:func:`~mcpnb.client.contents.readable_content`), an ``isError`` or ``_meta`` of the wrong
    kind is read (:func:`_readable_fields`), and a ``structuredContent`` that is no object where
    ``version`` allows only one (2025-11-25) is kept as sent, and said. The result is rebuilt,
    never changed in place (a transcript may hold it).
    """
    if _plainly_readable(raw):  # nearly every call's: nothing to read, no import, no pydantic
        return raw, []
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from mcpnb.client.config.validate import kind
    from mcpnb.client.contents import readable_content

    said: list[str] = []
    if "content" not in raw and "structuredContent" in raw and not _another_answer(raw):
        raw = {**raw, "content": []}  # data without the text MCP requires: the data is the result
        said.append(
            "the result has no content, which MCP requires: read as none (result.structured has the data)"
        )
    if "content" in raw:  # (absent: not a result at all, an input round or a task, say)
        content, found = readable_content(raw["content"], version)
        if content is not None:
            raw = {**raw, "content": content}
            said += found
    raw = _readable_fields(raw, said)
    value = raw.get("structuredContent")
    if value is not None and type(value) is not dict and version not in MODERN_PROTOCOL_VERSIONS:
        said.append(
            f"structuredContent is {kind(value)}, but MCP {version} allows only an object there: "
            "kept as sent (result.structured)"
        )
    return raw, said


def read_tool_result(raw: Any, version: str) -> CallToolResult:
    """A task's ``CallToolResult`` from the result as its server sent it, read as a plain call's
    is (:func:`readable_result`), what was changed on it as :data:`~mcpnb.client.results.REPAIRED`
    (``ToolResult.warnings``). Read against the SDK's version-free type, which takes any
    ``structuredContent``: no stand-in is needed here. A result beyond repair (no object at all)
    still fails, with pydantic's error."""
    from mcp_types import CallToolResult

    from mcpnb.client.results import REPAIRED

    said: list[str] = []
    if isinstance(raw, dict):
        raw, said = readable_result(raw, version)
    result = CallToolResult.model_validate(raw, by_name=False)
    if said:
        setattr(result, REPAIRED, said)
    return result


def hand_over(session: Any) -> Callable[[str, Any], Any]:
    """The lean receive path for one session: a ``tools/call`` result's ``structuredContent``
    skips the session's surface check's deep copy. Returns the step :mod:`mcpnb.client.doors`
    applies to each raw result (the session's answers are parsed through :func:`parse_message`
    while the door sends: :data:`IN_MCPNB`).

    The hand-over acts only inside ``session.call_tool`` (every tool call mcpnb makes goes through
    it; a raw ``tools/call`` sent another way is left alone), and only where the empty stand-in is
    checked exactly like the real value: an object always, a list where the revision allows any
    JSON value. The session's reply is rebuilt, never changed in place (a transcript may hold it).

    There too a result the SDK would refuse is made one it reads, nothing lost
    (:func:`readable_result`); a 2025-11-25 ``structuredContent`` that is no object is then handed
    past the check (an empty object stands in) and put back as sent. What was changed goes on the
    ``CallToolResult`` the session returns (:data:`~mcpnb.client.results.REPAIRED`), which
    ``ToolResult.warnings`` shows.
    """
    from mcp_types import CallToolResult
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from mcpnb.client.results import REPAIRED

    call_tool = session.call_tool

    def step(method: str, raw: Any) -> Any:
        held = _held.get()
        if held is None or method != "tools/call" or not isinstance(raw, dict):
            return raw
        version = session.protocol_version or "2025-11-25"  # before a handshake, as the SDK reads it
        any_json = version in MODERN_PROTOCOL_VERSIONS
        raw, held.said = readable_result(raw, version)  # of this answer only (a call may take rounds)
        value = raw.get("structuredContent")
        if type(value) is dict or (type(value) is list and any_json):
            held.structured.append(value)
            return {**raw, "structuredContent": type(value)()}
        if value is not None and not any_json:  # 2025-11-25 allows an object only: kept all the same
            held.structured.append(value)
            return {**raw, "structuredContent": {}}
        return raw

    async def lean_call_tool(*args: Any, **kwargs: Any) -> Any:
        held = _Held()
        token = _held.set(held)
        try:
            result = await call_tool(*args, **kwargs)
        finally:
            _held.reset(token)
        if isinstance(result, CallToolResult):
            if held.structured:
                result.structured_content = held.structured[-1]
            if held.said:
                setattr(result, REPAIRED, held.said)
        return result

    session.call_tool = lean_call_tool
    return step
