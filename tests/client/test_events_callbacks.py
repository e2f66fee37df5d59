"""Subscribers and the ``mcpnb`` logger, against real servers that really die (SIGKILL).

A subscriber runs inside mcpnb's own work (the task that reconnects a lost server): whatever it
raises, ``sys.exit()`` included, is logged and the work goes on; a callback that called
``sys.exit()`` on "connection lost" once left the server ``reconnecting`` for good. Events are
logged at levels a service can use (a lost server at WARNING, its return at INFO), and nothing is
printed unless the application configures logging, so a kernel's cells stay free of it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from conftest import DEMO, ROOT, demo_command
from frontend import iopub_until_idle, is_idle, shell_reply

from mcpnb import CallError
from mcpnb.client.events import ConnectionEvent, EventLog, State

FAST = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0, "tool_timeout": 20}


def _lost(event: ConnectionEvent) -> bool:
    return event.kind == "state" and event.state is State.RECONNECTING


def _kill_and_come_back(pool, name: str) -> int:
    """SIGKILL the server, then the pid of the one that replaced it (a call waits for the reconnect)."""
    pid = pool.call(name, "pid").data
    os.kill(pid, signal.SIGKILL)
    try:
        new_pid = pool.call(name, "pid").data  # waits for the reconnect under way
    except CallError as exc:  # sent before the loss was noticed: cut off, and said so
        assert f"the connection to {name!r} was lost" in str(exc)
        new_pid = pool.call(name, "pid").data
    assert new_pid != pid
    return new_pid


@pytest.mark.parametrize("raised", [SystemExit(5), KeyboardInterrupt(), asyncio.CancelledError()])
def test_a_subscriber_that_raises_anything_stops_no_recovery(pool, caplog, raised):
    """sys.exit() in a subscriber of a pool, a stray KeyboardInterrupt or CancelledError of a
    callback's own: the server killed, it comes back, and the failure is logged and in its log."""

    def quits(event: ConnectionEvent) -> None:
        if _lost(event):
            raise raised

    pool.subscribe(quits)
    pool.connect("d", **demo_command(), **FAST)
    _kill_and_come_back(pool, "d")
    assert pool.call("d", "echo", {"text": "back"}).data == "back"
    assert pool.status()["d"].state == "connected"
    kind = type(raised).__name__
    failed = [r for r in caplog.records if r.name == "mcpnb" and f"raised {kind}: ignored" in r.getMessage()]
    assert failed and failed[0].levelno == logging.ERROR and failed[0].exc_info is not None
    said = [e.message for e in pool.connection("d").events.history if e.kind == "subscriber"]
    assert said and f"raised {kind}: ignored" in said[0]
    if isinstance(raised, SystemExit):
        assert "where sys.exit() ends no program" in said[0]


def test_a_failing_subscriber_leaves_the_next_one_its_event():
    """Every subscriber of a connection hears the event, whatever one before it raised."""
    log, heard = EventLog(), []

    def quits(event: ConnectionEvent) -> None:
        raise SystemExit(1)

    log.subscribe(quits)
    log.subscribe(heard.append)
    event = ConnectionEvent("s", "state", "connection lost", State.RECONNECTING, State.CONNECTED)
    log.emit(event)
    assert heard == [event]


def test_a_pools_subscribers_each_hear_an_event_and_one_that_fails_is_named(pool, caplog):
    """``pool.subscribe``: the pool's callbacks were called as one subscriber of each connection,
    so the first that raised kept the rest from the event, and the log named ``Pool._fan_out``."""
    heard: list[ConnectionEvent] = []

    def broken(event: ConnectionEvent) -> None:
        raise ValueError("a bug in the person's callback")

    pool.subscribe(broken)
    pool.subscribe(heard.append)
    pool.connect("d", **demo_command(), **FAST)
    assert any(e.kind == "state" and e.state is State.CONNECTED for e in heard)
    said = [e.message for e in pool.connection("d").events.history if e.kind == "subscriber"]
    assert said and all("broken raised ValueError: ignored" in s for s in said), said
    assert not [r for r in caplog.records if "_fan_out" in r.getMessage()]


def test_a_failing_subscriber_is_said_on_stderr_once_where_no_logging_is_set_up():
    """The ``mcpnb`` logger's NullHandler keeps Python's last resort from printing: a bug in the
    person's own callback would pass unseen. Said once per callback, in a fresh process."""
    code = textwrap.dedent(
        """
        import mcpnb
        from mcpnb.client.events import ConnectionEvent, EventLog, State
        log = EventLog()
        def broken(event):
            raise ValueError("oops")
        log.subscribe(broken)
        for _ in range(3):
            log.emit(ConnectionEvent("s", "state", "connected", State.CONNECTED))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if line.startswith("mcpnb: ")]
    assert len(said) == 1 and "broken raised ValueError: ignored" in said[0], run.stderr


def test_ctrl_c_on_the_main_thread_still_stops_the_program():
    """A KeyboardInterrupt where signals land (the main thread) is a person's Ctrl-C: it passes."""
    log = EventLog()

    def interrupted(event: ConnectionEvent) -> None:
        raise KeyboardInterrupt

    log.subscribe(interrupted)
    with pytest.raises(KeyboardInterrupt):
        log.emit(ConnectionEvent("s", "stderr", "a line"))


def test_a_killed_server_is_a_warning_and_its_return_is_debug(pool, caplog):
    """A service logging at WARNING hears the server die (with how); its return, each retry,
    stderr lines and cache hits are DEBUG (an SDK MCPServer made in a kernel sets the root logger
    to INFO, and every connect showed in the running cell); secrets stay scrubbed at every level."""
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    secret = "tok-3f9a7c1e5b"
    pool.connect("d", **demo_command(), env={"DEMO_TOKEN": secret}, **FAST)
    pool.call("d", "stderr_line", {"text": f"using {secret}"})
    pool.tools("d")  # a cache hit
    _kill_and_come_back(pool, "d")
    records = [r for r in caplog.records if r.name == "mcpnb"]
    lost = [r for r in records if r.levelno == logging.WARNING]
    # how it is said depends on what noticed first: the process ending (SIGKILL) or its pipe closing
    assert lost and " d state: connection lost: " in lost[0].getMessage()
    after = records[records.index(lost[0]) :]
    assert any(r.levelno == logging.DEBUG and "state: connected" in r.getMessage() for r in after)
    assert any(r.levelno == logging.DEBUG and " retry: attempt 1/3" in r.getMessage() for r in after)
    assert not [r for r in records if r.levelno == logging.INFO]
    for chatter in ("stderr", "cache"):
        said = [r for r in records if f" {chatter}: " in r.getMessage()]
        assert said and all(r.levelno == logging.DEBUG for r in said), chatter
    assert secret not in caplog.text and "using ***" in caplog.text


SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    import mcpnb
    pool = mcpnb.Pool()
    pool.connect("d", command=sys.executable, args=[{demo!r}, "stdio"], retry_delay=0.05,
                 health_check_interval=0)
    pid = pool.call("d", "pid").data
    os.kill(pid, signal.SIGKILL)
    try:
        back = pool.call("d", "pid").data
    except mcpnb.CallError:  # sent before the loss was noticed
        back = pool.call("d", "pid").data
    print("BACK", back != pid, flush=True)
    pool.close()
    """
)


def test_a_plain_script_prints_nothing_of_a_lost_server_unless_it_configures_logging():
    """No handler configured: Python's last resort would print WARNING records on stderr; a
    library's logger has a NullHandler instead. Configured, the application sees them."""
    code = SCRIPT.format(demo=DEMO)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=90)
    assert quiet.stdout.strip() == "BACK True" and quiet.stderr == ""
    configured = "import logging; logging.basicConfig(level=logging.WARNING)\n" + code
    loud = subprocess.run(
        [sys.executable, "-c", configured], capture_output=True, text=True, env=env, timeout=90
    )
    assert loud.stdout.strip() == "BACK True"
    assert "WARNING:mcpnb:" in loud.stderr and "connection lost" in loud.stderr


def test_a_kernel_cell_shows_no_stderr_when_a_server_is_lost(kernel):
    """In a notebook the status says a server was lost: the logger must not also print it, in red,
    in whichever cell runs (ipykernel configures no logging, so the last resort would)."""
    code = SCRIPT.format(demo=DEMO).replace("pool.close()", "pool.close()\nimport json\n")
    cell = kernel.execute("%load_ext mcpnb\n" + code)
    reply = shell_reply(kernel, cell)
    assert reply["status"] == "ok", reply
    streams: dict[str, str] = {"stdout": "", "stderr": ""}
    msgs = iopub_until_idle(kernel, cell, timeout=30)
    assert msgs and is_idle(msgs[-1]), "the cell's idle status never came"
    for msg in msgs:
        if msg["msg_type"] == "stream":
            streams[msg["content"]["name"]] += msg["content"]["text"]
    assert streams["stdout"].strip() == "BACK True", json.dumps(streams)
    assert streams["stderr"] == ""
