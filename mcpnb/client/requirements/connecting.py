"""A plan carried out through the pool, on the runtime loop, like ``Pool.sync`` for these servers only.

Already connected with equal settings: untouched (running the same cell twice changes nothing and
costs a status read and a cached tool list). Different settings, or a connection that failed:
reconnected. Missing: connected. Servers the plan does not name are never touched. All connects run
at once, and one that fails is a row, not an exception: the others go on.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from mcpnb.client.errors import McpnbError
from mcpnb.client.requirements.checks import row_for
from mcpnb.client.requirements.collisions import collision_notes, collision_warnings
from mcpnb.client.requirements.resolution import Resolution
from mcpnb.client.requirements.resolver import differences

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
            actions[server.name] = ("connected", "")  # the state column says it
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
    known = {n: t for n, t in tools.items() if t}
    warnings, shared = collision_warnings(known), collision_notes(known)
    rows = []
    for server in plan.servers:
        status = statuses[server.name]
        action, note = actions[server.name]
        if action != "kept" and status.state != "connected":
            note = "tried to connect" if action == "connected" else f"tried to {note}"
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
