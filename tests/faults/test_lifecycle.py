"""A call in flight while the connection is ended on purpose: disconnect, close, reconnect, or a
connect under the same name. The call is told what happened; no background reconnect starts; no
server process outlives the pool."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from conftest import children, wait_until

from faults.conftest import QUICK, Marks, no_process_left
from mcpnb import CallError
from mcpnb.client.events import State


def _in_flight(pool, marks: Marks) -> tuple[threading.Thread, dict[str, Any]]:
    """Start ``slow`` in a thread; return once the server really runs it."""
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            outcome["result"] = pool.call("srv", "slow", {"seconds": 60, "tag": "inflight"})
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    assert wait_until(lambda: (marks.path / "started-inflight").exists()), "the call never started"
    return thread, outcome


def _connect(pool, marks: Marks) -> None:
    pool.connect("srv", **marks.stdio(), env={"DEMO_MARKS": str(marks.path)}, **QUICK)


ENDINGS: dict[str, tuple[Callable[[Any, Marks], Any], str, bool]] = {
    # how the connection ends, what the in-flight call is told, whether "srv" is still in the pool
    "disconnect": (lambda pool, marks: pool.disconnect("srv"), "disconnected", False),
    "close": (lambda pool, marks: pool.close(), "disconnected", False),
    "reconnect": (lambda pool, marks: pool.reconnect("srv"), "reconnected by you", True),
    "connect again": (lambda pool, marks: _connect(pool, marks), "reconnected by you", True),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_ending_a_connection_tells_the_call_and_starts_no_recovery(pool, marks, ending):
    end, told, kept = ENDINGS[ending]
    seen = []
    pool.subscribe(seen.append)
    _connect(pool, marks)
    thread, outcome = _in_flight(pool, marks)

    end(pool, marks)
    thread.join(30)

    assert not thread.is_alive()
    error = outcome.get("error")
    assert isinstance(error, CallError), outcome
    assert str(error) == f"slow() did not finish: 'srv' was {told} while the call ran"
    assert "lost" not in str(error) and "background" not in str(error)
    assert not [e for e in seen if e.state is State.RECONNECTING], "a recovery started"
    if kept:  # the new session is the only one: one more server start, and it answers
        assert pool.status()["srv"].state == "connected" and pool.status()["srv"].retries == 0
        assert pool.call("srv", "echo", {"text": "still here"}).data == "still here"
        assert len(marks.wait_for(2)) == 2
    else:
        assert "srv" not in pool.names
    pool.close()
    no_process_left(marks)
    assert len(marks.pids()) == (2 if kept else 1), "a server was started behind the pool's back"


def test_a_connection_ended_during_recovery_stays_ended(pool, marks):
    """A server killed mid-call starts a recovery; disconnecting meanwhile cancels it for good."""
    import os
    import signal

    pool.connect("srv", **marks.stdio(), env={"DEMO_MARKS": str(marks.path)}, **{**QUICK, "retry_delay": 5})
    thread, outcome = _in_flight(pool, marks)
    (pid,) = marks.pids()
    os.kill(pid, signal.SIGKILL)
    thread.join(30)
    assert "was lost" in str(outcome["error"]) and "reconnecting in the background" in str(outcome["error"])
    assert pool.status()["srv"].state == "reconnecting"  # waiting 5 s before its first attempt
    pool.disconnect("srv")
    assert pool.names == []
    assert marks.pids() == {pid}  # the recovery never started a server
    assert not children() - marks.children_before
