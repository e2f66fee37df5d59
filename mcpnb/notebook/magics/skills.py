"""``%mcp skills``: the skills servers offer (SEP-2640), and one loaded, its files checked first."""

from __future__ import annotations

import argparse
import functools
from typing import Any

from IPython.core.error import UsageError

from mcpnb.client.errors import did_you_mean_text
from mcpnb.notebook.magics.parser import Parser
from mcpnb.notebook.magics.registry import (
    Context,
    arguments,
    command,
    known_server,
    servers_named,
    skip_unsupported,
    unreachable_unless_asked,
)


def _args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="one server (default: every connected server)")
    p.add_argument("skill", nargs="?", help="a skill of that server: load it (its SKILL.md, checked)")


@command(
    "skills",
    "List the skills servers offer (SEP-2640), or load one: its SKILL.md, checked against the listing.",
    epilog="examples:\n"
    "  %mcp skills                     (every server that offers skills)\n"
    "  %mcp skills probe review-a-change   (its instructions; .read('checklist.md') for a file)",
)
@arguments(_args)
def skills(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.client.server_skills import EXTENSION
    from mcpnb.notebook.magics.listings import SkillList

    if ns.skill:
        found = ctx.pool.skills(known_server(ctx, ns.name))
        names = [s.name for s in found]
        chosen = next((s for s in found if ns.skill in (s.name, s.uri)), None)
        if chosen is None:
            listed = ", ".join(names) or "none"
            close = did_you_mean_text(ns.skill, names)
            raise UsageError(f"{ns.name!r} has no skill {ns.skill!r}{close} (its skills: {listed})")
        return chosen.load()
    rows: list[tuple[str, Any]] = []
    missed = unreachable_unless_asked(ctx, ns.name)
    for server in (s for s in servers_named(ctx, ns.name) if s not in missed):
        fetch = functools.partial(ctx.pool.skills, server)
        rows += [(server, s) for s in skip_unsupported(ctx, ns.name, server, EXTENSION, fetch, missed)]
    return SkillList(rows, not_listed=missed)
