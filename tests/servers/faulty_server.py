"""The demo server with faults on purpose, for tests/faults: what real servers do wrong.

Run: ``python tests/servers/faulty_server.py [stdio|http] [--ignore-term] [--garbage] [--hang]``.

- ``--ignore-term``: ignores SIGTERM and keeps running after stdin closes, even when its client
  died and stdout is a broken pipe (only SIGKILL ends it).
- ``--garbage``: writes lines that are not JSON-RPC on stdout before serving (a stray ``print``).
- ``--hang``: never answers the handshake (and ignores SIGTERM while it hangs).
- ``--marks DIR``: writes ``DIR/pid-<pid>`` at start, so a test knows every process it must see end.

Extra tools: ``debug_print(text)`` prints ``text`` to stdout, as a debugging author does;
``flood(n)`` sends ``n`` log notifications, ``big(mb)`` returns ``mb`` megabytes of
text, ``fail_next(status, count)``
makes the HTTP app answer the next ``count`` MCP requests with ``status`` (500, 401, 400, 404) and
``drop_next(count)`` closes the next connections without an answer; ``in_turn(steps)`` gives
the next requests one step each (``"401"``: that status; ``"drop:0.5"``: dropped after 0.5 s), for
calls that fail differently at the same time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path

if "--marks" in sys.argv:  # first of all, before the slow imports: a test must see every start
    Path(sys.argv[sys.argv.index("--marks") + 1], f"pid-{os.getpid()}").write_text(" ".join(sys.argv))
if "--hang" in sys.argv or "--ignore-term" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

sys.path.insert(0, str(Path(__file__).resolve().parent))

from demo_server import create_server
from mcp.server.mcpserver import Context

FAULTS: dict[str, int] = {"status": 0, "count": 0, "drop": 0}
STEPS: list[str] = []
PROTOCOL_OUT: list[int] = [1]  # stdio: the pipe to the client, kept before the SDK claims fd 1


def create_faulty_server():
    server = create_server()

    @server.tool()
    async def flood(n: int, ctx: Context) -> str:
        """Send ``n`` log notifications, then answer."""
        for i in range(n):
            await ctx.info(f"log line {i + 1} of {n}")
        return f"sent {n} log lines"

    @server.tool()
    def debug_print(text: str) -> str:
        """``print(text)`` (a server author's debug line, into stdout), then answer."""
        print(text)  # no flush=True: as people write it
        return "printed"

    @server.tool()
    def big(mb: float) -> str:
        """A text result of ``mb`` megabytes."""
        return "x" * int(mb * 1024 * 1024)

    @server.tool()
    def spew(mb: float) -> str:
        """stdio: ``mb`` megabytes of bytes on stdout with no newline (a bug: binary data dumped)."""
        data = b"\x00" * int(mb * 1024 * 1024)
        while data:  # the pipe the client reads: the SDK points fd 1 at stderr while it serves
            data = data[os.write(PROTOCOL_OUT[0], data) :]
        return "spewed"

    @server.tool()
    def fail_next(status: int, count: int = 1) -> str:
        """HTTP only: answer the next ``count`` MCP requests with ``status``."""
        FAULTS.update(status=status, count=count)
        return f"the next {count} requests get HTTP {status}"

    @server.tool()
    def drop_next(count: int = 1) -> str:
        """HTTP only: close the next ``count`` connections without an answer."""
        FAULTS["drop"] = count
        return f"the next {count} connections are dropped"

    @server.tool()
    def in_turn(steps: list[str]) -> str:
        """HTTP only: the next MCP requests, one step each: a status (``"401"``) or ``"drop:<s>"``."""
        STEPS[:] = steps
        return f"the next {len(steps)} requests: {', '.join(steps)}"

    return server


def faulty_app(app):
    """The HTTP app, answering with the status (or dropping the connection) a test asked for."""
    from starlette.responses import PlainTextResponse

    async def drop(send):  # half an answer, then the connection closes (uvicorn aborts it)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"1000")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b'{"jsonrpc": "2.0", ', "more_body": True})
        raise ConnectionAbortedError("dropped on purpose")

    async def answer(status, scope, receive, send):
        await PlainTextResponse(f"fault injected: HTTP {status}", status_code=status)(scope, receive, send)

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST":
            if STEPS:
                step = STEPS.pop(0)
                if step.startswith("drop"):
                    await asyncio.sleep(float(step.partition(":")[2] or 0))
                    await drop(send)
                await answer(int(step), scope, receive, send)
                return
            if FAULTS["drop"] > 0:
                FAULTS["drop"] -= 1
                await drop(send)
            if FAULTS["count"] > 0:
                FAULTS["count"] -= 1
                await answer(FAULTS["status"], scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def serve_http(port: int) -> None:
    import uvicorn

    server = create_faulty_server()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # the URL printed below accepts at once, before uvicorn has started
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(
        faulty_app(server.streamable_http_app()), log_level="critical", timeout_graceful_shutdown=1
    )
    uvicorn.Server(config).run(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"], nargs="?", default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--marks")
    args = parser.parse_args()
    if args.hang:
        while True:
            time.sleep(3600)
    if args.garbage:
        print("starting up...", flush=True)
        print("{not json", flush=True)
    if args.transport == "http":
        serve_http(args.port)
        return
    PROTOCOL_OUT[:] = [os.dup(1)]
    try:
        create_faulty_server().run()
    except Exception:
        if not args.ignore_term:
            raise
        # its client is gone (a broken pipe on stdout): this one shrugs that off as well
    while args.ignore_term:  # stdin closed: a well-behaved server exits here; this one does not
        time.sleep(3600)


if __name__ == "__main__":
    main()
