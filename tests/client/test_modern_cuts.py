"""A middlebox that cuts quiet connections, against a 2026-07-28 (stateless) Streamable HTTP
connection: what the 2025-11-25 era already survives (``test_http_network.py``).

- A call whose own connection is cut before its answer fails alone, with words that say so; the
  next call works on the same connection (a cut before the answer's headers ended the whole
  connection: the SDK let the httpx error escape into its transport's task group).
- A ``subscriptions/listen`` stream that is cut is opened again, so a later change of the server's
  tools still reaches the client's cache (it was never listened to again).
- One cut is probed once at a time (the HTTP layer's hook and the call both asked), and a
  request's resumed stream (2025-11-25, an event store) cut every time ends instead of resuming
  for ever (the SDK starts its count afresh after a stream that seemed to end normally).

Real peers only: the SDK's ``MCPServer`` (the demo server, ``tests/servers/resumable_server.py``)
behind ``tests/servers/net_proxy.py --mode relay-idle5``, a TCP relay that cuts connections idle
for a second.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ROOT, HttpServer, _accepts, wait_until

from mcpnb import CallError
from mcpnb.client import health
from tests.peers.fastmcp_venv import serving

QUIET = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3, "startup_timeout": 15}
#: the relay cuts a connection quiet for this long (its watchdog looks every 0.5 s)
IDLE = "1"


@pytest.fixture
def demo() -> Iterator[HttpServer]:
    server = HttpServer("http")
    yield server
    server.stop()


@pytest.fixture
def resumable() -> Iterator[Any]:
    """``resumable_server.py`` (an SDK ``MCPServer``), with or without an event store: its URL."""
    started: list[Any] = []

    def run(*extra: str) -> str:
        proc, url, port = serving(
            [sys.executable, str(ROOT / "tests/servers/resumable_server.py"), *extra], "it"
        )
        started.append(proc)
        assert wait_until(lambda: _accepts(port)), "the resumable server never listened"
        return url

    yield run
    for proc in started:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def relay(start_proxy: Any, no_proxy_env: pytest.MonkeyPatch) -> Any:
    """``relay(url)``: the same endpoint through ``net_proxy.py``'s relay that cuts quiet
    connections (as in ``test_http_network.py``)."""

    def run(url: str) -> str:
        port = start_proxy("--mode", "relay-idle5", "--idle", IDLE, "--relay", url.split("/")[2])
        return f"http://127.0.0.1:{port}/mcp"

    return run


def _reconnects(pool: Any, name: str) -> list[str]:
    said = ("lost", "reconnecting", "retry:", "new session")
    return [line for line in pool.logs(name) if any(word in line for word in said)]


def _untouched(pool: Any, name: str) -> None:
    row = pool.status()[name]
    assert row.state == "connected" and row.retries == 0, row
    assert _reconnects(pool, name) == []


def test_a_modern_call_cut_before_its_answer_fails_alone(pool, demo, relay) -> None:
    """The 2026-07-28 answer of a quiet tool is one JSON body, sent at its end: the relay cuts the
    POST before any header came (httpx2 RemoteProtocolError), which ended the whole connection."""
    pool.connect("m", url=relay(demo.url), era="modern", config=QUIET)
    assert pool.status()["m"].era == "modern"
    with pytest.raises(CallError) as caught:
        pool.call("m", "slow", {"seconds": 3})  # not idempotent: never sent again
    said = str(caught.value)
    assert "its connection was cut before the answer came" in said, said
    assert "the server still answers and goes on" in said and "may or may not have run" in said, said
    assert pool.call("m", "echo", {"text": "next"}).text == "next"
    _untouched(pool, "m")


def test_a_cut_listen_stream_is_listened_to_again(pool, demo, relay) -> None:
    """The relay cuts the quiet ``subscriptions/listen`` stream; mcpnb listens again, so a tool
    the server adds afterwards reaches the client's tool cache (by the stream's news, or by the
    lists asked for anew when it is opened again after the change). It was never heard of: the
    cache kept its list for its whole cache_ttl."""
    pool.connect("m", url=relay(demo.url), era="modern", config=QUIET)
    assert "fresh" not in [tool.name for tool in pool.tools("m")]
    # the listen stream idles past the relay's limit: cut (as test_http_network's GET)
    assert wait_until(
        lambda: any("subscriptions/listen stream broke" in line for line in pool.logs("m")), timeout=30
    ), pool.logs("m")
    assert pool.call("m", "add_tool", {"name": "fresh"}).text == "fresh"
    # pool.tools reads the cache until something drops it: only the listen stream's news does here
    assert wait_until(
        lambda: "fresh" in [tool.name for tool in pool.tools("m")], timeout=30, interval=0.25
    ), pool.logs("m")
    assert any("listening again after" in line for line in pool.logs("m")), pool.logs("m")
    _untouched(pool, "m")


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many probes ran at once at the most, and in all (each still goes to the server)."""
    counts = {"now": 0, "most": 0, "all": 0}
    lock = threading.Lock()
    real = health.probe

    async def counted(client: Any, era: str | None) -> float:
        with lock:
            counts["now"] += 1
            counts["all"] += 1
            counts["most"] = max(counts["most"], counts["now"])
        try:
            await asyncio.sleep(0.5)  # long enough that probes asked for at once would overlap
            return await real(client, era)
        finally:
            with lock:
                counts["now"] -= 1

    monkeypatch.setattr(health, "probe", counted)
    return counts


def test_one_cut_is_probed_once_at_a_time(pool, resumable, relay, probes) -> None:
    """A call's SSE answer (a log line, then quiet) is cut mid-body: the HTTP layer's hook and
    the call each asked whether the server still answers, two probes at once for one cut."""
    url = relay(resumable("--no-event-store"))
    pool.connect("m", url=url, era="modern", config=QUIET)
    with pytest.raises(CallError) as caught:
        pool.call("m", "slow", {"seconds": 3})
    assert "may or may not have run" in str(caught.value), caught.value
    assert probes["all"] >= 1 and probes["most"] == 1, probes
    assert pool.call("m", "echo", {"text": "next"}).text == "next"
    _untouched(pool, "m")


def test_a_resumed_stream_cut_every_time_ends(pool, resumable, relay) -> None:
    """2025-11-25 with an event store: the call's stream is cut, and so is every GET that resumes
    it (the tool stays quiet longer than the relay allows). Each resumed GET's cut ended as if the
    server had closed it, so the SDK resumed for ever (its count of attempts starts afresh then),
    until the call's deadline, and on after it. Now it gives up, and the call fails alone."""
    pool.connect("r", url=relay(resumable()), era="legacy", config=QUIET)
    with pytest.raises(CallError) as caught:
        pool.call("r", "slow", {"seconds": 60}, timeout=40)
    said = str(caught.value)
    assert "resuming it failed" in said and "may or may not have run" in said, said
    assert pool.call("r", "echo", {"text": "next"}).text == "next"
    _untouched(pool, "r")


def test_a_job_that_reports_less_often_than_the_middlebox_allows_is_resumed_each_time(pool, resumable, relay):
    """Each of its progress lines comes after the relay cut the quiet stream: every resumed GET
    brings news before its own cut, so it is no stream cut for ever (the limit counts cuts in a
    row without news); the job's answer arrives."""
    pool.connect("r", url=relay(resumable()), era="legacy", config=QUIET)
    result = pool.call("r", "ticks", {"rounds": 6, "gap": 1.6}, timeout=60)
    assert result.text == "ticked 6"
    _untouched(pool, "r")


def test_a_quiet_listen_stream_cut_again_and_again_is_reopened_at_once_each_time(pool, demo, relay) -> None:
    """Behind a middlebox that cuts every quiet connection, each reopened stream is acknowledged
    and lives until the next cut: the wait before reopening doubled anyway (0.5, 1, 2, 4 … 30 s),
    so the listener was deaf for longer and longer after each cut."""
    pool.connect("m", url=relay(demo.url), era="modern", config=QUIET)

    def waits() -> list[str]:
        return [line.rsplit(" in ", 1)[-1] for line in pool.logs("m") if "stream broke (" in line]

    assert wait_until(lambda: len(waits()) >= 3, timeout=60), pool.logs("m")
    assert set(waits()[:3]) == {"0.5 s"}, waits()
    _untouched(pool, "m")


def test_only_a_new_message_starts_the_count_of_cuts_again() -> None:
    """A resume's priming event (an id, no data) and the last message sent again on each resume
    (a server that reads Last-Event-ID inclusively) are no news: counted as news, a quiet tool
    behind an idle-cutting proxy was resumed for ever again."""
    from mcpnb.client.transports import RequestStream

    stream = RequestStream(resumed_cuts=2)
    stream.heard(b"id: 7\ndata: \n\n")  # priming
    assert stream.resumed_cuts == 2
    stream.heard(b'id: 8\nevent: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message"}\n\n')
    assert stream.resumed_cuts == 0
    stream.resumed_cuts = 2
    stream.heard(b'id: 8\nevent: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message"}\n\n')
    assert stream.resumed_cuts == 2  # the same one again
