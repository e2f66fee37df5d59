"""A URL alone: its path guesses the transport, and a 4xx to the guess tries the other one.

The spec's backwards compatibility (Streamable HTTP, 2025-03-26 onwards) asks a client that supports
older servers to take a URL that may be either: POST an initialize; on a 4xx, GET it expecting an
SSE stream. Before, an SSE server at a path not ending in ``/sse`` (the SDK's ``sse_path`` and
FastMCP's ``path`` are settings) was a 405 and a hint to add ``--sse``. Servers here: the SDK's own
SSE and Streamable HTTP apps (``demo_server.py --path``), and FastMCP's.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import HttpServer, _accepts, free_port, wait_until

from mcpnb import ConnectError, ServerConfig

CATALOG = Path(__file__).resolve().parents[1] / "servers" / "fastmcp_catalog_server.py"


@pytest.fixture
def served():
    """``served(kind, path)``: the demo server over ``kind`` at ``path``, its URL; stopped after."""
    servers: list[HttpServer] = []

    def start(kind: str, path: str) -> str:
        servers.append(HttpServer(kind, "--path", path))
        return servers[-1].url

    yield start
    for server in servers:
        server.stop()


def tried(pool, name: str) -> list[str]:
    return [line for line in pool.logs(name) if "at the same URL" in line]


def test_a_url_alone_is_a_guess_and_a_stated_transport_is_not():
    assert ServerConfig.build("a", url="http://127.0.0.1:1/mcp").transport_guessed
    assert ServerConfig.build("a", url="http://127.0.0.1:1/sse").transport_guessed
    assert not ServerConfig.build("a", url="http://127.0.0.1:1/mcp", transport="http").transport_guessed
    assert not ServerConfig.from_dict("a", {"url": "http://127.0.0.1:1/x", "type": "sse"}).transport_guessed
    assert not ServerConfig.build("a", command="python").transport_guessed
    # a copy with a new URL guesses again; one that names the transport does not
    guessed = ServerConfig.build("a", url="http://127.0.0.1:1/mcp")
    moved = guessed.replace(url="http://127.0.0.1:1/sse")
    assert moved.transport == "sse" and moved.transport_guessed
    assert not guessed.replace(url="http://127.0.0.1:1/mcp", transport="http").transport_guessed


def test_an_sse_server_at_another_path_is_reached_after_the_post_is_refused(pool, served):
    url = served("sse", "/events")
    row = pool.connect("odd", url=url)
    assert (row.state, row.transport) == ("connected", "sse"), row
    assert pool.call("odd", "add", {"a": 2, "b": 3}).text == "5"
    [line] = tried(pool, "odd")
    assert "HTTP 405" in line and "trying legacy SSE" in line
    pool.reconnect("odd")  # a person's reconnect keeps to the transport that answered
    assert pool.status()["odd"].transport == "sse" and len(tried(pool, "odd")) == 1


def test_a_lost_session_comes_back_on_the_transport_that_answered(pool):
    first = HttpServer("sse", "--path", "/events")
    port = int(first.url.split(":")[2].split("/")[0])
    # attempts that outlast a new server's start on a loaded machine (the default's ~7 s did not)
    pool.connect("odd", url=first.url, health_check_interval=0, max_retries=20, retry_delay=0.2)
    first.stop()
    with pytest.raises(Exception):  # noqa: B017  (what a dead server says is not this test's)
        pool.call("odd", "add", {"a": 1, "b": 1})
    again = HttpServer("sse", "--path", "/events", port=port)
    try:
        assert wait_until(lambda: pool.status()["odd"].state == "connected", 60), pool.logs("odd")
        assert pool.call("odd", "add", {"a": 1, "b": 1}).text == "2"
        assert pool.status()["odd"].transport == "sse" and len(tried(pool, "odd")) == 1  # no new guess
    finally:
        again.stop()


def test_a_streamable_http_server_at_a_path_ending_in_sse_is_reached_too(pool, served):
    url = served("http", "/api/sse")
    row = pool.connect("odd", url=url)
    assert (row.state, row.transport) == ("connected", "http"), row
    assert pool.call("odd", "add", {"a": 2, "b": 3}).text == "5"
    assert "trying Streamable HTTP" in tried(pool, "odd")[0]


def test_a_stated_transport_is_not_second_guessed(pool, served):
    url = served("sse", "/events")
    with pytest.raises(ConnectError, match=r"HTTP 405 .*if it is a legacy SSE endpoint, use transport 'sse'"):
        pool.connect("odd", url=url, transport="http")
    assert tried(pool, "odd") == [] and pool.status()["odd"].transport == "http"


def test_a_path_where_nothing_answers_says_so_once(pool, served):
    url = served("sse", "/events").replace("/events", "/nothing-here")
    with pytest.raises(ConnectError) as caught:
        pool.connect("odd", url=url)
    said = str(caught.value)
    assert said.count("HTTP 404") == 1 and "(tried as Streamable HTTP and legacy SSE alike)" in said, said
    assert "check the URL" in said
    row = pool.status()["odd"]
    assert (row.state, row.transport) == ("failed", "http")  # as guessed: nothing answered otherwise


def test_a_wrong_token_is_not_taken_for_a_wrong_transport(pool):
    server = HttpServer("sse", "--path", "/events", "--require-token", "right")
    try:
        with pytest.raises(ConnectError, match="401"):
            pool.connect("odd", url=server.url, headers={"Authorization": "Bearer wrong"})
        assert tried(pool, "odd") == []
    finally:
        server.stop()


def test_fastmcps_sse_server_at_another_path(pool):
    """A peer: FastMCP serves SSE wherever ``path`` says."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(CATALOG), "sse", str(port), "/events"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: _accepts(port), 30), "FastMCP did not start"
        row = pool.connect("peer", url=f"http://127.0.0.1:{port}/events")
        assert (row.state, row.transport, row.server_name) == ("connected", "sse", "catalog-peer"), row
        assert pool.call("peer", "tool_4").text == "tool 4"
        assert "trying legacy SSE" in tried(pool, "peer")[0]
    finally:
        proc.terminate()
        proc.wait(10)


class _WebApp(http.server.BaseHTTPRequestHandler):
    """A web app at the URL, not its MCP endpoint: a Gradio app's root (GET: its 100 KB page;
    POST: 405), or with ``posts_page`` a single-page app's catch-all route (every request: the page)."""

    page = b"<!doctype html><html><body>" + b"x" * 100_000 + b"</body></html>"
    posts_page = False

    def do_GET(self) -> None:
        self._answer(200, "text/html; charset=utf-8", self.page)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.posts_page:
            self._answer(200, "text/html", self.page)
        else:
            self._answer(405, "application/json", b'{"detail":"Method Not Allowed"}')

    def _answer(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("posts_page", [False, True])
def test_a_web_page_at_the_url_is_said_to_be_one(pool, posts_page):
    """A Gradio app's address without /gradio_api/mcp/: the page's 100 KB read as one server-sent
    event was "a message over max_message_mb=256 (MB)"; raise the limit, it said."""
    handler = type("App", (_WebApp,), {"posts_page": posts_page})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with pytest.raises(ConnectError) as info:
            pool.connect("app", url=url, max_retries=0)
        said = str(info.value)
        assert "a web page answers there, not an MCP server; check the URL" in said
        assert "a Gradio app /gradio_api/mcp/" in said and "max_message_mb" not in said
        with pytest.raises(ConnectError, match="a web page answers there"):
            pool.connect("app", url=url, transport="sse", max_retries=0)  # no guess: the same words
    finally:
        server.shutdown()
        server.server_close()
