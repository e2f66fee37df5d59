"""Servers that need a person, from %mcp cells in a real kernel; this test plays the person.

Top-level %mcp cells await (ipykernel >= 7.4): the form shows in the calling cell and the cell
resumes with the result once Accept is clicked. A synchronous cell (the magic inside a function)
lets go at once with a live call, and the result lands in the same output later. Headless runs
(no stdin, as under nbclient) decline without showing anything. Text mode asks on stdin.
"""

from __future__ import annotations

import re
import shutil
import sys
from typing import Any

from conftest import DEMO, EVERYTHING, wait_until

from tests.frontend import Frontend, input_request

SETUP = """
%load_ext mcpnb
%mcp serve probe-kit
"""
ASK = "%mcp call probe.ask_user question='Your name?'"
#: −32042 ("open this page, then retry") is 2025-11-25's: probe-kit in that era, asked for it.
LEGACY_SETUP = SETUP.replace("serve probe-kit", "serve probe-kit --era legacy")


def _run(fe: Frontend, code: str, **kw: Any) -> str:
    cell = fe.execute(code, **kw)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    return cell


def _answer_form(fe: Frontend, cell: str, value: str) -> None:
    # the container's class is the last thing a form sets up: once seen, every model is known
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the form")
    field = fe.find(cell, css="mcpnb-field-answer")
    accept = fe.find(cell, css="mcpnb-accept", model="ButtonModel")
    assert field, "no answer field"
    assert accept, "no Accept button"
    fe.set(field, value)
    fe.click(accept)


def test_awaiting_cell_shows_the_form_and_resumes_with_the_result(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = fe.execute("r = " + ASK + "\nprint('GOT', r.data['answers'][0]['answer'])")
    _answer_form(fe, cell, "Ada Lovelace")
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "GOT Ada Lovelace" in fe.stdout.get(cell, "")
    form = fe.find(cell, css="mcpnb-form")
    assert form in fe.displayed.get(cell, []) or any(  # shown in the calling cell itself
        cid == form for cid in fe.models if fe.opened_by.get(cid) == cell
    )


def test_result_of_a_bare_call_is_the_cells_output(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = fe.execute(ASK)
    _answer_form(fe, cell, "Grace")
    assert fe.reply(cell)["status"] == "ok"
    assert "Grace" in fe.results[cell]["text/plain"]


def test_synchronous_cell_lets_go_and_the_result_lands_later(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    code = (
        "def ask():\n"
        f"    return get_ipython().run_line_magic('mcp', {ASK.removeprefix('%mcp ')!r})\n"
        "live = ask()\n"
        "print('TYPE', type(live).__name__)\n"
    )
    cell = _run(fe, code)  # the cell ends while the form waits: that is what lets the click through
    assert "TYPE LiveCall" in fe.stdout[cell]
    _answer_form(fe, cell, "Linus")
    fe.wait_for(
        lambda: any(
            "Linus" in d.get("text/plain", "")
            for i, d in fe.by_display_id.items()
            if fe.display_cell.get(i) == cell
        ),
        what="the result in the calling cell's output",
    )
    later = _run(fe, "r = await live\nprint('LATER', r.data['answers'][0]['answer'])")
    assert "LATER Linus" in fe.stdout[later]


def test_headless_run_declines_without_showing_a_form(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(fe, "r = " + ASK + "\nprint('ACTION', r.data['action'])", allow_stdin=False)
    assert "ACTION decline" in fe.stdout[cell]
    assert fe.find(cell, css="mcpnb-form") is None
    shown = _run(fe, ASK, allow_stdin=False)  # the result says who declined, and what to do
    plain = fe.results[shown]["text/plain"]
    assert (
        "probe asked “Your name?”, answered without asking anyone: declined by the 'decline' policy" in plain
    )
    assert "nobody can answer in this run" in plain and "MCPNB_ELICITATION=defaults" in plain
    assert "answered without asking anyone" in fe.results[shown]["text/html"]


def _answered_on_stdin(fe: Frontend, code: str, *answers: str) -> str:
    """Run ``code``, type each answer where the cell asks on stdin; what the cell printed."""
    cell = fe.execute(code, allow_stdin=True)
    for answer in answers:
        input_request(fe.kc, cell, between=lambda: fe.pump(0.05))
        fe.kc.input(answer)
    assert fe.reply(cell)["status"] == "ok"
    return fe.stdout[cell]


def test_text_mode_asks_on_stdin(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP + "%config Mcp.elicitation = 'text'\n")
    said = _answered_on_stdin(fe, "r = " + ASK + "\nprint('GOT', r.data['answers'][0]['answer'])", "Ada")
    assert "GOT Ada" in said


def test_progress_bar_in_the_calling_cell(kernel):
    fe = Frontend(kernel)
    _run(fe, f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio")
    cell = _run(fe, "%mcp call demo.progress steps=5")
    bars = [
        cid
        for cid, st in fe.models.items()
        if fe.opened_by.get(cid) == cell and st.get("_model_name") == "FloatProgressModel"
    ]
    assert bars, "no progress bar was shown"
    fe.pump(0.3)
    labels = [
        st.get("value", "")
        for cid, st in fe.models.items()
        if fe.opened_by.get(cid) == cell and st.get("_model_name") == "HTMLModel"
    ]
    assert any("done" in label for label in labels), labels  # collapsed to a summary when the call ended


def test_the_collapsed_bar_says_how_long_the_call_took_not_the_bar(kernel):
    # the bar appears at the first notification (after a second here); "done in" counts the call
    fe = Frontend(kernel)
    _run(fe, f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio")
    cell = _run(fe, "%mcp call demo.progress_for seconds=2 every=1")
    fe.pump(0.3)
    labels = [
        st.get("value", "")
        for cid, st in fe.models.items()
        if fe.opened_by.get(cid) == cell and st.get("_model_name") == "HTMLModel"
    ]
    took = [float(m.group(1)) for label in labels if (m := re.search(r"done in (\d+\.\d) s", label))]
    assert took and took[0] >= 2.0, labels  # the server slept 2 s in all


def test_interrupting_an_awaiting_call_cancels_it_on_the_server(kernel, tmp_path):
    fe = Frontend(kernel)
    connect = f"%mcp connect demo --env DEMO_MARKS={tmp_path} -- {sys.executable} {DEMO} stdio"
    _run(fe, "%load_ext mcpnb\n" + connect)
    cell = fe.execute("%mcp call demo.slow seconds=60 tag=cell")
    assert wait_until(lambda: (tmp_path / "started-cell").exists(), timeout=60)
    kernel.kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error"
    check = _run(
        fe,
        "import time\n"
        "for _ in range(50):\n"
        "    seen = %mcp call demo.cancelled\n"
        "    if seen.data: break\n"
        "    time.sleep(0.1)\n"
        "print('CANCELLED', seen.data)",
    )
    assert "CANCELLED ['cell']" in fe.stdout[check]


def test_a_task_started_in_a_cell_asks_there_later(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(fe, "h = %mcp call probe.slow_task steps=4 delay=0.05 confirm=true --task\nh")
    # the cell is done (the handle shows at once); the task's question arrives afterwards, in this cell
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the task's form in the starting cell")
    proceed = fe.find(cell, css="mcpnb-field-proceed")
    accept = fe.find(cell, css="mcpnb-accept", model="ButtonModel")
    assert proceed and accept
    fe.set(proceed, True)
    fe.click(accept)
    later = _run(fe, "print('CONFIRMED', h.result(timeout=60).data['confirmed'])")
    assert "CONFIRMED True" in fe.stdout[later]


def test_a_tool_that_asks_before_it_answers_asks_in_the_cell_when_run_as_a_task(kernel):
    """``ask_user --task`` on 2026-07-28: the server asks before it answers (an input round on the
    task's own request). The cell failed with the SDK's "pass allow_input_required=True"."""
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = fe.execute(ASK + " --task")
    _answer_form(fe, cell, "Ada")
    assert fe.reply(cell)["status"] == "ok"
    later = _run(fe, "print('GOT', _.result(timeout=60).data['answers'])")
    assert "GOT [{'question': 'Your name?', 'answer': 'Ada'}]" in fe.stdout[later]


def test_a_task_started_from_code_asks_in_its_cell_later(kernel):
    """``pool.start_task`` (and ``pool.call(task=True)``) from a cell: the question comes after the
    cell has ended, as a form in it. A bare context declined it (nobody asked, ``confirmed`` false)."""
    fe = Frontend(kernel)
    _run(fe, SETUP + "from mcpnb import default_pool\npool = default_pool()")
    slow = '"probe", "slow_task", {"steps": 4, "delay": 0.05, "confirm": True}'
    for start in (f"h = pool.start_task({slow})", f"h = pool.call({slow}, task=True)"):
        cell = _run(fe, start)
        fe.wait_for(lambda c=cell: fe.find(c, css="mcpnb-form"), what=f"the task's form, {start}")
        fe.set(fe.find(cell, css="mcpnb-field-proceed"), True)
        fe.click(fe.find(cell, css="mcpnb-accept", model="ButtonModel"))
        later = _run(fe, "print('CONFIRMED', h.result(timeout=60).data['confirmed'])")
        assert "CONFIRMED True" in fe.stdout[later], start


def _exploring(fe: Frontend, setup: str, server: str, tool: str) -> tuple[str, str]:
    """Run ``setup``, then ``%mcp explore server`` and pick ``tool``: (the explorer's cell, its tool
    picker). The picker's handler builds the new form: its widgets are opened by that message, not
    the cell (find them with ``fe.find(None, ...)``)."""
    _run(fe, setup)
    cell = _run(fe, f"%mcp explore {server}")
    tools = fe.wait_for(
        lambda: fe.find(cell, model="DropdownModel", description="tool"), what="the tool picker"
    )
    fe.set_index(tools, fe.models[tools]["_options_labels"].index(tool))
    return cell, tools


def _field(fe: Frontend, name: str) -> str:
    """The form's input for argument ``name``, once its widget has arrived: a form's widgets are
    opened one message each, so the one found first is no sign the others are there."""
    return fe.wait_for(lambda: fe.find(None, css=f"mcpnb-field-{name}"), what=f"the form's {name} field")


def test_explore_in_a_kernel(kernel):
    fe = Frontend(kernel)
    cell, _ = _exploring(
        fe, f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio", "demo", "add"
    )
    a = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-a"), what="the form for add")
    b = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-b"), what="the form's second field")
    fe.set(a, "20")
    fe.set(b, "22")
    fe.click(fe.find(cell, css="mcpnb-explore-call"))
    result = fe.find(cell, css="mcpnb-explore-result")
    fe.wait_for(lambda: "42" in fe.models[result].get("value", ""), what="the result under the form")


def test_explorer_runs_a_tool_as_a_task_in_a_kernel(kernel):
    """Ticked "as a task": the task's live view shows under Call and the result lands when it ends,
    while the kernel stays free (a cell runs meanwhile)."""
    fe = Frontend(kernel)
    cell, _ = _exploring(fe, SETUP, "probe", "slow_task")
    steps = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-steps"), what="the form for slow_task")
    fe.set(steps, "20")
    fe.set(_field(fe, "delay"), "0.1")
    fe.set(fe.find(cell, css="mcpnb-explore-task"), True)
    fe.click(fe.find(cell, css="mcpnb-explore-call"))
    view = fe.wait_for(lambda: fe.find(None, css="mcpnb-task"), what="the task's live view")
    status = fe.find(fe.opened_by[view], css="mcpnb-task-status")
    meanwhile = _run(fe, "print('FREE', ex_tasks := 1)")
    assert "FREE 1" in fe.stdout[meanwhile]  # the kernel is not held by the task
    fe.wait_for(lambda: "completed" in fe.models[status].get("value", ""), what="the task completed")
    result = fe.find(cell, css="mcpnb-explore-result")
    fe.wait_for(
        lambda: "19997" in fe.models[result].get("value", ""),
        what="its result under the form (the largest prime below 20,000)",
    )


def test_explorer_holds_its_pickers_while_a_question_waits(kernel):
    """Clicked while ``ask_user`` waits on the person, a second Call (or another tool) would hide the
    question and leave the first call waiting unseen: the pickers wait for the answer, and Call is
    Stop meanwhile. ``choices`` (``list[str] | None = None``) starts as an empty editor, not "null"."""
    fe = Frontend(kernel)
    cell, tools = _exploring(fe, SETUP, "probe", "ask_user")
    question = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-question"), what="the form for ask_user")
    choices = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-choices"), what="the choices editor")
    assert fe.models[choices]["value"] == ""
    fe.set(question, "Your name?")
    call = fe.find(cell, css="mcpnb-explore-call")
    fe.click(call)
    fe.wait_for(lambda: fe.models[call].get("description") == "Stop", what="Stop while the call runs")
    status = fe.find(cell, css="mcpnb-explore-status")
    fe.wait_for(lambda: "waiting for your answer" in fe.models[status]["value"], what="the status")
    assert fe.models[tools].get("disabled") is True
    answer = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-answer"), what="the server's question")
    fe.set(answer, "Ada")
    # the explorer's own form for the tool has an Accept too, never shown: click the question's
    asked = [k for k, by in fe.opened_by.items() if by == fe.opened_by[answer]]
    accept = next(k for k in asked if "mcpnb-accept" in fe.models[k].get("_dom_classes", []))
    fe.click(accept)
    result = fe.find(cell, css="mcpnb-explore-result")
    fe.wait_for(lambda: "Ada" in fe.models[result].get("value", ""), what="the answer in the result")
    fe.wait_for(lambda: fe.models[call].get("description") == "Call", what="Call back")
    assert fe.models[tools].get("disabled") is False


def test_explorer_shows_the_page_a_peer_wants_opened_then_retries(kernel, everything):
    """server-everything's ``trigger-url-elicitation`` with ``errorPath``: the call is refused with
    −32042 ("open this page first"). The explorer shows the page as a link with Retry (it said it in
    one line of text before); Retry calls again, and the retried call asks by URL elicitation, which
    shows in the explorer too, and the person's "completed" reaches the server."""
    fe = Frontend(kernel)
    setup = f"%load_ext mcpnb\n%mcp connect ev -- node {everything} stdio"
    cell, _ = _exploring(fe, setup, "ev", "trigger-url-elicitation")
    url = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-url"), what="the form's url field")
    fe.set(url, "https://example.com/consent")
    fe.set(_field(fe, "errorPath"), True)
    fe.click(fe.find(cell, css="mcpnb-explore-call"))
    panel = fe.wait_for(lambda: fe.find(None, css="mcpnb-url-consent"), what="the page to open first")
    status = fe.find(cell, css="mcpnb-explore-status")
    fe.wait_for(lambda: "open a page first" in fe.models[status]["value"], what="the status")
    retry = fe.find(fe.opened_by[panel], css="mcpnb-retry", model="ButtonModel")
    fe.click(retry)
    asked = fe.wait_for(
        lambda: next(
            (
                k
                for k in fe.models
                if "mcpnb-url-consent" in fe.models[k].get("_dom_classes", []) and k != panel
            ),
            None,
        ),
        what="the retried call's URL request",
    )
    fe.click(fe.find(fe.opened_by[asked], css="mcpnb-accept", model="ButtonModel"))
    result = fe.find(cell, css="mcpnb-explore-result")
    done = "User completed the URL elicitation flow"
    fe.wait_for(lambda: done in fe.models[result].get("value", ""), what="the server's answer")
    assert "&quot;action&quot;: &quot;accept&quot;" in fe.models[result]["value"]


def test_an_explorer_call_lets_the_kernel_go_and_stop_cancels_it(kernel):
    """A long tool called from the explorer no longer holds the kernel: a cell runs while the call
    is under way (it waited for the whole call before). Stop cancels it, and the server was told."""
    fe = Frontend(kernel)
    cell, _ = _exploring(
        fe, f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio", "demo", "slow"
    )
    seconds = fe.wait_for(lambda: fe.find(None, css="mcpnb-field-seconds"), what="the form for slow")
    fe.set(seconds, "120")
    fe.set(_field(fe, "tag"), "from-the-explorer")
    call = fe.find(cell, css="mcpnb-explore-call")
    fe.click(call)
    fe.wait_for(lambda: fe.models[call].get("description") == "Stop", what="Stop while the call runs")
    meanwhile = _run(fe, "print('the kernel is free')")
    assert "the kernel is free" in fe.stdout[meanwhile]
    status = fe.find(cell, css="mcpnb-explore-status")
    assert "calling" in fe.models[status]["value"]  # the call is still under way
    fe.click(call)  # Stop
    fe.wait_for(lambda: "cancelled" in fe.models[status]["value"], what="the call said cancelled")
    assert fe.models[call]["description"] == "Call"
    ask = (  # the server records the cancel as its task unwinds: ask until it has
        "import mcpnb, time\nfor _ in range(200):\n"
        "    seen = mcpnb.default_pool().call('demo', 'cancelled').data\n"
        "    if seen:\n        break\n    time.sleep(0.05)\nprint('SERVER SAW', seen)"
    )
    told = _run(fe, ask)
    assert "SERVER SAW ['from-the-explorer']" in fe.stdout[told]


def test_url_required_panel_holds_the_cell_until_the_retry(kernel, tmp_path):
    """−32042 (2025-11-25): the consent panel shows in the awaiting cell, which waits (Run All
    holds) until the person retries; the cell's result is then the retried call's, and the panel
    says it is done."""
    (tmp_path / "page.md").write_text("# Thanks for visiting\n")
    fe = Frontend(kernel)
    _run(fe, f"import os; os.chdir({str(tmp_path)!r})\n" + LEGACY_SETUP)
    cell = fe.execute("%mcp call probe.open_local_page path=page.md via=error")
    retry = fe.wait_for(
        lambda: fe.find(cell, css="mcpnb-retry", model="ButtonModel"), what="the retry button"
    )
    # the panel's box is made after its buttons: its messages may still be on the way
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    fe.pump(0.3)
    assert cell not in fe.results  # the cell waits for the person
    fe.click(retry)
    assert fe.reply(cell)["status"] == "ok"
    assert "Thanks for visiting" in fe.results[cell]["text/plain"]  # shown once: the cell's result
    status = fe.find(cell, css="mcpnb-status")
    assert "Done: the result is below" in fe.models[status]["value"]
    assert "Retrying" not in fe.models[status]["value"]
    assert fe.find(cell, css="mcpnb-retry-result") is None  # no second place for it


def test_url_required_panel_declined_lets_the_cell_go_on(kernel, tmp_path):
    (tmp_path / "page.md").write_text("# Not today\n")
    fe = Frontend(kernel)
    _run(fe, f"import os; os.chdir({str(tmp_path)!r})\n" + LEGACY_SETUP)
    cell = fe.execute("r = %mcp call probe.open_local_page path=page.md via=error\nprint('RESULT', r)")
    decline = fe.wait_for(
        lambda: fe.find(cell, css="mcpnb-decline", model="ButtonModel"), what="the decline button"
    )
    # as a person sees it: the panel is made after its buttons' handlers, so once it is here a
    # click is heard (a click on the bare button model could come first: the full run lost one)
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    fe.click(decline)
    assert fe.reply(cell)["status"] == "ok"
    assert "RESULT None" in fe.stdout[cell]
    after = _run(
        fe,
        "%mcp disconnect probe\nimport mcpnb\ntry:\n    mcpnb.default_pool().call('probe', 'ping')\n"
        "except Exception as exc:\n    print('SAID', exc)",
    )
    assert "was disconnected" in fe.stdout[after]


def test_modern_url_consent_in_the_cell_answers_the_call(kernel, tmp_path):
    """2026-07-28 (the default era): no −32042. The call's InputRequiredResult holds the URL
    request; its consent panel (no Retry: the call waits) shows in the cell, and "I've completed
    it" is sent with the retried call, whose result is the cell's."""
    (tmp_path / "page.md").write_text("# Thanks for visiting\n")
    fe = Frontend(kernel)
    _run(fe, f"import os; os.chdir({str(tmp_path)!r})\n" + SETUP)
    cell = fe.execute("%mcp call probe.open_local_page path=page.md")
    accept = fe.wait_for(
        lambda: fe.find(cell, css="mcpnb-accept", model="ButtonModel"), what="the accept button"
    )
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    assert fe.find(cell, css="mcpnb-retry", model="ButtonModel") is None
    fe.pump(0.3)
    assert cell not in fe.results  # the call waits for the person
    fe.click(accept)
    assert fe.reply(cell)["status"] == "ok"
    assert "Thanks for visiting" in fe.results[cell]["text/plain"]


CODE_ASK = (
    "from mcpnb import default_pool\n"
    "r = default_pool().call('probe', 'ask_user', {'question': 'Your name?'})\n"
    "print('GOT', r.data['action'], r.data['answers'])\n"
)


def test_a_call_from_code_asks_on_stdin_in_its_cell(kernel):
    """``pool.call`` in a cell: the server's form was declined "by the 'decline' policy" with the
    person right there. The cell blocks in the call, so no click could reach a widget: stdin asks."""
    fe = Frontend(kernel)
    _run(fe, SETUP)
    said = _answered_on_stdin(fe, CODE_ASK, "Ada")
    assert "GOT accept" in said and "Ada" in said


def test_a_models_tool_call_asks_the_person_in_its_cell(kernel):
    """``tools.run(call)`` dispatches on mcpnb's loop: the question still reaches the cell that ran it."""
    fe = Frontend(kernel)
    _run(fe, SETUP)
    code = (
        "import json\n"
        "from mcpnb import default_pool\n"
        "tools = default_pool().functions('probe')\n"
        "call = {'id': 'c1', 'type': 'function', 'function': {'name': 'mcp__probe__ask_user',\n"
        "        'arguments': json.dumps({'question': 'Your name?'})}}\n"
        "print('REPLY', tools.run(call)['content'])\n"
    )
    said = _answered_on_stdin(fe, code, "Grace")
    assert "REPLY" in said and "Grace" in said


def test_a_call_from_code_in_a_headless_run_says_why_nobody_was_asked(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(fe, CODE_ASK + "print(r.answered_without_asking)", allow_stdin=False)
    assert "GOT decline" in fe.stdout[cell] and "nobody can answer in this run" in fe.stdout[cell]


def test_a_models_call_that_needs_approval_asks_the_person_in_its_cell(kernel):
    """``approve="destructive"``: the demo server's ``echo`` has no annotations, so by the spec's
    defaults it may destroy data; the person's "n" reaches the model as a refusal."""
    fe = Frontend(kernel)
    _run(fe, f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio")
    code = (
        "import json\n"
        "from mcpnb import default_pool\n"
        "tools = default_pool().functions('demo', approve='destructive')\n"
        "def echo(text):\n"
        "    call = {'id': 'c1', 'type': 'function', 'function': {'name': 'mcp__demo__echo',\n"
        "            'arguments': json.dumps({'text': text})}}\n"
        "    return tools.run(call)['content']\n"
        "print('FIRST', echo('ran'))\n"
        "print('SECOND', echo('refused'))\n"
    )
    out = _answered_on_stdin(fe, code, "y", "n")
    assert "The model asks to run demo.echo with" in out and "→ Do not run it" in out
    assert "FIRST ran" in out and "SECOND Error: demo.echo was not run: the person did not approve it" in out


def test_an_awaited_call_from_code_shows_the_form_in_its_cell(kernel):
    """``await pool.acall(...)``: the cell waits on the kernel's loop, which stays free for clicks, so
    the server's question is the same form a ``%mcp`` cell shows."""
    fe = Frontend(kernel)
    _run(fe, SETUP)
    code = (
        "from mcpnb import default_pool\n"
        "r = await default_pool().acall('probe', 'ask_user', {'question': 'Your name?'})\n"
        "print('GOT', r.data['answers'][0]['answer'])\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    _answer_form(fe, cell, "Hedy")
    assert fe.reply(cell)["status"] == "ok"
    assert "GOT Hedy" in fe.stdout[cell]


def test_an_awaited_model_call_asks_for_approval_with_two_buttons(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    code = (
        "from mcpnb import default_pool\n"
        "tools = default_pool().functions('probe', approve='always')\n"
        "reply = await tools.arun({'type': 'tool_use', 'id': 't1', 'name': 'mcp__probe__estimate',\n"
        "                          'input': {'task': 'login page'}})\n"
        "print('REPLY is_error', reply['is_error'], str(reply['content'])[:80])\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-confirm"), what="the approval panel")
    fe.click(fe.wait_for(lambda: fe.find(cell, css="mcpnb-confirm-yes"), what="Run it"))
    assert fe.reply(cell)["status"] == "ok"
    assert "REPLY is_error False" in fe.stdout[cell] and "points; expected" in fe.stdout[cell]


def test_a_vs_code_files_inputs_asked_from_code_on_stdin(kernel, tmp_path):
    """``pool.connect_config(path)`` in a cell asks for what the file's servers lack there, as
    ``%mcp connect --config`` does (it was "nobody to ask (no notebook cell)")."""
    from tests.client.config.helpers import write_probe_vscode

    path = write_probe_vscode(tmp_path)
    fe = Frontend(kernel)
    _run(fe, "%load_ext mcpnb")
    code = (
        "from mcpnb import default_pool\n"
        f"table = default_pool().connect_config({str(path)!r})\n"
        "config = default_pool().connection('probe').config\n"
        "print('STATE', table[0].state, config.args[-1], config.env['PROBE_KEY'] == 'typed-key')\n"
    )
    said = _answered_on_stdin(fe, code, "1", "typed-key")  # toolset: core; the key, in a password box
    assert "STATE connected core True" in said and "typed-key" not in said


def test_explorer_draws_the_page_of_a_tool_that_has_one(kernel):
    """An MCP App tool (the MCP Apps project's example): Call draws the tool's page above the
    result, as %mcp call does, and hands it the result when it lands."""
    basic = EVERYTHING.parents[2] / "server-basic-vanillajs" / "dist" / "index.js"
    fe = Frontend(kernel)
    setup = f"%load_ext mcpnb\n%mcp connect basic -- {shutil.which('node')} {basic} --stdio"
    cell, _ = _exploring(fe, setup, "basic", "get-time")
    fe.click(fe.find(cell, css="mcpnb-explore-call"))
    result = fe.find(cell, css="mcpnb-explore-result")
    fe.wait_for(lambda: "get-time" in fe.models[result].get("value", ""), what="the result")
    page = fe.wait_for(lambda: fe.find(None, model="AnyModel"), what="the tool's page")
    assert "<title>Get Time App</title>" in fe.models[page]["document"]
    fe.wait_for(
        lambda: any(f"IPY_MODEL_{page}" in (st.get("children") or []) for st in fe.models.values()),
        what="the page inside the explorer",
    )
    initialize = {"jsonrpc": "2.0", "id": 7, "method": "ui/initialize", "params": {}}
    asked = fe.send_custom(page, {"view": "v", "message": initialize})
    fe.wait_for(lambda: fe.custom.get(asked), what="the page's handshake answered")
    assert fe.custom[asked][0]["message"]["result"]["hostContext"]["toolInfo"]["tool"]["name"] == "get-time"
    fe.send_custom(
        page, {"view": "v", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
    )
    landed = fe.wait_for(
        lambda: [
            m
            for m in fe.custom_of.get(page, [])
            if m["message"].get("method") == "ui/notifications/tool-result"
        ],
        what="the call's result, handed to the page",
    )
    assert "time" in landed[0]["message"]["params"]["structuredContent"]


def test_explorer_draws_the_page_while_the_call_runs(kernel):
    from tests.notebook.render.test_app_view import CLOCK

    fe = Frontend(kernel)
    cell, _ = _exploring(fe, CLOCK + "%load_ext mcpnb\n%mcp connect clock {{clock}}", "clock", "slow")
    fe.set(_field(fe, "seconds"), "3")
    fe.click(fe.find(cell, css="mcpnb-explore-call"))
    page = fe.wait_for(lambda: fe.find(None, model="AnyModel"), what="the page, as the call starts")
    result = fe.find(cell, css="mcpnb-explore-result")
    assert "slept" not in fe.models[result].get("value", "")  # the tool is still running
    fe.wait_for(lambda: "slept 3" in fe.models[result].get("value", ""), what="the result")
    assert fe.find(None, model="AnyModel") == page  # one page, handed the result (not drawn again)
