"""A cell run again while its form waits: the form is withdrawn, the re-run asks afresh.

A real kernel, probe-kit's ``ask_user`` (a real MCP server asking a real elicitation), and this test
playing JupyterLab over jupyter_client: each run is an ``execute_request`` with the cell's id in its
metadata (``cellId``), as JupyterLab and Notebook 7 send it. Replies and outputs are matched by the
request's msg_id.
"""

from __future__ import annotations

from typing import Any

from jupyter_client.session import Session

from mcpnb.notebook.forms.rerun import PAGE_NOTE
from tests.frontend import Frontend

SETUP = "%load_ext mcpnb\n%mcp serve probe-kit"
ASK = 'r = %mcp call probe.ask_user question="What should we call you?"\nprint("ACTION", r.data["action"])'
WITHDRAWN = "withdrawn when the cell ran again"


def run_cell(fe: Frontend, code: str, cell: str | None, page: Session | None = None) -> str:
    """What JupyterLab sends for a run of cell ``cell`` (None: a frontend that sends no cell id),
    from the page whose session is ``page`` (None: the frontend's own)."""
    content = {
        "code": code,
        "silent": False,
        "store_history": True,
        "user_expressions": {},
        "allow_stdin": True,
        "stop_on_error": True,
    }
    metadata = {"cellId": cell} if cell is not None else {}
    msg = (page or fe.kc.session).msg("execute_request", content, metadata=metadata)
    fe.kc.shell_channel.send(msg)  # sent as built: the header names its page
    return msg["header"]["msg_id"]


def another_page(fe: Frontend) -> Session:
    """A second page on the same kernel (a reloaded tab, a second window): a session id of its own,
    the same key; it connects as JupyterLab does, with a ``kernel_info_request``."""
    page = Session(key=fe.kc.session.key, signature_scheme=fe.kc.session.signature_scheme)
    assert page.session != fe.kc.session.session
    fe.kc.shell_channel.send(page.msg("kernel_info_request", {}))
    return page


def _ok(fe: Frontend, run: str) -> dict[str, Any]:
    reply = fe.reply(run)
    assert reply["status"] == "ok", reply
    return reply


def _form(fe: Frontend, run: str) -> dict[str, str]:
    """The form a run shows: its answer field, its buttons and its status line."""
    return fe.form(run, "answer", status=True)


def _answer(fe: Frontend, form: dict[str, str], text: str) -> None:
    fe.set(form["answer"], text)
    fe.click(form["accept"])


def _said(fe: Frontend, run: str) -> str:
    return "\n".join(d.get("text/plain", "") for d in fe.displays.get(run, []))


def _processed_after(fe: Frontend, form: dict[str, str]) -> None:
    """Wait until the kernel has handled a message sent after everything before it: a widget update
    (answered even while a cell runs), so what came earlier has arrived and been seen."""
    sent = fe.set(form["answer"], "")
    fe.wait_for(lambda: (sent, "idle") in fe.statuses, what="the update's idle")


def test_a_cell_run_twice_at_once_withdraws_the_first_runs_form_as_it_is_asked(kernel):
    """Shift+Enter twice: the second run arrives while the first still calls the server, before its
    form exists and before this kernel ever asked one. The first run's form goes as it is asked
    (it waited, the re-run queued behind it, until an interrupt); the re-run asks afresh."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    first = run_cell(fe, ASK, "ask")
    again = run_cell(fe, ASK, "ask")
    _ok(fe, first)
    assert "ACTION cancel" in fe.stdout[first]
    new = _form(fe, again)
    assert WITHDRAWN in _said(fe, again)
    _answer(fe, new, "Ada")
    _ok(fe, again)
    assert "ACTION accept" in fe.stdout[again]


def test_running_the_same_cell_again_withdraws_its_form_and_the_rerun_asks_afresh(kernel):
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    first = run_cell(fe, ASK, "ask")
    old = _form(fe, first)
    fe.set(old["answer"], "half-typed")  # a person had started typing

    again = run_cell(fe, ASK, "ask")  # Shift+Enter on the same cell while its form waits
    _ok(fe, first)  # the first run ends: no hang, no interrupt needed
    assert "ACTION cancel" in fe.stdout[first]  # the server was told "cancel": dismissed, no choice
    fe.wait_for(lambda: "withdrawn: this cell ran again" in fe.models[old["status"]].get("value", ""))
    assert (
        'Cancelled: <b>probe</b> was told "cancel"; nothing you typed was sent'
        in fe.models[old["status"]]["value"]
    )
    assert fe.models[old["accept"]]["disabled"] is True

    new = _form(fe, again)  # the queued run runs and asks afresh
    said = _said(fe, again)
    assert WITHDRAWN in said and 'probe was told "cancel"' in said
    _answer(fe, new, "Ada")
    _ok(fe, again)
    assert "ACTION accept" in fe.stdout[again]
    check = run_cell(fe, 'print("GOT", r.data["answers"])', "check")
    _ok(fe, check)
    assert "'answer': 'Ada'" in fe.stdout[check]  # the connection kept working


def test_another_cell_queued_below_leaves_the_form_to_the_person(kernel):
    """Run All queues the cells below the one that asks: its form stays, and they run after it."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    asking = run_cell(fe, ASK, "ask")
    form = _form(fe, asking)
    below = run_cell(fe, 'print("BELOW", r.data["action"])', "below")
    _processed_after(fe, form)  # the queued cell has arrived and been seen
    assert fe.models[form["accept"]].get("disabled") is not True
    assert "withdrawn" not in fe.models[form["status"]].get("value", "")
    assert "ACTION" not in fe.stdout.get(asking, "")

    _answer(fe, form, "Grace")
    _ok(fe, asking)
    assert "ACTION accept" in fe.stdout[asking]
    _ok(fe, below)
    assert "BELOW accept" in fe.stdout[below]
    assert WITHDRAWN not in _said(fe, below)


LET_GO = """\
def ask():
    r = %mcp call probe.ask_user question="What should we call you?"
    return r
calls = globals().setdefault("calls", [])
calls.append(ask())
print("LIVE", type(calls[-1]).__name__)
"""


def test_a_cell_that_let_go_has_its_waiting_form_withdrawn_when_it_runs_again(kernel):
    """A synchronous cell returns a LiveCall while its form waits; running it again withdraws the form
    (which would otherwise wait out the timeout unseen) before the new run asks."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    first = run_cell(fe, LET_GO, "ask")
    old = _form(fe, first)
    _ok(fe, first)
    assert "LIVE LiveCall" in fe.stdout[first]

    again = run_cell(fe, LET_GO, "ask")
    new = _form(fe, again)
    _ok(fe, again)
    assert WITHDRAWN in _said(fe, again)
    assert "withdrawn: this cell ran again" in fe.models[old["status"]].get("value", "")
    _answer(fe, new, "Ada")
    check = run_cell(fe, 'print("RESULTS", [c.result(60).data["action"] for c in calls])', "check")
    _ok(fe, check)
    assert "RESULTS ['cancel', 'accept']" in fe.stdout[check]


def test_without_a_cell_id_nothing_is_withdrawn(kernel):
    """A frontend that sends no cell id: a second run is not known to be the same cell (as before)."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, None))
    asking = run_cell(fe, ASK, None)
    form = _form(fe, asking)
    later = run_cell(fe, 'print("LATER", r.data["action"])', None)
    _processed_after(fe, form)
    assert fe.models[form["accept"]].get("disabled") is not True
    _answer(fe, form, "Ada")
    _ok(fe, asking)
    assert "ACTION accept" in fe.stdout[asking]
    _ok(fe, later)
    assert "LATER accept" in fe.stdout[later]


FIRST = 'a = %mcp call probe.ask_user question="First?"\nprint("FIRST", a.data["action"])'
SECOND = 'b = %mcp call probe.ask_user question="Second?"\nprint("SECOND", b.data["action"])'


def test_after_a_reload_during_run_all_the_lost_queue_runs_through_and_the_new_run_asks(kernel):
    """Run All, the first form shows; the page is reloaded (a new session) and the person runs the
    asking cell again. The old form goes (the same cell); the lost page's next question (its Run All
    queue: no page shows its output) goes at once, the rest of that queue runs, and the person's
    run asks afresh, saying at its top what went. Nothing hangs."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    first = run_cell(fe, FIRST, "c2")
    second = run_cell(fe, SECOND, "c3")
    end = run_cell(fe, 'print("end")', "c4")
    _form(fe, first)

    reloaded = another_page(fe)
    again = run_cell(fe, FIRST, "c2", page=reloaded)
    _ok(fe, first)
    assert "FIRST cancel" in fe.stdout[first]
    _ok(fe, second)  # asked into an output no page shows, while the person's run waited: withdrawn
    assert "SECOND cancel" in fe.stdout[second]
    status = fe.find(second, css="mcpnb-status")
    fe.wait_for(lambda: PAGE_NOTE in fe.models[status].get("value", ""), what="why it went")
    _ok(fe, end)
    assert "end" in fe.stdout[end]

    new = _form(fe, again)
    said = _said(fe, again)
    assert WITHDRAWN in said  # the person's own cell
    assert '("Second?") was withdrawn' in said and "reloaded or closed" in said
    _answer(fe, new, "Ada")
    _ok(fe, again)
    assert "FIRST accept" in fe.stdout[again]


def test_a_second_window_that_runs_a_cell(kernel):
    """Two windows on one notebook. The first one was heard from after the second appeared (typing
    into its form): the second one's run waits behind the form, as before. A page that appeared
    after the first one last spoke (what a reload looks like) withdraws its form, saying why."""
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP, "setup"))
    asking = run_cell(fe, ASK, "ask")
    form = _form(fe, asking)
    window = another_page(fe)
    fe.set(form["answer"], "Gra")  # the first window's person types: that page is alive
    meanwhile = run_cell(fe, 'print("OTHER", r.data["action"])', "other", page=window)
    _processed_after(fe, form)
    assert fe.models[form["accept"]].get("disabled") is not True
    _answer(fe, form, "Grace")
    _ok(fe, asking)
    assert "ACTION accept" in fe.stdout[asking]
    _ok(fe, meanwhile)
    assert "OTHER accept" in fe.stdout[meanwhile]

    asking = run_cell(fe, ASK, "ask")  # the first window asks again, then nobody touches it
    form = _form(fe, asking)
    later = another_page(fe)  # (a third page, opened since: the first was not heard from after it)
    other = run_cell(fe, 'print("OTHER", r.data["action"])', "other", page=later)
    _ok(fe, asking)
    assert "ACTION cancel" in fe.stdout[asking]
    fe.wait_for(lambda: PAGE_NOTE in fe.models[form["status"]].get("value", ""), what="why it went")
    _ok(fe, other)
    assert "OTHER cancel" in fe.stdout[other]
    assert "a run from another page" in _said(fe, other)
