"""``%mcp functions``: the connected servers' tools as functions for an LLM.

Without ``--format`` it returns the :class:`~mcpnb.client.toolbox.Toolbox` (Python functions by flat
name, ``.specs()``, ``.run(call)``); with ``--format`` the tool specs for that API, ready for
``tools=``. Either shows as a table: name, server, tool, parameters, strict?.
"""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.error import UsageError

from mcpnb.notebook.magics.parser import Parser
from mcpnb.notebook.magics.registry import Context, arguments, command, hint_if_empty, known_server

#: The formats ``--format`` takes (the same as ``Toolbox.specs``; listed here so loading stays light).
FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
#: What ``--approve`` takes (``Toolbox.approve``'s modes).
APPROVE = ("never", "destructive", "writes", "always")


def _functions_args(p: Parser) -> None:
    p.add_argument(
        "servers",
        nargs="*",
        default=(),
        metavar="SERVER",
        help="servers to include (default: every connected one)",
    )
    p.add_argument(
        "--format",
        metavar="{" + ",".join(FORMATS) + "}",
        help="the tool specs for this API instead of the toolbox",
    )
    p.add_argument(
        "--strict", action="store_true", help="with --format openai…: OpenAI strict mode where possible"
    )
    p.add_argument("--refresh", action="store_true", help="ask the servers for their tools again")
    p.add_argument(
        "--skills",
        action="store_true",
        help="also offer the servers' skills: listed in .instructions, loaded by a load_skill tool",
    )
    p.add_argument(
        "--approve",
        default="never",
        metavar="{" + ",".join(APPROVE) + "}",
        help="which of the model's calls ask you first (destructive: by the servers' annotations)",
    )


@command(
    "functions",
    "Tools as functions for an LLM: the toolbox, or with --format the specs each API takes as tools=.",
    epilog="examples:\n"
    "  tools = %mcp functions                       (f = tools.short.ui_search; f(query='login'))\n"
    "  %mcp functions probe time --format anthropic -o specs\n"
    "  %mcp functions --format openai --strict      (the strict? column says what blocks strict mode)\n"
    "  tools = %mcp functions --approve destructive (a model's call that may destroy data asks you)\n"
    "  tools = %mcp functions probe --skills        (the model may load probe's skills: load_skill)\n"
    "then run the model's tool calls (its reply, any SDK's) and hand the results back as its API wants:\n"
    "  OpenAI:     messages += tools.run_all(reply)\n"
    "  Anthropic:  messages.append({'role': 'user', 'content': tools.run_all(reply)})\n"
    "  Gemini:     contents.append(types.Content(role='user', parts=tools.run_all(reply)))",
)
@arguments(_functions_args)
def functions(ctx: Context, ns: argparse.Namespace) -> Any:
    for name in ns.servers:
        known_server(ctx, name)
    if not ns.servers:
        hint_if_empty(ctx)
    if ns.format is not None:
        from mcpnb.client.toolbox.specs import check_format  # says "claude" is 'anthropic'

        try:
            check_format(ns.format)
        except ValueError as exc:
            raise UsageError(f"--format: {exc}") from None
    if ns.approve not in APPROVE:
        from mcpnb.client.errors import did_you_mean_text

        hint = did_you_mean_text(ns.approve, APPROVE)
        raise UsageError(f"--approve {ns.approve!r}: expected one of {', '.join(APPROVE)}{hint}")
    if ns.strict and ns.format not in ("openai", "openai-responses"):
        raise UsageError("--strict goes with --format openai or --format openai-responses")
    toolbox = ctx.pool.functions(*ns.servers, refresh=ns.refresh, approve=ns.approve, skills=ns.skills)
    if ns.format is None:
        return toolbox
    return toolbox.specs(ns.format, strict=True if ns.strict else None)
