"""An SDK ``MCPServer`` over Streamable HTTP whose response streams end before their answer.

Run: ``python tests/servers/resumable_server.py [--no-event-store] [--refuse-resume] [--port N]``
(prints its URL, http://127.0.0.1:<port>/mcp, as its first stdout line, then serves).
``--refuse-resume``: event ids are sent, but a ``GET`` that resumes a stream gets 503.

With an event store (the default: resumability, SEP-1699) every event has an id, so a client whose
stream ends early reconnects with ``Last-Event-ID`` and gets the rest; without one (``--no-event-store``)
it cannot, and its SDK resolves the call with a "stream ended" error while the session lives on.

Tools:

- ``poll(rounds)``: closes its own response stream ``rounds`` times mid-call
  (``ctx.close_sse_stream()``, the SEP-1699 polling a server uses to stay under a load balancer's
  timeout), then answers. Without an event store the close is a no-op.
- ``cut(text)``: logs one line, then answers after a moment; a proxy in front of the app (the ASGI
  wrapper :func:`cutting`) ends that call's response body cleanly just before the answer, as a
  gateway with a per-response time limit does. The tool itself has run.
- ``look(text)``: read-only, logs a line and answers; ``cut_looks(n)`` has the proxy cut the next
  ``n`` of them. (The line makes a 2026-07-28 answer an SSE stream, not a JSON body.)
- ``slow(seconds)``: logs a line, then answers after ``seconds``.
- ``session_header()``: the ``Mcp-Session-Id`` the call came with.
- ``echo(text)``, and ``runs()``: how many times each tool started and finished, and how many
  times a client resumed a stream (``resumed``: a ``GET`` with ``Last-Event-ID`` the store answered).
"""

from __future__ import annotations

import argparse
import json
import socket
import warnings
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

# ctx.info: logging is deprecated at 2026-07-28, and still what a 2025-11-25 server sends
warnings.filterwarnings("ignore", message="The logging capability is deprecated")
RUNS: dict[str, int] = {}
#: how many more calls of ``look`` the proxy cuts
LOOKS_TO_CUT = [0]
#: the retry interval (ms) the priming event suggests: short, so a resumed call does not wait 1 s
RETRY_MS = 50


def count_run(what: str) -> None:
    """One more ``what`` in :data:`RUNS` (what the ``runs`` tool answers)."""
    RUNS[what] = RUNS.get(what, 0) + 1


def create_server() -> MCPServer:
    server = MCPServer("resumable", log_level="WARNING")

    @server.tool()
    async def poll(ctx: Context, rounds: int = 2) -> str:
        """Closes its own response stream ``rounds`` times (SEP-1699 polling), then answers."""
        count_run("poll:started")
        for n in range(rounds):
            await ctx.info(f"round {n + 1} of {rounds}")
            await ctx.close_sse_stream()
            await anyio.sleep(0.2)
        count_run("poll:finished")
        return f"polled {rounds} rounds"

    @server.tool()
    async def slow(ctx: Context, seconds: float = 30) -> str:
        """Logs a line, then answers after ``seconds`` (a call still running when the server dies)."""
        await ctx.info("slow: started")
        await anyio.sleep(seconds)
        return f"slept {seconds} s"

    @server.tool()
    async def ticks(ctx: Context, rounds: int = 6, gap: float = 1.6) -> str:
        """Logs a line every ``gap`` seconds, ``rounds`` times, then answers: a long job that
        reports less often than a middlebox lets a connection stay quiet."""
        for n in range(rounds):
            await anyio.sleep(gap)
            await ctx.info(f"tick {n + 1} of {rounds}")
        return f"ticked {rounds}"

    @server.tool()
    async def cut(ctx: Context, text: str = "") -> str:
        """Logs a line, then answers after 0.3 s; a proxy ends its response stream after the log."""
        count_run("cut:started")
        await ctx.info("cut: started")
        await anyio.sleep(0.3)
        count_run("cut:finished")
        return f"cut ran: {text}"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def look(ctx: Context, text: str = "") -> str:
        """``text``, read-only (a call that may be sent again)."""
        count_run("look")
        await ctx.info("looking")
        return f"looked: {text}"

    @server.tool()
    def cut_looks(n: int = 1) -> str:
        """The proxy cuts the response of the next ``n`` calls of ``look``."""
        LOOKS_TO_CUT[0] = n
        return f"the next {n} looks are cut"

    @server.tool()
    def session_header(ctx: Context) -> str:
        """The ``Mcp-Session-Id`` this call came with ("" on 2026-07-28, which has none)."""
        return ctx.request_context.request.headers.get("mcp-session-id", "")

    @server.tool()
    def echo(text: str) -> str:
        """``text``, unchanged."""
        return text

    @server.tool()
    def runs() -> dict[str, int]:
        """How many times each tool started and finished, and streams resumed."""
        return dict(RUNS)

    return server


def refusing_resumes(app: Any) -> Any:
    """Answer every ``GET`` that resumes a stream (``Last-Event-ID``) with 503: a server that sends
    event ids but cannot replay them (its store lost them, another replica got the request)."""
    from starlette.responses import PlainTextResponse

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and b"last-event-id" in dict(scope["headers"])
        ):
            await PlainTextResponse("cannot resume streams here", status_code=503)(scope, receive, send)
            return
        await app(scope, receive, send)

    return guarded


def cutting(app: Any) -> Any:
    """A proxy that ends the response to a ``tools/call`` of ``cut`` (and of ``look``, while
    ``LOOKS_TO_CUT`` says so) just before the event that carries the answer.

    It ends the body as a complete HTTP response (not a reset connection): the client sees a
    stream that simply stopped, with no JSON-RPC answer in it. What the app sends after that goes
    nowhere, as it would behind a gateway that gave up on the response.
    """

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body, messages = await _read_body(receive)
        replay = iter(messages)

        async def receive_again() -> dict:
            return next(replay, None) or await receive()

        if not _calls_cut(body):
            await app(scope, receive_again, send)
            return
        ended = False

        async def send_until_the_answer(message: dict) -> None:
            nonlocal ended
            if ended:
                return
            if message["type"] == "http.response.body" and _answers(message.get("body", b"")):
                ended = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await app(scope, receive_again, send_until_the_answer)

    return guarded


async def _read_body(receive: Any) -> tuple[bytes, list[dict]]:
    """The whole request body, and the messages it came in (to hand to the app unchanged)."""
    messages: list[dict] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body"):
            break
    return b"".join(m.get("body", b"") for m in messages), messages


def _answers(chunk: bytes) -> bool:
    """Whether ``chunk`` of an SSE body holds a JSON-RPC response (an id, and no method)."""
    for line in chunk.splitlines():
        if line.startswith(b"data:"):
            try:
                message = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(message, dict) and "id" in message and "method" not in message:
                return True
    return False


def _calls_cut(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    name = (message.get("params") or {}).get("name")
    if name == "look" and LOOKS_TO_CUT[0] > 0:
        LOOKS_TO_CUT[0] -= 1
        return True
    return name == "cut"


def counting(store: Any) -> Any:
    """``store``, counting in ``RUNS["resumed"]`` each stream it resumed for a client."""
    replay = store.replay_events_after

    async def replay_events_after(last_event_id: str, send_callback: Any) -> Any:
        stream = await replay(last_event_id, send_callback)
        if stream is not None:
            count_run("resumed")
        return stream

    store.replay_events_after = replay_events_after
    return store


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-event-store", action="store_true", help="no resumability")
    parser.add_argument("--refuse-resume", action="store_true", help="event ids, but 503 to resuming")
    args = parser.parse_args()
    store = None
    if not args.no_event_store:
        from mcpnb.probekit.eventstore import MemoryEventStore

        store = counting(MemoryEventStore())
    app = create_server().streamable_http_app(event_store=store, retry_interval=RETRY_MS)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)  # the URL printed below accepts at once, before uvicorn has started
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    app = cutting(refusing_resumes(app) if args.refuse_resume else app)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
