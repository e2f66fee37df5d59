"""Subcommands that inspect, restart and stop servers: status, disconnect, reconnect, logs, config,
serve (``connect`` has a module of its own). Each is a few lines over the
:class:`~mcpnb.client.pool.Pool` API."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from mcpnb.client.errors import did_you_mean_text
from mcpnb.notebook.magics.connect import other_files, other_files_text, path_and_names, reconnect_newer
from mcpnb.notebook.magics.parser import Parser
from mcpnb.notebook.magics.registry import Context, arguments, command, known_server, one_row


def _status_args(p: Parser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="only these servers (default: every one)")


@command("status", "The status table: one row per server (state, era, tools, latency, last error).")
@arguments(_status_args)
def status(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.client.status import StatusTable

    table = ctx.pool.status()
    if not ns.names:
        return table
    listed = {row.name for row in table}  # servers whose settings are invalid have a row too
    for name in ns.names:
        if name not in listed:
            known_server(ctx, name)  # says why: never connected, disconnected, a typo
    return StatusTable(row for row in table if row.name in ns.names)


# ---------------------------------------------------------------- lifecycle
def _disconnect_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="the server to close")
    p.add_argument("--all", action="store_true", help="close every server")
    p.add_argument(
        "--sign-out",
        action="store_true",
        help="also forget its OAuth sign-in: the next connect asks you to sign in again",
    )


@command("disconnect", "Close a server's session (its process exits) and forget it.", store=False)
@arguments(_disconnect_args)
def disconnect(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.all == bool(ns.name):
        raise UsageError("%mcp disconnect NAME, or %mcp disconnect --all")
    unstarted = ctx.pool.misconfigured  # invalid settings, never started: only their failed rows go
    if ns.all:
        names = [*ctx.pool.names, *unstarted]
    elif ns.name not in ctx.pool and ctx.pool.was_disconnected(ns.name):  # a cell run again
        print(f"{ns.name}: already disconnected")
        return None
    else:
        names = [ns.name if ns.name in unstarted else known_server(ctx, ns.name)]
    from mcpnb.notebook.launch import stop_probekit

    for name in names:
        ctx.pool.disconnect(name, sign_out=ns.sign_out)
        stop_probekit(name, pool=ctx.pool, missing_ok=True)  # an HTTP probe-kit we started stops too
    said = f"disconnected: {', '.join(names)}" if names else "no servers to disconnect"
    print(said + (" (signed out)" if names and ns.sign_out else ""))
    return None


@command(
    "reconnect",
    "Start a fresh session with the same configuration; a server connected as {{var}} runs the "
    "object the variable holds now (an edited cell's).",
)
@arguments(lambda p: p.add_argument("name", help="the server"))
def reconnect(ctx: Context, ns: argparse.Namespace) -> Any:
    if not ctx.pool.was_disconnected(ns.name):  # one disconnected on purpose comes back as it was
        known_server(ctx, ns.name)
    fresh = reconnect_newer(ctx, ns.name)  # the cell that builds it ran again: its new object
    if fresh is not None:
        return one_row(fresh)
    from mcpnb.notebook.launch import serve_again

    said = serve_again(ns.name, pool=ctx.pool)  # a probe-kit its disconnect stopped listens again
    if said is not None:
        print(said)
    row = one_row(ctx.pool.reconnect(ns.name))
    newer = _redefined(ctx, ctx.pool.connection(ns.name).config.server)
    if newer is not None:
        print(
            f"note: {newer} now holds another server of that name (its cell ran again); reconnect runs "
            f"the one connected: %mcp connect {ns.name} {{{{{newer}}}}} runs the new one"
        )
    return row


def _redefined(ctx: Context, server: Any) -> str | None:
    """The notebook variable that now holds an in-process server like ``server`` but another object:
    a server author who edited and re-ran the cell that builds it means that one, and reconnect
    (same configuration, same object) would quietly run the old code."""
    if server is None:
        return None
    name = getattr(server, "name", None)
    for key, value in ctx.user_ns.items():
        if (
            type(value) is type(server)
            and value is not server
            and getattr(value, "name", None) == name
            and not key.startswith("_")
        ):
            return key
    return None


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _logs_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="the server (default: every server, in the order it happened)")
    p.add_argument("-n", "--lines", type=int, metavar="N", help="only the last N lines")
    p.add_argument(
        "--log-level",
        metavar="LEVEL",
        help="ask the server for log messages at LEVEL and above (debug, info, notice, warning, error, ...)",
    )


@command(
    "logs",
    "What happened to a server: state changes, its log messages, its stderr and stray stdout, oldest first.",
    epilog="examples:\n  %mcp logs probe\n  %mcp logs probe --log-level debug -n 20\n  %mcp logs -n 30",
)
@arguments(_logs_args)
def logs(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.magics.listings import LogView

    ended = ns.name is not None and ctx.pool.was_disconnected(ns.name)  # its log is kept: what it said last
    if ns.name is not None and not ended:
        known_server(ctx, ns.name)
    if ns.log_level is not None:
        if ns.name is None:
            raise UsageError("--log-level asks one server: %mcp logs NAME --log-level LEVEL")
        if ended:
            known_server(ctx, ns.name)  # says it was disconnected: there is nobody to ask
        level = ns.log_level.lower()
        if level not in LOG_LEVELS:
            hint = did_you_mean_text(level, LOG_LEVELS)
            raise UsageError(f"unknown log level {ns.log_level!r}{hint} (levels: {', '.join(LOG_LEVELS)})")
        ctx.pool.set_log_level(ns.name, level)
        print(f"{ns.name}: log messages at {level} and above from now on")
    lines = ctx.pool.logs(ns.name)
    if ns.lines is not None:
        lines = lines[-ns.lines :] if ns.lines > 0 else []
    return LogView(ns.name or "any server", lines)


def _config_args(p: Parser) -> None:
    p.add_argument(
        "words",
        nargs="*",
        metavar="PATH, NAME",
        help="a .mcp.json to show instead of the default layers, then the servers to show (default: all)",
    )


@command(
    "config",
    "The effective configuration (files and live connections), secrets redacted.",
    usage="%(prog)s [-o VAR] [PATH] [NAME ...]",
)
@arguments(_config_args)
def config(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.client.errors import McpnbError
    from mcpnb.notebook.magics.listings import ConfigView

    path, names = path_and_names(ns.words)
    servers: dict[str, Any] = {}
    files: list[str] = []
    problems: dict[str, str] = {}
    try:
        from mcpnb.client.config import load_config

        found = load_config(path=path, keep_going=True, inputs=_typed_inputs(ctx, path))
        files = [str(f) for f in found.files]
        servers = {name: cfg.redacted() for name, cfg in found.servers.items()}
        problems = {n: p for n, p in found.problems.items() if n not in _running_on_inputs(ctx, path)}
    except McpnbError as exc:
        if path:
            raise
        problems = {"": str(exc)}
    for name in ctx.pool.names:
        conn = ctx.pool.connection(name)
        live = conn.config.redacted()
        if conn.transport != conn.config.transport:  # the URL's guess was refused, the other answered
            live["transport"] = f"{conn.transport} (in use; {conn.config.transport} was refused)"
        live["state"] = str(conn.state)  # in the pool: connected, failed, reconnecting...
        servers[name] = live
    if names:
        known = {*servers, *problems} - {""}
        unknown = [name for name in names if name not in known]
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise UsageError(
                f"no server named {unknown[0]!r}{did_you_mean_text(unknown[0], known)} in the files or "
                f"the pool (known: {listed}); a file to show goes first: %mcp config PATH [NAME ...]"
            )
        servers = {name: servers[name] for name in names if name in servers}
        problems = {name: problem for name, problem in problems.items() if name in names}
    return ConfigView(
        servers,
        files,
        list(problems.values()),
        elsewhere=None if files or path else other_files_text(other_files(), "%mcp config"),
    )


def _typed_inputs(ctx: Context, path: str | None) -> dict[str, str]:
    """The values typed in this kernel for a VS Code file's inputs (nothing is asked to show a file)."""
    from mcpnb.client.config.layers import vscode_variables

    variables = vscode_variables(path) if path and Path(path).expanduser().is_file() else None
    return ctx.pool.typed_inputs.recall(path, variables.declared) if variables and path else {}


def _running_on_inputs(ctx: Context, path: str | None) -> set[str]:
    """The servers of a VS Code file that lack inputs here but run in the pool from that file: they
    got their values with the connect (``--input``, ``inputs=``), which the pool does not keep, so
    their live settings (shown instead) are what counts, not a "needs inputs" warning."""
    from mcpnb.client.config.layers import vscode_variables

    if not path or not Path(path).expanduser().is_file():
        return set()
    variables = vscode_variables(path, _typed_inputs(ctx, path))
    if variables is None:
        return set()
    here = Path(path).expanduser().resolve()
    lacking = {server for users in variables.lacking().values() for server in users}
    return {
        name
        for name in lacking & set(ctx.pool.names)
        if (source := ctx.pool.connection(name).config.source) and Path(source).expanduser().resolve() == here
    }


# ---------------------------------------------------------------- serve
def _serve_args(p: Parser) -> None:
    p.add_argument(
        "server",
        nargs="?",
        choices=["probe-kit"],
        metavar="probe-kit",
        help="the server to start (the default)",
    )
    # spelled out, not read from probe-kit's TOOLSETS: that import would start probe-kit's whole
    # package (the SDK's server) when someone only asks for help (a test keeps the two in step)
    p.add_argument("--toolset", help="core, ui, workflow, apps, tasks, conformance or full (default: full)")
    p.add_argument("--root", metavar="DIR", help="the project folder its tools may read (default: cwd)")
    p.add_argument("--task-ttl", type=int, metavar="MS", help="how long finished tasks are kept (ms)")
    p.add_argument("--poll-interval", type=int, metavar="MS", help="the poll hint tasks carry (ms)")
    p.add_argument("--http", action="store_true", help="serve over HTTP on 127.0.0.1 instead of in-process")
    p.add_argument("--port", type=int, default=0, help="HTTP port (default: a free one)")
    p.add_argument("--name", default=None, help="connection name (default: probe)")
    p.add_argument("--era", choices=["auto", "legacy", "modern"], help="protocol era (default: auto)")
    p.add_argument(
        "--restart",
        action="store_true",
        help="start it afresh even when it already serves with these settings (its state is lost; "
        "over HTTP it keeps its port while the port is free)",
    )
    p.add_argument(
        "--stop",
        nargs="?",
        const="probe",
        metavar="NAME",
        help="disconnect NAME (default: probe) and stop its HTTP server, if any",
    )


@command(
    "serve",
    "Start probe-kit, mcpnb's teaching server, and connect it (in-process by default). Run again "
    "with the same settings, the one serving is left as it is (its state and URL kept); other "
    "settings, or --restart, start it afresh.",
    epilog="examples:\n  %mcp serve probe-kit      (or just %mcp serve: probe-kit is the one it serves)\n"
    "  %mcp serve --toolset core --http --name kit\n"
    "  %mcp serve --restart   (a fresh probe-kit: its tasks, counters and subscriptions start empty)\n"
    "  %mcp serve --stop kit\n  %mcp serve --stop      (the one named probe)",
)
@arguments(_serve_args)
def serve(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.launch import serve_probekit, stop_probekit

    if ns.stop:
        if ns.server or ns.http or ns.toolset or ns.root or ns.task_ttl is not None or ns.restart:
            raise UsageError("%mcp serve --stop [NAME] takes no other options")
        known_server(ctx, ns.stop)
        stop_probekit(ns.stop, pool=ctx.pool)
        print(f"stopped: {ns.stop}")
        return None
    if ns.port and not ns.http:
        raise UsageError("--port needs --http")
    if ns.toolset:
        from mcpnb.probekit.toolsets import TOOLSETS

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
    for flag, value in (("--task-ttl", ns.task_ttl), ("--poll-interval", ns.poll_interval)):
        if value is not None and value < 0:
            raise UsageError(f"{flag} must be 0 or more milliseconds (got {value})")
    if ns.root is not None and not Path(ns.root).expanduser().is_dir():
        raise UsageError(f"--root {ns.root!r} is not a folder")
    status = serve_probekit(
        ns.name or "probe",
        toolset=ns.toolset,
        http=ns.http,
        port=ns.port,
        pool=ctx.pool,
        root=Path(ns.root).expanduser() if ns.root else None,
        task_ttl_ms=ns.task_ttl,
        poll_interval_ms=ns.poll_interval,
        restart=ns.restart,
        restart_hint="--restart",
        **options,
    )
    return one_row(status)
