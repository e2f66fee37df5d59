"""probe-kit's own resources, resource templates and prompts.

Two static resources a person reads first (``probe://status`` changes as tasks start and end, so it
is the one to subscribe to), three templates whose variables complete (toolset names, catalog
categories, file paths under the root), and three prompts whose arguments complete too.
"""

from __future__ import annotations

import json
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from mcpnb.probekit.paths import read_text
from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tasks import COUNT_LIMIT
from mcpnb.probekit.taskstore import TaskStoreError
from mcpnb.probekit.toolsets import TOOLSETS

STATUS = "probe://status"


async def status_json(state: ProbeState, name: str, version: str) -> str:
    """The status; a task store that does not answer is said here (the read must not fail: it is
    where a teacher looks first when tasks fail)."""
    tasks: dict[str, int] | None = {}
    store_down: str | None = None
    counted_all = True
    if state.tasks:
        try:  # a bounded read: at most COUNT_LIMIT tasks' status, however many the store holds
            tasks, counted_all = await state.tasks.count()
        except TaskStoreError as exc:
            tasks = None
            store_down = f"the task store ({state.tasks.store.url}) is not answering: {exc}"
    status = {
        "server": name,
        "version": version,
        "toolset": state.toolset,
        "toolCount": len(state.tool_names),
        "uptimeSeconds": round(time.time() - state.started, 3),
        "root": str(state.root),
        "tasks": tasks,
        "taskStore": state.tasks.store.url if state.tasks else None,
        "taskStoreAnswering": store_down is None,
        "worker": state.tasks.worker if state.tasks else None,
    }
    if state.tasks:
        if not counted_all:
            status["tasksCounted"] = (
                f"the oldest {COUNT_LIMIT} tasks only (the store holds more; probe-kit reads no more "
                "to answer this)"
            )
        status["thisWorker"] = state.tasks.here()  # from memory: free
        status["limits"] = state.tasks.limits()
    if store_down is not None:
        status["taskStoreError"] = store_down
    return json.dumps(status)


def add_resources(server: MCPServer, state: ProbeState, name: str, version: str) -> None:
    from mcpnb.probekit.completions import catalog_categories

    @server.resource(STATUS, name="status", mime_type="application/json")
    async def status() -> str:
        """Server info, active toolset, tool count, uptime and task counts (subscribe to watch tasks)."""
        return await status_json(state, name, version)

    @server.resource("probe://toolsets", name="toolsets", mime_type="application/json")
    def toolsets() -> str:
        """Every toolset and its tools; which one is active."""
        sets = {k: list(v) if v is not None else "every tool" for k, v in TOOLSETS.items()}
        return json.dumps({"active": state.toolset, "toolsets": sets, "tools": state.tool_names})

    @server.resource("probe://toolsets/{name}", name="toolset", mime_type="application/json")
    def toolset(name: str) -> str:
        """The tools of one toolset (the name completes: completion/complete on this template)."""
        if name not in TOOLSETS:
            raise ResourceNotFoundError(f"no toolset {name!r}; toolsets: {', '.join(TOOLSETS)}")
        members = TOOLSETS[name]
        return json.dumps({"toolset": name, "tools": list(members) if members is not None else "every tool"})

    @server.resource("probe://catalog/{category}", name="catalog-category", mime_type="application/json")
    def catalog(category: str) -> str:
        """The UI catalog's components in one category (the category completes)."""
        known = catalog_categories(state)
        if category not in known:
            raise ResourceNotFoundError(f"no catalog category {category!r}; categories: {', '.join(known)}")
        assert state.catalog is not None
        rows = [
            {"id": c["id"], "name": c["name"], "description": c["description"]}
            for c in state.catalog["components"]
            if c["category"] == category
        ]
        return json.dumps({"category": category, "components": rows})

    @server.resource("probe://files/{+path}", name="file", mime_type="text/plain")
    def file(path: str) -> str:
        """A text file under the server's root (the path completes one folder at a time)."""
        try:
            return read_text(state.root, path)[1]
        except ProbeError as exc:
            raise ResourceNotFoundError(str(exc)) from None


def add_prompts(server: MCPServer, state: ProbeState) -> None:
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

    @server.prompt(name="tour_toolset")
    def tour_toolset(toolset: str) -> str:
        """A guided tour of one toolset: what each of its tools is for, in the order to try them."""
        if toolset not in TOOLSETS:
            return f"There is no toolset {toolset!r}; the toolsets are {', '.join(TOOLSETS)}."
        members = TOOLSETS[toolset] or tuple(state.tool_names)
        listed = "\n".join(f"- `{t}`" for t in members)
        return f"Give a newcomer a tour of probe-kit's `{toolset}` toolset, one line per tool:\n{listed}"
