"""``%%mcp require``: the servers a notebook needs, stated visibly in its first cells, connected
once each however many skills ask for them, checked, and shown as a table.

A thin layer over :func:`mcpnb.client.requirements.require` (``Pool.require``): the cell body is the
spec (JSON or YAML), ``--skill`` adds skill folders, and strategy ``ask`` shows its form in this
cell through the same forms a server's questions use (text prompts when the cell cannot wait for a
click; priority, said so in the table, when nobody is there).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError

from mcpnb.notebook.magics.parser import (
    Parser,
    add_input_flag,
    input_values,
    lookup,
    without_final_semicolon,
)
from mcpnb.notebook.magics.registry import Context, arguments, command

CELL = "the %%mcp require cell"
STRATEGIES = ("priority", "newest", "ask", "error")


def _args(p: Parser) -> None:
    p.add_argument(
        "--skill", action="append", metavar="DIR", help="a skill folder (and the skills it requires); repeat"
    )
    p.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="priority",
        help="settle conflicts by source (priority: notebook > skill > local > project > user > site), "
        "by the highest version (newest), with a form (ask) or not at all (error)",
    )
    p.add_argument(
        "--config", metavar="PATH", help="the .mcp.json to rank below the notebook (default: found)"
    )
    p.add_argument("--no-config", action="store_true", help="leave the .mcp.json layers out")
    p.add_argument(
        "--answers", metavar="VAR", help="--strategy ask: a dict {server: source} instead of a form"
    )
    add_input_flag(p)


@command(
    "require",
    "Connect the servers this notebook (and its skills) needs, each once, and check versions and tools.",
    takes_cell=True,
    epilog="examples:\n"
    "  %%mcp require\n"
    "  mcpServers:\n"
    "    time: {command: python, args: [-m, mcp_server_time], version: '>=2025', tools: [get_current_time]}\n"
    "  skills: [skills/field-notes]\n\n"
    "  %mcp require --skill skills/field-notes --strategy newest",
    usage="%%%%mcp require [--skill DIR] [--strategy S] [--config PATH | --no-config] [--answers VAR] "
    "[--input ID=VALUE] [-o VAR]  + a JSON/YAML body\n   or: %(prog)s --skill DIR [...]",
)
@arguments(_args)
def require(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.client.interaction import CallContext
    from mcpnb.client.requirements import RequirementError
    from mcpnb.client.requirements import require as require_servers
    from mcpnb.notebook.cell.live import asking_ui

    body = without_final_semicolon(ctx.cell or "")  # a final ";": no output, and no part of the YAML
    body = body if body.strip() else None
    if body is None and not ns.skill:
        raise UsageError(
            '%%mcp require needs a body ({"mcpServers": {...}, "skills": [...]}, JSON or YAML) or --skill DIR'
        )
    if ns.config and ns.no_config:
        raise UsageError("--config PATH and --no-config contradict each other: give one")
    answers = _answers(ns.answers, ctx.namespaces) if ns.answers else None
    inputs = input_values(ns.input, ctx.namespaces)
    if inputs is not None and not ns.config:
        raise UsageError("--input goes with --config PATH (the values of a VS Code file's ${input:ID})")
    if answers is not None and ns.strategy != "ask":
        raise UsageError("--answers is for --strategy ask")
    try:
        return require_servers(
            ctx.pool,
            body,
            strategy=ns.strategy,
            skills=ns.skill or (),
            config=False if ns.no_config else (ns.config or True),
            answers=answers,
            inputs=inputs,
            context=CallContext(ui=asking_ui(ctx.settings.elicitation)),
            where=CELL,
            run=ctx.pool.runtime.run,  # an awaiting cell's interrupt cancels it
        )
    except RequirementError as exc:
        if exc.resolution is not None and ns.out:
            ctx.user_ns[ns.out] = exc.resolution
        if exc.resolution is not None and exc.resolution.rows:  # the table first, then the one error
            from IPython.display import display

            display(exc.resolution)
        raise


def _answers(name: str, namespaces: list[Mapping[str, Any]]) -> dict[str, Any]:
    value = lookup(name, namespaces, label=f"--answers {name}")  # (not "{{pics}}": never typed so)
    if not isinstance(value, Mapping):
        raise UsageError(
            f"--answers {name}: expected a dict {{server: source}}, got a {type(value).__name__}"
        )
    return dict(value)
