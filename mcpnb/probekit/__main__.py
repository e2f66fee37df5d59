"""``python -m mcpnb.probekit [--http [--host H] [--port P] [--workers N]] [--toolset T] [--root DIR]
[--task-store URL] [--task-ttl-ms N] [--poll-interval-ms N] [--max-tasks N] [--task-lease-s S]
[--max-tasks-per-client N] [--task-input-timeout-s S]``.

stdio by default (for ``StdioServerParameters``); with ``--http`` the first stdout line is the URL,
flushed, so a parent process can read it before connecting: printed once the server (with
``--workers N``, every worker) accepts, so a connection made right then is answered at once.
``--workers N`` serves it from N processes sharing ``--task-store`` (see
:mod:`mcpnb.probekit.workers` and docs/classroom.md).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from mcpnb.probekit.http_server import HOST, serve_http
from mcpnb.probekit.server import create_server
from mcpnb.probekit.taskstore import ENV as STORE_ENV
from mcpnb.probekit.taskstore import TaskStoreError
from mcpnb.probekit.toolsets import DEFAULT_TOOLSET, TOOLSETS, UnknownToolsetError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m mcpnb.probekit", description="probe-kit teaching MCP server"
    )
    parser.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP on 127.0.0.1 instead of stdio"
    )
    parser.add_argument("--port", type=int, default=0, help="HTTP port (0 picks a free one)")
    parser.add_argument(
        "--host",
        default=HOST,
        help="HTTP address to listen on (default 127.0.0.1; anything else is reachable)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="HTTP worker processes (more than 1 needs a shared --task-store)",
    )
    parser.add_argument(
        "--toolset",
        default=None,
        help=f"{', '.join(TOOLSETS)} (default: $MCP_TOOLSET or {DEFAULT_TOOLSET})",
    )
    parser.add_argument("--root", default=None, help="folder file-reading tools may read (default: cwd)")
    parser.add_argument(
        "--task-store",
        default=None,
        metavar="URL",
        help="where tasks live: memory:// (default), sqlite:///path.db or redis://127.0.0.1:6379/0 "
        f"(default: ${STORE_ENV} or memory://)",
    )
    parser.add_argument("--task-ttl-ms", type=int, default=None, help="how long finished tasks are kept")
    parser.add_argument("--poll-interval-ms", type=int, default=None, help="the poll hint tasks carry")
    parser.add_argument(
        "--max-tasks",
        type=_at_least_one("--max-tasks"),
        default=None,
        help="tasks one worker runs at once (default 4; 1 or more)",
    )
    parser.add_argument(
        "--task-lease-s",
        type=float,
        default=None,
        help="seconds without a heartbeat before another worker declares a task's worker gone (default 10)",
    )
    parser.add_argument(
        "--max-tasks-per-client",
        type=_at_least_zero(int),
        default=None,
        help="unfinished tasks (running, queued or waiting for an answer) one HTTP client may have on "
        "a worker; more are refused (default 4; 0: no limit)",
    )
    parser.add_argument(
        "--task-input-timeout-s",
        type=_at_least_zero(float),
        default=None,
        help="seconds a task may wait for an answer before it fails and frees its worker slot "
        "(default 600; 0: no limit)",
    )
    return parser


def _at_least_zero(kind: type) -> Any:
    """An argparse type: a number of 0 or more (0: no limit)."""

    def parse(raw: str) -> Any:
        try:
            value = kind(raw)
        except ValueError:
            wanted = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {raw!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more (got {value})")
        return value

    parse.__name__ = "limit"
    return parse


def _at_least_one(flag: str) -> Any:
    """An argparse type: a whole number of 1 or more (0 tasks at once would queue every task forever)."""

    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {raw!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(
                f"must be 1 or more (got {value}): with {value} no task would ever run"
            )
        return value

    parse.__name__ = flag  # argparse names the type in its message
    return parse


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    given = (
        ("task_ttl_ms", args.task_ttl_ms),
        ("poll_interval_ms", args.poll_interval_ms),
        ("max_concurrent_tasks", args.max_tasks),
        ("task_lease_s", args.task_lease_s),
        ("max_tasks_per_client", args.max_tasks_per_client),
        ("task_input_timeout_s", args.task_input_timeout_s),
    )
    options: dict[str, Any] = {k: v for k, v in given if v is not None}
    if args.http and (args.workers != 1 or args.host != HOST):
        return _serve_workers(args, options)
    if args.workers != 1:
        return _fail("--workers needs --http (stdio is one process by nature)")
    try:
        server = create_server(args.toolset, root=args.root, task_store=args.task_store, **options)
    except (UnknownToolsetError, ValueError, TaskStoreError) as exc:
        return _fail(str(exc))
    from mcpnb.probekit.workers import check_store

    problem = check_store(args.task_store)
    if problem:
        return _fail(problem)
    _warn_exposure(args.task_store)
    if not args.http:
        server.run()
        return 0
    try:
        return asyncio.run(_serve(server, args.port, args.task_store))
    except KeyboardInterrupt:
        return 130


def _serve_workers(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from mcpnb.probekit.app import options_to_env
    from mcpnb.probekit.workers import check_store, check_workers, serve_workers

    problem = check_workers(args.workers, args.task_store)
    if problem:
        return _fail(problem)
    try:  # build one server here first, so a bad toolset or root is one clear line, not N tracebacks
        create_server(args.toolset, root=args.root, task_store=args.task_store, **options)
    except (UnknownToolsetError, ValueError, TaskStoreError) as exc:
        return _fail(str(exc))
    problem = check_store(args.task_store)
    if problem:
        return _fail(problem)
    _warn_exposure(args.task_store)
    env = options_to_env({**options, "root": args.root}, args.host)
    from mcpnb.probekit.server import INPUT_TIMEOUT_ENV, MAX_PER_CLIENT_ENV

    for keyword, var in (
        ("max_tasks_per_client", MAX_PER_CLIENT_ENV),
        ("task_input_timeout_s", INPUT_TIMEOUT_ENV),
    ):
        if keyword in options:  # the workers build their servers from the environment
            env[var] = str(options[keyword])
    if args.toolset is not None:
        env["MCP_TOOLSET"] = args.toolset
    if args.task_store is not None:
        env[STORE_ENV] = args.task_store
    try:
        return serve_workers(args.host, args.port, args.workers, env)
    except OSError as exc:  # binding the shared listener: the port is taken, or not ours to take
        return _cannot_listen(args.host, args.port, exc)


def _warn_exposure(store_url: str | None) -> None:
    """Say on the teacher's console, once, what other accounts could read or change in the task
    store (a Redis without a password, a SQLite file others can read), and how to close it."""
    from mcpnb.probekit.taskstore import exposure_warnings

    for line in exposure_warnings(store_url):
        print(line, file=sys.stderr, flush=True)


def _fail(message: str) -> int:
    print(f"probe-kit: {message}", file=sys.stderr)
    return 2


def _cannot_listen(host: str, port: int, exc: OSError) -> int:
    return _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc} (--port 0 picks a free port)")


async def _serve(server: object, port: int, store_url: str | None) -> int:
    """Serve until the server ends or SIGINT/SIGTERM asks: then stop gracefully (running tasks are
    cancelled and say so, which a shared task store keeps for the other workers to report)."""
    from mcpnb.probekit.workers import startup_line

    try:
        handle = await serve_http(server, port=port)  # type: ignore[arg-type]
    except OSError as exc:  # the port is taken, or not ours to take: one line, not a traceback
        return _cannot_listen(HOST, port, exc)
    print(startup_line(1, store_url), file=sys.stderr, flush=True)  # first: written when the URL is read
    print(handle.url, flush=True)  # the first line: a parent process reads it
    loop = asyncio.get_running_loop()
    asked = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, asked.set)
    stopping = loop.create_task(asked.wait())
    try:
        await asyncio.wait([handle.task, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        tasks = getattr(getattr(server, "probe_state", None), "tasks", None)
        if tasks is not None:
            await tasks.shutdown()  # first: what it ran is cancelled now, not after the streams close
        await handle.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
