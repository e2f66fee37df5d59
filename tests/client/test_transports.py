"""What an HTTP error page says, in one line (``transports.html_text``); the peer test in
test_peers.py checks it on server-everything's own 404 page."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

from mcpnb import ConnectError
from mcpnb.client.transports import html_text

NGINX_404 = (
    "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
    "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>"
)


def test_nginx_page_says_its_heading():
    assert html_text(NGINX_404) == "404 Not Found"


def test_entities_and_inner_tags_become_text():
    page = "<!DOCTYPE html><html><body><pre>Cannot GET /a?b=1&amp;c=<b>2</b></pre></body></html>"
    assert html_text(page) == "Cannot GET /a?b=1&c= 2"


def test_a_page_without_heading_gives_its_words():
    assert html_text("<html><body><p>Gateway  <i>timeout</i></p></body></html>") == "Gateway timeout"


def test_an_sse_endpoint_on_another_origin_is_named_when_the_connect_gives_up(pool):
    """The SDK refuses an endpoint on another origin in a task of its own and the connect hears
    nothing: it said only "no answer within startup_timeout; raise startup_timeout if it is just slow"."""
    import subprocess

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "servers" / "cross_origin_sse_server.py")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        with pytest.raises(ConnectError) as info:
            pool.connect("co", url=f"http://127.0.0.1:{port}/sse", transport="sse", startup_timeout=2)
        said = str(info.value)
        assert "no answer within startup_timeout=2 s: the MCP SDK said" in said
        assert "Endpoint origin does not match connection origin" in said and "if it is just slow" not in said
    finally:
        server.kill()
        server.wait()


def test_a_byte_order_mark_opening_a_servers_stderr_is_not_in_its_log_line():
    """A server whose stderr starts with a UTF-8 BOM: the log line is its words, not an invisible
    U+FEFF before them (a search of the log for "starting" missed it). One later is text."""
    import asyncio

    from mcpnb.client.transports import StderrPipe

    script = "import sys; sys.stderr.buffer.write(b'\\xef\\xbb\\xbfstarting\\n\\xef\\xbb\\xbfagain\\n')"

    async def scenario() -> list[str]:
        lines: list[str] = []
        async with StderrPipe(lines.append) as writer:
            child = await asyncio.create_subprocess_exec(sys.executable, "-c", script, stderr=writer)
            await child.wait()
            for _ in range(100):
                if len(lines) == 2:
                    break
                await asyncio.sleep(0.01)
        return lines

    assert asyncio.run(scenario()) == ["starting", "\ufeffagain"]


def test_a_server_whose_lines_wait_for_a_cpu_is_no_flood():
    """The share of the loop's time a server's stderr takes is counted in the runtime thread's CPU
    time. Counted on the wall clock, a loaded machine (the thread waiting for a CPU in the middle
    of a read) made a ten-line traceback "a flood": the notice went into the server's log, amid
    the traceback. Here each line's handling waits 20 ms without working, as a thread that is not
    given a CPU does; a server writing as fast as it can still gets the notice."""
    import asyncio
    import time

    from mcpnb.client.transports import STDERR_FLOOD, StderrPipe

    def read(script: str, on_line) -> list[str]:
        async def scenario() -> list[str]:
            lines: list[str] = []

            def heard(line: str) -> None:
                lines.append(line)
                on_line()

            async with StderrPipe(heard) as writer:
                child = await asyncio.create_subprocess_exec(sys.executable, "-c", script, stderr=writer)
                await child.wait()
            return lines

        return asyncio.run(scenario())

    traceback = "import sys; sys.stderr.write(''.join(f'  line {n}\\n' for n in range(10)))"
    waited = read(traceback, lambda: time.sleep(0.02))
    assert waited == [f"  line {n}" for n in range(10)]  # no notice among them
    busy = read(
        "import sys\nfor n in range(20_000): sys.stderr.write(f'noise {n}\\n')", lambda: sum(range(2000))
    )
    assert STDERR_FLOOD in busy and len([line for line in busy if line != STDERR_FLOOD]) == 20_000


def test_a_watched_response_stream_left_early_closes_the_stream_it_reads():
    """The SDK leaves a 2025-11-25 answer's event stream once its answer came. The watched stream
    closes the one it reads there and then, as httpx closes the watched one; left to the garbage
    collector, each request's was finalized through the loop's hook (a self-pipe write and a task
    per request, on the hot path of every call)."""
    import asyncio

    import httpx2

    from mcpnb.client.transports import watched_transport

    closed_in: list[object] = []

    class Events(httpx2.AsyncByteStream):
        async def __aiter__(self):
            try:
                yield b"event: message\ndata: {}\n\n"
                yield b"event: message\ndata: {}\n\n"
            finally:
                closed_in.append(asyncio.current_task())

    class Server(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request):
            return httpx2.Response(200, stream=Events())

    async def leave_early() -> object:
        transport = watched_transport(Server(), lambda exc: None, background_cuts=False)
        response = await transport.handle_async_request(httpx2.Request("POST", "http://127.0.0.1:9/mcp"))
        chunks = response.stream.__aiter__()
        assert await chunks.__anext__()
        await chunks.aclose()
        return asyncio.current_task()

    async def main() -> None:
        task = await asyncio.create_task(leave_early())
        assert closed_in == [task]  # closed by the reader, before aclose() returned

    asyncio.run(main())


@pytest.mark.parametrize("peer", ["MCPServer", "server-everything", "FastMCP"])
def test_calls_of_the_handshake_era_over_streamable_http_share_their_connections(
    pool, peer, request, tmp_path, start_proxy
):
    """A 2025-11-25 answer comes as an event stream that the server ends right after the answer.
    The SDK leaves the stream as soon as the answer is in, a moment before that end arrives, so
    httpcore could not reuse the connection: every call opened a TCP connection of its own. mcpnb
    reads the stream's end (transports._finish_body), so the calls share the connections already
    open. Counted by a TCP relay in front of the server (``net_proxy.py``), which logs each
    connection it accepts. Peers: the Python SDK's MCPServer, the TypeScript SDK's
    server-everything, and FastMCP."""
    fixtures = {"MCPServer": "http_url", "server-everything": "everything_http", "FastMCP": "fastmcp_url"}
    url = request.getfixturevalue(fixtures[peer])
    server = url.split("//")[1].split("/")[0]
    log = tmp_path / "relay.log"
    port = start_proxy("--mode", "relay-idle5", "--idle", "600", "--relay", server, log=log)  # cuts nothing
    pool.connect("peer", url=url.replace(server, f"127.0.0.1:{port}"), era="legacy", health_check_interval=0)
    assert pool.status()["peer"].era == "legacy"

    def answers(n: int) -> bool:
        if peer == "FastMCP":
            return f"call {n}" in pool.call("peer", "echo", {"text": f"call {n}"}).text
        return (
            str(n + 1000)
            in pool.call("peer", "add" if peer == "MCPServer" else "get-sum", {"a": n, "b": 1000}).text
        )

    assert answers(0)
    opened = log.read_text().count("RELAY conn from")
    for n in range(1, 21):
        assert answers(n)
    assert log.read_text().count("RELAY conn from") - opened < 5  # a connection per call: 20 more


def test_a_post_answer_stream_the_server_keeps_open_is_closed_after_a_while(monkeypatch):
    """A server that keeps an answer's stream open after the answer loses that connection, as
    before, once :data:`~mcpnb.client.transports.FINISH_WAIT` has passed (the caller has its answer
    already). After :data:`~mcpnb.client.transports.KEPT_OPEN` of those in a row, its answers'
    streams are closed at once, as they always were: each wait would hold a connection a moment
    longer, for nothing."""
    import asyncio

    import anyio
    import httpx2

    from mcpnb.client import transports

    monkeypatch.setattr(transports, "FINISH_WAIT", 0.2)
    read_after_answer: list[int] = []
    closed: list[int] = []

    class Held(httpx2.AsyncByteStream):
        def __init__(self, n: int) -> None:
            self.n = n

        async def __aiter__(self):
            yield b"event: message\ndata: {}\n\n"
            read_after_answer.append(self.n)
            yield b": still here\n\n"
            await anyio.sleep_forever()

        async def aclose(self) -> None:
            closed.append(self.n)

    class Server(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self.n = 0

        async def handle_async_request(self, request):
            self.n += 1
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Held(self.n))

    async def answer_and_leave(transport: object) -> None:
        response = await transport.handle_async_request(httpx2.Request("POST", "http://127.0.0.1:9/mcp"))
        chunks = response.stream.__aiter__()
        assert await chunks.__anext__() == b"event: message\ndata: {}\n\n"  # the answer: the SDK leaves
        with anyio.fail_after(5):
            await response.stream.aclose()
        await chunks.aclose()

    async def main() -> None:
        transport = transports.watched_transport(Server(), lambda exc: None, background_cuts=False)
        waited = list(range(1, transports.KEPT_OPEN + 1))
        for _ in waited:
            await answer_and_leave(transport)
        assert read_after_answer == waited and closed == waited  # each waited for, then closed
        await answer_and_leave(transport)
        assert read_after_answer == waited and closed == [*waited, len(waited) + 1]  # closed at once

    asyncio.run(main())
