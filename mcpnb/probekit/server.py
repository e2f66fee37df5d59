"""Build the probe-kit ``MCPServer``: tools filtered by toolset, resources, prompts, tasks, logging,
completions, subscriptions, debug log.

Filtering happens at registration, so a tool outside the toolset is neither listed nor callable
(``-32602`` "Unknown tool"), with no second check to forget.
"""

from __future__ import annotations

import difflib
import inspect
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError, UnexpectedToolError
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import ValidationError

from mcpnb.probekit import skills
from mcpnb.probekit.completions import Completer
from mcpnb.probekit.consents import requester
from mcpnb.probekit.fixtures import add_fixtures
from mcpnb.probekit.offers import STATUS, add_prompts, add_resources
from mcpnb.probekit.responses import error_response
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tasks import DEFAULT_INPUT_TIMEOUT_S, DEFAULT_MAX_PER_REQUESTOR, REQUESTOR, TaskManager
from mcpnb.probekit.tasks_wire import LEGACY, ProbeTasks, store_errors_middleware, task_support
from mcpnb.probekit.taskstore import LEASE_S, TaskStore, open_store
from mcpnb.probekit.tools import all_tools
from mcpnb.probekit.tools.apps import add_page
from mcpnb.probekit.toolsets import CONFORMANCE, TOOLSETS, env_flag, resolve_toolset, select_tools

SERVER_NAME = "probe-kit"
VERSION = "2.0.0"
INSTRUCTIONS = (
    "probe-kit is a teaching MCP server: every tool does real, deterministic work and returns "
    "structured results with a text fallback. Read probe://status and probe://toolsets first."
)


class ProbeServer(MCPServer):
    """``MCPServer`` with task support declared in ``tools/list`` and the spec's error codes.

    The SDK answers an unknown tool with an ``isError`` result, an unknown prompt with error code
    ``0`` (and a traceback on stderr), and a missing prompt argument the same way. Each of these is
    the client's mistake, so each is ``-32602`` (invalid params) here, with a message that names
    the unknown thing and, because this is a teaching server, what exists instead.
    """

    async def list_tools(self) -> list[types.Tool]:
        tools = await super().list_tools()
        for tool in tools:
            support = task_support(self._tool_manager.get_tool(tool.name))
            if support is not None:
                tool.execution = types.ToolExecution(task_support=support)
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._tool_manager.get_tool(name) is None:
            known = [t.name for t in self._tool_manager.list_tools()]
            raise invalid_params("tool", name, known)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError):
                raise  # a bug in probe-kit: the SDK logs it with its traceback, as it should
            return tool_error_result(name, exc)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            raise invalid_params("prompt", name, [p.name for p in self._prompt_manager.list_prompts()])
        given = arguments or {}
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in given]
        if missing:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"prompt {name!r} needs the argument(s) {', '.join(missing)}",
                data={"prompt": name, "missing": missing},
            )
        return await super().get_prompt(name, arguments, context)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError as exc:
            if not str(exc).startswith("Unknown resource"):
                raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"uri": str(uri)}) from None
            known = [str(r.uri) for r in self._resource_manager.list_resources()]
            known += [t.uri_template for t in self._resource_manager.list_templates()]
            raise invalid_params("resource", str(uri), known, key="uri") from None


def tool_error_result(name: str, exc: ToolError) -> types.CallToolResult:
    """Arguments that do not fit the input schema: which ones and why, as text and ``_meta.error``."""
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):
        return error_response(str(exc), code="tool_error")
    problems = [f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in cause.errors()]
    fields = sorted({".".join(map(str, e["loc"])) for e in cause.errors()})
    return error_response(
        f"Invalid arguments for {name}: " + "; ".join(problems),
        hint="tools/list shows each tool's inputSchema",
        code="invalid_arguments",
        fields=fields,
    )


def invalid_params(kind: str, name: str, known: list[str], *, key: str | None = None) -> MCPError:
    """``-32602`` for an unknown tool, prompt or resource: what was asked (under ``key``, else
    ``kind``: a resource's is ``uri``, as SEP-2164 asks), and what exists."""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(known) if len(known) <= 20 else ", ".join(known[:20]) + f", … ({len(known)} in all)"
    return MCPError(
        code=INVALID_PARAMS,
        message=f"Unknown {kind}: {name!r}{hint} This server has: {listed or 'none'}",
        data={key or kind: name, "available": known},
    )


@contextmanager
def _root_logging_kept() -> Iterator[None]:
    """The root logger as it was before: ``MCPServer()`` runs ``logging.basicConfig`` (a Rich
    handler at WARNING), which in a kernel (probe-kit started from a cell) put every library's
    warnings into the cells and made the person's own ``basicConfig`` do nothing."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def debug_middleware() -> Any:
    """Log each request to stderr (``MCP_DEBUG=1``): method, tool name, outcome, milliseconds."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None:
            return await call_next(ctx)
        t0 = time.perf_counter()
        name = (ctx.params or {}).get("name", "")
        outcome = "ok"
        try:
            return await call_next(ctx)
        except BaseException as exc:
            outcome = f"error: {type(exc).__name__}"
            raise
        finally:
            ms = (time.perf_counter() - t0) * 1000
            print(f"[probe-kit] {ctx.method} {name} {outcome} {ms:.1f} ms", file=sys.stderr, flush=True)

    return middleware


#: The environment variables the two classroom limits are read from when not given (the workers
#: of ``--workers N`` get them this way; ``0`` or ``off``: no limit).
MAX_PER_CLIENT_ENV = "MCP_PROBEKIT_MAX_TASKS_PER_CLIENT"
INPUT_TIMEOUT_ENV = "MCP_PROBEKIT_TASK_INPUT_TIMEOUT_S"


def _limit(given: float | None, env: str, default: float, kind: type) -> Any:
    """A limit: given, else from ``env``, else ``default``; 0 (or ``off``) means none."""
    if given is None:
        raw = os.environ.get(env, "").strip().lower()
        if raw in ("off", "none"):
            return None
        try:
            given = kind(raw) if raw else default
        except ValueError:
            wanted = "a whole number" if kind is int else "a number"
            raise ValueError(f"{env}={raw!r}: expected {wanted} (0 or off: no limit)") from None
    if given is not None and given < 0:
        raise ValueError(f"{env.removeprefix('MCP_PROBEKIT_').lower()} must be 0 or more (got {given})")
    return None if not given else kind(given)


def requestor_middleware(ext: ProbeTasks) -> Any:
    """Server middleware: who a ``tools/call`` over HTTP comes from, for the per-client task cap
    (:data:`~mcpnb.probekit.tasks.REQUESTOR`): the 2025-11-25 session's task context (the one
    ``tasks/list`` scopes by), a 2026-07-28 client's cookie (the one ``dice_history`` keeps rolls
    by). stdio and in-process have one client: no cap. Outermost of the task middlewares, so the
    task that a call creates sees it."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call" or getattr(ctx.request, "headers", None) is None:
            return await call_next(ctx)
        who = ext.context_of(ctx) if ctx.protocol_version in LEGACY else requester(ctx.request)
        token = REQUESTOR.set(who)
        try:
            return await call_next(ctx)
        finally:
            REQUESTOR.reset(token)

    return middleware


def create_server(
    toolset: str | None = None,
    *,
    root: str | Path | None = None,
    show_all: bool | None = None,
    debug: bool | None = None,
    max_concurrent_tasks: int = 4,
    task_ttl_ms: int = 300_000,
    poll_interval_ms: int = 250,
    task_store: TaskStore | str | None = None,
    task_lease_s: float = LEASE_S,
    state_keys: Sequence[str] | None = None,
    max_tasks_per_client: int | None = None,
    task_input_timeout_s: float | None = None,
) -> MCPServer:
    """A fresh probe-kit server.

    ``toolset`` (else ``MCP_TOOLSET``, else ``full``) picks the tools; ``show_all`` (else
    ``MCP_SHOW_ALL``) ignores the filter; ``debug`` (else ``MCP_DEBUG``) logs requests to stderr.
    ``root`` (default: the working directory) confines every file-reading tool. ``task_store`` (a
    URL, else ``MCP_TASK_STORE``, else ``memory://``) is where tasks live: ``sqlite:///…`` or
    ``redis://…`` let several workers share them (see :mod:`mcpnb.probekit.taskstore`). Raises
    :class:`~mcpnb.probekit.toolsets.UnknownToolsetError` (a ``ValueError``) for an unknown toolset
    and :class:`~mcpnb.probekit.taskstore.TaskStoreError` for a task store URL it cannot use.
    ``state_keys`` seal the 2026-07-28 ``requestState`` of its questions (default: a key of this
    process alone): servers that answer one client's rounds in turn (workers) must share them.
    ``max_tasks_per_client`` (else ``$MCP_PROBEKIT_MAX_TASKS_PER_CLIENT``, else 4) caps one HTTP
    client's unfinished tasks on this worker; ``task_input_timeout_s`` (else
    ``$MCP_PROBEKIT_TASK_INPUT_TIMEOUT_S``, else 600) is how long a task may wait for an answer;
    0 turns either off (docs/classroom.md, "Limits").
    """
    chosen = resolve_toolset(toolset)
    show = env_flag(show_all, "MCP_SHOW_ALL")
    verbose = env_flag(debug, "MCP_DEBUG")
    base = Path(root if root is not None else Path.cwd()).resolve()
    if not base.is_dir():
        raise ValueError(f"probe-kit root {str(base)!r} is not a folder")
    if max_concurrent_tasks < 1:  # 0 would leave every task queued forever
        raise ValueError(f"max_concurrent_tasks must be 1 or more (got {max_concurrent_tasks})")
    manager = TaskManager(
        max_concurrent=max_concurrent_tasks,
        default_ttl_ms=task_ttl_ms,
        poll_interval_ms=poll_interval_ms,
        store=task_store if isinstance(task_store, TaskStore) else open_store(task_store),
        lease_s=task_lease_s,
        max_per_requestor=_limit(max_tasks_per_client, MAX_PER_CLIENT_ENV, DEFAULT_MAX_PER_REQUESTOR, int),
        input_timeout_s=_limit(task_input_timeout_s, INPUT_TIMEOUT_ENV, DEFAULT_INPUT_TIMEOUT_S, float),
    )
    state = ProbeState(root=base, toolset=chosen, tasks=manager)
    holder: dict[str, MCPServer] = {}
    ext = ProbeTasks(manager, lambda name: holder["server"]._tool_manager.get_tool(name))
    folders = skills.load_folders()
    served = skills.ProbeSkills(folders)
    users = 0

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        nonlocal users
        users += 1
        try:
            yield {}
        finally:
            users -= 1
            if users == 0:
                await manager.shutdown()
                if state.pages is not None:
                    state.pages.stop()

    with _root_logging_kept():
        server = ProbeServer(
            SERVER_NAME,
            version=VERSION,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            extensions=[ext, served],
            lifespan=lifespan,
            middleware=[debug_middleware()] if verbose else None,
            subscriptions=state.subscriptions.bus,
            request_state_security=RequestStateSecurity(keys=list(state_keys)) if state_keys else None,
        )
    holder["server"] = server
    server.middleware.append(requestor_middleware(ext))  # first: the task middlewares run inside it
    server.middleware.append(store_errors_middleware(manager.store.url))  # outside the task methods
    server.middleware.append(ext.legacy_middleware())
    server.middleware.append(served.legacy_middleware())
    server.probe_state = state  # type: ignore[attr-defined]

    every = all_tools(state)
    by_name = {fn.__name__: fn for fn in every}
    state.tool_names = select_tools(list(by_name), chosen, show)
    for name in state.tool_names:
        _register(server, by_name[name], name)

    add_resources(server, state, SERVER_NAME, VERSION)
    skills.add_resources(server, folders)  # every toolset: the skills are about probe-kit itself
    if {"dice", "dice_history"} & set(state.tool_names):  # their page, where they are served
        add_page(server)
    add_prompts(server, state)
    if chosen == "conformance" or TOOLSETS[chosen] is None:
        add_fixtures(server)
    _add_features(server, state)
    return server


#: What every probe-kit tool may say of itself: it reads (files, a repository's history, its own
#: catalog) and writes nothing, and reaches nothing beyond the machine. The conformance fixtures
#: carry no annotations, so a client's handling of the spec's defaults shows too.
READS_ONLY = types.ToolAnnotations(readOnlyHint=True, openWorldHint=False)


def _register(server: MCPServer, fn: Any, name: str) -> None:
    """One tool, with the schemas it declares on itself (published output, exact input)."""
    server.add_tool(
        fn,
        name=name,
        description=inspect.cleandoc(fn.__doc__ or name),
        annotations=None if name in CONFORMANCE else READS_ONLY,
        meta=getattr(fn, "meta", None),
        structured_output=getattr(fn, "structured_output", None),
    )
    info = server._tool_manager.get_tool(name)
    schema = getattr(fn, "output_schema", None)
    if schema is not None:
        info.fn_metadata.output_schema = dict(schema)
    exact_input = getattr(fn, "input_schema", None)
    if exact_input is not None:
        info.parameters = dict(exact_input)  # kept as written: $schema, $defs, additionalProperties


def _add_features(server: MCPServer, state: ProbeState) -> None:
    """Logging, completions and resource subscriptions (each capability is declared by its handler)."""
    low = server._lowlevel_server
    low.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, state.log_levels.handle_set_level
    )
    low.add_request_handler(
        "resources/subscribe", types.SubscribeRequestParams, state.subscriptions.handle_subscribe
    )
    low.add_request_handler(
        "resources/unsubscribe", types.UnsubscribeRequestParams, state.subscriptions.handle_unsubscribe
    )
    server.completion()(Completer(state))
    if state.tasks is not None:
        state.tasks.on_change.append(lambda record: state.subscriptions.changed_soon(STATUS))
