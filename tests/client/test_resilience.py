"""Faults that really happen, to real processes: kills, restarts, forgotten sessions, hangs, slowness.

No wall-clock assertions: delays are made tiny through the config, and randomness is seeded.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import sys
import threading
import time
import warnings

import pytest
from conftest import DEMO, ROOT, HttpServer, alive, demo_command, free_port, wait_until
from mcp import types

from mcpnb import CallError, CallTimeoutError, ConfigError, ConnectError, ToolNotFoundError
from mcpnb.client.errors import ArgumentsError, AuthError, NotConnectedError
from mcpnb.client.events import State
from mcpnb.client.retry import Backoff, is_retryable
from tests.peers.fastmcp_venv import fastmcp_python

FAST = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}


# ---------------------------------------------------------------- backoff and classification
def test_backoff_delays_follow_the_formula_for_a_seed():
    delays = Backoff(initial=1.0, maximum=30.0, jitter=0.1, rng=random.Random(7)).delays(7)
    expected_rng = random.Random(7)
    expected = [min(2**n, 30.0) * (1 + 0.1 * expected_rng.random()) for n in range(7)]
    assert delays == pytest.approx(expected)
    for n, d in enumerate(delays):
        base = min(2**n, 30.0)
        assert base <= d <= base * 1.1  # exponential, capped at 30 s, at most 10 % jitter on top


def test_same_seed_same_delays_other_seed_other_delays():
    a = Backoff(rng=random.Random(1)).delays(4)
    assert a == Backoff(rng=random.Random(1)).delays(4)
    assert a != Backoff(rng=random.Random(2)).delays(4)


def test_error_classification():
    from mcp import MCPError

    assert is_retryable(ConnectionRefusedError())
    assert is_retryable(ExceptionGroup("g", [ExceptionGroup("h", [MCPError(-32000, "Connection closed")])]))
    assert is_retryable(TimeoutError())
    assert is_retryable(MCPError(-32603, "Server returned an error response"), http_status=503)
    assert is_retryable(MCPError(-32600, "Session not found"), http_status=404)
    assert not is_retryable(FileNotFoundError(2, "No such file", "mcp-server-x"))
    assert not is_retryable(MCPError(-32603, "Server returned an error response"), http_status=401)
    assert not is_retryable(MCPError(-32602, "Invalid params"))
    assert not is_retryable(MCPError(-32022, "Unsupported protocol version"))
    assert not is_retryable(ConfigError("bad key"))
    assert not is_retryable(AuthError.from_status("s", 403, "http://127.0.0.1:1/mcp"))
    assert is_retryable(AuthError("authorization server unreachable", retryable=True))


# ---------------------------------------------------------------- reconnect
def _kill_soon(pid: int, sig: int = signal.SIGKILL, after: float = 0.3) -> None:
    def later() -> None:
        time.sleep(after)
        os.kill(pid, sig)

    threading.Thread(target=later, daemon=True).start()


def test_killed_stdio_server_reconnects_with_backoff(pool):
    seen = []
    pool.subscribe(seen.append)
    pool.connect("demo", **demo_command(), **FAST)
    pid = pool.call("demo", "pid").data
    _kill_soon(pid)
    with pytest.raises(CallError, match="lost"):
        pool.call("demo", "slow", {"seconds": 30})
    new_pid = pool.call("demo", "pid").data  # waits for the reconnect under way
    assert new_pid != pid
    row = pool.status()["demo"]
    assert row.state == "connected" and row.retries >= 1
    retry = next(
        e for e in seen if e.kind == "state" and e.state == State.RECONNECTING and e.detail.get("delay")
    )
    assert retry.detail["attempt"] == 1 and retry.detail["max_retries"] == 3
    assert 0.05 <= retry.detail["delay"] <= 0.055


def test_gives_up_after_the_last_attempt(pool, tmp_path):
    gate = tmp_path / "gate"
    gate.write_text("open")
    script = tmp_path / "gated.py"
    script.write_text(
        "import runpy, sys, pathlib\n"
        f"if not pathlib.Path({str(gate)!r}).exists():\n"
        "    sys.exit('gate closed')\n"
        f"sys.argv = [{DEMO!r}, 'stdio']\n"
        f"runpy.run_path({DEMO!r}, run_name='__main__')\n"
    )
    seen = []
    pool.subscribe(seen.append)
    pool.connect("gated", command=sys.executable, args=[str(script)], **FAST)
    pid = pool.call("gated", "pid").data
    gate.unlink()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(CallError):
        pool.call("gated", "echo", {"text": "x"})
    assert wait_until(lambda: pool.status()["gated"].state == "failed")
    row = pool.status()["gated"]
    assert row.retries == 3
    assert "gave up reconnecting" in row.last_error
    assert [e.detail["attempt"] for e in seen if e.kind == "retry"] == [1, 2, 3]

    gate.write_text("open")
    pool.reconnect("gated")  # by hand, at any time
    assert pool.call("gated", "echo", {"text": "back"}).data == "back"


def test_non_retryable_error_fails_at_once(pool, tmp_path):
    link = tmp_path / "server-command"
    link.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    link.chmod(0o755)
    pool.connect("demo", command=str(link), args=[DEMO, "stdio"], **FAST)
    pid = pool.call("demo", "pid").data
    link.unlink()  # the command is gone: no amount of retrying brings it back
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(CallError):
        pool.call("demo", "echo", {"text": "x"})
    assert wait_until(lambda: pool.status()["demo"].state == "failed")
    row = pool.status()["demo"]
    assert row.retries == 1
    assert "command not found" in row.last_error


def test_http_server_restarted_on_the_same_port(pool):
    port = free_port()
    server = HttpServer("http", port=port)
    try:
        pool.connect("web", url=server.url, retry_delay=0.2, max_retries=6, health_check_interval=0)
        assert pool.call("web", "add", {"a": 1, "b": 1}).data == 2
        server.stop()
        # the watched transport sees the server go at once: reconnecting before any call, and a
        # call meanwhile waits for the attempts, then says the server is not there
        assert wait_until(lambda: pool.status()["web"].state in ("reconnecting", "failed"))
        with pytest.raises((CallError, NotConnectedError)):
            pool.call("web", "add", {"a": 1, "b": 1})
        server = HttpServer("http", port=port)
        assert pool.call("web", "add", {"a": 2, "b": 2}).data == 4
        assert pool.status()["web"].state == "connected"
    finally:
        server.stop()


def test_a_server_that_is_gone_is_never_shown_healthy(pool):
    server = HttpServer("http", port=free_port())
    try:
        pool.connect("web", url=server.url, retry_delay=0.2, max_retries=1, health_check_interval=0.2)
        assert wait_until(lambda: pool.status()["web"].healthy is True)
    finally:
        server.stop()
    assert wait_until(lambda: pool.status()["web"].state == "failed", timeout=30)
    row = pool.status()["web"]
    assert row.healthy is None and " ok " not in repr(pool.status()).splitlines()[1]


def test_forgotten_session_replays_calls_it_refused_once(pool, http_url):
    pool.connect("web", url=http_url, era="legacy", **FAST)
    assert pool.call("web", "increment").data == 1

    pool.call("web", "forget_sessions")
    assert pool.call("web", "count").data == 1  # read-only: retried transparently on a new session
    assert pool.status()["web"].state == "connected"

    pool.call("web", "forget_sessions")
    # not idempotent, but refused with 404 (a session the server no longer knows): it did not run,
    # so it is sent once on the new session
    assert pool.call("web", "increment").data == 2
    assert pool.call("web", "count").data == 2  # the server counted it exactly once
    assert len(pool.tools("web")) > 5  # list calls keep working on the new session


# ---------------------------------------------------------------- startup and call timeouts
def test_slow_start_trips_startup_timeout(pool):
    with pytest.raises(ConnectError, match=r"startup_timeout=0\.5 s; raise startup_timeout"):
        pool.connect("slow", **demo_command("--startup-delay", "5"), startup_timeout=0.5)
    assert pool.status()["slow"].state == "failed"


def test_progress_resets_the_tool_timeout(pool):
    pool.connect("demo", **demo_command(), tool_timeout=1)
    result = pool.call("demo", "progress_for", {"seconds": 3, "every": 0.4})
    assert result.data.startswith("done after")


def test_max_total_timeout_caps_a_call_that_keeps_reporting(pool):
    pool.connect("demo", **demo_command(), tool_timeout=1, max_total_timeout=1.5)
    with pytest.raises(CallTimeoutError, match=r"max_total_timeout=1\.5 s"):
        pool.call("demo", "progress_for", {"seconds": 4, "every": 0.3})
    assert pool.call("demo", "add", {"a": 1, "b": 2}).data == 3


def test_silent_tool_times_out_without_progress(pool):
    pool.connect("demo", **demo_command(), tool_timeout=0.5)
    with pytest.raises(CallTimeoutError, match=r"without progress.*raise tool_timeout for server 'demo'"):
        pool.call("demo", "slow", {"seconds": 30, "tag": "silent"})
    assert wait_until(lambda: pool.call("demo", "cancelled").data == ["silent"])


# ---------------------------------------------------------------- health
def test_sigstopped_server_is_unhealthy_then_recovers(pool):
    pool.connect("demo", **demo_command(), health_check_interval=0.3)
    pid = pool.call("demo", "pid").data
    assert wait_until(lambda: pool.status()["demo"].healthy is True)
    os.kill(pid, signal.SIGSTOP)
    try:
        assert wait_until(lambda: pool.status()["demo"].healthy is False)
        row = pool.status()["demo"]
        assert row.state == "connected" and (row.last_error or "").startswith("unhealthy: ")  # and why
    finally:
        os.kill(pid, signal.SIGCONT)
    assert wait_until(lambda: pool.status()["demo"].healthy is True)
    assert pool.status()["demo"].last_error is None  # healthy again: no reason left
    assert pool.call("demo", "pid").data == pid  # the same session survived
    conn = pool.connection("demo")
    assert len(conn.health.latencies_ms) >= 2 and conn.health.last_ok is not None


def test_hung_server_is_replaced_after_repeated_failures(pool):
    pool.connect("demo", **demo_command(), health_check_interval=0.3, retry_delay=0.05)
    pid = pool.call("demo", "pid").data
    conn = pool.connection("demo")
    verdicts = []  # the health column at the moment each new session is announced
    conn.events.subscribe(
        lambda e: (
            verdicts.append(conn.health.healthy) if e.kind == "state" and e.state == "connected" else None
        )
    )
    os.kill(pid, signal.SIGSTOP)
    try:
        assert wait_until(lambda: pool.status()["demo"].retries >= 1, timeout=30)
        assert wait_until(lambda: pool.status()["demo"].state == "connected", timeout=30)
        assert pool.call("demo", "pid").data != pid
        assert verdicts and False not in verdicts  # not "unhealthy" for the old session's failures
        lost = [e.message for e in conn.events.history if e.message.startswith("connection lost")]
        assert lost[0] == "connection lost: no answer within 0.3 s to 3 health probes in a row", lost
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------- tool cache
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_list_changed_invalidates_the_cache(pool, era):
    pool.connect("demo", **demo_command(), era=era, cache_ttl=3600)
    assert "fresh_tool" not in {t.name for t in pool.tools("demo")}
    pool.call("demo", "add_tool", {"name": "fresh_tool"})
    assert wait_until(lambda: "fresh_tool" in {t.name for t in pool.tools("demo")})
    invalidated = [
        e for e in pool.connection("demo").events.history if e.detail.get("reason") == "list_changed"
    ]
    assert invalidated


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_peers_list_changed_shows_its_new_tools(pool, era):
    """FastMCP's per-session visibility: ``unlock`` shows this session a hidden tool and says so with
    ``notifications/tools/list_changed`` (pushed; on 2026-07-28, on the ``subscriptions/listen``
    stream mcpnb opens): the cached list (an hour's TTL here) gives way to the new one."""
    visibility = ROOT / "tests" / "servers" / "fastmcp_visibility_server.py"
    pool.connect("vis", command=str(fastmcp_python()), args=[str(visibility)], era=era, cache_ttl=3600)
    assert [t.name for t in pool.tools("vis")] == ["unlock"]
    with pytest.raises(ToolNotFoundError):
        pool.call("vis", "reset")
    assert pool.call("vis", "unlock").text == "unlocked"
    assert wait_until(lambda: "reset" in {t.name for t in pool.tools("vis")})
    history = pool.connection("vis").events.history
    assert any(e.detail.get("reason") == "list_changed" for e in history)
    assert pool.call("vis", "reset").text == "reset done"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_prompt_list_is_read_once_until_the_peer_says_it_changed(pool, era):
    """``%mcp prompt`` checks its arguments against ``prompts/list`` and Tab completion reads it on
    every key: it was asked again each time. Cached as the tool list is, FastMCP's
    ``prompts/list_changed`` (after ``unlock``) gives way to the new list."""
    visibility = ROOT / "tests" / "servers" / "fastmcp_visibility_server.py"
    pool.connect("vis", command=str(fastmcp_python()), args=[str(visibility)], era=era, cache_ttl=3600)
    conn = pool.connection("vis")
    listed = []
    ask = conn.client.list_prompts

    async def counted(*args, **kwargs):
        listed.append(1)
        return await ask(*args, **kwargs)

    conn.client.list_prompts = counted
    assert [p.name for p in pool.prompts("vis")] == ["hello"]
    assert "Say hello to Ada." in pool.prompt("vis", "hello", {"name": "Ada"}).text
    assert pool.prompt("vis", "hello", {"name": "Bo"}) and len(listed) == 1  # read once, then the cache
    with pytest.raises(ArgumentsError, match="no prompt 'audit'"):
        pool.prompt("vis", "audit", {"area": "x"})
    assert pool.call("vis", "unlock").text == "unlocked"
    assert wait_until(lambda: "audit" in {p.name for p in pool.prompts("vis")})
    assert "Audit billing." in pool.prompt("vis", "audit", {"area": "billing"}).text


def test_cache_hit_does_no_io_and_ttl_expiry_refetches(pool):
    pool.connect("demo", **demo_command(), cache_ttl=100)
    conn = pool.connection("demo")
    now = [1000.0]
    conn.tool_cache.clock = lambda: now[0]
    pool.tools("demo", refresh=True)
    pid = pool.call("demo", "pid").data
    os.kill(pid, signal.SIGSTOP)  # a frozen server: any I/O would hang
    try:
        assert len(pool.tools("demo")) > 5
        hits = [e for e in conn.events.history if e.kind == "cache" and e.detail.get("hit") is True]
        assert hits
    finally:
        os.kill(pid, signal.SIGCONT)
    now[0] += 101
    pool.tools("demo")
    last = [e for e in conn.events.history if e.kind == "cache"][-1]
    assert last.detail.get("hit") is False


# ---------------------------------------------------------------- filters
def test_filters_apply_to_listing_and_calling(pool, caplog):
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    pool.connect("demo", **demo_command(), enabled_tools=["add", "ec*", "calls"], disabled_tools=["echo"])
    assert {t.name for t in pool.tools("demo")} == {"add", "calls"}
    with pytest.raises(ToolNotFoundError, match=r"disabled_tools.*nothing was sent"):
        pool.call("demo", "echo", {"text": "x"})
    with pytest.raises(ToolNotFoundError, match="not in enabled_tools"):
        pool.call("demo", "pid")
    assert pool.call("demo", "calls").data == []  # the server never saw echo
    assert "tools hidden by the tool filters" in caplog.text


def test_a_filter_that_matches_no_tool_is_said_and_the_status_counts_callable_tools(pool):
    """``disabled_tools: ["ad"]`` (meant: add) hides nothing, and add stays callable: the connect
    warns, with the name it probably meant. The status row counts the tools one can call."""
    with pytest.warns(UserWarning) as said:
        row = pool.connect(
            "demo", **demo_command(), disabled_tools=["ad"], enabled_tools=["add", "ech*", "zz*"]
        )
    assert [str(w.message) for w in said] == [
        "server 'demo': enabled_tools: 'zz*' matches none of the server's tools",
        "server 'demo': disabled_tools: 'ad' matches none of the server's tools; did you mean 'add'?",
    ]
    assert row.tools == 2 == pool.status()["demo"].tools  # add and echo, of the demo's many
    assert any("'ad' matches none" in line for line in pool.logs("demo"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every pattern matches a tool: nothing to say
        assert pool.connect("plain", **demo_command(), disabled_tools=["pid"]).tools == len(
            pool.tools("plain")
        )


# ---------------------------------------------------------------- auth errors
def test_wrong_token_is_an_auth_error_without_retries(pool):
    server = HttpServer("http", "--require-token", "right-token-123")
    try:
        with pytest.raises(ConnectError, match="HTTP 401"):
            pool.connect("web", url=server.url, headers={"Authorization": "Bearer wrong-token-456"}, **FAST)
        row = pool.status()["web"]
        assert row.state == "failed" and row.retries == 0
        assert "wrong-token-456" not in row.last_error
        assert "rejected the credentials" in row.last_error
        with pytest.raises(ConnectError, match=r"HTTP 401.* asks for credentials and none were sent"):
            pool.connect("bare", url=server.url, **FAST)
        pool.connect("ok", url=server.url, config={"auth": {"type": "bearer", "token": "right-token-123"}})
        assert pool.call("ok", "add", {"a": 1, "b": 1}).data == 2
    finally:
        server.stop()


def test_events_are_logged_at_debug(pool, caplog):
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    pool.connect("demo", **demo_command())
    pool.tools("demo")
    messages = [r.getMessage() for r in caplog.records if r.name == "mcpnb"]
    assert any("connected" in m for m in messages)
    assert any("served from cache" in m for m in messages)


def test_the_connects_own_tool_list_is_logged_as_fetched_before_any_cache_hit(pool):
    pool.connect("demo", **demo_command())
    pool.tools("demo")
    said = [e.message for e in pool.connection("demo").events.history if e.kind == "cache"]
    fetched = [m for m in said if m.startswith("tools/list fetched from the server (")]
    assert fetched and said.index(fetched[0]) < said.index("tools/list served from cache")
    assert fetched[0].endswith(f"({len(pool.tools('demo'))} tools)")


def test_a_server_without_tools_is_logged_as_never_asked(pool):
    """The SDK's low-level server declares a tools capability only when it has a tools handler."""
    from mcp.server.lowlevel import Server

    async def list_prompts(ctx, params):
        return types.ListPromptsResult(prompts=[])

    pool.connect("bare", server=Server("bare", on_list_prompts=list_prompts), era="legacy")
    said = [e.message for e in pool.connection("bare").events.history if e.kind == "cache"]
    assert "no tools/list sent: the server declares no tools capability" in said


def test_a_server_that_stays_down_for_the_same_reason_warns_once_not_per_call(pool, caplog, tmp_path):
    """Each call to a failed server tries it once more; the caller's error says it is still
    failing, so the log warns again only when the reason changes."""
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    code_file = tmp_path / "code"
    code_file.write_text("3")
    why = tmp_path / "why"
    code = (  # its last words differ each time (a time stamp): still the same failure
        "import sys, pathlib, time; why = pathlib.Path(" + repr(str(why)) + "); "
        "said = why.read_text() if why.exists() else 'giving up'; "
        "print(f'[{time.time()}] ERROR ' + said, file=sys.stderr); "
        f"sys.exit(int(pathlib.Path({str(code_file)!r}).read_text()))"
    )
    with pytest.raises(ConnectError, match=r"exit code 3"):
        pool.connect("down", command=sys.executable, args=["-c", code], **FAST)

    def warned() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "mcpnb" and r.levelno >= logging.WARNING]

    before = len(warned())
    for _ in range(2):
        with pytest.raises(NotConnectedError, match=r"still failing: .*exit code 3"):
            pool.call("down", "anything")
    assert warned()[before:] == []
    history = [e.message for e in pool.connection("down").events.history]
    assert sum(m.startswith("still failing: ") for m in history) == 2  # the log has each try
    code_file.write_text("3")
    (tmp_path / "why").write_text("PermissionError: /var/db")  # the same exit, other last words: news
    with pytest.raises(NotConnectedError, match=r"PermissionError"):
        pool.call("down", "anything")
    assert [m for m in warned()[before:] if "still failing" in m and "PermissionError" in m]
    code_file.write_text("4")  # a new reason is news
    with pytest.raises(NotConnectedError, match=r"exit code 4"):
        pool.call("down", "anything")
    assert [m for m in warned()[before:] if "still failing" in m and "exit code 4" in m]


def test_a_chosen_log_level_is_sent_again_to_the_new_session_after_a_reconnect(pool):
    """2025-11-25 keeps ``logging/setLevel`` in the session: a server restarted under the pool
    forgot it, and the lines the person asked for stopped coming (the pool said "kept across
    reconnects"). probe-kit follows the spec: below the chosen level, it sends nothing."""
    from mcpnb.client.stdio import live_children

    pool.connect("p", command=sys.executable, args=["-m", "mcpnb.probekit"], era="legacy", retry_delay=0.2)
    assert pool.call("p", "test_logging_tool").text == "2 log notifications sent"  # two info lines
    pool.set_log_level("p", "error")
    assert pool.call("p", "test_logging_tool").text == "0 log notifications sent"
    [pid] = [pid for pid, name in live_children().items() if name == "p"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: pool.status()["p"].retries >= 1 and pool.status()["p"].state == "connected")
    assert pool.call("p", "test_logging_tool").text == "0 log notifications sent"  # from the first call


SEQUENTIAL = str(ROOT / "tests" / "servers" / "sequential_server.py")


@pytest.mark.parametrize("tool", ["block", "progress_block"])
def test_a_server_busy_with_a_call_is_not_replaced_for_unanswered_probes(pool, tool):
    """A server that handles one request at a time leaves probes waiting while a call runs: the
    call (within its tool_timeout, with progress or without) still gets its answer, on the same
    session, and the probes count again once it is done."""
    pool.connect("one", command=sys.executable, args=[SEQUENTIAL], health_check_interval=0.2, tool_timeout=30)
    pid = pool.call("one", "pid").text
    result = pool.call("one", tool, {"seconds": 2.5})
    assert result.text == f"{tool} done after 2.5 s"
    conn = pool.connection("one")
    said = [e.message for e in conn.events.history if e.kind == "health"]
    assert any("while 1 call(s) run: not counted" in m for m in said)  # probes did go unanswered
    assert not [e for e in conn.events.history if e.message.startswith("connection lost")]
    assert pool.call("one", "pid").text == pid and pool.status()["one"].retries == 0
    assert wait_until(lambda: pool.status()["one"].healthy is True)


#: A server that dies soon after every start (a bug that strikes on the first request it serves
#: in the background, say): it answers the handshake and its tool list, then exits.
CRASHES_SOON = """
import os, sys, threading
from mcp.server.mcpserver import MCPServer

server = MCPServer("flaky", log_level="ERROR")


@server.tool()
def ping() -> str:
    return "pong"


threading.Timer(1.5, lambda: (print("boom", file=sys.stderr, flush=True), os._exit(3))).start()
server.run("stdio")
"""


def test_a_server_that_crashes_soon_after_every_start_is_given_up_on(pool, tmp_path):
    """Each reconnect made a new session that died a second later, and the attempt count began
    again with each: the server was restarted forever. Now the count goes on across such quick
    losses, and the connection fails, saying why."""
    script = tmp_path / "flaky.py"
    script.write_text(CRASHES_SOON)
    pool.connect("flaky", command=sys.executable, args=[str(script)], **FAST)
    assert wait_until(lambda: pool.status()["flaky"].state == "failed", timeout=60)
    status = pool.status()["flaky"]
    assert (
        "gave up reconnecting" in status.last_error
        and "died within 10 s of each of its last" in status.last_error
    )
    assert status.retries <= FAST["max_retries"] + 1, status.retries
