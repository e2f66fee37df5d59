"""Interrupting a %mcp cell (the kernel's ■ button) ends it with one clear line, not a bare
CancelledError or KeyboardInterrupt traceback; the call is cancelled on the server."""

from __future__ import annotations

import sys
import time

from conftest import DEMO, alive, wait_until

from tests.frontend import Frontend


def _interrupt(kernel, fe: Frontend, code: str, marker) -> dict:
    cell = fe.execute(code)
    assert wait_until(marker.exists, timeout=60), "the server never started the call"
    kernel.kernel_manager.interrupt_kernel()
    return fe.reply(cell)


def test_an_interrupted_awaiting_cell_says_so(kernel, tmp_path):
    fe = Frontend(kernel)
    setup = fe.execute(
        f"%load_ext mcpnb\n%mcp connect demo --env DEMO_MARKS={tmp_path} -- {sys.executable} {DEMO} stdio"
    )
    assert fe.reply(setup)["status"] == "ok"

    reply = _interrupt(kernel, fe, "%mcp call demo.slow seconds=60 tag=await", tmp_path / "started-await")
    assert reply["status"] == "error"
    assert reply["ename"] == "Interrupted"
    assert reply["evalue"] == "%mcp call demo.slow: interrupted; the server was told to cancel the call"
    assert "CancelledError" not in "".join(reply["traceback"])

    # inside a function the cell is synchronous: the same words
    code = "def run():\n    r = %mcp call demo.slow seconds=60 tag=sync\n    return r\nrun()"
    reply = _interrupt(kernel, fe, code, tmp_path / "started-sync")
    assert reply["status"] == "error" and reply["ename"] == "Interrupted"
    assert reply["evalue"] == "%mcp call demo.slow: interrupted; the server was told to cancel the call"

    seen = _in_kernel_until(fe, "seen = %mcp call demo.cancelled", "len(seen.data) == 2", "sorted(seen.data)")
    assert "SAID ['await', 'sync']" in seen


def test_the_interrupt_line_never_repeats_arguments():
    from mcpnb.notebook.magics import Interrupted, interrupted

    exc = interrupted("connect docs http://127.0.0.1:1/mcp?token=SECRET-VALUE --header 'X-Key: k'", 0)
    assert isinstance(exc, Interrupted) and str(exc) == "%mcp connect docs: interrupted"
    assert exc._render_traceback_()[0].endswith("Interrupted: %mcp connect docs: interrupted\x1b[0m")


def test_an_interrupted_connect_stops_the_server_it_was_starting(kernel, tmp_path):
    """A connect in an awaiting cell runs in a worker thread: the interrupt ended the cell but not the
    connect, whose server went on starting ("connecting"), and the next call waited for it."""
    marker = tmp_path / "pid"
    slow = tmp_path / "slow_server.py"  # says its pid, then takes its time to start
    slow.write_text(
        "import os, pathlib, sys, time\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(os.getpid()))\n"
        "time.sleep(30)\n"
    )
    fe = Frontend(kernel)
    assert fe.reply(fe.execute("%load_ext mcpnb"))["status"] == "ok"
    cell = fe.execute(f"%mcp connect slow -- {sys.executable} {slow}")
    assert wait_until(marker.exists, timeout=30), "the server never started"
    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error" and reply["evalue"] == "%mcp connect slow: interrupted"
    pid = int(marker.read_text())
    assert wait_until(lambda: not alive(pid), timeout=10), "the server it was starting is still running"
    # the connect is failed (cancelled) as the interrupt lands, not once its process has ended
    state = _in_kernel_until(
        fe, "row = %mcp status slow", "row['slow'].state != 'connecting'", "row['slow'].state"
    )
    assert "SAID failed" in state


def _in_kernel_until(fe: Frontend, step: str, done: str, say: str) -> str:
    """Run ``step`` in the kernel until ``done`` holds (10 s at most); what ``say`` printed after."""
    cell = fe.execute(
        f"import time\nfor _ in range(100):\n    {step}\n    if {done}: break\n    time.sleep(0.1)\n"
        f"print('SAID', {say})"
    )
    assert fe.reply(cell)["status"] == "ok"
    return fe.stdout[cell]


def test_an_interrupt_while_an_async_tool_holds_the_loop_says_so_not_that_the_server_was_told(
    kernel, tmp_path
):
    """An ``async def`` tool that blocks holds mcpnb's runtime loop: nothing can be sent, the
    cancel included. The interrupt said "the server was told to cancel the call", which was not
    true; it names the tool that holds the loop and what to do. Once the tool lets go, all is well."""
    started, release = tmp_path / "started", tmp_path / "release"
    fe = Frontend(kernel)
    setup = fe.execute(
        "%load_ext mcpnb\n"
        "import pathlib, time\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "srv = MCPServer('lab', log_level='WARNING')\n"
        "@srv.tool()\n"
        "async def hog() -> str:\n"
        f"    pathlib.Path({str(started)!r}).write_text('1')\n"
        f"    while not pathlib.Path({str(release)!r}).exists():\n"
        "        time.sleep(0.05)  # blocks the loop: an async tool that does not await\n"
        "    return 'let go'\n"
        "@srv.tool()\n"
        "def ping() -> str:\n"
        "    return 'pong'\n"
        "%mcp connect lab {{srv}}"
    )
    assert fe.reply(setup)["status"] == "ok"
    cell = fe.execute("%mcp call lab.hog")
    assert wait_until(started.exists, timeout=60), "the tool never started"
    time.sleep(1.5)  # held past the threshold (1 s) by then
    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply
    said = reply["evalue"]
    assert said.startswith("%mcp call lab.hog: interrupted; mcpnb's runtime loop has been held for ")
    assert "(lab.hog)" in said and "told to cancel" not in said and "restart the kernel" in said
    release.write_text("1")
    after = fe.execute("r = %mcp call lab.ping\nprint(r.text)")
    assert fe.reply(after)["status"] == "ok"
    assert "pong" in fe.stdout[after]


def test_the_stop_button_stops_the_code_after_a_mcp_line(kernel, tmp_path):
    """An out-of-order student's: a %mcp line makes the cell async, and ipykernel then only cancels
    it at its next await: ``time.sleep`` (or ``job.result()``) after the line ran to its end,
    the interrupt unheard. Now it stops there, as in a cell without %mcp."""
    fe = Frontend(kernel)
    assert fe.reply(fe.execute("%load_ext mcpnb\nimport pathlib, time"))["status"] == "ok"
    marker = tmp_path / "sleeping"
    cell = fe.execute(
        f"%mcp status\npathlib.Path({str(marker)!r}).touch()\ntime.sleep(120)\nprint('ran to its end')"
    )
    assert wait_until(marker.exists, timeout=60), "the cell never reached its sleep"
    time.sleep(0.2)
    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell, timeout=60)
    assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
    after = fe.reply(fe.execute("print('the kernel goes on')"))
    assert after["status"] == "ok"
