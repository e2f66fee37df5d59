"""The subcommands of ``%mcp``: each parses its words and calls the public :class:`~mcpnb.pool.Pool` API.

Nothing here talks to a server directly, so everything a magic does can also be done from Python.
A subcommand returns the object to display (and to keep with ``-o VAR`` or ``x = %mcp …``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from .parser import Parser, did_you_mean_text, parse_body, parse_pairs, split_target

if TYPE_CHECKING:
    from ..pool import Pool
    from ..settings import Mcp


@dataclass
class Context:
    """What a subcommand may use: the pool, the settings, the user's namespaces and the cell body."""

    pool: Pool
    settings: Mcp
    namespaces: list[Mapping[str, Any]]
    user_ns: dict[str, Any]
    cell: str | None = None


@dataclass
class Command:
    parser: Parser
    run: Callable[[Context, argparse.Namespace], Any]
    takes_cell: bool = False
    store: bool = True  # accepts -o VAR
    extra: dict[str, Any] = field(default_factory=dict)


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    description: str,
    *,
    takes_cell: bool = False,
    store: bool = True,
    epilog: str | None = None,
    usage: str | None = None,
):
    """Register a subcommand; the decorated function adds its arguments to the parser first."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        parser = Parser(name, description, epilog)
        parser.usage = usage
        fn.arguments(parser)  # type: ignore[attr-defined]
        if store:
            parser.add_argument("-o", "--out", metavar="VAR", help="also store the result in VAR")
        COMMANDS[name] = Command(parser, fn, takes_cell, store)
        return fn

    return deco


def arguments(add: Callable[[Parser], None]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.arguments = add  # type: ignore[attr-defined]
        return fn

    return deco


# ---------------------------------------------------------------- helpers
def _known_server(ctx: Context, name: str) -> str:
    if name not in ctx.pool:
        known = ctx.pool.names
        listed = ", ".join(sorted(known)) or "none yet; start one with %mcp serve probe-kit"
        raise UsageError(f"no server named {name!r}{did_you_mean_text(name, known)} (connected: {listed})")
    return name


def _servers(ctx: Context, name: str | None) -> list[str]:
    return [_known_server(ctx, name)] if name else list(ctx.pool.names)


def find_tool(ctx: Context, target: str) -> Any:
    """The :class:`~mcpnb.tools.ToolInfo` for ``NAME.TOOL`` (or a bare tool name that is unique)."""
    server, name = split_target(target)
    if server is None:
        matches = [t for t in ctx.pool.tools() if t.name == name]
        if len(matches) == 1:
            return matches[0]
        if matches:
            where = ", ".join(f"{t.server}.{t.name}" for t in matches)
            raise UsageError(f"tool {name!r} exists on several servers: say which ({where})")
        every = [f"{t.server}.{t.name}" for t in ctx.pool.tools()]
        hint = did_you_mean_text(name, [t.split(".", 1)[1] for t in every] + every)
        raise UsageError(f"no connected server has a tool {name!r}{hint} (write NAME.TOOL)")
    _known_server(ctx, server)
    for refresh in (False, True):  # the cached list may be stale: look again before giving up
        tools = {t.name: t for t in ctx.pool.tools(server, refresh=refresh)}
        if name in tools:
            return tools[name]
    raise UsageError(
        f"server {server!r} has no tool {name!r}{did_you_mean_text(name, tools)} "
        f"(%mcp tools {server} lists them)"
    )


def _stdio_or_url(ctx: Context, ns: argparse.Namespace) -> dict[str, Any]:
    env: dict[str, str] = {}
    for item in ns.env or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError("--env expects KEY=VALUE")
        env[key] = value
    headers: dict[str, str] = {}
    for item in ns.header or []:
        key, colon, value = item.partition(":")
        if not colon or not key.strip():
            raise UsageError('--header expects "Name: value"')
        headers[key.strip()] = value.strip()
    options: dict[str, Any] = {
        "startup_timeout": ctx.settings.startup_timeout,
        "tool_timeout": ctx.settings.tool_timeout,
    }
    if ns.era:
        options["era"] = ns.era
    if ns.command:
        if ns.url:
            raise UsageError("give either a URL or '-- COMMAND ARGS', not both")
        for flag, given in (("--header", headers), ("--bearer-env", ns.bearer_env), ("--sse", ns.sse)):
            if given:
                raise UsageError(f"{flag} is for HTTP/SSE servers; this one is started as a command")
        options.update(command=ns.command[0], args=list(ns.command[1:]))
        if env:
            options["env"] = env
        if ns.cwd:
            options["cwd"] = str(Path(ns.cwd).expanduser())
        return options
    if not ns.url:
        raise UsageError(
            "say how to reach the server: %mcp connect NAME URL, %mcp connect NAME -- COMMAND ARGS, "
            "or %mcp connect --config"
        )
    if env or ns.cwd:
        raise UsageError("--env and --cwd are for servers started as a command (NAME -- COMMAND ARGS)")
    options["url"] = ns.url
    if ns.sse:
        options["transport"] = "sse"
    if headers:
        options["headers"] = headers
    if ns.bearer_env:
        options["auth"] = {"type": "bearer", "token_env": ns.bearer_env}
    return options


def _one_row(status: Any) -> Any:
    from ..status import StatusTable

    return StatusTable([status])


# ---------------------------------------------------------------- connect
def _connect_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="the server's name in this notebook")
    p.add_argument("url", nargs="?", help="an HTTP (Streamable HTTP) or SSE endpoint")
    p.add_argument(
        "--env", action="append", metavar="K=V", help="environment variable for a command (repeat)"
    )
    p.add_argument("--cwd", metavar="DIR", help="working directory for a command")
    p.add_argument("--sse", action="store_true", help="the URL is a (legacy) SSE endpoint")
    p.add_argument("--header", action="append", metavar='"K: V"', help="HTTP header (repeat)")
    p.add_argument("--bearer-env", metavar="VAR", help="send the token in environment variable VAR")
    p.add_argument("--era", choices=["auto", "legacy", "modern"], help="protocol era (default: auto)")
    p.add_argument(
        "--config",
        action="store_true",
        help="connect servers from the .mcp.json layers: --config [PATH] [NAME ...]",
    )
    p.add_argument("more", nargs="*", help=argparse.SUPPRESS)


@command(
    "connect",
    "Connect a server (replacing one of the same name) and show its status.",
    epilog="examples:\n"
    "  %mcp connect demo -- python server.py --flag\n"
    "  %mcp connect api https://example.com/mcp --bearer-env API_TOKEN\n"
    "  %mcp connect --config            (every enabled server in .mcp.json)\n"
    "  %mcp connect --config path/to/.mcp.json time git",
    usage="%(prog)s NAME [--env K=V] [--cwd DIR] [--era E] -- COMMAND [ARGS ...]\n"
    "   or: %(prog)s NAME URL [--sse] [--header 'K: V'] [--bearer-env VAR] [--era E]\n"
    "   or: %(prog)s --config [PATH] [NAME ...]",
)
@arguments(_connect_args)
def connect(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.config:
        words = [w for w in (ns.name, ns.url, *ns.more) if w]
        path = None
        if words and (words[0].endswith(".json") or "/" in words[0] or Path(words[0]).is_file()):
            path = words.pop(0)
        return ctx.pool.connect_config(path, words or None)
    if ns.more:
        raise UsageError(
            "too many words: %mcp connect NAME URL, or %mcp connect NAME -- COMMAND ARGS "
            "(the command goes after --)"
        )
    if not ns.name:
        raise UsageError("%mcp connect needs a NAME (or --config)")
    return _one_row(ctx.pool.connect(ns.name, **_stdio_or_url(ctx, ns)))


# ---------------------------------------------------------------- status, tools
@command("status", "The status table: one row per server (state, era, tools, latency, last error).")
@arguments(lambda p: None)
def status(ctx: Context, ns: argparse.Namespace) -> Any:
    return ctx.pool.status()


def _tools_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="one server (default: every connected server)")
    p.add_argument("--filter", metavar="PATTERN", help="keep tools whose name/title/description match")
    p.add_argument("--refresh", action="store_true", help="ask the server again instead of the cached list")


@command("tools", "List tools: server, tool, title, description, parameters (* = required), hints.")
@arguments(_tools_args)
def tools(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.name:
        _known_server(ctx, ns.name)
    found = ctx.pool.tools(ns.name, refresh=ns.refresh)
    if ns.filter:
        found = type(found)(t for t in found if _matches(ns.filter, t))
    return found


def _matches(pattern: str, tool: Any) -> bool:
    """A glob (``get_*``) matches the name; plain words match name, title or description."""
    import fnmatch

    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(tool.name.lower(), pattern.lower())
    text = " ".join(p for p in (tool.name, tool.title, tool.description) if p).lower()
    return pattern.lower() in text


# ---------------------------------------------------------------- call
def _call_args(p: Parser) -> None:
    p.add_argument("target", metavar="NAME.TOOL", help="server and tool, e.g. demo.add")
    p.add_argument(
        "pairs", nargs="*", metavar="key=value", help="arguments (values read as JSON if they parse)"
    )
    p.add_argument("--timeout", type=float, metavar="S", help="seconds before the call is cancelled")
    p.add_argument("--raw", action="store_true", help="show the result as the JSON the server sent")


@command(
    "call",
    "Call a tool. Arguments are checked against the tool's inputSchema before anything is sent.",
    takes_cell=True,
    epilog="examples:\n"
    "  %mcp call demo.add a=1 b=2\n"
    '  r = %mcp call demo.echo text="hello world"\n'
    "  %%mcp call probe.ui_search -o hits      (then a body of 'key: value' lines or a JSON object;\n"
    "  query: login {{topic}}                   {{var}} inserts a notebook variable)",
)
@arguments(_call_args)
def call(ctx: Context, ns: argparse.Namespace) -> Any:
    from .validate import check_arguments

    args = parse_pairs(ns.pairs, ctx.namespaces)
    if ctx.cell is not None:
        body = parse_body(ctx.cell, ctx.namespaces)
        for key in body:
            if key in args:
                raise UsageError(f"argument {key!r} is given on the magic line and in the cell body")
        args.update(body)
        args.raw.update(body.raw)
        args.lines.update(body.lines)
    tool = find_tool(ctx, ns.target)
    values = check_arguments(tool, args)
    if ns.timeout is not None and ns.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    result = ctx.pool.call(tool.server, tool.name, values, timeout=ns.timeout)
    if ctx.settings.show_transcript:
        import sys

        print("mcpnb: call transcripts are not available yet (Mcp.show_transcript)", file=sys.stderr)
    return RawJson(result.json()) if ns.raw else result


class RawJson(dict[str, Any]):
    """``--raw``: the wire result as JSON (a dict), shown expanded in JupyterLab."""

    def __repr__(self) -> str:
        import json

        return json.dumps(self, indent=2, ensure_ascii=False, default=str)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"application/json": dict(self), "text/plain": repr(self)}


# ---------------------------------------------------------------- resources and prompts
@command("resources", "List resources of one server (default: every connected server).")
@arguments(lambda p: p.add_argument("name", nargs="?", help="one server"))
def resources(ctx: Context, ns: argparse.Namespace) -> Any:
    from .listings import ResourceList

    rows: list[tuple[str, Any]] = []
    for server in _servers(ctx, ns.name):
        rows += [(server, r) for r in _skip_unsupported(ctx, ns.name, lambda s=server: ctx.pool.resources(s))]
    return ResourceList(rows)


def _skip_unsupported(ctx: Context, asked: str | None, fetch: Callable[[], list[Any]]) -> list[Any]:
    """When listing every server, one that has no resources/prompts (or is down) is simply skipped."""
    from ..errors import McpnbError

    try:
        return fetch()
    except McpnbError:
        if asked:
            raise
        return []


def _read_args(p: Parser) -> None:
    p.add_argument("name", help="the server")
    p.add_argument("uri", help="the resource URI (from %%mcp resources or a resource link)")


@command("read", "Read one resource: text shown, binary contents summarised.")
@arguments(_read_args)
def read(ctx: Context, ns: argparse.Namespace) -> Any:
    from .listings import ResourceContents

    _known_server(ctx, ns.name)
    result = ctx.pool.read(ns.name, ns.uri)
    return ResourceContents(ns.name, ns.uri, list(getattr(result, "contents", []) or []))


@command("prompts", "List prompt templates of one server (default: every connected server).")
@arguments(lambda p: p.add_argument("name", nargs="?", help="one server"))
def prompts(ctx: Context, ns: argparse.Namespace) -> Any:
    from .listings import PromptList

    rows: list[tuple[str, Any]] = []
    for server in _servers(ctx, ns.name):
        rows += [(server, r) for r in _skip_unsupported(ctx, ns.name, lambda s=server: ctx.pool.prompts(s))]
    return PromptList(rows)


def _prompt_args(p: Parser) -> None:
    p.add_argument("target", metavar="NAME.PROMPT", help="server and prompt, e.g. demo.review")
    p.add_argument("pairs", nargs="*", metavar="key=value", help="prompt arguments (text)")


@command("prompt", "Render a prompt template with arguments and show its messages.")
@arguments(_prompt_args)
def prompt(ctx: Context, ns: argparse.Namespace) -> Any:
    from .listings import PromptMessages

    server, name = split_target(ns.target, "prompt")
    if server is None:
        raise UsageError(f"expected NAME.PROMPT, got {ns.target!r}")
    _known_server(ctx, server)
    parsed = parse_pairs(ns.pairs, ctx.namespaces)
    # Prompt arguments are strings on the wire: keep what was typed, not its JSON reading.
    args = {k: parsed.raw.get(k, v if isinstance(v, str) else _text(v)) for k, v in parsed.items()}
    known = {str(getattr(p, "name", "")): p for p in ctx.pool.prompts(server)}
    if name not in known:
        raise UsageError(f"server {server!r} has no prompt {name!r}{did_you_mean_text(name, known)}")
    declared = {a.name: a for a in (getattr(known[name], "arguments", None) or [])}
    for key in args:
        if key not in declared:
            raise UsageError(f"{server}.{name}: unknown argument {key!r}{did_you_mean_text(key, declared)}")
    missing = [a for a, spec in declared.items() if getattr(spec, "required", False) and a not in args]
    if missing:
        raise UsageError(f"{server}.{name}: missing required argument {missing[0]!r}")
    return PromptMessages(server, name, ctx.pool.prompt(server, name, args))


def _text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------- lifecycle
def _disconnect_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="the server to close")
    p.add_argument("--all", action="store_true", help="close every server")


@command("disconnect", "Close a server's session (its process exits) and forget it.", store=False)
@arguments(_disconnect_args)
def disconnect(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.all == bool(ns.name):
        raise UsageError("%mcp disconnect NAME, or %mcp disconnect --all")
    names = list(ctx.pool.names) if ns.all else [_known_server(ctx, ns.name)]
    from ..serve import stop_probekit

    for name in names:
        stop_probekit(name, pool=ctx.pool, missing_ok=True)  # also stops an HTTP server we started
    print(f"disconnected: {', '.join(names)}" if names else "no servers to disconnect")
    return None


@command("reconnect", "Start a fresh session with the same configuration.")
@arguments(lambda p: p.add_argument("name", help="the server"))
def reconnect(ctx: Context, ns: argparse.Namespace) -> Any:
    _known_server(ctx, ns.name)
    return _one_row(ctx.pool.reconnect(ns.name))


def _logs_args(p: Parser) -> None:
    p.add_argument("name", help="the server")
    p.add_argument("-n", "--lines", type=int, metavar="N", help="only the last N lines")


@command("logs", "What happened to a server: state changes and its stderr, oldest first.")
@arguments(_logs_args)
def logs(ctx: Context, ns: argparse.Namespace) -> Any:
    from .listings import LogView

    _known_server(ctx, ns.name)
    lines = ctx.pool.logs(ns.name)
    if ns.lines is not None:
        lines = lines[-ns.lines :] if ns.lines > 0 else []
    return LogView(ns.name, lines)


def _config_args(p: Parser) -> None:
    p.add_argument("path", nargs="?", help="a .mcp.json to show instead of the default layers")


@command("config", "The effective configuration (files and live connections), secrets redacted.")
@arguments(_config_args)
def config(ctx: Context, ns: argparse.Namespace) -> Any:
    from ..errors import McpnbError
    from .listings import ConfigView

    servers: dict[str, Any] = {}
    files: list[str] = []
    problem = None
    try:
        from ..config import load_config

        found = load_config(path=ns.path)
        files = [str(f) for f in found.files]
        servers = {name: cfg.redacted() for name, cfg in found.servers.items()}
    except McpnbError as exc:
        if ns.path:
            raise
        problem = str(exc)
    for name in ctx.pool.names:
        live = ctx.pool.connection(name).config.redacted()
        live["connected"] = True
        servers[name] = live
    return ConfigView(servers, files, problem)


# ---------------------------------------------------------------- serve
def _serve_args(p: Parser) -> None:
    p.add_argument(
        "server", nargs="?", choices=["probe-kit"], metavar="probe-kit", help="the server to start"
    )
    p.add_argument("--toolset", help="core, ui, workflow or full (default: full)")
    p.add_argument("--http", action="store_true", help="serve over HTTP on 127.0.0.1 instead of in-process")
    p.add_argument("--port", type=int, default=0, help="HTTP port (default: a free one)")
    p.add_argument("--name", default=None, help="connection name (default: probe)")
    p.add_argument("--era", choices=["auto", "legacy", "modern"], help="protocol era (default: auto)")
    p.add_argument("--stop", metavar="NAME", help="disconnect NAME and stop its HTTP server, if any")


@command(
    "serve",
    "Start probe-kit, mcpnb's teaching server, and connect it (in-process by default).",
    epilog="examples:\n  %mcp serve probe-kit\n  %mcp serve probe-kit --toolset core --http --name kit\n"
    "  %mcp serve --stop kit",
)
@arguments(_serve_args)
def serve(ctx: Context, ns: argparse.Namespace) -> Any:
    from ..serve import serve_probekit, stop_probekit

    if ns.stop:
        if ns.server or ns.http or ns.toolset:
            raise UsageError("%mcp serve --stop NAME takes no other options")
        _known_server(ctx, ns.stop)
        stop_probekit(ns.stop, pool=ctx.pool)
        print(f"stopped: {ns.stop}")
        return None
    if ns.server is None:
        raise UsageError("%mcp serve probe-kit [--toolset T] [--http [--port P]] [--name N], or --stop NAME")
    if ns.port and not ns.http:
        raise UsageError("--port needs --http")
    if ns.toolset:
        from ..probekit.toolsets import TOOLSETS

        if ns.toolset.lower() not in TOOLSETS:
            raise UsageError(
                f"unknown toolset {ns.toolset!r}{did_you_mean_text(ns.toolset, TOOLSETS)} "
                f"(toolsets: {', '.join(TOOLSETS)})"
            )
    options: dict[str, Any] = {
        "startup_timeout": ctx.settings.startup_timeout,
        "tool_timeout": ctx.settings.tool_timeout,
    }
    if ns.era:
        options["era"] = ns.era
    status = serve_probekit(
        ns.name or "probe", toolset=ns.toolset, http=ns.http, port=ns.port, pool=ctx.pool, **options
    )
    return _one_row(status)


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
    for cmd in COMMANDS.values():
        usage = cmd.parser.format_usage().partition("usage: ")[2]
        for form in usage.split(" or: "):  # alternative forms on their own lines, wrapping undone
            lines.append("  " + " ".join(form.split()))
        lines.append("      " + (cmd.parser.description or ""))
    lines += ["", "A bare %mcp shows the status table. x = %mcp ... keeps the result in x."]
    return "\n".join(lines)
