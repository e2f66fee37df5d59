"""Servers built on the old (1.x) SDK, and servers that hold state in memory, through a restart.

Found by an interop sweep with real third-party servers (mcp-server-calculator,
server-sequential-thinking, mcp-server-motherduck): an old SDK server answers the era probe
(``server/discover``) with ~95 lines of pydantic errors on stderr, and mcpnb probed again on each
automatic reconnect, so the 200-line log lost the lines that said why it had crashed; a server
restarted after a crash answered with fresh state and the result said nothing of it; a multi-line
exception (``ValueError: {`` and a JSON object) was quoted as ``ValueError: {``.

The stand-in is :mod:`tests.servers.old_sdk_server`, a real stdio process that behaves as those do.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HttpServer, free_port, wait_until

from mcpnb import CallError
from mcpnb.client.call_logs import logged_during
from mcpnb.client.errors import NotConnectedError
from mcpnb.client.events import ConnectionEvent, EventLog, State

SERVER = Path(__file__).resolve().parents[1] / "servers" / "old_sdk_server.py"
QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}
NOISE = "Failed to validate request"
RESTARTED = "the server was restarted before this call"


def old_server(pool: Any, name: str = "old", *extra: str) -> None:
    pool.connect(name, command=sys.executable, args=[str(SERVER), *extra], **QUICK)


def crash_and_wait(pool: Any, name: str = "old") -> None:
    """Make the server exit; wait until the automatic reconnect has a new process connected (not the
    old session's "connected", read before its loss was heard: a loaded machine is slow to hear)."""
    before = pool.status()[name].retries
    with pytest.raises(Exception, match="exit code 3"):
        pool.call(name, "exit", {"code": 3})
    assert wait_until(
        lambda: pool.status()[name].state == "connected" and pool.status()[name].retries > before
    ), pool.status()[name].last_error


def noise_dumps(pool: Any, name: str = "old") -> int:
    return sum(NOISE in line for line in pool.logs(name))


# ---------------------------------------------------------------------- the era probe, once


@pytest.mark.timeout(60)
def test_an_automatic_reconnect_uses_the_era_it_learned_and_probes_no_more(pool):
    old_server(pool)
    assert pool.status()["old"].era == "legacy"
    assert noise_dumps(pool) == 1  # the first connect must probe: nothing is known yet
    crash_and_wait(pool)
    assert pool.status()["old"].era == "legacy"
    assert noise_dumps(pool) == 1, [line for line in pool.logs("old") if NOISE in line]
    # the crash's own words are still there to read (its stderr is read as it comes)
    assert wait_until(lambda: any("fatal: told to exit" in line for line in pool.logs("old")))


@pytest.mark.timeout(60)
def test_a_reconnect_by_hand_probes_again(pool):
    """A person's reconnect is how they say "look again" (the server may have been upgraded)."""
    old_server(pool)
    pool.reconnect("old")
    assert noise_dumps(pool) == 2
    assert pool.status()["old"].era == "legacy"


@pytest.mark.timeout(60)
def test_a_server_upgraded_between_restarts_is_probed_again(pool, tmp_path):
    """It refuses the handshake it answered before: the same attempt probes its era afresh."""
    era = tmp_path / "era"
    era.write_text("legacy")
    old_server(pool, "old", "--era-file", str(era))
    assert pool.status()["old"].era == "legacy"
    era.write_text("modern")  # restarted as a 2026-07-28-only server: initialize is Method not found
    crash_and_wait(pool)
    assert pool.status()["old"].era == "modern"
    assert any("refused the legacy handshake it answered before" in line for line in pool.logs("old"))
    assert pool.call("old", "remember", {"text": "a"}).text == "1 held"


# ---------------------------------------------------------------------- the log keeps what matters


@pytest.mark.timeout(60)
def test_state_changes_outlive_a_flood_of_stderr(pool):
    old_server(pool)
    pool.call("old", "shout", {"n": 500})  # far more than the log's 200 lines
    assert wait_until(lambda: any("line 499" in line for line in pool.logs("old")))
    said = pool.logs("old")
    assert not any("line 0" in line.split(": ", 1)[1:] for line in said)  # the flood's head is gone
    states = [line for line in said if " old state: " in line]
    assert states[0].endswith(f"connecting to {sys.executable} {SERVER}"), states
    assert states[1].endswith("connected: old-sdk 1.0 (legacy)"), states
    assert said.index(states[1]) < next(i for i, line in enumerate(said) if "line 499" in line)


def test_state_events_are_kept_in_order_and_bounded():
    log = EventLog(maxlen=5)
    log.emit(ConnectionEvent("s", "state", "connected", State.CONNECTED))
    for n in range(20):
        log.emit(ConnectionEvent("s", "stderr", f"line {n}"))
    log.emit(ConnectionEvent("s", "state", "lost", State.RECONNECTING))
    assert [e.message for e in log.history] == ["connected", *[f"line {n}" for n in range(16, 20)], "lost"]
    for n in range(500):
        log.emit(ConnectionEvent("s", "state", f"state {n}", State.CONNECTED))
    kept = log.history
    assert len(kept) <= 5 + log.states_kept
    assert [e.message for e in kept][-3:] == ["state 497", "state 498", "state 499"]


# ---------------------------------------------------------------------- fresh state after a restart


@pytest.mark.timeout(60)
def test_the_first_result_after_an_automatic_restart_says_the_servers_memory_is_gone(pool):
    old_server(pool)
    first = pool.call("old", "remember", {"text": "a"})
    assert first.text == "1 held" and not any(RESTARTED in w for w in first.warnings)
    assert pool.call("old", "remember", {"text": "b"}).text == "2 held"
    crash_and_wait(pool)
    after = pool.call("old", "remember", {"text": "c"})
    assert after.text == "1 held"  # what the server held is gone
    (note,) = [w for w in after.warnings if RESTARTED in w]
    assert "exit code 3" in note and "what it held in memory is gone" in note, note
    assert RESTARTED in repr(after)  # shown with the result
    again = pool.call("old", "remember", {"text": "d"})
    assert again.text == "2 held" and not any(RESTARTED in w for w in again.warnings)


@pytest.mark.timeout(60)
def test_a_reconnect_by_hand_is_no_news(pool):
    old_server(pool)
    pool.call("old", "remember", {"text": "a"})
    pool.reconnect("old")
    after = pool.call("old", "remember", {"text": "b"})
    assert after.text == "1 held" and not any(RESTARTED in w for w in after.warnings)


@pytest.mark.timeout(60)
def test_a_restart_then_a_reconnect_by_hand_is_no_news_either(pool):
    old_server(pool)
    crash_and_wait(pool)
    pool.reconnect("old")
    after = pool.call("old", "remember", {"text": "b"})
    assert not any(RESTARTED in w for w in after.warnings), after.warnings


# ---------------------------------------------------------------------- a multi-line exception


@pytest.mark.timeout(60)
def test_a_multi_line_exception_is_quoted_with_its_next_lines(pool):
    old_server(pool)
    result = pool.call("old", "fail", {})
    assert result.is_error
    (pointer,) = [w for w in result.warnings if w.startswith("The server logged ")]
    assert "(the first exception: ValueError: {)" not in pointer
    assert 'the first exception: ValueError: { "success": false, "error": "Parser Error: syntax' in pointer


@pytest.mark.timeout(60)
def test_a_traceback_waiting_in_a_throttled_stderr_pipe_is_still_pointed_at(pool, monkeypatch):
    """CI, loaded: the old server's ~95 lines at its start took the stderr reader past its share,
    its reading was paused, and the traceback of the call that followed still waited in the pipe
    when the call's error was made: no pointer. Here every read goes past the share."""
    from mcpnb.client import transports

    monkeypatch.setattr(transports, "STDERR_BURST", 0.0)
    monkeypatch.setattr(transports, "STDERR_SHARE", 0.001)  # a pause of seconds after each read
    old_server(pool)
    result = pool.call("old", "fail", {})
    assert result.is_error
    assert any("the first exception: ValueError: {" in w for w in result.warnings), result.warnings


def test_what_the_server_logged_counts_from_the_calls_start_however_late_it_is_read():
    """CI, loaded: the look came more than a quick call's length after its answer, and a window
    counted back from the look by the call's length missed the traceback written during it."""
    began = time.monotonic()
    logged = _Conn("ZeroDivisionError: division by zero")
    time.sleep(0.2)  # the loop busy elsewhere before the look
    said = logged_during(logged, began)
    assert said is not None and "(the first exception: ZeroDivisionError: division by zero)" in said
    assert logged_during(logged, time.monotonic()) is None  # nothing logged since now


class _Conn:
    name = "s"

    def __init__(self, *lines: str) -> None:
        self.events = EventLog()
        for line in lines:
            self.events.emit(ConnectionEvent("s", "stderr", line))


def test_an_exception_line_that_says_nothing_is_not_quoted_as_it_is():
    alone = logged_during(_Conn("ValueError: {"), 0)
    assert alone is not None and "(the first exception: ValueError)" in alone
    bracket = logged_during(_Conn("RuntimeError: [", "  1,", "  2", "]", "later: other"), 0)
    assert bracket is not None and "(the first exception: RuntimeError: [ 1, 2 ])" in bracket
    long = logged_during(_Conn("ValueError: {", *[f'  "k{n}": "{"x" * 30}",' for n in range(40)], "}"), 0)
    assert long is not None and "(the first exception: ValueError: { " in long
    quoted = long.split("(the first exception: ", 1)[1].split("): %mcp", 1)[0]
    assert len(quoted) <= 200 and quoted.endswith("…")
    # a one-line exception is quoted as before
    plain = logged_during(_Conn("ZeroDivisionError: division by zero", "next"), 0)
    assert plain is not None and "(the first exception: ZeroDivisionError: division by zero)" in plain


@pytest.mark.timeout(60)
def test_over_http_the_first_result_after_a_new_session_says_what_may_be_gone(pool):
    port = free_port()
    server = HttpServer("http", port=port)
    try:
        pool.connect("web", url=server.url, era="legacy", **{**QUICK, "max_retries": 20, "retry_delay": 0.2})
        assert pool.call("web", "increment").data == 1
        server.stop()
        server = HttpServer("http", port=port)  # a new process: its counter starts again
        # the server forgets the session: a new one, and the call sent again on it (refused with a
        # 404, it did not run); or, where the connection was seen lost first, the reconnect's
        after = None
        with contextlib.suppress(CallError, NotConnectedError):
            after = pool.call("web", "increment")
        if after is None:
            assert wait_until(lambda: pool.status()["web"].state == "connected")
            after = pool.call("web", "increment")
        assert after.data == 1
        (note,) = [w for w in after.warnings if "reconnected with a new session before this call" in w]
        assert "what it held for the old session may be gone" in note, note
    finally:
        server.stop()
