"""HTTP sessions against servers we did not write: server-everything (npm) killed and restarted on
the same port over Streamable HTTP and SSE, the answers servers give for a session they do not
know (400 from server-everything, 404 from SDK servers), and a server that stays down for 40 s.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from typing import Any

import pytest
from conftest import LOOPBACK, HttpServer, free_port, wait_until

from mcpnb.client.events import State

PATH = "/usr/bin:/bin:/usr/local/bin"


class Everything:
    """server-everything over ``streamableHttp`` or ``sse``, pinned to 127.0.0.1:``port``."""

    def __init__(self, script: str, kind: str, port: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            ["node", "-r", LOOPBACK, script, kind],
            env={"PORT": str(port), "PATH": os.environ.get("PATH", PATH)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert wait_until(self._listening, timeout=30), f"server-everything ({kind}) did not start"
        self.url = f"http://127.0.0.1:{port}/" + ("mcp" if kind == "streamableHttp" else "sse")

    def _listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@pytest.fixture
def everything_server(everything):
    started: list[Everything] = []

    def start(kind: str, port: int) -> Everything:
        server = Everything(everything, kind, port)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def states(pool: Any, name: str) -> list[str]:
    seen: list[str] = []
    pool.subscribe(lambda e: e.server == name and e.kind == "state" and seen.append(str(e.state)))
    return seen


@pytest.mark.parametrize("kind", ["streamableHttp", "sse"])
def test_a_restarted_server_is_used_again_without_a_manual_step(pool, everything_server, kind):
    port = free_port()
    server = everything_server(kind, port)
    pool.connect("ev", url=server.url, transport="sse" if kind == "sse" else None, retry_delay=0.2)
    seen = states(pool, "ev")
    assert "via " + kind in pool.call("ev", "echo", {"message": "via " + kind}).text
    server.kill()
    # the transport saw the server go (its event stream broke): reconnecting before any call
    assert wait_until(lambda: pool.status()["ev"].state != "connected", timeout=10)
    assert seen[0] == "reconnecting"
    everything_server(kind, port)
    result = pool.call("ev", "echo", {"message": "back"})
    assert "back" in result.text and pool.status()["ev"].state == "connected"


@pytest.fixture
def blind(monkeypatch):
    """Turn off the early warning (a broken event stream) so the next request meets the restarted
    server with the old session id: the case of a server behind a proxy, or without event streams."""
    monkeypatch.setattr("mcpnb.client.requests.transport_failed", lambda *args, **kwargs: None)


def test_everything_answers_an_unknown_session_with_400(pool, everything_server, blind):
    port = free_port()
    server = everything_server("streamableHttp", port)
    pool.connect("ev", url=server.url, health_check_interval=0)
    seen = []
    pool.subscribe(lambda e: e.kind == "session" and seen.append(e.message))
    assert "one" in pool.call("ev", "echo", {"message": "one"}).text
    server.kill()
    server = everything_server("streamableHttp", port)
    # echo is read-only: sent again on a new session, transparently
    assert "two" in pool.call("ev", "echo", {"message": "two"}).text
    assert any("HTTP 400" in m for m in seen), seen
    assert pool.status()["ev"].state == "connected"

    server.kill()
    everything_server("streamableHttp", port)
    # a call that is not idempotent, refused for the unknown session, did not run: sent once on the
    # new session (the spec's 404 in server-everything's words, a 400 "No valid session ID")
    assert not pool.call("ev", "toggle-simulated-logging").is_error
    assert any("retrying toggle-simulated-logging() once on the new session" in m for m in seen), seen
    assert "three" in pool.call("ev", "echo", {"message": "three"}).text


def test_an_sdk_server_answers_an_unknown_session_with_404(pool, blind):
    port = free_port()
    server = HttpServer("http", port=port)
    try:
        pool.connect("web", url=server.url, era="legacy", health_check_interval=0)
        seen = []
        pool.subscribe(lambda e: e.kind == "session" and seen.append(e.message))
        assert pool.call("web", "count").data == 0
        server.stop()
        server = HttpServer("http", port=port)
        assert pool.call("web", "count").data == 0  # read-only: sent again on the new session
        assert any("HTTP 404" in m for m in seen), seen
        assert pool.status()["web"].state == "connected"
    finally:
        server.stop()


def test_a_server_down_for_40_s_is_used_again_by_the_next_call(pool, everything_server):
    port = free_port()
    server = everything_server("streamableHttp", port)
    pool.connect("ev", url=server.url)  # defaults: 3 retries from 1 s, about 7 s of attempts
    seen = states(pool, "ev")
    assert "before" in pool.call("ev", "echo", {"message": "before"}).text
    killed = time.monotonic()
    server.kill()
    assert wait_until(lambda: pool.status()["ev"].state == "reconnecting", timeout=10)
    assert wait_until(lambda: pool.status()["ev"].state == "failed", timeout=30)
    row = pool.status()["ev"]
    assert row.retries == 3 and "the next call tries again" in row.last_error
    time.sleep(max(0.0, 40 - (time.monotonic() - killed)))  # the outage itself is what is tested
    everything_server("streamableHttp", port)
    result = pool.call("ev", "echo", {"message": "after 40 s"})  # no pool.reconnect()
    assert "after 40 s" in result.text
    assert pool.status()["ev"].state == "connected"
    assert seen[-1] == str(State.CONNECTED) and str(State.FAILED) in seen
