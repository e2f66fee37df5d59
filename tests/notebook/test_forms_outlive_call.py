"""A server's question outlives the call that asked it no longer: when the call ends, its form freezes.

server-everything over stdio pushes its elicitation on the session's own task (the 2025-11-25 era),
so cancelling the call (an interrupt) never reached the question, and the server sends no cancel
for it either. The form stayed live after ``interrupted; the call was cancelled on the server``, and
a click then sent ``accept`` for a call already gone. Now the form freezes at once and says why, and
a click sends nothing; on stdin, the line says so and the prompt's answer is dropped.

A real kernel, the real server-everything, and this test playing the page over jupyter_client
(typing and clicks as comm messages, the stdin box as ``input_reply``); replies are matched by the
request's msg_id.
"""

from __future__ import annotations

import pytest
from conftest import EVERYTHING, LOOPBACK

from tests.frontend import Frontend, input_request

pytestmark = pytest.mark.timeout(180)

CALL = "%mcp call ev.trigger-elicitation-request"


def _connect(fe: Frontend, mode: str) -> None:
    fe.run_ok(
        f'%load_ext mcpnb\n%config Mcp.elicitation = "{mode}"\n'
        f"%mcp connect ev -- node -r {LOOPBACK} {EVERYTHING} stdio"
    )


def _form(fe: Frontend, cell: str) -> dict[str, str]:
    """The form a cell shows: its name field, its Accept button and its status line."""
    return fe.form(cell, "name", status=True)


def _status(fe: Frontend, form: dict[str, str]) -> str:
    return str(fe.models[form["status"]].get("value", ""))


def _said(fe: Frontend, cell: str) -> str:
    """Everything a cell printed or showed, as text."""
    shown = [d.get("text/plain", "") for d in fe.displays.get(cell, [])]
    return "\n".join([fe.stdout.get(cell, ""), fe.results.get(cell, {}).get("text/plain", ""), *shown])


def _ev_log(fe: Frontend) -> str:
    """``%mcp logs ev`` (a cell that starts also runs any click still settling: ``forms.settle``)."""
    return _said(fe, fe.run_ok("%mcp logs ev"))


def _click_after_the_end(fe: Frontend, form: dict[str, str]) -> None:
    """A person types a name into the frozen form's field and clicks Accept anyway."""
    fe.set(form["name"], "Ada")
    fe.click(form["accept"])


def test_an_interrupt_freezes_the_form_and_a_click_then_sends_nothing(kernel, everything):
    fe = Frontend(kernel)
    _connect(fe, "widget")
    cell = fe.execute(CALL)
    form = _form(fe, cell)

    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply

    fe.wait_for(lambda: "no longer waiting: the call was interrupted" in _status(fe, form), 30, "the freeze")
    assert fe.models[form["accept"]]["disabled"] is True

    _click_after_the_end(fe, form)
    log = _ev_log(fe)
    assert "elicitation answered: accept" not in log, log
    assert "Sent" not in _status(fe, form) and "Ada" not in _status(fe, form)


def test_a_call_cancelled_after_its_cell_let_go_freezes_its_form(kernel, everything):
    """A synchronous cell lets go when the server asks (a :class:`LiveCall`); cancelling that call
    later (from another cell) ends it on mcpnb's own thread: its form freezes all the same."""
    fe = Frontend(kernel)
    _connect(fe, "widget")
    cell = fe.run_ok(f"def run():\n    r = {CALL}\n    return r\nlive = run()")
    form = _form(fe, cell)

    fe.run_ok("live.cancel()")
    fe.wait_for(lambda: "no longer waiting: the call was cancelled" in _status(fe, form), 30, "the freeze")

    _click_after_the_end(fe, form)
    assert "elicitation answered: accept" not in _ev_log(fe)
    assert "Sent" not in _status(fe, form)


def test_on_stdin_an_interrupt_says_the_answer_is_no_longer_waited_for(kernel, everything):
    fe = Frontend(kernel)
    _connect(fe, "text")
    cell = fe.execute(CALL)
    input_request(kernel, cell, between=fe.pump)  # the first field's prompt

    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply
    assert "no longer waiting: the call was interrupted" in fe.stdout.get(cell, "")

    kernel.input("Ada")  # the prompt still on screen is answered: dropped, nothing more is asked
    log = _ev_log(fe)
    assert "elicitation answered: accept" not in log, log


def test_an_interrupted_await_of_pool_acall_freezes_its_form(kernel, everything):
    """A call made from code: ``await pool.acall(...)`` asks in the awaiting cell, and the call's end
    (its cell interrupted) reaches that form through the call context (``CallContext.on_end``)."""
    fe = Frontend(kernel)
    _connect(fe, "widget")
    cell = fe.execute(
        "import mcpnb\nr = await mcpnb.default_pool().acall('ev', 'trigger-elicitation-request', {})"
    )
    form = _form(fe, cell)

    kernel.kernel_manager.interrupt_kernel()
    assert fe.reply(cell)["status"] == "error"
    fe.wait_for(lambda: "no longer waiting: the call was interrupted" in _status(fe, form), 30, "the freeze")

    _click_after_the_end(fe, form)
    assert "elicitation answered: accept" not in _ev_log(fe)
    assert "Sent" not in _status(fe, form)
