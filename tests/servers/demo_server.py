"""A small MCP server the integration tests start over stdio, Streamable HTTP, SSE or in-process.

Run: ``python tests/servers/demo_server.py stdio`` or ``... http|sse [--port 0]`` (prints the URL
as its first stdout line). Every tool is deterministic; ``slow`` records cancellations so a test
can check that the server really saw one.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any, TypedDict

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

CANCELLED: list[str] = []
STARTED: list[str] = []


class Point(TypedDict):
    x: int
    y: int


def create_server() -> MCPServer:
    server = MCPServer(
        "demo", version="1.2.3", instructions="A demo server for mcpnb tests.", log_level="WARNING"
    )

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def pid() -> int:
        """The server's process id (tests check it stays the same across cells)."""
        return os.getpid()

    @server.tool()
    def people() -> list[dict[str, Any]]:
        """A small table."""
        return [{"name": "Ada", "age": 36}, {"name": "Linus", "age": 54}, {"name": "Grace", "age": 85}]

    @server.tool()
    def point(x: int, y: int) -> Point:
        """Structured output with a declared schema."""
        return Point(x=x, y=y)

    @server.tool()
    def bad_point() -> dict[str, Any]:
        """Publishes Point's schema but returns data that does not match it (the payload must survive)."""
        return {"x": "not a number", "y": 2}

    # A buggy server, on purpose: advertise a schema the tool does not honour.
    server._tool_manager.get_tool("bad_point").fn_metadata.output_schema = server._tool_manager.get_tool(
        "point"
    ).output_schema

    @server.tool()
    async def slow(seconds: float, tag: str = "slow") -> str:
        """Sleep; a cancellation is recorded so tests can ask ``cancelled``."""
        STARTED.append(tag)
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            CANCELLED.append(tag)
            raise
        return f"slept {seconds}"

    @server.tool()
    def cancelled() -> list[str]:
        """Tags of the ``slow`` calls the server saw cancelled."""
        return list(CANCELLED)

    @server.tool()
    def fail(message: str = "boom") -> str:
        """Raise: the client gets an ``isError`` result with this message."""
        raise ToolError(message)

    @server.tool()
    def stderr_line(text: str) -> str:
        """Print a line on stderr (tests check it is captured, not leaked)."""
        print(text, file=sys.stderr, flush=True)
        return "printed"

    @server.tool()
    def env(name: str) -> str:
        """An environment variable of the server process ('' when unset)."""
        return os.environ.get(name, "")

    @server.tool()
    def header(name: str, ctx: Context) -> str:
        """An HTTP request header as the server received it ('' over stdio or when absent)."""
        return (ctx.headers or {}).get(name.lower(), "")

    @server.tool()
    async def progress(steps: int, ctx: Context) -> str:
        """Report progress ``steps`` times."""
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
            await anyio.sleep(0.01)
        return "done"

    @server.resource("demo://greeting")
    def greeting() -> str:
        return "hello from demo"

    @server.prompt()
    def review(code: str) -> str:
        """Ask for a review."""
        return f"Please review:\n{code}"

    return server


def serve_http(kind: str, port: int) -> None:
    import uvicorn

    server = create_server()
    app = server.streamable_http_app() if kind == "http" else server.sse_app()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    path = "/mcp" if kind == "http" else "/sse"
    print(f"http://127.0.0.1:{sock.getsockname()[1]}{path}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http", "sse"], nargs="?", default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--startup-delay", type=float, default=0.0)
    parser.add_argument("--token", help="ignored: tests check that a secret argument is redacted")
    args = parser.parse_args()
    if args.startup_delay:
        import time

        time.sleep(args.startup_delay)
    if args.transport == "stdio":
        create_server().run()
    else:
        serve_http(args.transport, args.port)


if __name__ == "__main__":
    main()
