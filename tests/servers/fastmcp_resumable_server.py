"""A FastMCP server over Streamable HTTP whose response streams end before their answer: the
peer we did not write for ``tests/client/test_http_stream_ends.py``.

Run from FastMCP's own venv (``tests/peers/fastmcp_venv.py``):
``python tests/servers/fastmcp_resumable_server.py [--no-event-store] [--port N]`` (prints its URL,
http://127.0.0.1:<port>/mcp, then serves). It never imports mcpnb.

The same tools as ``resumable_server.py`` (the SDK's ``MCPServer``), written with FastMCP, behind
the same proxy that cuts the answers of ``cut`` and ``look`` (:func:`resumable_server.cutting`);
resumability from FastMCP's own event store (``fastmcp.server.event_store.EventStore``).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from pathlib import Path

from fastmcp import Context, FastMCP
from mcp.types import ToolAnnotations

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resumable_server import LOOKS_TO_CUT, RETRY_MS, RUNS, count_run, counting, cutting

mcp = FastMCP("fastmcp-resumable")


@mcp.tool
async def poll(ctx: Context, rounds: int = 2) -> str:
    """Closes its own response stream ``rounds`` times (SEP-1699 polling), then answers."""
    count_run("poll:started")
    for n in range(rounds):
        await ctx.info(f"round {n + 1} of {rounds}")
        await ctx.close_sse_stream()
        await asyncio.sleep(0.2)
    count_run("poll:finished")
    return f"polled {rounds} rounds"


@mcp.tool
async def slow(ctx: Context, seconds: float = 30) -> str:
    """Logs a line, then answers after ``seconds``."""
    await ctx.info("slow: started")
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"


@mcp.tool
async def cut(ctx: Context, text: str = "") -> str:
    """Logs a line, then answers after 0.3 s; the proxy ends its response stream before the answer."""
    count_run("cut:started")
    await ctx.info("cut: started")
    await asyncio.sleep(0.3)
    count_run("cut:finished")
    return f"cut ran: {text}"


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def look(ctx: Context, text: str = "") -> str:
    """``text``, read-only (a call that may be sent again)."""
    count_run("look")
    await ctx.info("looking")
    return f"looked: {text}"


@mcp.tool
def cut_looks(n: int = 1) -> str:
    """The proxy cuts the response of the next ``n`` calls of ``look``."""
    LOOKS_TO_CUT[0] = n
    return f"the next {n} looks are cut"


@mcp.tool
def session_header(ctx: Context) -> str:
    """The ``Mcp-Session-Id`` this call came with ("" on 2026-07-28, which has none)."""
    return ctx.request_context.request.headers.get("mcp-session-id", "")


@mcp.tool
def echo(text: str) -> str:
    """``text``, unchanged."""
    return text


@mcp.tool
def runs() -> dict[str, int]:
    """How many times each tool started and finished, and streams resumed."""
    return dict(RUNS)


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-event-store", action="store_true", help="no resumability")
    args = parser.parse_args()
    store = None
    if not args.no_event_store:
        from fastmcp.server.event_store import EventStore

        store = counting(EventStore())
    app = mcp.http_app(path="/mcp", event_store=store, retry_interval=RETRY_MS if store else None)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)  # the URL printed below accepts at once, before uvicorn has started
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(cutting(app), log_level="warning", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
