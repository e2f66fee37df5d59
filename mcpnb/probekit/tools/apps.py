"""probe-kit's MCP App: ``dice`` has a page of its own (``ui://probe-kit/dice.html``).

The page is plain HTML and JavaScript written by hand against the MCP Apps extension's text
(``data/dice.html``; no SDK), so a lesson can read the whole protocol in one file. ``dice_history``
is for the page only (``visibility: ["app"]``): a host never offers it to a model.

The history is each client's own (:class:`DiceHistory`): on a probe-kit a class shares, one list per
worker process showed every student the others' rolls, and a different list on each worker.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Callable
from importlib import resources
from typing import Annotated, Any

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from mcpnb.probekit import schemas
from mcpnb.probekit.consents import requester
from mcpnb.probekit.responses import ProbeError, ok_structured
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.taskstore import TaskStore, TaskStoreError
from mcpnb.probekit.taskstore.memory import MemoryStore

PAGE_URI = "ui://probe-kit/dice.html"
PAGE_TYPE = "text/html;profile=mcp-app"  # the extension's one page type
_KEPT = 20  # totals dice_history remembers
#: Seconds a client's totals are kept after its last roll (a class's day).
HISTORY_TTL_S = 24 * 3600
#: Who :func:`~mcpnb.probekit.consents.requester` says asked over stdio or in-process (one client).
LOCAL = requester(None)


class DiceHistory:
    """Each client's last totals, by who the client is (:func:`~mcpnb.probekit.consents.requester`:
    a 2025-11-25 HTTP session, else the ``probekit-client`` cookie; the one client of a stdio or
    in-process server). An HTTP client's totals live in the task store when it is shared (Redis,
    SQLite), so every worker shows a student the same list; everything else stays in this process.
    A client that can be told from no other (HTTP without session or cookie) keeps no history."""

    def __init__(self, state: ProbeState) -> None:
        self.state = state
        self.here = MemoryStore()

    def _store(self, who: str) -> TaskStore:
        shared = self.state.tasks.store if self.state.tasks is not None else None
        return shared if who != LOCAL and shared is not None and shared.shared else self.here

    async def add(self, who: str | None, total: int) -> None:
        if who is not None:
            await self._store(who).remember(_list_name(who), str(total), keep=_KEPT, ttl_s=HISTORY_TTL_S)

    async def totals(self, who: str | None) -> list[int]:
        return [] if who is None else [int(v) for v in await self._store(who).recall(_list_name(who))]


def _list_name(who: str) -> str:
    """The list's name in the store: a hash, so a session id or cookie is never written there."""
    return "dice:" + hashlib.sha256(who.encode()).hexdigest()[:32]


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The apps family: ``dice`` (model and page) and ``dice_history`` (page only)."""
    history = DiceHistory(state)

    async def dice(
        ctx: Context,
        count: Annotated[int, Field(ge=1, le=12, description="how many dice")] = 2,
        sides: Annotated[int, Field(ge=2, le=100, description="sides of each die")] = 6,
    ) -> types.CallToolResult:
        """Roll dice. A host that draws MCP Apps shows them on the tool's page, whose Roll again
        button calls this tool again; the text says the same for every other client."""
        if not 1 <= count <= 12 or not 2 <= sides <= 100:
            raise ProbeError("count must be 1–12 and sides 2–100.")
        rolls = [random.randint(1, sides) for _ in range(count)]
        with contextlib.suppress(TaskStoreError):  # the store says once that it is down; the roll stands
            await history.add(requester(ctx.request_context.request), sum(rolls))
        text = f"{' + '.join(map(str, rolls))} = {sum(rolls)} ({count}d{sides})"
        return ok_structured(schemas.DICE, {"rolls": rolls, "total": sum(rolls), "sides": sides}, text)

    async def dice_history(ctx: Context) -> types.CallToolResult:
        """Your own dice totals, newest last (the last 20, for a day): for the dice page only.
        Yours: this client's (its session or probe-kit's client cookie over HTTP, the process on
        stdio), never another student's. With a shared task store (Redis, SQLite) they are kept
        there, so every worker of a shared probe-kit shows the same; else in this process."""
        totals = await history.totals(requester(ctx.request_context.request))
        return ok_structured(schemas.DICE_HISTORY, {"totals": totals}, ", ".join(map(str, totals)))

    dice.output_schema = dict(schemas.DICE)  # type: ignore[attr-defined]
    dice.meta = {"ui": {"resourceUri": PAGE_URI}}  # type: ignore[attr-defined]
    dice_history.output_schema = dict(schemas.DICE_HISTORY)  # type: ignore[attr-defined]
    dice_history.meta = {"ui": {"resourceUri": PAGE_URI, "visibility": ["app"]}}  # type: ignore[attr-defined]
    return [dice, dice_history]


def add_page(server: MCPServer) -> None:
    """The dice page as a resource; a host reads it with ``resources/read``. It reaches nothing
    beyond its host, so its metadata declares no domain (the extension's strictest policy)."""

    @server.resource(PAGE_URI, name="dice page", mime_type=PAGE_TYPE, meta={"ui": {"prefersBorder": True}})
    def dice_page() -> str:
        return resources.files("mcpnb.probekit").joinpath("data", "dice.html").read_text(encoding="utf-8")
