"""A server that hangs while callers keep calling it: its status row says so, and the pool replaces
its session, as it does for a hung server nobody calls. A server that is only slow (one call at a
time, or a tool that reports progress) is never taken for a hung one.

Real servers over stdio: the SDK's ``MCPServer`` (the demo server) frozen with SIGSTOP, and a
server that handles one request at a time (``tests/servers/sequential_server.py``). No wall-clock
assertions: states and events, waited for with generous timeouts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

import pytest
from conftest import ROOT, alive, children, demo_command, wait_until

from mcpnb import CallTimeoutError
from mcpnb.client.errors import McpnbError

SEQUENTIAL = str(ROOT / "tests" / "servers" / "sequential_server.py")
#: Probe often, reconnect fast.
QUICK_HEALTH = {"health_check_interval": 0.3, "retry_delay": 0.05, "max_retries": 3}


@contextlib.contextmanager
def callers(pool, server: str, tool: str, arguments: dict, *, threads: int, timeout: float) -> Iterator[list]:
    """``threads`` threads calling ``tool`` again and again until the block ends; yields what each
    call ended with (``"ok"`` or the error's type)."""
    stop = threading.Event()
    outcomes: list = []

    def call_again() -> None:
        while not stop.is_set():
            try:
                pool.call(server, tool, arguments, timeout=timeout)
                outcomes.append("ok")
            except McpnbError as exc:
                outcomes.append(type(exc))

    running = [threading.Thread(target=call_again, daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    try:
        yield outcomes
    finally:
        stop.set()
        for thread in running:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in running), "a caller never came back"


def health_said(conn) -> list[str]:
    return [e.message for e in conn.events.history if e.kind == "health"]


def test_a_hung_server_that_callers_keep_calling_is_unhealthy_then_replaced(pool):
    """The soak sweep: two threads calling a SIGSTOPped server, every call a CallTimeoutError, and
    the row said connected, healthy, no error, for as long as the calls went on (each unanswered
    probe was "not counted" while calls ran, and a call's timeout never counted)."""
    before = children()
    pool.connect("demo", **demo_command(), **QUICK_HEALTH)
    pid = pool.call("demo", "pid").data
    conn = pool.connection("demo")
    assert wait_until(lambda: pool.status()["demo"].healthy is True)
    rows = []  # the status row as the server is declared unhealthy
    conn.events.subscribe(lambda e: rows.append(conn.status()) if e.message == "unhealthy" else None)
    os.kill(pid, signal.SIGSTOP)
    try:
        with callers(pool, "demo", "echo", {"text": "x"}, threads=2, timeout=1) as outcomes:
            assert wait_until(lambda: rows, timeout=30), health_said(conn)
            assert rows[0].state == "connected" and rows[0].healthy is False
            assert wait_until(lambda: pool.status()["demo"].retries >= 1, timeout=30), health_said(conn)
            assert wait_until(lambda: pool.status()["demo"].state == "connected", timeout=30)
            assert wait_until(lambda: outcomes[-3:] == ["ok"] * 3, timeout=30), outcomes[-5:]
        assert CallTimeoutError in outcomes  # the calls did time out while it hung
        said = health_said(conn)
        assert any("calls time out and the server answers nothing" in m for m in said), said
        lost = [e.message for e in conn.events.history if e.message.startswith("connection lost")]
        # the third failure in a row ends the session and is its reason: a call's timeout met by
        # silence, or a probe's own timeout when it fell between calls (both callers' calls time
        # out together, in the loop tick that times the probe out too: seen under CI-like load)
        said_loss = (
            "calls time out and the server answers nothing",
            "no answer within 0.3 s to 3 health probes",
        )
        assert lost and any(words in lost[0] for words in said_loss), lost
        assert pool.call("demo", "pid").data != pid  # a new process answers
        assert wait_until(lambda: not alive(pid))  # the frozen one was ended with its session
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)
    pool.disconnect("demo")
    assert wait_until(lambda: not children() - before), children() - before


def test_calls_queued_behind_a_tool_that_reports_progress_never_make_it_unhealthy(pool):
    """A server that handles one request at a time runs a tool that reports progress: the calls
    queued behind it time out, and the probes wait unanswered, but the server is heard meanwhile
    (the progress): it is busy, not hung, and keeps its session. Probes each given a second: the
    progress (every 0.2 s) is heard well within it, on a busy machine too."""
    pool.connect(
        "one", command=sys.executable, args=[SEQUENTIAL], **{**QUICK_HEALTH, "health_check_interval": 1}
    )
    pid = pool.call("one", "pid").text
    conn = pool.connection("one")
    with callers(pool, "one", "progress_block", {"seconds": 2}, threads=2, timeout=1) as outcomes:
        assert wait_until(lambda: CallTimeoutError in outcomes and "ok" in outcomes, timeout=60)
        assert wait_until(
            lambda: any("the server said something since it was sent" in m for m in health_said(conn))
        )
    said = health_said(conn)
    assert "unhealthy" not in said and not any("in a row" in m for m in said), said
    assert pool.status()["one"].retries == 0
    assert pool.call("one", "pid", timeout=60).text == pid  # the same session, the same process
    assert wait_until(lambda: pool.status()["one"].healthy is True)


@pytest.mark.parametrize("tool", ["block", "progress_block"])
def test_one_slow_call_within_its_timeout_is_never_unhealthy(pool, tool):
    """A single slow call, and nothing else but the probes it holds up: whatever it reports, the
    server is not unhealthy while the call is within its timeout."""
    pool.connect("one", command=sys.executable, args=[SEQUENTIAL], **QUICK_HEALTH)
    conn = pool.connection("one")
    assert pool.call("one", tool, {"seconds": 2}, timeout=30).text == f"{tool} done after 2 s"
    said = health_said(conn)
    assert any("while 1 call(s) run: not counted" in m for m in said), said  # probes did go unanswered
    assert "unhealthy" not in said, said
    assert pool.status()["one"].retries == 0


def test_a_server_still_working_on_a_call_the_client_gave_up_on_is_busy_not_unhealthy(pool):
    """The CI race of the test above, made certain: a call queued behind a slow one times out (the
    client gives up on it), the slow one ends, and the server, handling one request at a time, now
    runs the abandoned call, reporting its progress. No call of ours runs, the probes wait in its
    pipe, yet it is heard all along: it is busy, not hung, and keeps its session and its work."""
    # probes every second, each given a second: the progress (every 0.2 s) is heard well within it
    pool.connect(
        "one", command=sys.executable, args=[SEQUENTIAL], **{**QUICK_HEALTH, "health_check_interval": 1}
    )
    pid = pool.call("one", "pid").text
    conn = pool.connection("one")
    first: list = []
    slow = threading.Thread(
        target=lambda: first.append(pool.call("one", "progress_block", {"seconds": 2}, timeout=60).text)
    )
    slow.start()
    assert wait_until(lambda: conn.asking.active_calls)
    with pytest.raises(CallTimeoutError):  # queued behind the slow call: given up on after 1 s
        pool.call("one", "progress_block", {"seconds": 5}, timeout=1)
    slow.join(timeout=60)
    assert first == ["progress_block done after 2 s"]
    # the abandoned call now runs (5 s): probes go unanswered while nothing of ours runs
    assert wait_until(
        lambda: any(m.startswith("probe unanswered") and "while" not in m for m in health_said(conn)),
        timeout=30,
    ), health_said(conn)
    assert pool.call("one", "pid", timeout=60).text == pid  # the same session, the same process
    said = health_said(conn)
    assert "unhealthy" not in said and not any("in a row" in m for m in said), said
    assert pool.status()["one"].retries == 0


CHATTY_HUNG = str(ROOT / "tests" / "servers" / "chatty_hung_server.py")


def test_a_hung_server_that_keeps_logging_is_unhealthy_then_replaced(pool):
    """Heard is not working: a server whose request handler hangs while a thread of its own keeps
    logging answers no probe, nor anything else. Its log lines do not excuse the probes (they did,
    for a moment today, once an idle server's being heard was taken as being busy)."""
    pool.connect("chatty", command=sys.executable, args=[CHATTY_HUNG], **QUICK_HEALTH)
    conn = pool.connection("chatty")
    assert wait_until(lambda: pool.status()["chatty"].retries >= 1, timeout=30), health_said(conn)
    assert any("probe failed (3 in a row)" in m for m in health_said(conn)), health_said(conn)
