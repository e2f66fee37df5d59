"""The subcommand registry: how a subcommand declares its arguments, and what it may use.

Each subcommand parses its own words with its own :class:`~mcpnb.notebook.magics.parser.Parser` (so ``-h``,
errors and completion are per subcommand) and calls the public :class:`~mcpnb.client.pool.Pool` API.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from mcpnb.client.errors import McpnbError, did_you_mean_text
from mcpnb.notebook.magics.parser import Parser

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.notebook.settings import Mcp

#: The order ``%mcp help`` lists subcommands in: the order a person meets them.
ORDER = (
    "connect", "status", "tools", "call", "functions", "resources", "read", "subscribe", "unsubscribe",
    "prompts", "prompt", "skills", "disconnect", "reconnect", "logs", "config", "serve", "require", "help",
)  # fmt: skip


@dataclass
class Context:
    """What a subcommand may use: the pool, the settings, the user's namespaces and the cell body."""

    pool: Pool
    settings: Mcp
    namespaces: list[Mapping[str, Any]]
    user_ns: dict[str, Any]
    cell: str | None = None
    #: A final ``;`` asked for no output; a subcommand whose body keeps that ``;`` as text clears it.
    silent: bool = False


@dataclass
class Command:
    parser: Parser
    run: Callable[[Context, argparse.Namespace], Any]
    takes_cell: bool = False
    store: bool = True  # accepts -o VAR
    #: The twin a top-level (awaiting) cell runs on the kernel's own loop; None: ``run`` in a thread.
    awaited: Callable[[Context, argparse.Namespace], Awaitable[Any]] | None = None


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    description: str,
    *,
    takes_cell: bool = False,
    store: bool = True,
    epilog: str | None = None,
    usage: str | None = None,
    remember: bool = False,
):
    """Register a subcommand; the decorated function adds its arguments to the parser first.

    ``remember``: a line run again (in a loop) reuses its parse (see :class:`Parser`).
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        parser = Parser(name, description, epilog)
        parser.usage = usage
        parser.remember = remember
        fn.arguments(parser)  # type: ignore[attr-defined]
        if store:
            parser.add_argument("-o", "--out", metavar="VAR", help="also store the result in VAR")
        COMMANDS[name] = Command(parser, fn, takes_cell, store)
        return fn

    return deco


def awaited(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the awaited twin of subcommand ``name``.

    An awaiting cell runs every other subcommand in a thread of its own (it may block); a twin
    awaits the server on the kernel's loop instead, which saves two thread switches per call.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        COMMANDS[name].awaited = fn
        return fn

    return deco


def arguments(add: Callable[[Parser], None]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.arguments = add  # type: ignore[attr-defined]
        return fn

    return deco


# ---------------------------------------------------------------- helpers
def known_server(ctx: Context, name: str) -> str:
    if name not in ctx.pool:
        why = ctx.pool.misconfigured.get(name)
        if why is not None:
            from mcpnb.client.pool import not_started

            raise UsageError(not_started(name, why))
        if ctx.pool.was_disconnected(name):
            from mcpnb.client.pool import disconnected

            raise UsageError(disconnected(name))
        known = ctx.pool.names
        listed = ctx.pool.roll_call(12) + (": %mcp status" if len(known) > 12 else "")
        if not known:
            listed = "connected: none yet; start one with %mcp serve probe-kit"
        lists = server_listing(ctx, name)  # a tool's name typed for its server's (%mcp tools greet)
        hint = did_you_mean_text(name, known) or (
            f"; {name!r} is a tool of {lists}: {lists}.{name}" if lists else ""
        )
        raise UsageError(f"no server named {name!r}{hint} ({listed})")
    return name


def server_listing(ctx: Context, tool: str, *, but: str | None = None) -> str | None:
    """The first connected server (other than ``but``) whose tool list at hand names ``tool``: what
    a slip of the server's name meant. No server is asked."""
    for server in ctx.pool.names:
        if server != but and any(t.name == tool for t in ctx.pool.connection(server).catalog.listed() or ()):
            return server
    return None


#: What an empty pool means to someone who just loaded the extension.
NOTHING_CONNECTED = (
    "no servers are connected yet: %mcp serve probe-kit starts the teaching server, "
    "%mcp connect NAME -- COMMAND (or NAME URL) one of yours"
)


def servers_named(ctx: Context, name: str | None) -> list[str]:
    """``[name]`` (checked), or every connected server."""
    if name:
        return [known_server(ctx, name)]
    hint_if_empty(ctx)
    return list(ctx.pool.names)


def hint_if_empty(ctx: Context) -> None:
    """With no server connected, an empty listing also says how to connect one."""
    if not ctx.pool.names:
        print(NOTHING_CONNECTED)


def unreachable_unless_asked(ctx: Context, asked: str | None) -> dict[str, str]:
    """A listing of every server names those it cannot ask (down, invalid settings), as the tools
    listing does; one server asked for raises its own error instead."""
    return {} if asked else ctx.pool.unreachable()


def skip_unsupported(
    ctx: Context,
    asked: str | None,
    server: str,
    capability: str,
    fetch: Callable[[], list[Any]],
    missed: dict[str, str],
) -> list[Any]:
    """When listing every server, one that does not offer ``capability`` (``resources``,
    ``prompts``, or an extension such as skills) is skipped; one that offers it and fails to list
    is named in ``missed`` (the listing says so)."""
    try:
        return fetch()
    except McpnbError as exc:
        if asked:
            raise
        if _declares(ctx.pool.connection(server).capabilities, capability):
            missed[server] = f"listing failed: {exc}"
        return []


def _declares(capabilities: Any, capability: str) -> bool:
    """A core capability by its name, or an extension by its identifier."""
    if getattr(capabilities, capability, None) is not None:
        return True
    return capability in (getattr(capabilities, "extensions", None) or {})


def one_row(status: Any) -> Any:
    from mcpnb.client.status import StatusTable

    return StatusTable([status])


# ---------------------------------------------------------------- help
@command("help", "Usage of %mcp, or of one subcommand.", store=False)
@arguments(lambda p: p.add_argument("subcommand", nargs="?", help="a subcommand"))
def help_(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.subcommand:
        if ns.subcommand not in COMMANDS:
            raise UsageError(
                f"unknown subcommand {ns.subcommand!r}{did_you_mean_text(ns.subcommand, COMMANDS)}"
            )
        print(COMMANDS[ns.subcommand].parser.format_help())
    else:
        print(overview())
    return None


def overview() -> str:
    """Every subcommand's usage line: the text ``%mcp?`` and ``%mcp help`` show."""
    lines = ["Subcommands (%mcp SUBCOMMAND -h for details; --verbose on any adds the traceback):", ""]
    for name in sorted(COMMANDS, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER)):
        cmd = COMMANDS[name]
        usage = cmd.parser.format_usage().partition("usage: ")[2]
        for form in usage.split(" or: "):  # alternative forms on their own lines
            lines += _wrapped(form, "  ", "        ")
        lines += _wrapped(cmd.parser.description or "", "      ", "      ")
    lines += ["", "A bare %mcp shows the status table. x = %mcp ... keeps the result in x."]
    return "\n".join(lines)


#: Help lines no wider than this: JupyterLab's help pager breaks a longer line anywhere, mid-word
#: ("--ti" / "meout"), and a terminal of 80 columns is still common.
HELP_WIDTH = 88


def _wrapped(text: str, first: str, rest: str) -> list[str]:
    """``text`` (argparse's usage, wrapped to the terminal it guessed, or a description) on lines
    of at most :data:`HELP_WIDTH`, broken between words only, and never inside ``[...]``: an
    option and its value stay together (``[--wait S]``)."""
    import textwrap

    depth, kept = 0, []
    for char in " ".join(text.split()):
        depth += {"[": 1, "]": -1}.get(char, 0)
        kept.append("\0" if char == " " and depth > 0 else char)
    lines = textwrap.wrap(
        "".join(kept),
        HELP_WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [line.replace("\0", " ") for line in lines]
