"""A plan carried out through the pool, on the runtime loop, like ``Pool.sync`` for these servers only.

Already connected with equal settings: untouched (running the same cell twice changes nothing and
costs a status read and a cached tool list). Different settings, or a connection that failed:
reconnected. Missing: connected. Servers the plan does not name are never touched. All connects run
at once, and one that fails is a row, not an exception: the others go on.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import McpnbError
from mcpnb.client.requirements.checks import row_for
from mcpnb.client.requirements.resolution import Resolution
from mcpnb.client.requirements.resolver import differences, tool_collisions
from mcpnb.client.toolinfo import flat_name

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.requirements.plan import Plan

#: States a connection with the wanted settings is left in: it is up, or on its way back.
LIVE = frozenset({"connected", "connecting", "reconnecting"})


async def connect_plan(pool: Pool, plan: Plan) -> Resolution:
    """Connect what ``plan`` needs and check it; runs on the pool's runtime loop."""
    actions: dict[str, tuple[str, str]] = {}
    todo = []
    for server in plan.servers:
        current = pool._connections.get(server.name)
        if current is None:
            actions[server.name] = ("connected", "connected")
        elif current.config == server.config and str(current.state) in LIVE:
            actions[server.name] = ("kept", "already connected with these settings: untouched")
        elif current.config != server.config:
            changed = ", ".join(differences([current.config, server.config]))
            actions[server.name] = ("reconnected", f"reconnected: its settings changed ({changed})")
        else:
            actions[server.name] = ("reconnected", f"reconnected: it was {current.state}")
        if actions[server.name][0] != "kept":
            todo.append(server.config)
    await asyncio.gather(*(pool._connect(config, raise_on_failure=False) for config in todo))

    statuses = {s.name: pool.connection(s.name).status() for s in plan.servers}
    up = [s.name for s in plan.servers if statuses[s.name].state == "connected"]
    listed = await asyncio.gather(*(_tool_names(pool, name) for name in up))
    tools = dict(zip(up, listed, strict=True))
    warnings = tool_collisions({n: t for n, t in tools.items() if t})
    shared = _shared_tools(tools)
    rows = []
    for server in plan.servers:
        status = statuses[server.name]
        action, note = actions[server.name]
        rows.append(
            row_for(
                server,
                state=status.state,
                version=status.server_version,
                error=status.last_error,
                tools=tools.get(server.name),
                action=action,
                action_note=note,
                collisions=shared.get(server.name, ()),
            )
        )
    return Resolution(plan, rows, warnings)


async def _tool_names(pool: Pool, name: str) -> list[str] | None:
    try:
        return [tool.name for tool in await pool.connection(name).list_tools()]
    except McpnbError:
        return None


def _shared_tools(tools: dict[str, Any]) -> dict[str, list[str]]:
    """Per server, a note for each of its tools another required server also has."""
    owners: dict[str, list[str]] = defaultdict(list)
    for server, names in sorted(tools.items()):
        for tool in names or ():
            owners[tool].append(server)
    notes: dict[str, list[str]] = defaultdict(list)
    for tool, on in sorted(owners.items()):
        if len(on) > 1:
            for server in on:
                others = ", ".join(o for o in on if o != server)
                notes[server].append(
                    f"tool {tool!r} is also on {others}: call it as {flat_name(server, tool)}"
                )
    return notes
