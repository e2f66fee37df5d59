"""The pool over every transport, against the demo server in real processes (and in-process)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import DEMO, alive, children, demo_command, demo_server_object, free_port, wait_until

from mcpnb import (
    ArgumentsError,
    CallError,
    CallTimeoutError,
    ConnectError,
    NotConnectedError,
    Pool,
    ToolNotFoundError,
    UnknownServerError,
)
from mcpnb.client.events import State


def _connect(pool: Pool, transport: str, era: str, request) -> None:
    if transport == "stdio":
        pool.connect("demo", **demo_command(), era=era)
    elif transport == "inprocess":
        pool.connect("demo", server=demo_server_object(), era=era)
    else:
        url = request.getfixturevalue("http_url" if transport == "http" else "sse_url")
        pool.connect("demo", url=url, era=era)


@pytest.mark.parametrize("transport", ["stdio", "http", "sse", "inprocess"])
@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_connect_list_call_every_transport_and_era(pool, transport, era, request):
    _connect(pool, transport, era, request)
    row = pool.status()["demo"]
    assert row.state == "connected"
    assert row.transport == transport
    assert row.era == ("modern" if era == "auto" else "legacy")
    assert (row.server_name, row.server_version) == ("demo", "1.2.3")
    names = {t.name for t in pool.tools("demo")}
    assert {"echo", "add", "people", "point", "slow", "header"} <= names
    assert row.tools == len(names)

    result = pool.call("demo", "add", {"a": 2, "b": 40})
    assert not result.is_error
    assert result.structured == {"result": 42}
    assert result.data == 42
    assert result.schema_valid is True

    point = pool.call("demo", "point", {"x": 1, "y": 2})
    assert point.data == {"x": 1, "y": 2}
    assert pool.status()["demo"].last_latency_ms is not None


def test_connection_exposes_server_details(pool):
    pool.connect("demo", **demo_command())
    conn = pool.connection("demo")
    assert conn.instructions == "A demo server for mcpnb tests."
    status = pool.status()["demo"]
    assert status.instructions == conn.instructions
    assert repr(pool.status()).splitlines()[-1] == "instructions: A demo server for mcpnb tests."
    assert conn.capabilities.tools is not None
    assert conn.protocol_version == "2026-07-28"
    legacy = pool.connect("old", **demo_command(), era="legacy")
    assert legacy.protocol_version == "2025-11-25"


def test_structured_table_and_lenient_schema_check(pool):
    pool.connect("demo", **demo_command())
    table = pool.call("demo", "people")
    assert [r["name"] for r in table.data] == ["Ada", "Linus", "Grace"]
    assert table.df["age"].tolist() == [36, 54, 85]

    bad = pool.call("demo", "bad_point")  # the SDK would raise and drop this payload
    assert bad.structured == {"x": "not a number", "y": 2}
    assert bad.schema_valid is False
    assert "not a number" in bad.schema_error and "integer" in bad.schema_error
    assert "schema ⚠" in repr(bad)


def test_tool_error_is_a_result_not_an_exception(pool):
    pool.connect("demo", **demo_command())
    result = pool.call("demo", "fail", {"message": "kaput"})
    assert result.is_error
    assert "kaput" in result.text
    assert result.schema_valid is None


def test_unknown_tool_and_server_suggest(pool):
    pool.connect("demo", **demo_command())
    with pytest.raises(Exception, match="did you mean 'echo'"):
        pool.call("demo", "ecko", {"text": "x"})
    with pytest.raises(
        UnknownServerError, match=r"^no server named 'dmeo'; did you mean 'demo'\? \(connected: demo\)$"
    ):
        pool.call("dmeo", "echo", {"text": "x"})
    with pytest.raises(UnknownServerError, match=r"^no server named 'nothing' \(connected: demo\)$"):
        pool.call("nothing", "echo", {"text": "x"})  # it read "no server named 'nothing'; (connected: …)"
    with pytest.raises(ConnectError):
        pool.connect("broken", command="mcpnb-no-such-command", max_retries=0)
    with pytest.raises(UnknownServerError) as info:  # a server that failed to start is no "connected" one
        pool.call("nothing", "echo", {"text": "x"})
    assert str(info.value) == "no server named 'nothing' (failed: broken; connected: demo)"


def test_a_tool_named_as_the_magics_name_it_and_arguments_that_are_no_dict(pool):
    import pandas as pd

    pool.connect("demo", **demo_command())
    assert pool.call("demo.add", {"a": 1, "b": 2}).data == 3  # as %mcp call demo.add a=1 b=2
    assert pool.call("mcp__demo__add", {"a": 2, "b": 2}).data == 4
    row = pd.DataFrame({"a": [5], "b": [6]}).iloc[0]
    assert pool.call("demo", "add", row).data == 11  # a pandas row is a mapping of its columns
    with pytest.raises(ArgumentsError, match=r"^demo.add: the arguments must be a dict .* not a str\n"):
        pool.call("demo", "add", "a=1 b=2")  # it was "dictionary update sequence element #0 has length 1"
    with pytest.raises(TypeError, match="call\\(\\) needs a tool"):
        pool.call("demo")


def test_flat_names_round_trip(pool):
    pool.connect("demo", **demo_command())
    tool = next(t for t in pool.tools("demo") if t.name == "add")
    assert tool.flat_name == "mcp__demo__add"
    assert pool.call("mcp__demo__add", arguments={"a": 1, "b": 1}).data == 2


def test_resources_and_prompts(pool):
    pool.connect("demo", **demo_command())
    assert [str(r.uri) for r in pool.resources("demo")] == ["demo://greeting"]
    read = pool.read("demo", "demo://greeting")
    assert read.contents[0].text == "hello from demo"  # as the SDK's result has it
    assert read.text == "hello from demo" and read[0].text == read.text  # as %mcp read has it (was none)
    assert (
        read.sdk_result.contents == read.contents and read.meta == read.sdk_result.meta
    )  # the rest reads through
    assert repr(read) == "<ResourceContents demo demo://greeting>\nhello from demo"
    assert [p.name for p in pool.prompts("demo")] == ["review"]
    prompt = pool.prompt("demo", "review", {"code": "x = 1"})
    assert "x = 1" in prompt.messages[0].content.text  # as the SDK's result has it
    assert prompt.text == prompt[0].content.text and prompt.sdk_result.messages == prompt.messages
    assert repr(prompt).startswith("<PromptMessages demo.review>") and "[user] " in repr(prompt)


def test_stderr_is_captured_not_leaked(pool, capfd):
    pool.connect("demo", **demo_command())
    pool.call("demo", "stderr_line", {"text": "a line on stderr 4711"})
    conn = pool.connection("demo")
    assert wait_until(lambda: "a line on stderr 4711" in conn.stderr)
    assert any("a line on stderr 4711" in line for line in pool.logs("demo"))
    out, err = capfd.readouterr()
    assert "4711" not in out + err


def test_logs_read_right_after_a_call_have_its_stderr_line_however_throttled(pool, monkeypatch):
    """A server that had said much at its start has its stderr reading paused a while (the flood
    throttle): a line it printed during the call just made still waited in the pipe, and
    ``pool.logs()`` (``%mcp logs``) read at once did not show it. Here every read is throttled."""
    from mcpnb.client import transports

    monkeypatch.setattr(transports, "STDERR_BURST", 0.0)
    monkeypatch.setattr(transports, "STDERR_SHARE", 0.001)  # a pause of seconds after each read
    pool.connect("demo", **demo_command())
    for n in range(3):
        assert pool.call("demo", "stderr_line", {"text": f"said during call {n}"}).text == "printed"
        assert any(f"said during call {n}" in line for line in pool.logs("demo")), n
        assert any(f"said during call {n}" in line for line in pool.logs()), n  # every server's too


def test_a_huge_stderr_line_keeps_its_start_and_says_how_much_was_cut(pool):
    from mcpnb.client.callbacks import STDERR_LINE_CHARS

    pool.connect("demo", **demo_command())
    blob = "start-" + "y" * 50_000  # under the 64 KiB a line without its end is held for
    pool.call("demo", "stderr_line", {"text": blob})
    conn = pool.connection("demo")
    assert wait_until(lambda: any(line.startswith("start-") for line in conn.stderr))
    (kept,) = [line for line in conn.stderr if line.startswith("start-")]
    assert kept.startswith(blob[:STDERR_LINE_CHARS])
    assert kept.endswith(f" … ({len(blob) - STDERR_LINE_CHARS:,} more characters not kept)")
    assert max(len(line) for line in pool.logs("demo")) < STDERR_LINE_CHARS + 200


def test_a_command_that_cannot_run_says_what_is_wrong_with_it(pool, tmp_path):
    """ "permission denied: /tmp" sent people to check file permissions of a folder."""
    script = tmp_path / "server.py"
    script.write_text("print('hi')\n")  # not executable
    with pytest.raises(ConnectError, match=rf"{tmp_path} is a folder, not a program"):
        pool.connect("folder", command=str(tmp_path))
    with pytest.raises(ConnectError, match=rf"{script} is not executable: make it so \(chmod \+x\)"):
        pool.connect("script", command=str(script))
    assert pool.status()["script"].last_error.endswith("or start it with its interpreter")


def test_a_command_written_with_its_arguments_says_where_they_go(pool):
    """``command="python server.py stdio"`` is started without a shell: no program has that name."""
    whole = f"{sys.executable} {DEMO} stdio"
    with pytest.raises(ConnectError, match=r"'command' names the program alone and 'args' lists its"):
        pool.connect("whole", command=whole)
    with pytest.raises(ConnectError, match=r"command not found: /nonexistent/srv --flag$"):
        pool.connect("missing", command="/nonexistent/srv --flag")  # no program to name: no such hint


def test_partial_failure_leaves_good_server_working(pool):
    pool.connect("good", **demo_command())
    with pytest.raises(ConnectError, match="command not found"):
        pool.connect("missing", command="/nonexistent/mcp-server-xyz")
    with pytest.raises(ConnectError, match=r"refused|unreachable"):
        pool.connect("refused", url=f"http://127.0.0.1:{free_port()}/mcp", startup_timeout=10)

    table = pool.status()
    assert table["good"].state == "connected"
    for name in ("missing", "refused"):
        assert table[name].state == "failed"
        assert table[name].last_error and "\n" not in table[name].last_error
    assert pool.call("good", "add", {"a": 1, "b": 2}).data == 3
    with pytest.raises(NotConnectedError, match="failed"):
        pool.call("missing", "echo", {"text": "x"})
    assert {t.server for t in pool.tools()} == {"good"}  # listing all skips failed servers


def test_hanging_server_is_bounded_by_startup_timeout(pool):
    before = children()
    with pytest.raises(ConnectError, match="startup_timeout=1"):
        pool.connect(
            "silent", command=sys.executable, args=["-c", "import time; time.sleep(60)"], startup_timeout=1
        )
    assert pool.status()["silent"].state == "failed"
    assert wait_until(lambda: not (children() - before)), "the silent server was left running"


def test_call_timeout_cancels_on_the_server(pool):
    pool.connect("demo", **demo_command())
    with pytest.raises(CallTimeoutError, match="raise tool_timeout for server 'demo'"):
        pool.call("demo", "slow", {"seconds": 30, "tag": "t1"}, timeout=0.5)
    assert wait_until(lambda: pool.call("demo", "cancelled").data == ["t1"])
    assert pool.call("demo", "add", {"a": 1, "b": 1}).data == 2


def test_keyboard_interrupt_cancels_call_and_keeps_connection(pool, ctrl_c):
    pool.connect("demo", **demo_command())
    pool.call("demo", "echo", {"text": "warm"})
    # a real SIGINT, as Ctrl-C or the kernel's interrupt sends (interrupt_main would not wake a blocked wait)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pool.call("demo", "slow", {"seconds": 30, "tag": "interrupted"})
    timer.join()
    assert wait_until(lambda: pool.call("demo", "cancelled").data == ["interrupted"])
    assert pool.status()["demo"].state == "connected"
    assert pool.call("demo", "echo", {"text": "after"}).data == "after"


def test_killed_server_fails_cleanly_and_reconnects_by_hand(pool):
    pool.connect("demo", **demo_command(), max_retries=0)  # no automatic reconnect (see test_resilience)
    pool.connect("other", **demo_command())
    pid = pool.call("demo", "pid").data
    conn = pool.connection("demo")

    def kill_soon() -> None:  # once the call is on its way (a sleep guessed when, on a busy machine)
        assert wait_until(lambda: conn.asking.active_calls, timeout=60)
        os.kill(pid, signal.SIGKILL)

    threading.Thread(target=kill_soon).start()
    lost = r"was lost \(the server process was killed \(SIGKILL\)\); reconnect with pool.reconnect"
    with pytest.raises(CallError, match=lost):  # how it died, not the SDK's "connection closed"
        pool.call("demo", "slow", {"seconds": 30})
    assert pool.status()["demo"].state == "failed"
    assert pool.call("other", "add", {"a": 2, "b": 2}).data == 4  # the other server is untouched

    pool.reconnect("demo")
    assert pool.status()["demo"].state == "connected"
    assert pool.call("demo", "pid").data != pid


def test_close_leaves_no_child_process(pool):
    before = children()
    pool.connect("a", **demo_command())
    pool.connect("b", **demo_command())
    pids = {pool.call(n, "pid").data for n in ("a", "b")}
    assert pids <= children()
    pool.close()
    assert len(pool) == 0
    assert wait_until(lambda: not any(alive(p) for p in pids))
    assert wait_until(lambda: not (children() - before))


def test_disconnect_and_disabled(pool):
    pool.connect("demo", **demo_command())
    pid = pool.call("demo", "pid").data
    pool.disconnect("demo")
    assert "demo" not in pool
    assert wait_until(lambda: not alive(pid))
    with pytest.raises(UnknownServerError, match="'demo' was disconnected"):  # not "connected: none yet"
        pool.call("demo", "pid")
    # how to have it back is said, and works: as it was (a course's last cell disconnects it)
    with pytest.raises(UnknownServerError, match=r"pool\.reconnect\('demo'\)\) connects it again as it was"):
        pool.call("demo", "pid")
    assert pool.reconnect("demo").state == "connected" and "demo" in pool
    assert pool.call("demo", "pid").data != pid
    pool.disconnect("demo")

    # what it said as it ended is kept: a person often disconnects to read it
    said_goodbye = (
        "import atexit, runpy, sys; "
        "atexit.register(lambda: print('goodbye-from-server', file=sys.stderr, flush=True)); "
        f"sys.argv = [{DEMO!r}, 'stdio']; runpy.run_path({DEMO!r}, run_name='__main__')"
    )
    pool.connect("bye", command=sys.executable, args=["-c", said_goodbye])
    pool.disconnect("bye")
    assert any("stderr: goodbye-from-server" in entry for entry in pool.logs("bye"))
    assert any("goodbye-from-server" in entry for entry in pool.logs())  # every server's, the ended too
    pool.connect("bye", **demo_command())  # connected again: a log of its own from here
    assert not any("goodbye" in entry for entry in pool.logs("bye"))

    row = pool.connect("off", **demo_command(), enabled=False)
    assert row.state == "disabled"
    with pytest.raises(NotConnectedError, match="disabled"):
        pool.call("off", "echo", {"text": "x"})


def test_events_reach_subscribers(pool):
    seen = []
    pool.subscribe(seen.append)
    pool.connect("demo", **demo_command())
    states = [e.state for e in seen if e.kind == "state"]
    assert states == [State.CONNECTING, State.CONNECTED]
    pool.disconnect("demo")
    assert seen[-1].state == State.DISCONNECTED


def test_sync_adds_removes_and_reconfigures(pool):
    pool.sync({"a": demo_command(), "b": demo_command()})
    assert set(pool.names) == {"a", "b"}
    a_pid = pool.call("a", "pid").data
    b_pid = pool.call("b", "pid").data

    table = pool.sync({"a": demo_command(), "c": {**demo_command(), "env": {"MARK": "c"}}})
    assert set(pool.names) == {"a", "c"}
    assert [r.state for r in table] == ["connected", "connected"]
    assert pool.call("a", "pid").data == a_pid  # unchanged config: same session
    assert wait_until(lambda: not alive(b_pid))

    pool.sync({"a": {**demo_command(), "env": {"MARK": "changed"}}})
    assert pool.call("a", "env", {"name": "MARK"}).data == "changed"
    assert pool.call("a", "pid").data != a_pid


def test_async_twins_do_not_block_the_callers_loop(pool):
    async def scenario() -> tuple[int, object]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        task = asyncio.ensure_future(ticker())
        await pool.aconnect("demo", **demo_command())
        before = ticks
        result = await pool.acall("demo", "slow", {"seconds": 0.5})
        during = ticks - before
        tools = await pool.atools("demo")
        status = await pool.astatus()
        await pool.adisconnect("demo")
        task.cancel()
        return during, (result.data, len(tools) > 3, status["demo"].state)

    during, (data, listed, state) = asyncio.run(scenario())
    assert data == "slept 0.5"
    assert listed and state == "connected"
    assert during > 5  # the caller's loop kept running while the call was in flight


def test_env_and_cwd_reach_stdio_server(pool, tmp_path):
    pool.connect("demo", **demo_command(), env={"MCPNB_PROBE": "value-123"}, cwd=str(tmp_path))
    assert pool.call("demo", "env", {"name": "MCPNB_PROBE"}).data == "value-123"


def test_python_starts_the_interpreter_running_this_code(pool, tmp_path, monkeypatch):
    # PATH's first python is another interpreter (an unactivated venv's kernel, a conda base)
    shims = tmp_path / "bin"
    shims.mkdir()
    for name in ("python", "python3"):
        shim = shims / name
        shim.write_text("#!/bin/sh\necho 'the wrong python' >&2\nexit 3\n")
        shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    pool.connect("demo", command="python", args=[DEMO, "stdio"])
    pid = pool.call("demo", "pid").data
    assert os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(sys.executable)
    assert pool.connection("demo").config.command == "python"  # shown as written


def test_connect_replaces_existing_connection(pool):
    pool.connect("demo", **demo_command())
    first = pool.call("demo", "pid").data
    pool.connect("demo", **demo_command())
    assert pool.call("demo", "pid").data != first
    assert wait_until(lambda: not alive(first))


def test_default_pool_is_shared():
    from mcpnb import default_pool

    assert default_pool() is default_pool()


def test_connect_config_layers_and_partial_failure(pool, tmp_path, monkeypatch):
    import json

    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "good": {"command": sys.executable, "args": [DEMO, "stdio"], "env": {"MARK": "project"}},
                    "broken": {"command": "/nonexistent/server"},
                    "off": {"command": sys.executable, "args": [DEMO], "enabled": False},
                }
            }
        )
    )
    (project / ".mcp.local.json").write_text(json.dumps({"mcpServers": {"good": {"env": {"MARK": "local"}}}}))
    monkeypatch.chdir(project / "sub")  # found from the working directory upward

    table = pool.connect_config()
    assert {r.name: r.state for r in table} == {"good": "connected", "broken": "failed", "off": "disabled"}
    assert "command not found" in table["broken"].last_error
    assert pool.call("good", "env", {"name": "MARK"}).data == "local"  # the local layer won
    assert pool.tools().not_listed == {"broken": "failed", "off": "disabled"}
    assert pool.tools("good").not_listed == {}  # one server asked for: nothing else to say

    with pytest.raises(UnknownServerError, match="did you mean 'good'"):
        pool.connect_config(names=["goood"])
    only = pool.connect_config(project / ".mcp.json", names=["good"])
    assert [r.name for r in only] == ["good"]


def test_a_file_named_starts_its_own_servers_not_the_user_file_s(pool, tmp_path, monkeypatch):
    """The user file's servers start with a bare --config (every layer), not when a file is named:
    naming a file asks for its servers. A server both name still takes the user file's settings."""
    import json

    good = {"command": sys.executable, "args": [DEMO, "stdio"]}
    user = Path(os.environ["MCPNB_USER_CONFIG"])
    user.write_text(json.dumps({"mcpServers": {"personal": good, "both": {"toolTimeoutSec": 7}}}))
    named = tmp_path / "team" / "servers.json"
    named.parent.mkdir()
    named.write_text(json.dumps({"mcpServers": {"both": good, "broken": {"comand": "x"}}}))

    table = pool.connect_config(named)
    assert [(r.name, r.state) for r in table] == [("both", "connected"), ("broken", "failed")]
    assert "personal" not in [r.name for r in pool.status()]  # never started
    assert pool.connection("both").config.tool_timeout == 7  # the layers still merge
    assert [r.name for r in pool.connect_config(named, names=["personal"])] == ["personal"]  # asked for

    (tmp_path / ".mcp.json").write_text(named.read_text())
    monkeypatch.chdir(tmp_path)
    assert {r.name for r in pool.connect_config()} == {"personal", "both", "broken"}  # every layer
    assert [r.name for r in pool.connect_config(user)] == ["personal", "both"]  # the user file named
    monkeypatch.chdir(user.parent)
    assert [r.name for r in pool.connect_config(user.name)] == ["personal", "both"]  # by another spelling


def test_a_server_with_invalid_settings_does_not_keep_the_others_from_starting(pool, tmp_path):
    import json

    path = tmp_path / ".mcp.json"
    good = {"command": sys.executable, "args": [DEMO, "stdio"]}
    path.write_text(json.dumps({"mcpServers": {"typo": {**good, "tool_timout": 5}, "good": good}}))

    table = pool.connect_config(path)
    assert [(r.name, r.state) for r in table] == [("typo", "failed"), ("good", "connected")]  # file order
    assert table["typo"].transport == "stdio"  # what its entry says, though it was not started (was "?")
    why = table["typo"].last_error
    assert why.startswith(f"invalid settings: {path}: server 'typo': key 'tool_timout'")
    assert "did you mean 'tool_timeout'" in why
    assert [(r.name, r.state) for r in pool.status()] == [("typo", "failed"), ("good", "connected")]
    assert pool.call("good", "echo", {"text": "up"}).data == "up"
    listed = pool.tools()  # every server's tools: the one missing is named, not silently left out
    assert {t.server for t in listed} == {"good"} and listed.not_listed == {"typo": "invalid settings"}
    with pytest.raises(
        UnknownServerError, match=r"server 'typo' was not started: invalid settings: .*tool_timout"
    ):
        pool.call("typo", "echo", {"text": "x"})

    path.write_text(json.dumps({"mcpServers": {"good": good, "typo": {**good, "tool_timeout": 5}}}))
    fixed = pool.connect_config(path, names=["typo"])  # fixed in the file: it starts
    assert [(r.name, r.state) for r in fixed] == [("typo", "connected")]
    assert pool.call("typo", "echo", {"text": "x"}).data == "x"
    pool.reconnect("good")
    assert [r.name for r in pool.status()] == ["typo", "good"]  # fixed or restarted: no row moves

    path.write_text(json.dumps({"mcpServers": {"good": {**good, "tool_timout": 5}}}))
    kept = pool.connect_config(path)["good"]  # a typo in the file of a live one: it goes on as it was
    assert kept.state == "connected" == pool.status()["good"].state
    assert kept.last_error.startswith("kept as it was: the file's settings are invalid: ")
    assert "tool_timout" in kept.last_error and pool.call("good", "echo", {"text": "on"}).data == "on"

    path.write_text(json.dumps({"mcpServers": {"broken": {"comand": "x"}}}))
    pool.connect_config(path)
    assert pool.status()["broken"].state == "failed"
    pool.disconnect("broken")  # never started: forgotten
    assert "broken" not in [r.name for r in pool.status()]


@pytest.mark.parametrize("awaited", [False, True], ids=["call", "acall"])
def test_a_failed_call_shows_in_ipython_without_the_thread_plumbing(pool, awaited):
    """The traceback a person reads: their line, then where the error was raised; the hops
    between threads (pool, runtime, bridge) are marked hidden, as IPython and pytest understand."""
    from IPython.core.ultratb import AutoFormattedTB

    pool.connect("demo", server=demo_server_object())
    try:
        if awaited:
            asyncio.run(pool.acall("demo", "nope"))
        else:
            pool.call("demo", "nope")
    except ToolNotFoundError:
        etype, value, tb = sys.exc_info()
    shown = AutoFormattedTB(mode="Context", theme_name="nocolor")
    text = shown.stb2text(shown.structured_traceback(etype, value, tb))
    assert "skipping hidden" in text
    assert "bridge.py" not in text and "runtime.py" not in text
    assert "catalog.py" in text and "has no tool 'nope'" in text  # where it was raised, and why


def test_an_http_refusal_at_connect_says_what_it_means(pool, http_url, sse_url):
    """The SDK says "-32603" or raises HTTPStatusError; the person hears the status and the
    likely fix for the usual mix-ups: a wrong path, or the other HTTP transport."""
    with pytest.raises(ConnectError) as info:
        pool.connect("posts-to-sse", url=sse_url, transport="http", startup_timeout=10)
    assert str(info.value) == (
        f"could not connect to 'posts-to-sse': HTTP 405 Method Not Allowed from {sse_url}: it takes no "
        "MCP requests there; if it is a legacy SSE endpoint, use transport 'sse'"
    )
    with pytest.raises(ConnectError, match=r"HTTP 400 Bad Request from .*use transport 'http', not 'sse'$"):
        pool.connect("sse-to-http", url=http_url, transport="sse", startup_timeout=10)
    wrong = http_url.replace("/mcp", "/nope")
    for transport in ("http", "sse"):
        with pytest.raises(ConnectError, match=rf"HTTP 404 Not Found from {wrong}: nothing answers MCP at"):
            pool.connect(f"path-{transport}", url=wrong, transport=transport, startup_timeout=10)
    assert pool.status()["path-http"].last_error.startswith(f"HTTP 404 Not Found from {wrong}")


def test_an_address_where_no_mcp_server_answers_says_so(pool, tmp_path):
    """A port nothing listens on, and a plain web server (Python's http.server: GET only, 501 to a
    POST): each says what is at that address and what to check, not only the HTTP library's words."""
    port = free_port()
    with pytest.raises(ConnectError) as info:
        pool.connect("nobody", url=f"http://127.0.0.1:{port}/mcp", startup_timeout=10)
    assert str(info.value).endswith(f"is the server at 127.0.0.1:{port} running, on that port?")
    web = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert web.stdout is not None
        served = int(web.stdout.readline().split("port ")[1].split()[0])  # "Serving HTTP on ... port N"
        url = f"http://127.0.0.1:{served}/mcp"
        with pytest.raises(ConnectError) as info:
            pool.connect("static", url=url, startup_timeout=10)
        assert str(info.value).endswith(
            f"HTTP 501 Not Implemented from {url} (Error response): the web server there "
            "takes no POST requests: is that an MCP server's address?"
        )
    finally:
        web.terminate()
        web.wait(10)
        web.stdout.close()


def test_a_completion_for_a_prompt_or_template_the_server_lacks_says_so(pool):
    """probe-kit answers an unknown prompt or template with no values, as it answers "nothing starts
    so": an empty list for a typo would read as "no suggestions"."""
    from mcpnb.client.errors import ArgumentsError
    from mcpnb.probekit import create_server

    pool.connect("probe", server=create_server())
    assert "gencommit" in pool.complete("probe", "explain_tool", "tool_name", "gen")
    assert pool.complete("probe", "explain_tool", "tool_name", "zzz") == []
    with pytest.raises(ArgumentsError, match="no prompt 'explain_tol', so nothing completes; did you mean"):
        pool.complete("probe", "explain_tol", "tool_name", "gen")
    with pytest.raises(
        ArgumentsError, match=r"no resource template 'probe://file/\{\+path\}'.*'probe://files"
    ):
        pool.complete("probe", "", "path", "w", template="probe://file/{+path}")
    with pytest.raises(
        ArgumentsError, match=r"has no argument 'pat'; did you mean 'path'\? \(its arguments: path\)"
    ):
        pool.complete("probe", "", "pat", "w", template="probe://files/{+path}")


def test_connect_config_reads_a_vs_code_file_with_its_inputs(pool, tmp_path):
    """``.vscode/mcp.json``: probe-kit starts with the toolset and root the file asks for, a server
    whose input was not given is a failed row saying which, and a password input is scrubbed."""
    import json

    project = tmp_path / "proj"
    (project / ".vscode").mkdir(parents=True)
    (project / ".vscode" / "mcp.json").write_text(
        "{\n  // as VS Code writes it\n"
        + json.dumps(
            {
                "inputs": [
                    {"type": "promptString", "id": "toolset", "description": "Which toolset"},
                    {"type": "promptString", "id": "key", "description": "API key", "password": True},
                ],
                "servers": {
                    "probe": {
                        "type": "stdio",
                        "command": sys.executable,
                        "args": [
                            "-m",
                            "mcpnb.probekit",
                            "--toolset",
                            "${input:toolset}",
                            "--root",
                            "${workspaceFolder}",
                        ],
                        "env": {"PROBE_KEY": "${input:key}"},
                    },
                    "other": {
                        "command": sys.executable,
                        "args": ["-m", "mcpnb.probekit", "--toolset", "${input:toolset}"],
                    },
                },
            }
        )[1:]
    )
    table = pool.connect_config(
        project / ".vscode" / "mcp.json", ["probe"], inputs={"toolset": "core", "key": "k-SECRET-1"}
    )
    assert table["probe"].state == "connected" and table["probe"].tools == 15  # the core toolset
    status = json.loads(pool.read("probe", "probe://status").contents[0].text)
    assert status["root"] == str(project.resolve())  # ${workspaceFolder}: the folder holding .vscode
    assert "k-SECRET-1" not in repr(pool.status()) + " ".join(pool.logs("probe"))
    table = pool.connect_config(project / ".vscode" / "mcp.json", ["other"])
    assert table["other"].state == "failed" and "needs input 'toolset'" in table["other"].last_error
    assert pool.status()["probe"].state == "connected"  # the other server is untouched


def test_connect_config_reads_cursors_file(pool, tmp_path, monkeypatch):
    """``.cursor/mcp.json``: probe-kit starts at ``${workspaceFolder}`` with ``${env:…}`` filled."""
    import json

    project = tmp_path / "proj"
    (project / ".cursor").mkdir(parents=True)
    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpnb.probekit", "--toolset", "${env:PROBE_SET}", "--root", "${workspaceFolder}"],
    }
    (project / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"probe": entry}}))
    monkeypatch.setenv("PROBE_SET", "core")
    table = pool.connect_config(project / ".cursor" / "mcp.json")
    assert table["probe"].state == "connected" and table["probe"].tools == 15
    status = json.loads(pool.read("probe", "probe://status").contents[0].text)
    assert status["root"] == str(project.resolve())


def test_resources_prompts_and_completions_have_async_twins(pool):
    """An awaiting cell (or any asyncio app) reads and renders without blocking its own loop."""
    from mcpnb.probekit import create_server

    pool.connect("probe", server=create_server())

    async def scenario():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.ensure_future(tick())
        read = await pool.aread("probe", "probe://status")
        prompt = await pool.aprompt("probe", "explain_tool", {"tool_name": "gencommit"})
        listed = (
            await pool.aresources("probe"),
            await pool.aresource_templates("probe"),
            await pool.aprompts("probe"),
        )
        done = await pool.acomplete("probe", "explain_tool", "tool_name", "gen")
        ticker.cancel()
        return read, prompt, listed, done, ticks

    read, prompt, (resources, templates, prompts), done, ticks = asyncio.run(scenario())
    assert '"server": "probe-kit"' in read.text and read.uri == "probe://status"
    assert "gencommit" in prompt.text and prompt.name == "explain_tool"
    assert resources and templates and "explain_tool" in {p.name for p in prompts}
    assert "gencommit" in done and ticks > 0  # the caller's loop ran while it waited
