"""Both tasks wires, reduced to one state shape and a handful of requests.

- 2025-11-25 (SEP-1686, "legacy"): ``tools/call`` with ``params.task = {ttl}`` answers
  ``{"task": {...}}``; ``tasks/get``, ``tasks/result`` (blocks until the task ends and is the channel
  on which queued elicitations reach the client), ``tasks/list``, ``tasks/cancel``; ``ttl`` and
  ``pollInterval`` in ms.
- 2026-07-28 (SEP-2663 extension ``io.modelcontextprotocol/tasks``, "modern"): a client that
  declares the extension gets a flat ``{"resultType": "task", taskId, status, ttlMs,
  pollIntervalMs}``; ``tasks/get`` carries ``result`` | ``error`` | ``inputRequests``;
  ``tasks/update`` carries ``inputResponses``; ``tasks/cancel``. No ``tasks/result``/``tasks/list``.

What comes back is read leniently, as both specs allow: ``tasks/cancel`` and ``tasks/update`` answer
a 2026-07-28 client with an empty acknowledgement (``{"resultType": "complete"}``, the state then
comes from ``tasks/get``), optional fields may be missing, unknown ones are ignored, and a reply that
lacks what the spec requires is a :class:`TaskError` naming the method and the server.

``mcp`` 2.3.0 has the legacy types but never dispatches them, and nothing for the extension; the
session's ``send_request`` is typed enough for everything except the legacy task-augmented
``tools/call`` (its result is validated as a ``CallToolResult`` and fails), which goes out raw.
Everything here works over an mcpnb ``Connection``, a bare ``mcp.Client`` or a ``ClientSession``
(:class:`Peer`), so tests and the claim resolver share one code path. Reading a reply into a
:class:`~mcpnb.client.tasks.state.TaskState` is :mod:`.state`'s job.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Literal

from mcp import MCPError, types
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from mcpnb.client.errors import CallError, McpnbError, describe
from mcpnb.client.lean import read_tool_result
from mcpnb.client.tasks import optin
from mcpnb.client.tasks.errors import TaskError, TaskExpiredError, TaskRefusedError
from mcpnb.client.tasks.optin import TASKS_EXTENSION
from mcpnb.client.tasks.state import (  # noqa: F401 (STATUSES, TERMINAL, task_support: their old home)
    STATUSES,
    TERMINAL,
    TaskState,
    is_acknowledgement,
    short,
    task_support,
)

RELATED_TASK = "io.modelcontextprotocol/related-task"
_INVALID_PARAMS = -32602
_METHOD_NOT_FOUND = -32601


# ---------------------------------------------------------------------------------------- typed requests
#: A reply exactly as sent (``send_request`` still stamps, times and sends the request), read here
#: rather than by the SDK: a tool result by :func:`~mcpnb.client.lean.read_tool_result`, a task by
#: :meth:`TaskState.from_wire`. A ``types.Result`` model refused a whole reply whose ``_meta`` is
#: no object (a poll failed, though the task's status and result were fine), and its dump dropped
#: a ``null`` (``ttl: null``, 2025-11-25's "unlimited", read as "not said").
_AS_SENT: TypeAdapter[Any] = TypeAdapter(Any)


class TaskIdParams(types.RequestParams):
    """Params of ``tasks/get|cancel|update`` in the modern era (legacy uses the SDK's own types)."""

    model_config = ConfigDict(populate_by_name=True)
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


class TaskRequest(types.Request[TaskIdParams, str]):
    """``tasks/get|update|cancel``. Over Streamable HTTP SEP-2663 requires the ``Mcp-Name`` header
    to carry the task id (load balancers route on it): the SDK sets it from ``name_param``."""

    name_param: ClassVar[str | None] = "taskId"
    method: str
    params: TaskIdParams


class CreatedTask(types.Result):
    """The claimed flat ``resultType: "task"`` result of a modern task-augmented ``tools/call``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(default="task", alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str = "working"
    status_message: str | None = Field(default=None, alias="statusMessage")
    created_at: str | None = Field(default=None, alias="createdAt")
    last_updated_at: str | None = Field(default=None, alias="lastUpdatedAt")
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


# ---------------------------------------------------------------------------------------- peer
Send = Callable[[Any], Awaitable[Any]]


class Peer:
    """What the tasks code needs from one server, over a ``Connection``, a ``Client`` or a session.

    ``call(what, fn)`` runs ``fn(client_or_session)``; over a ``Connection`` it goes through
    ``Connection.request`` so transport failures trigger its recovery and read as mcpnb errors.
    """

    def __init__(self, target: Any, name: str | None = None) -> None:
        from mcp.client.session import ClientSession

        from mcpnb.client.connection import Connection

        self.target = target
        self.connection = target if isinstance(target, Connection) else None
        #: The connection's reconnects when this peer was made (a task started after): a stdio or
        #: in-process server started again since then knows none of the tasks it ran.
        self.reconnects_at_start = self.connection.retries if self.connection is not None else 0
        self._is_session = isinstance(target, ClientSession)
        if self.connection is not None:
            self.name = name or self.connection.name
        else:
            info = getattr(target, "server_info", None)
            self.name = name or getattr(info, "name", None) or "server"
            from mcpnb.client import doors

            with contextlib.suppress(AttributeError):  # not an SDK session: nothing to wrap
                doors.install(self.session, lean_results=False)  # its call_tool stays its own

    @property
    def era(self) -> str:
        if self.connection is not None:
            return self.connection.era or "legacy"
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        version = self.session.protocol_version
        return "modern" if version in MODERN_PROTOCOL_VERSIONS else "legacy"

    @property
    def version(self) -> str:
        """The protocol revision the session speaks, which a task's result is read against
        (2025-11-25 before a handshake or without a session, as the SDK reads it)."""
        with contextlib.suppress(AttributeError):  # a connection between sessions has no client
            version = self.session.protocol_version
            if isinstance(version, str) and version:
                return version
        return "2025-11-25"

    @property
    def session(self) -> Any:
        if self._is_session:
            return self.target
        client = self.connection.client if self.connection is not None else self.target
        return client.session

    def _listed(self, tool: str | None) -> Any:
        """The connection's cached ``ToolInfo`` of ``tool`` (None: no connection, or not listed)."""
        if self.connection is None or tool is None:
            return None
        return (self.connection.tool_cache.peek() or {}).get(tool)

    def output_schema(self, tool: str | None) -> dict[str, Any] | None:
        if tool is None:
            return None
        if self.connection is not None:
            return getattr(self._listed(tool), "output_schema", None)
        schemas = getattr(self.session, "_tool_output_schemas", None) or {}
        schema = schemas.get(tool)
        return dict(schema) if schema else None

    def answers_in_markdown(self, tool: str | None) -> bool:
        """Whether the tool says its text is Markdown (see ``ToolInfo.answers_in_markdown``), or
        the server's config does (``markdown``)."""
        if self.connection is not None and self.connection.config.markdown:
            return True
        info = self._listed(tool)
        return info is not None and info.answers_in_markdown

    def advertises_tasks(self) -> bool:
        """Whether our client was built with :func:`tasks_extension` (modern tasks need it)."""
        return TASKS_EXTENSION in (getattr(self.session, "_result_claims", None) or {})

    async def call(self, what: str, fn: Send, *, idempotent: bool = True) -> Any:
        if self.connection is not None:
            return await self.connection.request(what, fn, idempotent=idempotent)
        try:
            return await fn(self.target)
        except McpnbError:
            raise
        except Exception as exc:
            raise CallError(f"{what} on {self.name!r} failed: {describe(exc)}") from None


def _session_of(obj: Any) -> Any:
    from mcp.client.session import ClientSession

    return obj if isinstance(obj, ClientSession) else obj.session


#: Transports whose server lives and dies with its connection (HTTP servers outlive a reconnect).
_OWN_PROCESS = ("stdio", "inprocess")


def _gone(peer: Peer, task_id: str, exc: MCPError, *, seen: bool = True) -> TaskExpiredError:
    said = _server_said(exc.message, task_id)
    task = "the task" if task_id in exc.message else f"task {task_id!r}"  # the id once, whole
    if not seen:  # an id this client never had: a typo as likely as an expired task
        return TaskExpiredError(
            f"server {peer.name!r} knows no task {task_id!r} ({said}): check the id (a server may "
            "forget a task once its TTL, counted from its creation, has passed, and a server "
            "started again knows none of the old one's tasks)"
        )
    conn = peer.connection
    if conn is not None and conn.retries > peer.reconnects_at_start and conn.config.transport in _OWN_PROCESS:
        return TaskExpiredError(
            f"server {peer.name!r} no longer knows {task} ({said}): the server was "
            "started again since the task began, and a new server process knows none of the old "
            "one's tasks, so the task and its result are gone; run the tool again"
        )
    return TaskExpiredError(
        f"server {peer.name!r} no longer knows {task} ({said}): a server may forget a "
        "task once its TTL, counted from its creation, has passed, so its result is gone; run the "
        "tool again (with a longer TTL, where the server takes one)"
    )


def _server_said(message: str, task_id: str) -> str:
    """The server's words, the task id in them shortened as a handle shows it (the line said a
    32-character id three times)."""
    text = (message.replace(task_id, f"{task_id[:8]}…") if len(task_id) > 9 else message).strip(" .")
    return f"it said: {text}" if text else "it said nothing more"


# ---------------------------------------------------------------------------------------- requests
Created = TaskState | types.CallToolResult


async def create(
    peer: Peer, tool: str, arguments: dict[str, Any] | None, ttl_ms: int | None, timeout: float | None
) -> Created:
    """Start ``tool`` as a task. A server that answers synchronously gives a ``CallToolResult``."""
    what = f"{tool}() as a task"
    if peer.era == "modern":

        async def modern(client: Any) -> Any:
            session = _session_of(client)
            with optin.task_call():  # SEP-2663: this request declares the extension
                if not peer.advertises_tasks() and client is not session:
                    # Without the extension no task can be created; the full driver handles input rounds.
                    return await client.call_tool(tool, arguments or {}, read_timeout_seconds=timeout)

                async def send(responses: Any, state: str | None) -> Any:
                    return await session.call_tool(
                        tool,
                        arguments or {},
                        read_timeout_seconds=timeout,
                        input_responses=responses,
                        request_state=state,
                        allow_claimed=True,
                        allow_input_required=True,
                    )

                first = await send(None, None)
                if isinstance(first, types.InputRequiredResult):
                    # SEP-2322: the server asks before it answers or starts a task; the client's own
                    # driver puts the questions to the person (or the call's answers), then resends
                    if client is session:
                        raise CallError(
                            f"{what} on {peer.name!r}: the server asks first; a bare session cannot answer"
                        )
                    return await client._drive_input_required(first, send)
                return first

        result = await peer.call(what, modern, idempotent=False)
        if isinstance(result, types.CallToolResult):
            return result
        # as sent (exclude_unset, not exclude_none): a ttlMs of null says "unlimited", not "not said"
        sent = result.model_dump(by_alias=True, mode="json", exclude_unset=True)
        return TaskState.from_wire(sent, method=what, server=peer.name, status="working")

    params: dict[str, Any] = {"name": tool, "arguments": arguments or {}, "task": {}}
    if ttl_ms is not None:
        params["task"]["ttl"] = int(ttl_ms)

    async def legacy(client: Any) -> Any:
        # Typed send_request validates tools/call results as CallToolResult, so a CreateTaskResult
        # would fail: this one request goes out raw.
        opts: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        return await _session_of(client)._dispatcher.send_raw_request("tools/call", params, opts)

    raw = await peer.call(what, legacy, idempotent=False)
    if isinstance(raw, dict) and isinstance(raw.get("task"), dict):
        return TaskState.from_wire(raw["task"], method=what, server=peer.name, status="working")
    return read_tool_result(raw, peer.version)  # answered at once: read as a plain call's result is


async def _send(peer: Peer, client: Any, method: str, task_id: str, seen: bool = True, **extra: Any) -> Any:
    """One ``tasks/*`` request, its reply as sent (either era; nothing assumed about it: what
    reads it, :meth:`TaskState.from_wire`, says what is wrong with it)."""
    params = TaskIdParams(task_id=task_id, **extra)
    request = TaskRequest(method=method, params=params)
    try:
        return await _session_of(client).send_request(request, _AS_SENT)
    except MCPError as exc:
        if exc.code == _INVALID_PARAMS and method == "tasks/get":  # cancel: -32602 also means "ended"
            raise _gone(peer, task_id, exc, seen=seen) from None
        raise


async def get(peer: Peer, task_id: str, *, seen: bool = True) -> TaskState:
    """``tasks/get``; an unknown id becomes :class:`TaskExpiredError`, worded for a task this
    client had (``seen``: expired after its TTL) or one it is told of (a typo, or expired)."""
    what = f"tasks/get {task_id}"
    raw = await peer.call(what, lambda client: _send(peer, client, "tasks/get", task_id, seen))
    return TaskState.from_wire(raw, method=what, server=peer.name, task_id=task_id)


async def payload(peer: Peer, task_id: str, timeout: float | None = None) -> types.CallToolResult:
    """Legacy ``tasks/result``: blocks until the task ends, delivering its queued questions meanwhile.

    The reply is taken as sent (:data:`_AS_SENT`) and read as a plain call's result is
    (:func:`~mcpnb.client.lean.read_tool_result`): asked for as a ``CallToolResult``, one
    malformed part (an ``isError`` of ``"error"``, a block of an unknown type) failed the task's
    whole result, its content with it."""

    async def send(client: Any) -> Any:
        request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
        try:
            raw = await _session_of(client).send_request(
                request, _AS_SENT, request_read_timeout_seconds=timeout
            )
        except MCPError as exc:
            if exc.code == _INVALID_PARAMS:
                raise _gone(peer, task_id, exc) from None
            raise TaskRefusedError(
                f"tasks/result {task_id} on {peer.name!r} failed: {describe(exc)}", exc.message
            ) from None
        return read_tool_result(raw, peer.version)

    return await peer.call(f"tasks/result {task_id}", send)


async def cancel(peer: Peer, task_id: str) -> TaskState | None:
    """``tasks/cancel``: the task as 2025-11-25 servers return it, or None for SEP-2663's empty
    acknowledgement (cancelling is eventually consistent there: ``tasks/get`` tells what happened)."""
    what = f"tasks/cancel {task_id}"
    raw = await peer.call(what, lambda client: _send(peer, client, "tasks/cancel", task_id))
    if is_acknowledgement(raw):
        return None
    return TaskState.from_wire(raw, method=what, server=peer.name, task_id=task_id)


async def update(peer: Peer, task_id: str, responses: dict[str, Any]) -> TaskState | None:
    """Modern ``tasks/update`` with ``inputResponses`` (answers keyed like ``inputRequests``).

    SEP-2663 answers with an empty acknowledgement (None here); a server that sends the task back
    anyway gets it read.
    """
    if peer.era != "modern":
        raise TaskError(
            f"task {task_id!r} on {peer.name!r} is a 2025-11-25 task: its questions are answered through "
            "the client's elicitation callback while tasks/result runs, not with tasks/update"
        )
    answers = {k: dump(v) if isinstance(v, BaseModel) else dict(v) for k, v in responses.items()}
    what = f"tasks/update {task_id}"
    raw = await peer.call(
        what, lambda client: _send(peer, client, "tasks/update", task_id, input_responses=answers)
    )
    if is_acknowledgement(raw):
        return None
    return TaskState.from_wire(raw, method=what, server=peer.name, task_id=task_id)


async def list_states(peer: Peer) -> list[TaskState]:
    """Legacy ``tasks/list``, every page (entries without an id or status are skipped, not fatal).

    Walked as every other list is (:func:`~mcpnb.client.paging.every_page`): a server that hands
    out one cursor twice, or cursors without end, is stopped and its log says so (it asked
    forever: tens of thousands of requests a second, the listing never returned)."""
    from mcpnb.client.paging import every_page

    async def fetch(cursor: str | None) -> _TaskPage:
        async def send(client: Any) -> Any:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            request = types.ListTasksRequest(params=params)
            try:
                return await _session_of(client).send_request(request, _AS_SENT)
            except MCPError as exc:
                if exc.code != _METHOD_NOT_FOUND:
                    raise
                raise TaskError(f"server {peer.name!r} does not answer tasks/list ({exc.message})") from None

        return _TaskPage.read(peer, await peer.call("tasks/list", send))

    return await every_page(fetch, "tasks", on_cut=lambda why: _cut(peer, f"tasks/list: {why}"))


class _TaskPage:
    """One ``tasks/list`` answer as :func:`~mcpnb.client.paging.every_page` reads a page."""

    def __init__(self, tasks: list[TaskState], next_cursor: str | None) -> None:
        self.tasks, self.next_cursor = tasks, next_cursor

    @classmethod
    def read(cls, peer: Peer, page: Any) -> _TaskPage:
        tasks = page.get("tasks") if isinstance(page, dict) else None
        if not isinstance(tasks, list):
            raise TaskError(f"tasks/list on {peer.name!r} answered without a task list: {short(page)}")
        states: list[TaskState] = []
        for entry in tasks:
            with contextlib.suppress(TaskError):
                states.append(TaskState.from_wire(entry, method="tasks/list", server=peer.name))
        cursor = page.get("nextCursor")
        return cls(states, cursor if isinstance(cursor, str) and cursor else None)


def _cut(peer: Peer, why: str) -> None:
    """Why a listing stopped early: in the server's log over a connection, else mcpnb's logger."""
    if peer.connection is not None:
        peer.connection.emit("paging", why)
    else:
        import logging

        logging.getLogger("mcpnb").warning("server %r: %s", peer.name, why)
