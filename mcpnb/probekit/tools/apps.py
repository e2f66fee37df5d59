"""probe-kit's MCP App: ``dice`` has a page of its own (``ui://probe-kit/dice.html``).

The page is plain HTML and JavaScript written by hand against the MCP Apps extension's text
(``data/dice.html``; no SDK), so a lesson can read the whole protocol in one file. ``dice_history``
is for the page only (``visibility: ["app"]``): a host never offers it to a model.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from importlib import resources
from typing import Annotated, Any

from mcp import types
from mcp.server.mcpserver import MCPServer
from pydantic import Field

from mcpnb.probekit import schemas
from mcpnb.probekit.responses import ProbeError, ok_structured
from mcpnb.probekit.state import ProbeState

PAGE_URI = "ui://probe-kit/dice.html"
PAGE_TYPE = "text/html;profile=mcp-app"  # the extension's one page type
_KEPT = 20  # totals dice_history remembers


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The apps family: ``dice`` (model and page) and ``dice_history`` (page only)."""
    totals: deque[int] = deque(maxlen=_KEPT)

    def dice(
        count: Annotated[int, Field(ge=1, le=12, description="how many dice")] = 2,
        sides: Annotated[int, Field(ge=2, le=100, description="sides of each die")] = 6,
    ) -> types.CallToolResult:
        """Roll dice. A host that draws MCP Apps shows them on the tool's page, whose Roll again
        button calls this tool again; the text says the same for every other client."""
        if not 1 <= count <= 12 or not 2 <= sides <= 100:
            raise ProbeError("count must be 1–12 and sides 2–100.")
        rolls = [random.randint(1, sides) for _ in range(count)]
        totals.append(sum(rolls))
        text = f"{' + '.join(map(str, rolls))} = {sum(rolls)} ({count}d{sides})"
        return ok_structured(schemas.DICE, {"rolls": rolls, "total": sum(rolls), "sides": sides}, text)

    def dice_history() -> types.CallToolResult:
        """The totals rolled so far, newest last: for the dice page only."""
        return ok_structured(schemas.DICE_HISTORY, {"totals": list(totals)}, ", ".join(map(str, totals)))

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
