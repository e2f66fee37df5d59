"""Display settings shared by every renderer.

One mutable object rather than keyword arguments threaded everywhere: the magics'
``%config Mcp.display_limit = 50`` sets it once and every later result and table in one obeys;
``%config Mcp.listing_limit = 50`` does the same for every listing (tools, resources, prompts,
skills, tasks, a toolbox and its specs), which people scan whole and so get more rows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RenderDefaults:
    """Limits that keep a notebook readable when a server returns a lot."""

    display_limit: int = 20
    """Rows of a table (or items of a JSON list) in a result shown before "N more rows"."""
    listing_limit: int = 200
    """Rows of a listing (tools, resources, prompts, skills, tasks, functions, tool specs) shown
    before "N more": people scan a whole server's tools, so this is higher."""
    text_limit: int = 20_000
    """Characters of one text block shown; the full text stays on ``result.text``."""
    json_limit: int = 50_000
    """Characters of the collapsible JSON view."""


DEFAULTS = RenderDefaults()


def resolve_limit(limit: int | None, default: int) -> int:
    """Negative or zero limits would hide everything silently; treat them as "at least one row"."""
    value = default if limit is None else limit
    return max(1, int(value))
