"""Build the probe-kit ``MCPServer``: tools filtered by toolset, resources, prompts, tasks, debug log.

Filtering happens at registration, so a tool outside the toolset is neither listed nor callable
(the SDK answers "Unknown tool"), with no second check to forget.
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tasks import TaskManager
from mcpnb.probekit.tasks_wire import ProbeTasks
from mcpnb.probekit.tools import all_tools
from mcpnb.probekit.toolsets import TOOLSETS, env_flag, resolve_toolset, select_tools

SERVER_NAME = "probe-kit"
VERSION = "2.0.0"
INSTRUCTIONS = (
    "probe-kit is a teaching MCP server: every tool does real, deterministic work and returns "
    "structured results with a text fallback. Read probe://status and probe://toolsets first."
)


class ProbeServer(MCPServer):
    """``MCPServer`` that declares ``execution.taskSupport`` on task-capable tools in ``tools/list``."""

    async def list_tools(self) -> list[types.Tool]:
        tools = await super().list_tools()
        for tool in tools:
            info = self._tool_manager.get_tool(tool.name)
            if info is not None and getattr(info.fn, "task_runner", None) is not None:
                tool.execution = types.ToolExecution(task_support="optional")
        return tools


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


def create_server(
    toolset: str | None = None,
    *,
    root: str | Path | None = None,
    show_all: bool | None = None,
    debug: bool | None = None,
    max_concurrent_tasks: int = 4,
    task_ttl_ms: int = 300_000,
    poll_interval_ms: int = 250,
) -> MCPServer:
    """A fresh probe-kit server.

    ``toolset`` (else ``MCP_TOOLSET``, else ``full``) picks the tools; ``show_all`` (else
    ``MCP_SHOW_ALL``) ignores the filter; ``debug`` (else ``MCP_DEBUG``) logs requests to stderr.
    ``root`` (default: the working directory) confines every file-reading tool. Raises
    :class:`~mcpnb.probekit.toolsets.UnknownToolsetError` (a ``ValueError``) for an unknown toolset.
    """
    chosen = resolve_toolset(toolset)
    show = env_flag(show_all, "MCP_SHOW_ALL")
    verbose = env_flag(debug, "MCP_DEBUG")
    base = Path(root if root is not None else Path.cwd()).resolve()
    if not base.is_dir():
        raise ValueError(f"probe-kit root {str(base)!r} is not a folder")
    manager = TaskManager(
        max_concurrent=max_concurrent_tasks, default_ttl_ms=task_ttl_ms, poll_interval_ms=poll_interval_ms
    )
    state = ProbeState(root=base, toolset=chosen, tasks=manager)
    holder: dict[str, MCPServer] = {}
    ext = ProbeTasks(manager, lambda name: holder["server"]._tool_manager.get_tool(name))
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

    server = ProbeServer(
        SERVER_NAME,
        version=VERSION,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        extensions=[ext],
        lifespan=lifespan,
        middleware=[debug_middleware()] if verbose else None,
    )
    holder["server"] = server
    server.middleware.append(ext.legacy_middleware())
    server.probe_state = state  # type: ignore[attr-defined]

    every = all_tools(state)
    by_name = {fn.__name__: fn for fn in every}
    state.tool_names = select_tools(list(by_name), chosen, show)
    for name in state.tool_names:
        fn = by_name[name]
        server.add_tool(fn, name=name, description=inspect.cleandoc(fn.__doc__ or name))
        schema = getattr(fn, "output_schema", None)
        if schema is not None:
            server._tool_manager.get_tool(name).fn_metadata.output_schema = dict(schema)

    _add_resources(server, state)
    _add_prompts(server, state)
    return server


def _add_resources(server: MCPServer, state: ProbeState) -> None:
    @server.resource("probe://status", name="status", mime_type="application/json")
    def status() -> str:
        """Server info, active toolset, tool count, uptime and task counts."""
        tasks = state.tasks.counts() if state.tasks else {}
        return json.dumps(
            {
                "server": SERVER_NAME,
                "version": VERSION,
                "toolset": state.toolset,
                "toolCount": len(state.tool_names),
                "uptimeSeconds": round(time.time() - state.started, 3),
                "root": str(state.root),
                "tasks": tasks,
            }
        )

    @server.resource("probe://toolsets", name="toolsets", mime_type="application/json")
    def toolsets() -> str:
        """Every toolset and its tools; which one is active."""
        sets = {
            name: list(members) if members is not None else "every tool" for name, members in TOOLSETS.items()
        }
        return json.dumps({"active": state.toolset, "toolsets": sets, "tools": state.tool_names})


def _add_prompts(server: MCPServer, state: ProbeState) -> None:
    @server.prompt(name="explain_tool")
    def explain_tool(tool_name: str) -> str:
        """Ask for a plain-language explanation of one probe-kit tool, with its schemas."""
        tool = server._tool_manager.get_tool(tool_name)
        if tool is None:
            return f"There is no tool called {tool_name!r} in the {state.toolset!r} toolset."
        return (
            f"Explain the MCP tool `{tool_name}` to a newcomer.\n\nDescription: {tool.description}\n\n"
            f"Input schema:\n{json.dumps(tool.parameters, indent=1)}\n\n"
            f"Output schema title: {(tool.fn_metadata.output_schema or {}).get('title', 'none')}\n\n"
            "Say what it needs, what it returns, and one example call."
        )

    @server.prompt(name="review_code")
    def review_code(path: str = ".") -> str:
        """A guided review: which probe-kit tools to call, in which order, on one path."""
        return (
            f"Review the code under `{path}` with probe-kit:\n"
            "1. `analyze_project` for the shape of the project;\n"
            "2. `security_scan` and `code_review` for findings (a table by severity);\n"
            "3. `fix` on the worst file for a patch you can read before applying;\n"
            "4. `gencommit` on the resulting diff for the commit message."
        )
