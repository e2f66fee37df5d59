"""A web page where an MCP server should answer, with HTTP 200: a single sign-on page in front of the
server (an identity-aware proxy, a VPN portal). Its title is quoted, as an error page's words are;
the response hook reads no other successful answer's body (an event stream, JSON).

A real local peer: ``http.server`` answering every request with a sign-in page.
"""

from __future__ import annotations

import gzip
import http.server
import socket
import threading
from collections.abc import Iterator

import pytest

from mcpnb.client.errors import ConnectError

QUIET = {"health_check_interval": 0, "max_retries": 0, "startup_timeout": 15}
TITLE = "Sign in – Okta"
#: a page larger than the part read for its title, with the title first
PAGE = (
    f"<!DOCTYPE html><html><head><title>{TITLE.replace('–', '&ndash;')}</title></head>"
    f"<body><h1>Welcome</h1>{'<p>sign in to continue</p>' * 2000}</body></html>"
).encode()


def _serve(page: bytes, content_type: str, encoding: str | None = None) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            if encoding:
                self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        do_GET = do_POST = do_DELETE = answer

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture
def sign_in_page() -> Iterator[str]:
    yield from _serve(PAGE, "text/html; charset=utf-8")


@pytest.mark.parametrize(
    ("path", "options"),
    [("/mcp", {}), ("/sse", {}), ("/mcp", {"transport": "sse"})],
    ids=["streamable-http", "sse-guessed", "sse"],
)
def test_a_sign_in_page_is_named_by_its_title(pool, sign_in_page, path, options) -> None:
    with pytest.raises(ConnectError) as caught:
        pool.connect("sso", url=sign_in_page + path, config={**QUIET, **options})
    said = str(caught.value)
    assert f"a web page ({TITLE}) answers there, not an MCP server" in said, said
    assert "sign-in page" in said


def test_a_gzipped_sign_in_page_is_named_by_its_title(pool) -> None:
    """httpx asks for gzip, and portals compress their pages: the title is read from the decoded head."""
    for url in _serve(gzip.compress(PAGE), "text/html; charset=utf-8", "gzip"):
        with pytest.raises(ConnectError) as caught:
            pool.connect("sso", url=url + "/mcp", config=QUIET)
        said = str(caught.value)
        assert f"a web page ({TITLE}) answers there, not an MCP server" in said, said


@pytest.fixture
def held_page() -> Iterator[str]:
    """A portal that streams its page (chunked): the head and title at once, then nothing more, the
    connection held open until the test ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    done = threading.Event()
    head = b"<html><head><title>Sign in - Okta</title></head><body>"

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
                + f"{len(head):x}\r\n".encode()
                + head
                + b"\r\n"
            )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    done.set()
    listener.close()
    for conn in held:
        conn.close()
    thread.join(5)


def test_a_page_held_open_after_its_title_is_named_at_once(pool, held_page) -> None:
    """The head is read only up to its title: a page that never ends is named, not waited for until
    startup_timeout."""
    with pytest.raises(ConnectError) as caught:
        pool.connect("sso", url=held_page + "/mcp", config={**QUIET, "startup_timeout": 6})
    said = str(caught.value)
    assert "a web page (Sign in - Okta) answers there, not an MCP server" in said, said


def test_another_web_page_is_named_and_the_url_questioned(pool) -> None:
    page = b"<html><head><title>Grafana</title></head><body>dashboards</body></html>"
    for url in _serve(page, "text/html"):
        with pytest.raises(ConnectError) as caught:
            pool.connect("web", url=url + "/mcp", config=QUIET)
        said = str(caught.value)
        assert "a web page (Grafana) answers there, not an MCP server; check the URL" in said, said


def test_a_json_or_event_stream_answer_is_not_read_by_the_hook(pool, http_url, sse_url) -> None:
    """The hook reads only a text/html body: MCP's own answers (JSON, event streams) still work,
    the SSE stream that never ends included."""
    pool.connect("h", url=http_url, config={**QUIET, "era": "legacy"})
    assert pool.call("h", "echo", {"text": "json or stream"}).text == "json or stream"
    pool.connect("s", url=sse_url, config=QUIET)
    assert pool.call("s", "echo", {"text": "stream"}).text == "stream"


def test_page_title_reads_a_bounded_head_and_leaves_the_body_whole() -> None:
    import asyncio

    asyncio.run(_bounded_head())


async def _bounded_head() -> None:
    import httpx2

    from mcpnb.client.transports import BODY_LIMIT, page_title

    body = b"<html><title>Log in</title>" + b"x" * (BODY_LIMIT * 10) + b"</html>"
    chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)]
    taken: list[int] = []

    class Counted(httpx2.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[override]
            for chunk in chunks:
                taken.append(len(chunk))
                yield chunk

    response = httpx2.Response(200, headers={"content-type": "text/html"}, stream=Counted())
    assert await page_title(response) == "Log in"
    assert sum(taken) < BODY_LIMIT + 1000  # only the head was read
    assert await response.aread() == body  # and the whole body is still there for its reader
    stream = httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Counted())
    taken.clear()
    assert await page_title(stream) is None and not taken


def test_page_title_waits_a_bounded_time_and_never_truncates_silently(monkeypatch) -> None:
    import asyncio

    from mcpnb.client import transports

    monkeypatch.setattr(transports, "TITLE_WAIT", 0.2, raising=False)
    asyncio.run(_bounded_wait())


async def _bounded_wait() -> None:
    import asyncio

    import httpx2

    from mcpnb.client.transports import page_title

    class Trickle(httpx2.AsyncByteStream):  # no title, then a page that never comes
        async def __aiter__(self):  # type: ignore[override]
            yield b"<html><head><script>"
            await asyncio.sleep(3600)
            yield b"never"

    held = httpx2.Response(200, headers={"content-type": "text/html"}, stream=Trickle())
    assert await asyncio.wait_for(page_title(held), 10) is None  # the test's own bound, not a timing
    with pytest.raises(httpx2.ReadTimeout, match="not waited for"):
        await held.aread()  # the next reader is told the rest was not read, not given a cut body

    class Broken(httpx2.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[override]
            yield b"<html><head>"
            raise httpx2.ReadError("connection reset")

    broken = httpx2.Response(200, headers={"content-type": "text/html"}, stream=Broken())
    assert await page_title(broken) is None
    with pytest.raises(httpx2.ReadError, match="connection reset"):
        await broken.aread()
