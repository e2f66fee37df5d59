"""The notebook's ■ button pressed while Python code waits on mcpnb (``pool.call``, a loop of calls,
``await pool.acall``, a task's ``job.result()`` / ``await job``): one line says what was stopped and
what goes on, where a bare ``KeyboardInterrupt`` or ``CancelledError`` traceback went through
``client/bridge.py``; the call is cancelled on its server, a task keeps running, the other
connection and the next cell work at once. In a real kernel; replies matched by their msg_id.
(The ``%mcp`` magics' own interrupt line is ``cell/test_interrupt.py``'s.)"""

from __future__ import annotations

import sys

from conftest import DEMO, wait_until

from tests.frontend import Frontend

SETUP = (
    "import mcpnb\n"
    "pool = mcpnb.default_pool()\n"
    "pool.connect('demo', command={py!r}, args=[{demo!r}, 'stdio'], env={{'DEMO_MARKS': {marks!r}}})\n"
    "pool.connect('other', command={py!r}, args=[{demo!r}, 'stdio'])"
)
CALL_STOPPED = "interrupted; the server was told to cancel the call"
NOTHING_SENT = "interrupted before anything was sent"


def _stopped(kernel, fe: Frontend, code: str, ready) -> dict:
    """Run ``code``, press ■ once ``ready()`` holds (a number: after that many seconds): the reply."""
    cell = fe.execute(code)
    if callable(ready):
        assert wait_until(ready, timeout=60), "the cell never got to its wait"
    else:
        fe.pump(ready)
    kernel.kernel_manager.interrupt_kernel()
    return fe.reply(cell)


def _one_line(reply: dict, ename: str, *said: str) -> None:
    """One line, one of ``said``; a ``CancelledError`` keeps its own message (anyio's scopes read
    it), so only the line shown is checked for it."""
    assert reply["status"] == "error" and reply["ename"] == ename, reply
    assert reply["traceback"] in [[f"{ename}: {words}"] for words in said], reply[
        "traceback"
    ]  # no bridge.py frames
    if ename == "KeyboardInterrupt":
        assert reply["evalue"] in said, reply


def _said(fe: Frontend, code: str) -> str:
    cell = fe.execute(code)
    assert fe.reply(cell)["status"] == "ok", fe.stdout.get(cell)
    return fe.stdout.get(cell, "")


def test_stopping_a_call_from_python_says_the_server_was_told(kernel, tmp_path):
    fe = Frontend(kernel)
    _said(fe, SETUP.format(py=sys.executable, demo=DEMO, marks=str(tmp_path)))

    code = "r = pool.call('demo', 'slow', {'seconds': 60, 'tag': 'sync'})"
    reply = _stopped(kernel, fe, code, (tmp_path / "started-sync").exists)
    _one_line(reply, "KeyboardInterrupt", CALL_STOPPED)

    # a loop of calls: the same line, whichever call the interrupt found (or, where it came as a
    # call was handed over, that nothing was sent)
    loop = "for i in range(10**6):\n    pool.call('demo', 'slow', {'seconds': 0.3, 'tag': 'loop'})"
    reply = _stopped(kernel, fe, loop, 1.0)
    _one_line(reply, "KeyboardInterrupt", CALL_STOPPED, NOTHING_SENT)

    code = "r = await pool.acall('demo', 'slow', {'seconds': 60, 'tag': 'async'})"
    reply = _stopped(kernel, fe, code, (tmp_path / "started-async").exists)
    _one_line(reply, "CancelledError", "the server was told to cancel the call")

    said = _said(
        fe,
        "import time\n"
        "for _ in range(100):\n"
        "    seen = sorted(t for t in pool.call('demo', 'cancelled').data if t != 'loop')\n"
        "    if len(seen) == 2: break\n"
        "    time.sleep(0.1)\n"
        "print('CANCELLED', seen, pool.call('other', 'echo', {'text': 'on'}).data)",
    )
    assert "CANCELLED ['async', 'sync'] on" in said


def test_stopping_a_wait_for_a_task_says_it_keeps_running(kernel):
    fe = Frontend(kernel)
    _said(fe, "%load_ext mcpnb\n%mcp serve probe-kit --toolset full")
    _said(fe, "job = %mcp call probe.slow_task steps=200 delay=0.5 --task")
    task_id = _said(fe, "print(job.task_id)").strip()
    keeps = (
        f"stopped waiting for task {task_id!r} (probe.slow_task); it keeps running on the server: "
        "wait again, or cancel it (handle.cancel())"
    )

    _one_line(_stopped(kernel, fe, "r = job.result()", 1.0), "KeyboardInterrupt", keeps)
    _one_line(_stopped(kernel, fe, "r = await job", 1.0), "CancelledError", keeps)
    assert "STATUS working" in _said(fe, "print('STATUS', job.status)")
    assert "CANCEL cancelled" in _said(fe, "print('CANCEL', job.cancel())")
