"""stdio servers that fail the ways real ones do: killed mid-call, hung at start, deaf to SIGTERM,
printing garbage, flooding logs, answering with 10 MB. Each test checks what the person is told,
the pool's state afterwards, and that no process is left."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading

import pytest
from conftest import ROOT, alive, wait_until

from faults.conftest import QUICK, no_process_left
from faults.test_sdk_noise import sdk_warnings_shown
from mcpnb import CallError, ConnectError, NotConnectedError
from mcpnb.client import stdio
from mcpnb.client.interaction import LOG_LIMIT


def _killed_mid_call(pool, marks, pid: int, **call: object) -> BaseException:
    """What a slow call on ``srv`` raises when its server ``pid`` is killed with SIGKILL mid-call."""
    outcome: dict[str, BaseException] = {}

    def slow_call() -> None:
        try:
            pool.call("srv", "slow", {"seconds": 60, "tag": "k"}, **call)
        except Exception as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=slow_call, daemon=True)
    thread.start()
    assert wait_until(lambda: (marks.path / "started-k").exists())
    os.kill(pid, signal.SIGKILL)
    thread.join(30)
    assert not thread.is_alive(), "the call waited on for a server that had died"
    return outcome["error"]


def test_kill_9_mid_call_says_lost_and_reconnects(pool, marks):
    pool.connect("srv", **marks.stdio(), env={"DEMO_MARKS": str(marks.path)}, **QUICK)
    (first,) = marks.wait_for(1)
    error = _killed_mid_call(pool, marks, first)
    assert isinstance(error, CallError)
    assert str(error) == (  # how it died, not the SDK's "connection closed"
        "slow() failed: the connection to 'srv' was lost (the server process was killed (SIGKILL)); "
        "reconnecting in the background"
    )
    assert pool.call("srv", "echo", {"text": "back"}).data == "back"  # waits for the new session
    row = pool.status()["srv"]
    assert row.state == "connected" and row.retries == 1
    assert len(marks.wait_for(2)) == 2
    pool.close()
    no_process_left(marks)


def test_server_that_hangs_at_start_fails_the_connect_and_is_killed(pool, marks):
    with pytest.raises(ConnectError) as info:
        pool.connect("hung", **marks.stdio("--hang"), startup_timeout=3, **QUICK)
    assert str(info.value) == (
        "could not connect to 'hung': no answer within startup_timeout=3 s; "
        "raise startup_timeout for server 'hung' if it is just slow"
    )
    row = pool.status()["hung"]
    assert row.state == "failed" and row.retries == 0
    no_process_left(marks)  # it ignores stdin EOF and SIGTERM: only SIGKILL ended it


def test_a_program_that_answers_text_not_json_rpc_is_named_as_such(pool, tmp_path):
    """Lesson 09's "server" answers every line with a friendly sentence: the handshake gets no
    answer, and the timeout says what it wrote instead and what to check, not only "raise
    startup_timeout". A silent one that said something on stderr first gets that line."""
    chatty = "import sys\nfor line in sys.stdin:\n    print('hello! I am not JSON-RPC', flush=True)"
    with pytest.raises(ConnectError) as info:
        pool.connect("noise", command=sys.executable, args=["-c", chatty], startup_timeout=3, **QUICK)
    assert str(info.value) == (
        "could not connect to 'noise': no answer within startup_timeout=3 s: it wrote "
        f"'hello! I am not JSON-RPC' on stdout, which is not JSON-RPC; is {sys.executable!r} an MCP "
        "server over stdio? (a print() to stdout gets in the way)"
    )
    # text is no slowness: the next call says so at once instead of waiting out startup_timeout again
    with pytest.raises(NotConnectedError) as down:
        pool.call("noise", "anything")
    assert "which is not JSON-RPC" in str(down.value) and "the next call tries again" not in str(down.value)
    script = tmp_path / "chatty_server.py"  # named with its interpreter, not the interpreter alone
    script.write_text(chatty)
    with pytest.raises(
        ConnectError, match=rf"is '{re.escape(sys.executable)} {re.escape(str(script))}' an MCP"
    ):
        pool.connect("script", command=sys.executable, args=[str(script)], startup_timeout=3, **QUICK)
    waits = "import sys, time\nprint('waiting for the database at db:5432', file=sys.stderr)\ntime.sleep(60)"
    with pytest.raises(ConnectError) as info:
        pool.connect("waits", command=sys.executable, args=["-c", waits], startup_timeout=3, **QUICK)
    assert str(info.value).endswith(
        "raise startup_timeout for server 'waits' if it is just slow (server stderr: waiting for the "
        "database at db:5432)"
    )


def test_a_reconnect_that_times_out_says_nothing_of_the_earlier_process(pool, tmp_path):
    """The first start crashed saying why; the fix made it start but hang: the timeout must not
    quote the old crash (it is in the server's log, not in this attempt's reason)."""
    flag = tmp_path / "started-once"
    code = (
        "import pathlib, sys, time\n"
        f"flag = pathlib.Path({str(flag)!r})\n"
        "if not flag.exists():\n"
        "    flag.touch(); print('RuntimeError: DATABASE_URL is not set', file=sys.stderr); sys.exit(1)\n"
        "time.sleep(60)"
    )
    with pytest.raises(ConnectError, match=r"DATABASE_URL is not set"):
        pool.connect("db", command=sys.executable, args=["-c", code], startup_timeout=3, **QUICK)
    with pytest.raises(ConnectError) as info:
        pool.reconnect("db")
    assert str(info.value) == (
        "could not connect to 'db': no answer within startup_timeout=3 s; "
        "raise startup_timeout for server 'db' if it is just slow"
    )
    assert any("DATABASE_URL is not set" in line for line in pool.logs("db"))  # still in the log


def test_a_server_that_exits_at_start_says_its_exit_code_and_last_words(pool):
    code = "import sys; print('MY_API_KEY is not set', file=sys.stderr); sys.exit(3)"
    with pytest.raises(ConnectError) as info:
        pool.connect("quits", command="python", args=["-c", code], **QUICK)
    assert str(info.value) == (  # not the SDK's "connection closed" that the exit caused
        "could not connect to 'quits': the server process exited (exit code 3) "
        "(server stderr: MY_API_KEY is not set)"
    )
    assert pool.status()["quits"].last_error == str(info.value).removeprefix("could not connect to 'quits': ")
    with pytest.raises(NotConnectedError) as down:
        pool.call("quits", "anything")
    assert str(down.value).startswith(  # once "server 'quits' is failed: still failing: ..."
        "server 'quits' is still failing: the server process exited (exit code 3)"
    )
    logged = [event.message for event in pool.connection("quits").events.history]
    assert not [m for m in logged if "tools/list" in m], logged  # nothing was fetched: the log says so


def test_a_node_server_that_crashes_at_start_is_told_by_its_error_not_nodes_banner(pool, tmp_path):
    # Node ends a crash with its stack, the error's fields and "Node.js v20.x": the last line says
    # nothing about what went wrong; the error line above it does
    missing = tmp_path / "no-such-server.js"
    with pytest.raises(ConnectError) as info:
        pool.connect("js", command="node", args=[str(missing)], **QUICK)
    message = str(info.value)
    assert f"(server stderr: Error: Cannot find module '{missing}')" in message, message
    assert "Node.js v" not in message


def test_a_python_server_that_crashes_at_start_is_told_by_its_exception(pool):
    code = "import logging; logging.warning('starting'); import no_such_module_here"
    with pytest.raises(ConnectError) as info:
        pool.connect("py", command="python", args=["-c", code], **QUICK)
    assert str(info.value).endswith(
        "(server stderr: ModuleNotFoundError: No module named 'no_such_module_here')"
    )


def test_server_that_ignores_sigterm_ends_on_close(pool, marks):
    pool.connect("deaf", **marks.stdio("--ignore-term"), **QUICK)
    (pid,) = marks.wait_for(1)
    assert stdio.live_children().get(pid) == "deaf"
    pool.close()
    assert pool.names == [] and pid not in stdio.live_children()
    no_process_left(marks)


def test_garbage_on_stdout_goes_to_the_server_log_not_the_cell(pool, marks, capfd, caplog):
    pool.connect("noisy", **marks.stdio("--garbage"), **QUICK)
    assert pool.call("noisy", "add", {"a": 2, "b": 3}).data == 5
    logs = "\n".join(pool.logs("noisy"))
    assert " noisy stdout: starting up..." in logs  # its own kind: not what it wrote on stderr
    assert " noisy stdout: {not json" in logs
    assert "not JSON-RPC" not in logs and " noisy stderr: starting up" not in logs
    assert pool.status()["noisy"].state == "connected"
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "not json" not in out + err
    assert sdk_warnings_shown(caplog) == []
    pool.close()
    no_process_left(marks)


def test_a_print_in_a_python_server_reaches_its_log_at_once(pool, marks):
    """A ``print()`` while debugging a Python server (no flush) sat in its stdout buffer until the
    process ended: the author saw it only after a reconnect, under the wrong time."""
    pool.connect("dbg", **marks.stdio(), **QUICK)
    assert pool.call("dbg", "debug_print", {"text": "debug: inside the tool"}).data == "printed"
    line = "debug: inside the tool"
    assert wait_until(lambda: any(line in entry for entry in pool.logs("dbg")), timeout=10)
    assert pool.status()["dbg"].state == "connected"  # the session goes on
    pool.close()
    no_process_left(marks)


def test_a_flood_of_log_notifications_is_capped_under_the_result(pool, marks):
    from mcpnb.notebook.render import result_bundle

    pool.connect("chatty", **marks.stdio(), **QUICK)
    result = pool.call("chatty", "flood", {"n": 3000})
    assert result.data == "sent 3000 log lines"
    assert len(result.logs) == LOG_LIMIT and result.logs_dropped == 3000 - LOG_LIMIT
    assert result.logs[-1].data == "log line 3000 of 3000"  # the newest are kept
    shown = result_bundle(result)
    summary = f"server log: the last {LOG_LIMIT} of 3,000 messages ({3000 - LOG_LIMIT:,} dropped)"
    assert summary in shown["text/plain"] and summary in shown["text/html"]
    assert "log line 1 of 3000" not in shown["text/plain"]
    assert len(shown["text/plain"]) < 40_000
    assert pool.status()["chatty"].state == "connected"
    pool.close()
    no_process_left(marks)


def test_a_10_mb_result_arrives_whole(pool, marks):
    pool.connect("big", **marks.stdio(), **QUICK)
    result = pool.call("big", "big", {"mb": 10})
    assert result.data == "x" * (10 * 1024 * 1024)
    assert pool.call("big", "echo", {"text": "after"}).data == "after"  # the session is fine
    assert pool.status()["big"].state == "connected"
    pool.close()
    no_process_left(marks)


def test_a_missing_cwd_says_so(pool, marks, tmp_path):
    gone = tmp_path / "no-such-folder"
    with pytest.raises(ConnectError) as info:
        pool.connect("srv", **marks.stdio(), cwd=str(gone), **QUICK)
    assert str(info.value) == (
        f"could not connect to 'srv': server 'srv': key 'cwd': the working directory {str(gone)!r} "
        "does not exist"
    )
    assert "command not found" not in str(info.value)
    assert pool.status()["srv"].state == "failed"
    assert marks.pids() == set()  # nothing was started


def test_a_server_that_dies_between_calls_shows_at_once_and_comes_back(pool, marks):
    """No request, no health probe: the end of the server's output is the news (the status table
    says so now, not at the next call), and the pool starts it again in the background."""
    pool.connect("srv", **marks.stdio(), **{**QUICK, "retry_delay": 1.0})
    (first,) = marks.wait_for(1)
    os.kill(first, signal.SIGKILL)
    assert wait_until(lambda: pool.status()["srv"].state == "reconnecting")
    assert "the server process was killed (SIGKILL)" in pool.status()["srv"].last_error  # why, meanwhile
    assert wait_until(lambda: pool.status()["srv"].retries >= 1)
    lost = [
        e.message for e in pool.connection("srv").events.history if e.message.startswith("connection lost")
    ]
    assert lost == ["connection lost: the server process was killed (SIGKILL)"]
    assert wait_until(lambda: pool.status()["srv"].state == "connected")
    assert pool.call("srv", "pid").data != first
    pool.close()
    no_process_left(marks)


def test_a_flood_without_newlines_ends_the_session_not_the_kernel(pool, marks):
    """A server that dumps megabytes of bytes on stdout with no newline (a bug) would make the kernel
    hold all of it: past ``max_message_mb`` the session ends, the call says why, other servers go on."""
    pool.connect("flood", **marks.stdio(), max_message_mb=1, **QUICK)
    pool.connect("other", **marks.stdio(), **QUICK)
    with pytest.raises(CallError) as info:
        pool.call("flood", "spew", {"mb": 8})
    said = str(info.value)
    assert said.startswith("spew() failed: the connection to 'flood' was lost (")
    assert "'flood' sent a message over max_message_mb=1 (MB)" in said
    row = pool.status()["flood"]
    assert row.state == "failed" and row.retries == 0  # starting it again would only repeat it
    assert "raise max_message_mb for server 'flood'" in row.last_error
    assert pool.call("other", "echo", {"text": "fine"}).data == "fine"
    pool.close()
    no_process_left(marks)


def test_max_message_mb_bounds_an_answer_and_raising_it_lets_it_through(pool, marks):
    """``big`` sends its text twice (content and structuredContent): ``mb`` of text is a message
    of about twice that."""
    pool.connect("tight", **marks.stdio(), max_message_mb=1, **QUICK)
    assert pool.call("tight", "big", {"mb": 0.25}).data == "x" * (256 * 1024)  # under the bound
    with pytest.raises(CallError, match="max_message_mb=1 "):
        pool.call("tight", "big", {"mb": 2})
    pool.connect("roomy", **marks.stdio(), max_message_mb=6, **QUICK)
    assert len(pool.call("roomy", "big", {"mb": 2}).data) == 2 * 1024 * 1024
    pool.close()
    no_process_left(marks)


def test_a_server_whose_helper_keeps_its_output_open_is_still_seen_to_die(pool, marks, tmp_path):
    """A launcher (``sh -c "helper & exec server"``) leaves a child that holds the server's stdout:
    the server's death brings no end of output, yet the call hears how it died at once (not after
    its timeout, with a cancel sent to nobody), and the helper ends with the server's group."""
    helper_pid = tmp_path / "helper.pid"
    server = " ".join([sys.executable, *marks.stdio()["args"]])
    launcher = f"sleep 600 & echo $! > {helper_pid}; exec {server}"
    pool.connect("srv", command="sh", args=["-c", launcher], env={"DEMO_MARKS": str(marks.path)}, **QUICK)
    (first,) = marks.wait_for(1)
    helper = int(helper_pid.read_text())
    error = _killed_mid_call(pool, marks, first, timeout=60)
    assert str(error) == (
        "slow() failed: the connection to 'srv' was lost (the server process was killed (SIGKILL)); "
        "reconnecting in the background"
    )
    assert wait_until(lambda: not alive(helper)), "the helper outlived its server"
    assert pool.call("srv", "echo", {"text": "back"}).data == "back"
    pool.close()
    no_process_left(marks)


SEQUENTIAL = str(ROOT / "tests" / "servers" / "sequential_server.py")


def test_a_malformed_answer_fails_its_call_at_once_and_a_batch_is_read(pool):
    """``"result": null`` for a pending request, or an answer line cut short: the call says what is
    wrong with the answer now, not after its tool_timeout; an answer in an array (the 2025-03-26
    batch form) is read."""
    pool.connect("odd", command=sys.executable, args=[SEQUENTIAL], tool_timeout=60, **QUICK)
    pid = pool.call("odd", "pid").text
    with pytest.raises(CallError) as info:
        pool.call("odd", "null_result")
    assert str(info.value) == (
        "null_result() on 'odd' failed: the server's answer is not valid JSON-RPC (result: Input should "
        "be a valid dictionary); the line is in its log (%mcp logs) (MCP error -32603)"
    )
    assert pool.call("odd", "batched").text == "in a batch"
    with pytest.raises(CallError) as info:  # a line cut short that starts as this call's answer
        pool.call("odd", "cut_short")
    assert str(info.value).startswith(
        "cut_short() on 'odd' failed: the server's answer is not valid JSON (Unterminated string"
    )
    with pytest.raises(CallError) as info:  # a print() with no newline before the answer's line
        pool.call("odd", "print_before")
    assert "came after other text on its line ('working...'): a print() without a newline?" in str(info.value)
    assert pool.call("odd", "pid").text == pid  # the same session all along
    logged = "\n".join(pool.logs("odd"))
    assert '"result": null' in logged and "in a batch" not in logged


def test_an_answer_for_a_request_never_sent_is_said_in_the_servers_log(pool):
    """As over HTTP and legacy SSE (tests/faults/test_wrong_answer_id.py): the SDK dropped it with
    a debug line only, and a server that gets its ids wrong left nothing said anywhere."""
    pool.connect("odd", command=sys.executable, args=[SEQUENTIAL], tool_timeout=60, **QUICK)
    assert pool.call("odd", "stray_answer").text == "the real answer"
    assert wait_until(lambda: any("never sent" in line for line in pool.logs("odd")))
    (said,) = [line for line in pool.logs("odd") if "never sent" in line]
    assert "[warning]" in said and "100" in said  # which id: its own + 1000
    assert pool.call("odd", "pid").text  # the session goes on


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_task_whose_server_was_started_again_says_so_not_its_ttl(pool, era):
    """A stdio server killed while its task runs comes back with no tasks: the task's handle said
    "tasks are kept only for their TTL after they end", which blames the wrong thing."""
    from mcpnb.client.tasks import TaskExpiredError

    args = ["-m", "mcpnb.probekit", "--toolset", "full"]
    pool.connect("pk", command=sys.executable, args=args, era=era, **QUICK)
    handle = pool.start_task("pk", "slow_task", {"steps": 40, "delay": 0.5})
    assert wait_until(lambda: handle.refresh() == "working")
    (pid,) = (p for p, name in stdio.live_children().items() if name == "pk")
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: pool.status()["pk"].state == "connected" and pool.status()["pk"].retries == 1)
    with pytest.raises(TaskExpiredError) as info:
        handle.result(timeout=30)
    said = str(info.value)
    assert "the server was started again since the task began" in said
    assert "its TTL, counted" not in said  # (the server's own words may guess so)


NOISY = str(ROOT / "tests" / "servers" / "noisy_server.py")


def test_a_server_that_floods_stderr_waits_on_its_pipe_and_loses_no_line(pool, marks):
    """A server writing stderr as fast as it can took the runtime loop's time from every other
    server (their calls ~20× slower). Its lines are now read at a share of the loop's time: the
    log says so once, the other server answers throughout, and every line arrives, in order."""
    from mcpnb.client.transports import STDERR_FLOOD

    lines = 200_000
    pool.connect("quiet", **marks.stdio(), **QUICK)
    pool.connect("noisy", command=sys.executable, args=[NOISY], env={"NOISY_LINES": str(lines)}, **QUICK)
    noisy = pool.connection("noisy")
    calls = 0
    while noisy.stderr_count < lines // 2 and calls < 20_000:  # (bounded, should the flood not come)
        assert pool.call("quiet", "echo", {"text": "here"}).data == "here"
        calls += 1
    assert wait_until(lambda: noisy.stderr_count >= lines + 1, timeout=120)
    assert noisy.stderr_count == lines + 1  # each line once, and the note once
    kept = [line for line in noisy.stderr if line != STDERR_FLOOD]
    assert kept[-1] == f"noise line {lines} of {lines}"
    numbers = [int(line.split()[2]) for line in kept]
    assert numbers == list(range(numbers[0], lines + 1))  # in order, none missing
    assert pool.call("noisy", "echo", {"text": "fine"}).data == "fine"


def test_a_server_that_floods_stderr_then_crashes_keeps_its_last_words(pool, marks):
    """Its lines wait in the pipe while the reader takes its share of the loop's time: the session's
    end closed the pipe with them still in it, and the crash's own last line was lost."""
    lines = 100_000
    env = {"NOISY_LINES": str(lines), "NOISY_EXIT": "1"}
    pool.connect("noisy", command=sys.executable, args=[NOISY], env=env, **{**QUICK, "max_retries": 0})
    noisy = pool.connection("noisy")
    assert wait_until(lambda: pool.status()["noisy"].state != "connected", timeout=120)
    assert wait_until(lambda: any("fatal: out of patience" in line for line in pool.logs("noisy")), 10), (
        noisy.stderr_count,
        list(noisy.stderr)[-3:],
    )
    assert noisy.stderr_count == lines + 2  # each line once, the flood's note, the last words
    assert "exit code 3" in (pool.status()["noisy"].last_error or "")


BANNER_SERVER = """
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

starts = Path(sys.argv[1])
start = len(starts.read_text().split()) + 1 if starts.exists() else 1
starts.write_text(starts.read_text() + f"{os.getpid()} " if starts.exists() else f"{os.getpid()} ")
print("weather server starting", flush=True)  # a print() in the way, on every start
if start in (2, 4):
    sys.exit("port 8765 is still held by the last run")
server = MCPServer("weather")


@server.tool()
def echo(text: str) -> str:
    return text


server.run()
"""


def test_a_banner_on_stdout_does_not_stop_retries_when_the_start_failed_otherwise(pool, tmp_path):
    # any stdout line in a failed start stopped trying, as though the program answered text
    # instead of JSON-RPC: the next call refused at once, the background retries gave up. The
    # server's 2nd and 4th starts exit (time fixes it); the others serve.
    script, starts = tmp_path / "banner_server.py", tmp_path / "starts"
    script.write_text(BANNER_SERVER)
    pool.connect("w", command=sys.executable, args=[str(script), str(starts)], **QUICK)
    assert pool.call("w", "echo", {"text": "one"}).text == "one"
    with pytest.raises(ConnectError, match=r"exit code 1.*port 8765 is still held"):
        pool.reconnect("w")  # start 2
    assert pool.call("w", "echo", {"text": "two"}).text == "two"  # start 3: the call tries again
    os.kill(int(starts.read_text().split()[2]), signal.SIGKILL)  # start 4 fails, a retry serves
    assert wait_until(lambda: len(starts.read_text().split()) == 5)
    assert pool.call("w", "echo", {"text": "three"}).text == "three"
    assert pool.status()["w"].state == "connected"
    pool.close()
    assert wait_until(lambda: not any(alive(int(pid)) for pid in starts.read_text().split()))
