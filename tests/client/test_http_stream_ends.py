"""Streamable HTTP: a call's response stream that ends before its answer is that call's trouble,
not the session's.

A server may close a request's SSE stream on purpose once it has sent an event id (SEP-1699
polling, 2025-11-25): the SDK reconnects with ``Last-Event-ID`` and the call completes. A stream
that ends with no id to resume from (no event store, a proxy that cuts long responses, any
2026-07-28 stream) makes the SDK resolve the call with a CONNECTION_CLOSED error: the call fails,
but the session (its ``Mcp-Session-Id``) is as valid as before and must not be renewed. A server
that died mid-call is still a lost connection.

Peers: the SDK's ``MCPServer`` (``tests/servers/resumable_server.py``) and FastMCP
(``tests/servers/fastmcp_resumable_server.py``, in its own venv), both behind the same small proxy
that ends the answer's stream of ``cut`` (and of ``look`` when asked) cleanly, before the answer.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import ROOT, _accepts, wait_until

from mcpnb import CallError
from mcpnb.client.errors import McpnbError
from tests.peers.fastmcp_venv import fastmcp_python, serving

SERVERS = ROOT / "tests" / "servers"
#: no health probes: nothing but the calls under test touches the connection
QUIET = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3}
ENDED = "ended the call's response stream before answering"


class StreamServer:
    """One of the two peers over Streamable HTTP on 127.0.0.1, with or without an event store."""

    def __init__(self, peer: str, *, event_store: bool, extra: tuple[str, ...] = ()) -> None:
        if peer == "sdk":
            command = [sys.executable, str(SERVERS / "resumable_server.py")]
        else:
            command = [str(fastmcp_python()), str(SERVERS / "fastmcp_resumable_server.py")]
        command += [*([] if event_store else ["--no-event-store"]), *extra]
        self.proc, self.url, port = serving(command, f"the {peer} server")
        assert wait_until(lambda: _accepts(port), timeout=60), f"the {peer} server never listened"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@pytest.fixture
def start() -> Iterator[Callable[..., StreamServer]]:
    started: list[StreamServer] = []

    def run(peer: str, *, event_store: bool, extra: tuple[str, ...] = ()) -> StreamServer:
        started.append(StreamServer(peer, event_store=event_store, extra=extra))
        return started[-1]

    yield run
    for server in started:
        server.kill()


def reconnects(pool: Any, name: str) -> list[str]:
    """The log lines that say ``name``'s session was lost, renewed or replaced."""
    said = ("lost", "reconnecting", "retry:", "new session", "forgot")
    return [line for line in pool.logs(name) if any(word in line for word in said)]


def untouched(pool: Any, name: str, session: str) -> None:
    """``name`` is connected on the session it started with, never reconnected or renewed."""
    row = pool.status()[name]
    assert row.state == "connected" and row.retries == 0, row
    assert reconnects(pool, name) == []
    assert pool.call(name, "session_header").data == session


# ---------------------------------------------------------------- resumable: SEP-1699 polling
@pytest.mark.parametrize("peer", ["sdk", "fastmcp"])
def test_a_server_that_closes_the_stream_mid_call_answers_on_the_same_session(pool, start, peer):
    """A guard, not a fix: this worked before (the SDK resumes with Last-Event-ID); the session
    stays, and the server's own count says the client did come back for the rest."""
    server = start(peer, event_store=True)
    pool.connect("r", url=server.url, era="legacy", **QUIET)
    session = pool.call("r", "session_header").data
    assert session

    assert pool.call("r", "poll", {"rounds": 2}).data == "polled 2 rounds"
    # a proxy's cut is resumed the same way when the server keeps its events
    assert pool.call("r", "cut", {"text": "x"}).data == "cut ran: x"

    runs = pool.call("r", "runs").data
    assert runs["resumed"] >= 3 and runs["poll:finished"] == 1 and runs["cut:started"] == 1
    untouched(pool, "r", session)


# ---------------------------------------------------------------- not resumable: the call fails alone
@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("peer", ["sdk", "fastmcp"])
def test_a_stream_that_ends_without_the_answer_fails_that_call_and_keeps_the_session(pool, start, peer, era):
    server = start(peer, event_store=False)
    pool.connect("r", url=server.url, era=era, **QUIET)
    pool.connect("other", url=server.url, era=era, **QUIET)
    session = pool.call("r", "session_header").data
    assert bool(session) == (era == "legacy")  # 2026-07-28 has no sessions

    with pytest.raises(CallError) as info:
        pool.call("r", "cut", {"text": "x"})

    said = str(info.value)
    assert ENDED in said and "may or may not have run" in said and "call again" in said
    stays = "the session is still open" if era == "legacy" else "the connection is fine"
    assert stays in said and "was lost" not in said and "reconnect" not in said
    assert "proxy" in said  # for the person: why it may keep happening
    assert ("no event store" if era == "legacy" else "2026-07-28 has no resumable streams") in said
    model = info.value.for_model
    assert ENDED in model and stays in model and "call again if that is safe" in model
    assert "proxy" not in model and "event store" not in model  # a person's matter, not the model's
    assert any("response stream of cut() ended" in line for line in pool.logs("r"))

    untouched(pool, "r", session)  # the next call runs on the same session
    assert pool.call("r", "echo", {"text": "next"}).data == "next"
    assert pool.call("r", "runs").data["cut:started"] == 1  # not sent again: not read-only
    assert pool.call("other", "echo", {"text": "fine"}).data == "fine"
    assert pool.status()["other"].retries == 0 and reconnects(pool, "other") == []


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("peer", ["sdk", "fastmcp"])
def test_a_read_only_call_whose_stream_ended_is_sent_again_once(pool, start, peer, era):
    """2026-07-28: "a broken response stream loses the in-flight request; clients MUST re-issue it
    as a new request" (SEP-2575). mcpnb does so once, for what may be repeated (read-only or
    idempotent), in both eras, as it does for a session the server forgot."""
    server = start(peer, event_store=False)
    pool.connect("r", url=server.url, era=era, **QUIET)
    session = pool.call("r", "session_header").data
    pool.call("r", "cut_looks", {"n": 1})

    assert pool.call("r", "look", {"text": "a"}).data == "looked: a"
    assert pool.call("r", "runs").data["look"] == 2
    assert any("look() ended before its answer: sending it again once" in line for line in pool.logs("r"))

    pool.call("r", "cut_looks", {"n": 2})  # cut again the second time: once is all
    with pytest.raises(CallError, match=ENDED):
        pool.call("r", "look", {"text": "b"})
    assert pool.call("r", "runs").data["look"] == 4
    untouched(pool, "r", session)


def test_a_stream_the_server_cannot_resume_fails_that_call_and_keeps_the_session(pool, start):
    """Event ids were sent, but every ``GET`` with ``Last-Event-ID`` gets 503: the SDK gives up
    resuming; the session is still the server's."""
    server = start("sdk", event_store=True, extra=("--refuse-resume",))
    pool.connect("r", url=server.url, era="legacy", **QUIET)
    session = pool.call("r", "session_header").data
    with pytest.raises(CallError) as info:
        pool.call("r", "cut", {"text": "x"})
    said = str(info.value)
    assert ENDED + " and resuming it failed (HTTP 503 from the server: cannot resume streams here)" in said
    assert "the session is still open" in said and "would not let the client resume" in said
    untouched(pool, "r", session)


# ---------------------------------------------------------------- a dead server is still lost
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_server_killed_mid_call_is_still_a_lost_connection(pool, start, era):
    server = start("sdk", event_store=False)
    pool.connect("r", url=server.url, era=era, **QUIET)
    with ThreadPoolExecutor(1) as running:
        call = running.submit(pool.call, "r", "slow", {"seconds": 30})
        assert wait_until(lambda: any("slow: started" in line for line in pool.logs("r")))
        server.kill()
        with pytest.raises(CallError) as info:
            call.result(timeout=30)
    assert "was lost" in str(info.value) and ENDED not in str(info.value)
    assert wait_until(lambda: pool.status()["r"].retries >= 1)
    assert pool.status()["r"].state != "connected"


def test_a_server_gone_before_the_call_is_still_a_lost_connection(pool, start):
    server = start("sdk", event_store=False)
    pool.connect("r", url=server.url, era="legacy", **QUIET)
    server.kill()
    with pytest.raises(McpnbError) as info:  # lost, then given up on: its listening stream broke first
        pool.call("r", "echo", {"text": "x"})
    assert ENDED not in str(info.value)
    assert wait_until(lambda: pool.status()["r"].retries >= 1)
    assert pool.status()["r"].state != "connected"
