"""The tasks API on the wire, in both protocol eras, on top of :class:`TaskManager`.

- 2025-11-25 (SEP-1686): ``tools/call`` with ``params.task`` answers ``{"task": {...}}`` at once;
  ``tasks/get``, ``tasks/result`` (blocks until done and sends the task's questions meanwhile as
  requests over the back-channel: a form, a completion from the client's model, its roots, each
  marked with the task in ``_meta``), ``tasks/list`` (the session's own tasks only, in pages of
  :data:`LIST_PAGE`, oldest first, with an opaque ``nextCursor`` as every list method of the spec's
  pagination),
  ``tasks/cancel``; tools declare ``execution.taskSupport``.
- 2026-07-28 (SEP-2663, ``io.modelcontextprotocol/tasks``): a client that declares the extension on
  a request gets a flat ``{"resultType": "task", ...}`` for task-capable tools; ``tasks/get`` carries
  the result, error or ``inputRequests`` (each as its standalone request: ``elicitation/create``,
  ``sampling/createMessage``, ``roots/list``); ``tasks/update`` delivers ``inputResponses`` (each
  checked against the result type of its request's method) and
  ``tasks/cancel`` asks the task to stop, both answered with an empty acknowledgement
  (``{"resultType": "complete"}``): what happened is for ``tasks/get`` to tell. A tool result with
  ``isError`` is a ``completed`` task (``failed`` is only for JSON-RPC errors); the extension's
  settings are an empty object. The extension has no ``tasks/list`` (its three methods are get, update
  and cancel), so a 2026-07-28 ``tasks/list`` is -32601. probe-kit is a teaching server: it answers
  exactly as the specs say.

The SDK has no tasks implementation, so this uses its extension hooks: an ``Extension`` for the
methods and the modern interception, and a server middleware for the legacy task-augmented call
(the legacy ``tools/call`` result sieve would otherwise reject the ``CreateTaskResult`` shape).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import secrets
import weakref
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mcp import MCPError, types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Extension, MethodBinding
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp.shared.message import ServerMessageMetadata
from mcp_types.jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field, ValidationError

from mcpnb.probekit.consents import requester, requester_tag
from mcpnb.probekit.inputs import missing_capability
from mcpnb.probekit.logs import connection_of
from mcpnb.probekit.taskrecord import ELICIT, Answer, PendingInput
from mcpnb.probekit.tasks import TaskError, TaskManager, TaskRecord, answered_note
from mcpnb.probekit.taskstore import NotBackYet, Position, TaskStoreError

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
LEGACY = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
MODERN = frozenset(MODERN_PROTOCOL_VERSIONS)

ToolLookup = Callable[[str], Any]
#: SEP-2663's answer to ``tasks/cancel`` and ``tasks/update``: an empty result.
ACKNOWLEDGED: dict[str, Any] = {"resultType": "complete"}
#: Tasks per ``tasks/list`` page (the spec leaves the size to the server; clients must not assume one).
LIST_PAGE = 100
#: What a cursor says first (its format's version): a cursor of another format is refused, not misread.
CURSOR_KIND = "tasks-after-1"


class TaskParams(types.RequestParams):
    """Params of every tasks/* method; ``inputResponses`` only matters for ``tasks/update``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


class ListParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    cursor: str | None = None


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wire_status(record: TaskRecord) -> str:
    """``queued`` is internal; on the wire a queued task is ``working`` with a message saying so."""
    return "working" if record.status == "queued" else record.status


def _task(record: TaskRecord, manager: TaskManager, ttl_key: str, poll_key: str) -> dict[str, Any]:
    out = {
        "taskId": record.task_id,
        "status": wire_status(record),
        "createdAt": iso(record.created),
        "lastUpdatedAt": iso(record.updated),
        ttl_key: record.ttl_ms,
        poll_key: manager.poll_interval_ms,
    }
    if record.status_message:
        out["statusMessage"] = record.status_message
    return out


def legacy_task(record: TaskRecord, manager: TaskManager) -> dict[str, Any]:
    """The 2025-11-25 shape (SEP-1686): ``ttl`` and ``pollInterval``."""
    return _task(record, manager, "ttl", "pollInterval")


def modern_task(record: TaskRecord, manager: TaskManager) -> dict[str, Any]:
    """The 2026-07-28 extension's shape (SEP-2663): ``ttlMs`` and ``pollIntervalMs``."""
    return _task(record, manager, "ttlMs", "pollIntervalMs")


def result_dump(record: TaskRecord, *, related: bool = True) -> dict[str, Any]:
    """The task's tool result; ``related``: marked with its task (2025-11-25's ``tasks/result``;
    SEP-2663 inlines it in ``tasks/get``, whose ``taskId`` already says so, and drops the key)."""
    assert record.result is not None
    dumped = record.result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if related:
        dumped.setdefault("_meta", {})[RELATED_TASK] = {"taskId": record.task_id}
    dumped.pop("resultType", None)
    return dumped


def _bad(message: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message)


def encode_cursor(position: Position) -> str:
    """The ``nextCursor`` of a page that ends at ``position`` (opaque to clients: base64url of JSON)."""
    raw = json.dumps([CURSOR_KIND, position[0], position[1]], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> Position:
    """Where the page a ``cursor`` asks for starts; a cursor this server did not give is -32602."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        kind, created, task_id = json.loads(raw)
        if kind == CURSOR_KIND and isinstance(task_id, str) and _finite(created):
            return float(created), task_id
    except (ValueError, TypeError, binascii.Error):
        pass
    shown = cursor if len(cursor) <= 40 else cursor[:40] + "…"
    raise _bad(
        f"Invalid cursor for tasks/list: {shown!r} is not a nextCursor this server gave. Pass a "
        "nextCursor back exactly as a tasks/list answer gave it, or no cursor for the first page."
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def prepare(
    lookup: ToolLookup, name: str, arguments: dict[str, Any] | None, extra: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """The background runner for a task-augmented call, after checking the tool and its arguments;
    ``extra``: what the call's input rounds gathered before the task started (``task_intake``)."""
    tool = lookup(name)
    if tool is None:
        raise _bad(f"Unknown tool: {name}")
    runner = getattr(tool.fn, "task_runner", None)
    if runner is None:  # SEP-1686: "Servers SHOULD return a -32601 (Method not found) error"
        raise MCPError(
            code=METHOD_NOT_FOUND,
            message=f"Tool {name!r} does not support task-augmented execution "
            "(execution.taskSupport is forbidden).",
        )
    try:
        kwargs = tool.fn_metadata.validate_arguments(arguments or {})
    except ValidationError as exc:
        raise _bad(
            f"Invalid arguments for {name}: {exc.errors()[0]['msg']} at {exc.errors()[0]['loc']}"
        ) from exc
    for skip in getattr(tool.fn, "task_resolved", ()):
        kwargs.pop(skip, None)
    kwargs.update(extra or {})

    async def run(io: Any) -> types.CallToolResult:
        return await runner(io, **kwargs)

    return run


def store_trouble(exc: TaskStoreError, url: str) -> MCPError:
    """What a person reads when the task store fails a request: which store (password shown as
    ``***``) and that trying again is the remedy, not a bare "Internal server error"."""
    if isinstance(exc, NotBackYet):
        message = (
            f"the task store ({url}) came back from an outage moments ago and this task is not back "
            "in it yet; try again in a moment"
        )
    else:
        message = f"the task store ({url}) is not answering; try again in a moment"
    return MCPError(code=INTERNAL_ERROR, message=message, data={"taskStore": url, "detail": str(exc)})


def store_errors_middleware(url: str) -> Callable[..., Any]:
    """Server middleware: a :class:`TaskStoreError` from any request (starting a task, tasks/*)
    becomes :func:`store_trouble`'s error, as the one thing that failed, with no traceback."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except TaskStoreError as exc:
            raise store_trouble(exc, url) from None

    return middleware


def task_support(tool: Any) -> str | None:
    """``optional`` or ``required`` for a tool that can run as a task, else None."""
    if tool is None or getattr(tool.fn, "task_runner", None) is None:
        return None
    return getattr(tool.fn, "task_support", "optional")


def tasks_not_declared(what: str) -> MCPError:
    """SEP-2663 / SEP-2575: ``-32021``, naming the extension the client did not declare."""
    return missing_capability(
        f"{what} needs the client to declare the {TASKS_EXTENSION} extension, which it did not",
        types.ClientCapabilities(extensions={TASKS_EXTENSION: {}}),
    )


def client_wants_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    caps = ctx.session.client_capabilities
    return bool(caps and caps.extensions and TASKS_EXTENSION in caps.extensions)


class ProbeTasks(Extension):
    """Serves the tasks methods for both eras and turns modern task-capable calls into tasks."""

    identifier = TASKS_EXTENSION

    def __init__(self, manager: TaskManager, lookup: ToolLookup) -> None:
        self.manager, self.lookup = manager, lookup
        self._contexts: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def context_of(self, ctx: ServerRequestContext[Any, Any]) -> str:
        """The requestor context a 2025-11-25 request comes from: its session (the SDK's per-client
        connection: one per ``Mcp-Session-Id`` over HTTP, the one client of a stdio or in-process
        connection), as a random token, so no session id is written to the store.

        The spec binds tasks to an *authorization* context when there is one; probe-kit has none,
        so a session is the closest thing: ``tasks/list`` lists only the tasks its session created
        (listing every task handed every student every other student's task ids), while a task id
        stays a capability (``tasks/get``, ``tasks/result``, ``tasks/cancel`` take any id: a
        reconnected client, or another worker's connection, carries on with the ids it holds)."""
        connection = connection_of(ctx.session)  # the SDK makes a ServerSession per request
        try:
            token = self._contexts.get(connection)
            if token is None:
                token = self._contexts[connection] = "session-" + secrets.token_hex(16)
        except TypeError:  # a connection that cannot be weakly referenced: one context for all such
            return "session-unkeyed"
        return token

    def who(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """Who a request comes from, as a task's ``context`` holds it: the 2025-11-25 session's
        token (:meth:`context_of`), a 2026-07-28 client's tag (its cookie, hashed). Only compared
        with a task's, to say that another client than its creator answered or cancelled it
        (a task id stays a capability: see docs/classroom.md)."""
        if ctx.protocol_version not in MODERN:
            return self.context_of(ctx)
        return requester_tag(requester(ctx.request))

    def settings(self) -> dict[str, Any]:
        return {}  # SEP-2663 defines no settings: an empty object says "supported"

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskParams, self._get),
            MethodBinding("tasks/cancel", TaskParams, self._cancel),
            MethodBinding("tasks/result", TaskParams, self._result, protocol_versions=LEGACY),
            MethodBinding("tasks/list", ListParams, self._list, protocol_versions=LEGACY),
            MethodBinding("tasks/update", TaskParams, self._update, protocol_versions=MODERN),
        ]

    async def intercept_tool_call(
        self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        tool = self.lookup(params.name)
        support = task_support(tool)
        if ctx.protocol_version not in MODERN or support is None:
            return await call_next(ctx)
        if not client_wants_tasks(ctx):
            if support == "required":  # it cannot answer without a task: say which extension it needs
                raise tasks_not_declared(f"{params.name!r} runs only as a task, so calling it")
            return await call_next(ctx)  # the server's choice: a plain call for a client without tasks
        extra = None
        intake = getattr(tool.fn, "task_intake", None)
        if intake is not None:  # input rounds first (SEP-2322), the task once they are answered
            gathered = intake(params.input_responses or {})
            if isinstance(gathered, types.InputRequiredResult):
                return gathered.model_dump(by_alias=True, mode="json", exclude_none=True)
            extra = gathered
        record = await self.manager.create(
            params.name,
            prepare(self.lookup, params.name, params.arguments, extra),
            context=self.who(ctx),  # whose it is: its answers and cancels by others are said
            capabilities=ctx.session.client_capabilities,  # 2026-07-28: this request's own
        )
        return {"resultType": "task", **modern_task(record, self.manager)}

    async def _record(self, task_id: str) -> TaskRecord:
        try:
            return await self.manager.get(task_id)
        except TaskError as exc:
            raise _bad(str(exc)) from exc

    def _negotiated(self, ctx: ServerRequestContext[Any, Any], method: str, task_id: str) -> None:
        """SEP-2663 on 2026-07-28: the tasks methods answer only a request that declares the
        extension, and over HTTP only one whose ``Mcp-Name`` header is its task id (SEP-2243: a
        load balancer routes on it; a missing header is refused as a wrong one is; the SDK checks
        the header for the core methods only)."""
        if ctx.protocol_version not in MODERN:
            return
        if not client_wants_tasks(ctx):
            raise tasks_not_declared(method)
        headers = getattr(ctx.request, "headers", None)  # the HTTP request's; stdio has none
        if headers is not None and decode_header_value(headers.get(MCP_NAME_HEADER)) != task_id:
            raise MCPError(
                code=HEADER_MISMATCH,
                message=f"the {MCP_NAME_HEADER} header must be the task id of this {method} request",
            )

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._negotiated(ctx, "tasks/get", params.task_id)
        record = await self._record(params.task_id)
        if ctx.protocol_version not in MODERN:
            return legacy_task(record, self.manager)
        out: dict[str, Any] = {"resultType": "complete", **modern_task(record, self.manager)}
        if record.status in {"completed", "failed"} and record.result is not None:
            # SEP-2663: a tool result (even with isError) completes the task; ``failed`` is only for
            # JSON-RPC errors (a failure below the tool, a crash: those leave no result).
            out["status"] = "completed"
            out["result"] = result_dump(record, related=False)
        elif record.status == "failed":  # no result: a JSON-RPC error, a crash, or its worker died
            out["error"] = {"code": INTERNAL_ERROR, "message": record.status_message or "the task failed"}
        elif record.status == "input_required":
            out["inputRequests"] = {key: p.as_request() for key, p in record.pending.items()}
        return out

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._negotiated(ctx, "tasks/cancel", params.task_id)
        if ctx.protocol_version in MODERN:
            await self._request_cancel(params.task_id, self.who(ctx))
            return ACKNOWLEDGED
        try:
            # 2025-11-25: cancelled before answering
            record = await self.manager.cancel(params.task_id, by=self.who(ctx))
        except TaskError as exc:
            raise _bad(str(exc)) from exc
        return legacy_task(record, self.manager)

    async def _request_cancel(self, task_id: str, by: str | None = None) -> None:
        try:
            await self.manager.request_cancel(task_id, by=by)
        except TaskError as exc:
            raise _bad(str(exc)) from exc

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        self._negotiated(ctx, "tasks/update", params.task_id)
        if params.input_responses is None:
            raise _bad(
                "tasks/update needs inputResponses: {key: result} for the task's inputRequests (an "
                "ElicitResult, CreateMessageResult or ListRootsResult, as each request's method answers)."
            )
        try:
            await self.manager.accept(params.task_id, params.input_responses, by=self.who(ctx))
        except (TaskError, ValidationError) as exc:
            raise _bad(str(exc)) from exc
        return ACKNOWLEDGED

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: ListParams) -> dict[str, Any]:
        """One page of this session's tasks, oldest first; ``nextCursor`` when there are more (a task
        created while a client pages shows on a later page; one that expires meanwhile is not
        skipped over). Another session's tasks are never listed (:meth:`context_of`)."""
        after = None if params.cursor is None else decode_cursor(params.cursor)
        records, following = await self.manager.page(after, LIST_PAGE, context=self.context_of(ctx))
        out: dict[str, Any] = {"tasks": [legacy_task(r, self.manager) for r in records]}
        if following is not None:
            out["nextCursor"] = encode_cursor(following)
        return out

    async def _result(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        """Block until the task finishes, asking its queued questions over the back-channel meanwhile."""
        record = await self._record(params.task_id)
        while not record.terminal:
            asking = record.status == "input_required"
            claim = self.manager.claim
            waiting = [(k, p) for k, p in record.pending.items() if asking and claim(record.task_id, k)]
            if waiting:
                for key, pending in waiting:
                    answer = await _ask_client(ctx, record.task_id, pending)
                    note = answered_note(record, key, self.who(ctx))
                    await self.manager.resolve(record.task_id, key, answer, note=note)
                record = await self._record(record.task_id)
                continue
            try:
                record = await self.manager.wait_change(record, timeout=1.0)
            except TaskError as exc:
                raise _bad(str(exc)) from exc
        if record.status == "failed" and record.result is None:  # a JSON-RPC error, a crash, a lost worker
            raise MCPError(code=INTERNAL_ERROR, message=record.status_message or "the task failed")
        if record.status == "cancelled" or record.result is None:
            raise _bad(f"Task {record.task_id!r} was cancelled; it has no result.")
        return result_dump(record)

    def legacy_middleware(self) -> Callable[..., Any]:
        """Server middleware: task-augmented ``tools/call`` and the ``tasks`` capability (2025-11-25)."""
        manager, lookup, context_of = self.manager, self.lookup, self.context_of

        async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            params = ctx.params or {}
            if (
                ctx.method == "tools/call"
                and ctx.protocol_version in LEGACY
                and params.get("task") is not None
            ):
                task = params.get("task") or {}
                runner = prepare(lookup, str(params.get("name")), params.get("arguments"))
                record = await manager.create(
                    str(params.get("name")),
                    runner,
                    ttl_ms=task.get("ttl"),
                    context=context_of(ctx),
                    capabilities=ctx.session.client_capabilities,
                )
                return {"task": legacy_task(record, manager)}
            if ctx.method == "tools/call" and ctx.protocol_version in LEGACY:
                name = str(params.get("name"))
                if task_support(lookup(name)) == "required":  # SEP-1686: -32601 for a call without one
                    raise MCPError(
                        code=METHOD_NOT_FOUND,
                        message=f"Tool {name!r} runs only as a task (execution.taskSupport is required): "
                        "call it with a task",
                    )
            result = await call_next(ctx)
            if ctx.method == "initialize" and isinstance(result, dict):
                caps = result.setdefault("capabilities", {})
                caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
            return result

        return middleware


async def _ask_client(ctx: ServerRequestContext[Any, Any], task_id: str, pending: PendingInput) -> Answer:
    """2025-11-25: send a task's question to the client waiting on ``tasks/result``, as the request
    its method names, on that request's stream, marked with the task (SEP-1686: a request that
    belongs to a task carries ``io.modelcontextprotocol/related-task`` in its ``_meta``).

    A form that cannot be asked or fails is a clean cancel (the tool reads "cancel"); a completion or
    a roots list the client refuses is that error, which the task's tool then fails with."""
    meta = {RELATED_TASK: {"taskId": task_id}}
    try:
        return await ctx.session.send_request(
            pending.typed_request(meta),
            pending.answer_type(),
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except MCPError as exc:
        if pending.method == ELICIT:
            return types.ElicitResult(action="cancel")
        return types.ErrorData(code=exc.error.code, message=exc.error.message)
    except Exception as exc:  # no back-channel, an answer of the wrong shape, a dropped connection
        if pending.method == ELICIT:
            return types.ElicitResult(action="cancel")
        return types.ErrorData(code=INTERNAL_ERROR, message=str(exc) or type(exc).__name__)
