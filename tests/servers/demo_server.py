"""A small MCP server the integration tests start over stdio, Streamable HTTP, SSE or in-process.

Run: ``python tests/servers/demo_server.py stdio`` or ``... http|sse [--port 0] [--path P]`` (prints the URL
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
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from typing_extensions import TypedDict as TypedExtensionsDict

CANCELLED: list[str] = []
STARTED: list[str] = []
CALLS: list[str] = []
COUNTER = {"value": 0}


class Point(TypedDict):
    x: int
    y: int


class Row(TypedExtensionsDict):  # pydantic needs typing_extensions' TypedDict inside a list on 3.11
    id: int
    name: str
    score: float
    active: bool
    group: str


class Table(TypedExtensionsDict):
    rows: list[Row]


GROUPS = ("north", "south", "east", "west")


def create_server() -> MCPServer:
    # DEMO_INSTRUCTIONS: a server that writes its settings into its instructions ("{API_KEY}")
    instructions = os.environ.get("DEMO_INSTRUCTIONS", "A demo server for mcpnb tests.").format(**os.environ)
    server = MCPServer("demo", version="1.2.3", instructions=instructions, log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        CALLS.append("echo")
        return text

    @server.tool()
    def calls() -> list[str]:
        """Which recorded tools the server really ran (tests prove that nothing was sent)."""
        return list(CALLS)

    @server.tool(annotations=ToolAnnotations(idempotentHint=False, readOnlyHint=False))
    def increment() -> int:
        """Not idempotent: must never be replayed behind the caller's back."""
        COUNTER["value"] += 1
        return COUNTER["value"]

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def count() -> int:
        """Read-only: safe to retry."""
        return COUNTER["value"]

    @server.tool()
    def forget_sessions() -> str:
        """Drop every Streamable HTTP session, as a server restart or idle expiry would."""
        server.session_manager._server_instances.clear()
        return "forgotten"

    @server.tool()
    async def add_tool(name: str, ctx: Context) -> str:
        """Register a new tool and announce list_changed (push in legacy, listen stream in modern)."""
        server.add_tool(lambda: name, name=name, description=f"added at run time: {name}")
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await ctx.notify_tools_changed()
        else:
            await ctx.session.send_tool_list_changed()
        return name

    @server.tool()
    async def progress_for(seconds: float, every: float, ctx: Context) -> str:
        """Report progress every ``every`` seconds for ``seconds`` (a long call that is alive)."""
        steps = max(1, int(seconds / every))
        for i in range(steps):
            await anyio.sleep(every)
            await ctx.report_progress(i + 1, steps, f"step {i + 1}/{steps}")
        return f"done after {steps} steps"

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
    def rows(n: int) -> Table:
        """``n`` rows of five columns under ``rows``, with an outputSchema (bench/run.py's large results).

        An object, not a bare list: MCPServer mirrors a returned list as one text block per item.
        """
        made = [
            Row(id=i, name=f"row {i}", score=i * 0.5, active=i % 2 == 0, group=GROUPS[i % 4])
            for i in range(n)
        ]
        return Table(rows=made)

    @server.tool()
    def mixed_rows(n: int, as_list: bool = False) -> CallToolResult:
        """A text summary beside ``n`` rows of structured content (no JSON mirror); ``as_list`` sends the
        rows as a bare list (any JSON value is structured content from 2026-07-28 on)."""
        made = [{"id": i, "name": f"row {i}", "tags": ["a", "é"], "score": i / 3} for i in range(n)]
        summary = TextContent(type="text", text=f"{n} rows, ids 0 to {n - 1}")
        return CallToolResult(content=[summary], structured_content=made if as_list else {"rows": made})

    @server.tool()
    def bad_rows(n: int) -> dict[str, Any]:
        """Publishes ``rows``'s schema; its last row's ``id`` is text (a large result that does not match)."""
        made = rows(n)
        made["rows"][-1]["id"] = "last"  # type: ignore[typeddict-item]
        return dict(made)

    @server.tool()
    def bad_point() -> dict[str, Any]:
        """Publishes Point's schema but returns data that does not match it (the payload must survive)."""
        return {"x": "not a number", "y": 2}

    # A buggy server, on purpose: advertise a schema the tool does not honour.
    server._tool_manager.get_tool("bad_point").fn_metadata.output_schema = server._tool_manager.get_tool(
        "point"
    ).output_schema
    server._tool_manager.get_tool("bad_rows").fn_metadata.output_schema = server._tool_manager.get_tool(
        "rows"
    ).output_schema

    @server.tool()
    async def slow(seconds: float, tag: str = "slow") -> str:
        """Sleep; a cancellation is recorded so tests can ask ``cancelled``."""
        STARTED.append(tag)
        if os.environ.get("DEMO_MARKS"):  # lets a test wait until the call really started
            with open(os.path.join(os.environ["DEMO_MARKS"], f"started-{tag}"), "w"):
                pass
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

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Send two log notifications, then answer."""
        await ctx.info("starting up")
        await ctx.warning("almost done")
        return "said things"

    @server.resource("demo://greeting")
    def greeting() -> str:
        return "hello from demo"

    @server.prompt()
    def review(code: str) -> str:
        """Ask for a review."""
        return f"Please review:\n{code}"

    return server


def serve_http(
    kind: str, port: int, token: str | None = None, refuse_delete: bool = False, path: str | None = None
) -> None:
    import uvicorn

    server = create_server()
    path = path or ("/mcp" if kind == "http" else "/sse")
    if kind == "http":
        app = server.streamable_http_app(streamable_http_path=path)
    else:
        app = server.sse_app(sse_path=path)
    if token:
        app = require_bearer(app, token)
    if refuse_delete:
        app = refusing_delete(app)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY on accept
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # the URL printed below accepts at once, before uvicorn has started
    print(f"http://127.0.0.1:{sock.getsockname()[1]}{path}", flush=True)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])


def require_bearer(app, token: str):
    """Answer 401 unless the request carries ``Authorization: Bearer <token>``."""
    from starlette.responses import PlainTextResponse

    expected = f"Bearer {token}".encode()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
            return
        await app(scope, receive, send)

    return guarded


def refusing_delete(app):
    """Answer a session's DELETE with 500: a session that cannot be ended, while the server lives."""
    from starlette.responses import PlainTextResponse

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "DELETE":
            await PlainTextResponse("cannot end sessions today", status_code=500)(scope, receive, send)
            return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http", "sse"], nargs="?", default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--startup-delay", type=float, default=0.0)
    parser.add_argument("--token", help="ignored: tests check that a secret argument is redacted")
    parser.add_argument("--dsn", help="ignored: tests check that a connection string's password is redacted")
    parser.add_argument("--require-token", help="HTTP: answer 401 unless this bearer token is sent")
    parser.add_argument("--refuse-delete", action="store_true", help="HTTP: answer DELETE with 500")
    parser.add_argument("--path", help="HTTP: the endpoint's path (default /mcp, or /sse for sse)")
    # a database server's connection string, alone or as --db-url=…: ignored, as --token is
    args, _connection_strings = parser.parse_known_args()
    if args.startup_delay:
        import time

        time.sleep(args.startup_delay)
    if args.transport == "stdio":
        create_server().run()
    else:
        serve_http(args.transport, args.port, args.require_token, args.refuse_delete, args.path)


if __name__ == "__main__":
    main()
