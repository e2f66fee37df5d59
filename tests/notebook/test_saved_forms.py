"""A saved notebook keeps what a person saw: an answered form and a finished progress bar, as HTML.

JupyterLab saves no widget state by default: an output that is still a widget view, reopened (or
on GitHub, nbviewer, after a kernel restart), says "model not found". So what a saved .ipynb keeps
of an output is its bundle as last updated by display id. A real kernel, real servers (the SDK's
own ``MCPServer`` asking for a sign-in with a password, in process; server-everything reporting
progress over stdio) and this test playing JupyterLab over jupyter_client: the notebook is built
from the iopub messages as a frontend saves it (nbformat's ``output_from_msg``, updates applied by
display id wherever the output is, streams merged) and read back as the file's JSON.
"""

from __future__ import annotations

import json
from typing import Any

import nbformat
import pytest
from conftest import LOOPBACK

from tests.frontend import Frontend

pytestmark = pytest.mark.timeout(180)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PASSWORD = "hunter2-secret"
DECLINED_PASSWORD = "never-sent-pw"

SETUP = """\
%load_ext mcpnb
from typing import Annotated
from pydantic import BaseModel, Field
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
import mcpnb

class SignIn(BaseModel):
    user: str = Field(title="User name")
    password: str = Field(title="Password")

def ask_sign_in(ctx: Context) -> Elicit[SignIn]:
    return Elicit("Sign in to the <vault>", SignIn)

vault = MCPServer("vault", log_level="WARNING")

@vault.tool()
def sign_in(result: Annotated[ElicitationResult[SignIn], Resolve(ask_sign_in)]) -> str:
    if result.action != "accept":
        return f"not signed in: {result.action}"
    return f"signed in as {result.data.user} (a password of {len(result.data.password)} characters)"

_ = mcpnb.default_pool().connect("vault", server=vault)
"""
ASK = 'print("before the form")\nr = %mcp call vault.sign_in\nprint("after:", r.text)'
DECLINE = 'n = %mcp call vault.sign_in\nprint("declined:", n.text)'


class SavedNotebook:
    """The outputs a frontend saves, per request: every iopub message the Frontend reads is also
    applied here (by teeing the kernel client's ``get_iopub_msg``)."""

    def __init__(self, kc: Any) -> None:
        self.outputs: dict[str, list[Any]] = {}
        self._by_display_id: dict[str, list[Any]] = {}
        read = kc.get_iopub_msg

        def tee(*args: Any, **kwargs: Any) -> Any:
            msg = read(*args, **kwargs)
            self.add(msg)
            return msg

        kc.get_iopub_msg = tee

    def add(self, msg: dict[str, Any]) -> None:
        kind, content = msg["msg_type"], msg["content"]
        outputs = self.outputs.setdefault(msg["parent_header"].get("msg_id", ""), [])
        display_id = (content.get("transient") or {}).get("display_id")
        if kind == "update_display_data":  # in place, in whichever cell showed it
            for out in self._by_display_id.get(display_id, []):
                out["data"], out["metadata"] = content["data"], content.get("metadata", {})
        elif kind == "stream" and outputs and outputs[-1].get("name") == content["name"]:
            outputs[-1]["text"] += content["text"]
        elif kind in ("display_data", "execute_result", "stream", "error"):
            out = nbformat.v4.output_from_msg(msg)
            outputs.append(out)
            if display_id:
                self._by_display_id.setdefault(display_id, []).append(out)

    def json(self, cells: list[tuple[str, str]]) -> str:
        """The .ipynb's text: ``cells`` are (source, msg_id of its run)."""
        nb = nbformat.v4.new_notebook()
        for source, run in cells:
            cell = nbformat.v4.new_code_cell(source)
            cell.outputs = self.outputs.get(run, [])
            nb.cells.append(cell)
        nbformat.validate(nb)
        return nbformat.writes(nb)


def _form(fe: Frontend, cell: str) -> dict[str, str]:
    return fe.form(cell, "user", "password", buttons=("accept", "decline"))


def _text(saved: str | list[str]) -> str:
    """A multiline string as a saved .ipynb holds it (a list of lines), whole again."""
    return saved if isinstance(saved, str) else "".join(saved)


def _html(output: Any) -> str:
    return _text(output.get("data", {}).get("text/html", ""))


def test_an_answered_form_is_saved_as_html_with_the_password_masked(kernel):
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    setup = fe.run_ok(SETUP)

    ask = fe.execute(ASK)
    form = _form(fe, ask)
    assert fe.models[form["password"]]["_model_name"] == "PasswordModel"
    fe.set(form["user"], "ada")
    fe.set(form["password"], PASSWORD)
    fe.click(form["accept"])
    assert fe.reply(ask)["status"] == "ok"
    assert "after: signed in as ada (a password of 14 characters)" in fe.stdout[ask]

    declined = fe.execute(DECLINE)
    other = _form(fe, declined)
    fe.set(other["password"], DECLINED_PASSWORD)  # typed, then declined: never sent, never kept
    fe.click(other["decline"])
    assert fe.reply(declined)["status"] == "ok"
    fe.pump(0.3)

    text = saved.json([(SETUP, setup), (ASK, ask), (DECLINE, declined)])
    assert PASSWORD not in text and DECLINED_PASSWORD not in text
    outputs = json.loads(text)["cells"][1]["outputs"]

    # in its place: between what the cell printed before the form and after it
    assert [o["output_type"] for o in outputs] == ["stream", "display_data", "stream"], outputs
    assert _text(outputs[0]["text"]) == "before the form\n" and _text(outputs[2]["text"]).startswith("after:")
    record = outputs[1]
    assert WIDGET_VIEW not in record["data"]  # no widget left to say "model not found"
    shown = _html(record)
    assert 'class="mcpnb-form mcpnb-record' in shown
    assert "<b>vault</b> asks for input" in shown and "Sign in to the &lt;vault&gt;" in shown
    assert "Sent to <b>vault</b>" in shown and "ada" in shown and "••••••" in shown
    plain = _text(record["data"]["text/plain"])
    assert "Sign in to the <vault>" in plain and "user: ada" in plain and "password: ••••••" in plain

    (record,) = [o for o in json.loads(text)["cells"][2]["outputs"] if o["output_type"] == "display_data"]
    assert WIDGET_VIEW not in record["data"]
    assert 'Declined: <b>vault</b> was told "decline"; nothing you typed was sent' in _html(record)
    assert "Asked for: User name, Password" in _html(record)

    # and the form's widgets are gone: no widget state left to save, the password box's included
    assert {form["password"], form["user"], other["password"]} <= fe.closed


def test_a_finished_progress_bar_is_saved_as_its_last_line(kernel, everything):
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    connect = (
        f"%load_ext mcpnb\n%mcp connect everything --era legacy -- node -r {LOOPBACK} {everything} stdio"
    )
    setup = fe.run_ok(connect)
    code = "p = %mcp call everything.trigger-long-running-operation duration=0.5 steps=5\nprint('ended')"
    run = fe.run_ok(code)
    fe.pump(0.3)

    outputs = json.loads(saved.json([(connect, setup), (code, run)]))["cells"][1]["outputs"]
    bars = [o for o in outputs if "mcpnb-progress" in _html(o)]
    assert len(bars) == 1, outputs
    (bar,) = bars
    assert WIDGET_VIEW not in bar["data"]
    assert "mcpnb-record" in _html(bar)
    assert _text(bar["data"]["text/plain"]).startswith("✓ done in ")
    assert " · 5/5" in _text(bar["data"]["text/plain"])
    assert all(WIDGET_VIEW not in o.get("data", {}) for o in outputs)  # the result is HTML too


# ------------------------------------------------------------------ each panel's record, in process
class Output:
    """A display handle's stand-in: what an output was last updated with."""

    def __init__(self) -> None:
        self.updates: list[dict[str, str]] = []

    def update(self, bundle: dict[str, str], *, raw: bool = False) -> None:
        assert raw  # a plain bundle, not an object to format
        self.updates.append(bundle)


SCHEMA = {
    "type": "object",
    "properties": {"user": {"type": "string", "title": "User name"}, "apiToken": {"type": "string"}},
    "required": ["user"],
}


def _form_in(output: Output | None = None) -> Any:
    from mcpnb.notebook.forms import ElicitationForm

    form = ElicitationForm(SCHEMA, message="Sign in", server="vault", on_done=lambda _o: None)
    if output is not None:
        form.record_into(output)
    return form


def test_a_form_leaves_its_record_once_when_it_ends_and_not_before():
    output = Output()
    form = _form_in(output)
    form.inputs["user"].value = "ada"
    form.inputs["apiToken"].value = "tok-secret-9"
    assert output.updates == []  # open: the live form, unchanged
    form.submit("accept")
    form.finish(form.outcome, "late")  # a second ending changes nothing on record
    (record,) = output.updates
    assert "tok-secret-9" not in json.dumps(record)
    assert "apiToken: ••••••" in record["text/plain"] and "user: ada" in record["text/plain"]
    assert form.widget.comm is None and form.inputs["apiToken"].value == ""


@pytest.mark.parametrize(
    ("ending", "said"),
    [
        ("decline", '✗ Declined: vault was told "decline"; nothing you typed was sent.'),
        ("cancel", '⊘ Cancelled: vault was told "cancel"; nothing you typed was sent.'),
        ("timeout", "no longer waiting for an answer"),  # what questions.py says on a timeout
        ("withdrawn", "withdrawn: this cell ran again"),  # what forms.rerun says
    ],
)
def test_every_way_a_form_ends_is_on_record(ending, said):
    from mcpnb.client.elicitation.outcome import FormOutcome

    output = Output()
    form = _form_in(output)
    form.inputs["apiToken"].value = "typed-not-sent"
    if ending in ("decline", "cancel"):
        form.submit(ending)
    else:
        form.finish(FormOutcome("cancel", None), said)
    (record,) = output.updates
    assert said in record["text/plain"] and "Asked for: User name, apiToken" in record["text/plain"]
    assert "typed-not-sent" not in json.dumps(record)


def test_a_form_that_ended_before_its_place_was_known_records_at_once_and_none_without_one():
    form = _form_in()
    form.submit("decline")
    output = Output()
    form.record_into(output)
    assert len(output.updates) == 1
    inside = _form_in()
    inside.record_into(None)  # inside another widget (the explorer): that stays live
    inside.submit("decline")
    assert "Declined" in inside.status.value  # the live form says it, as before


def test_panels_and_a_progress_bar_leave_records():
    from mcpnb.notebook.forms import ConfirmPanel, ProgressView, SamplingPanel, UrlConsent

    confirm, sampling, url, retry, bar = (Output() for _ in range(5))
    panel = ConfirmPanel("Run probe.x?", "with {}", yes="Run it", no="Skip", on_done=lambda _o: None)
    panel.record_into(confirm)
    panel.submit("accept")
    assert (
        "Run probe.x?" in confirm.updates[0]["text/plain"] and "✓ Run it" in confirm.updates[0]["text/plain"]
    )
    assert 'class="mcpnb-confirm mcpnb-record' in confirm.updates[0]["text/html"]

    params = {"messages": [{"role": "user", "content": {"type": "text", "text": "Say <hi>"}}]}
    reply = SamplingPanel(params, server="s", on_done=lambda _o: None)
    reply.record_into(sampling)
    reply.reply.value = "Hi <there>"
    reply.submit("accept")
    assert "Say &lt;hi&gt;" in sampling.updates[0]["text/html"]
    assert "Hi &lt;there&gt;" in sampling.updates[0]["text/html"]  # what the person answered, escaped
    assert "Reply sent to s" in sampling.updates[0]["text/plain"]

    link = UrlConsent("https://login.example.com/a", message="Sign in", server="u", on_done=lambda _o: None)
    link.record_into(url)
    link.submit("accept")
    assert (
        "login.example.com" in url.updates[0]["text/plain"] and "completed it" in url.updates[0]["text/plain"]
    )

    # the −32042 panel: "completed" is not its end, the retry is
    again = UrlConsent.retry_panel(
        "https://login.example.com/a",
        message=None,
        server="u",
        on_done=lambda _o: None,
        on_retry=lambda: None,
    )
    again.record_into(retry)
    again.retry()
    assert retry.updates == []
    again.finish_retry(False, "still asks: retry")
    assert retry.updates == []  # Retry is offered again: still live
    again.retry()
    again.finish_retry(True, "Done: the result is below.")
    assert "Done: the result is below." in retry.updates[0]["text/plain"]

    progress = ProgressView()
    progress.min_interval = 0
    progress.record_into(bar)
    for step in range(1, 11):
        progress.update(step, 10, f"step {step} <of> 10")
    assert bar.updates == []
    progress.done()
    (line,) = bar.updates
    assert line["text/plain"].startswith("✓ done in ") and line["text/plain"].endswith(
        " · 10/10 · step 10 <of> 10"
    )
    assert (
        "step 10 &lt;of&gt; 10" in line["text/html"]
        and 'class="mcpnb-progress mcpnb-record"' in line["text/html"]
    )


# ------------------------------------------------------------------ the −32042 panel
#: −32042 is the 2025-11-25 era's (2026-07-28 asks with an InputRequiredResult): probe-kit in that era
PAGE_SETUP = "import os; os.chdir({root!r})\n%load_ext mcpnb\n%mcp serve probe-kit --era legacy"
#: probe-kit lets a page through once it has asked for it: each cell opens a page of its own
REFUSED = "r = %mcp call probe.open_local_page path={page} via=error\nprint('RESULT', r.text if r else r)"
LET_GO = (  # inside a function the call is not awaited: the cell ends, the panel stays to click
    "def go():\n    r = %mcp call probe.open_local_page path=later.md via=error\n    return r\n"
    "later = go()\nlater"
)


def _refusal(fe: Frontend, run: str) -> tuple[str, str]:
    """The −32042 panel's Retry and Decline buttons, once the panel is there to click."""
    retry = fe.wait_for(lambda: fe.find(run, css="mcpnb-retry", model="ButtonModel"), what="Retry")
    fe.wait_for(lambda: fe.find(run, css="mcpnb-url-consent"), what="the consent panel")
    decline = fe.find(run, css="mcpnb-decline", model="ButtonModel")
    assert decline
    return retry, decline


def test_the_page_to_open_first_is_saved_as_what_was_asked_and_what_came_of_it(kernel, tmp_path):
    """−32042 ("open this page, then retry"): retried in an awaiting cell, declined in another, and
    retried from a cell that let go (its result shown under the panel). Each panel's output is its
    record, with the link shown as text; the results are the cells' own outputs."""
    for page in ("retried.md", "declined.md", "later.md"):
        (tmp_path / page).write_text("# Thanks for visiting\n")
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    setup_code = PAGE_SETUP.format(root=str(tmp_path))
    setup = fe.run_ok(setup_code)

    retry_code, decline_code = REFUSED.format(page="retried.md"), REFUSED.format(page="declined.md")
    retried = fe.execute(retry_code)
    fe.click(_refusal(fe, retried)[0])
    assert fe.reply(retried)["status"] == "ok"
    assert "RESULT" in fe.stdout[retried] and "Thanks for visiting" in fe.stdout[retried]

    declined = fe.execute(decline_code)
    fe.click(_refusal(fe, declined)[1])
    assert fe.reply(declined)["status"] == "ok"
    assert "RESULT None" in fe.stdout[declined]

    let_go = fe.run_ok(LET_GO)
    assert let_go not in fe.results  # the panel shows once: the cell's value adds nothing
    fe.click(_refusal(fe, let_go)[0])
    fe.wait_for(
        lambda: any("Thanks for visiting" in str(d) for d in saved.outputs.get(let_go, [])),
        what="the retried result under the panel",
    )
    fe.pump(0.3)

    cells = [(setup_code, setup), (retry_code, retried), (decline_code, declined), (LET_GO, let_go)]
    saved_cells = json.loads(saved.json(cells))["cells"]
    for at, said in ((1, "Done: the result is below."), (2, "Declined"), (3, "Done: the result is below.")):
        outputs = saved_cells[at]["outputs"]
        assert all(WIDGET_VIEW not in o.get("data", {}) for o in outputs), outputs  # no "model not found"
        (panel,) = [o for o in outputs if "mcpnb-url-consent" in _html(o)]
        assert 'class="mcpnb-url-consent mcpnb-record' in _html(panel)
        plain = _text(panel["data"]["text/plain"])
        assert "probe asks you to open a link" in plain and ".md" in plain and said in plain
    after = saved_cells[3]["outputs"]
    assert "mcpnb-url-consent" in _html(after[0]) and "Thanks for visiting" in _text(
        after[1]["data"]["text/plain"]
    )
