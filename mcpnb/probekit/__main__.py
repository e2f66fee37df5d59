"""``python -m mcpnb.probekit [--http [--port P]] [--toolset T] [--root DIR] [--task-ttl-ms N]``.

stdio by default (for ``StdioServerParameters``); with ``--http`` the first stdout line is the URL,
flushed, so a parent process can read it before connecting.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from mcpnb.probekit.http_server import serve_http
from mcpnb.probekit.server import create_server
from mcpnb.probekit.toolsets import UnknownToolsetError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mcpnb.probekit", description="probe-kit teaching MCP server"
    )
    parser.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP on 127.0.0.1 instead of stdio"
    )
    parser.add_argument("--port", type=int, default=0, help="HTTP port (0 picks a free one)")
    parser.add_argument(
        "--toolset", default=None, help="core, ui, workflow or full (default: $MCP_TOOLSET or full)"
    )
    parser.add_argument("--root", default=None, help="folder file-reading tools may read (default: cwd)")
    parser.add_argument("--task-ttl-ms", type=int, default=None, help="how long finished tasks are kept")
    parser.add_argument("--poll-interval-ms", type=int, default=None, help="the poll hint tasks carry")
    args = parser.parse_args(argv)
    given = (("task_ttl_ms", args.task_ttl_ms), ("poll_interval_ms", args.poll_interval_ms))
    options = {k: v for k, v in given if v is not None}
    try:
        server = create_server(args.toolset, root=args.root, **options)
    except (UnknownToolsetError, ValueError) as exc:
        print(f"probe-kit: {exc}", file=sys.stderr)
        return 2
    if not args.http:
        server.run()
        return 0
    try:
        return asyncio.run(_serve(server, args.port))
    except KeyboardInterrupt:
        return 130


async def _serve(server: object, port: int) -> int:
    handle = await serve_http(server, port=port)  # type: ignore[arg-type]
    print(handle.url, flush=True)
    try:
        await handle.task
    except asyncio.CancelledError:
        await handle.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
