"""``%mcp explore`` keeps no secret in its widgets (in process, against a real in-process server).

JupyterLab's "save widget state" (and nbclient's ``store_widget_state``) writes every open widget's
state into the notebook. A password or API key typed as a tool's argument stayed in its Password
widget's value after Call; a form replaced by another tool's was never closed (its typed values
stayed too); a question the call asked (a PIN, a password) kept its widgets open after the answer.
"""

from __future__ import annotations

from typing import Any

from conftest import wait_until

from mcpnb.notebook.cell import ToolExplorer
from tests.servers.secrets_server import create_server

PASSWORD = "ExplPassWd_Q1w2E3r4T5"
KEY = "ExplApiKey_Aa11Bb22Cc33"
PIN = "86420975"


def _widgets(root: Any) -> list[Any]:
    return [root, *(w for child in getattr(root, "children", ()) for w in _widgets(child))]


def _css(root: Any, css: str) -> Any:
    return next(w for w in _widgets(root) if css in getattr(w, "_dom_classes", ()))


def _explorer(pool: Any, tool: str, era: str | None = None) -> ToolExplorer:
    pool.connect("sec", server=create_server(), **({"era": era} if era else {}))
    explorer = ToolExplorer(pool, "sec")
    explorer.tool_pick.value = tool
    return explorer


def _landed(explorer: ToolExplorer) -> Any:
    live = explorer.call()
    assert live is not None, explorer.form.errors
    assert wait_until(lambda: live.done() and explorer.call_button.description == "Call")
    return explorer.result


def test_secret_arguments_are_emptied_once_the_call_is_sent_and_the_form_says_so(pool):
    explorer = _explorer(pool, "login")
    inputs = explorer.form.inputs
    inputs["username"].value, inputs["password"].value, inputs["api_key"].value = "ann", PASSWORD, KEY
    note = _css(explorer.form_box, "mcpnb-explore-secret-note")
    assert "password" in note.value and "api_key" in note.value and "emptied" in note.value
    result = _landed(explorer)
    assert result.text == f"logged in as ann (password {len(PASSWORD)}, key {len(KEY)})"  # they arrived
    assert inputs["password"].value == "" and inputs["api_key"].value == ""  # and left the widgets
    assert inputs["username"].value == "ann"  # a plain argument stays, for the next call
    assert explorer.call() is None and "password" in explorer.form.errors  # typed again to call again


def test_a_form_replaced_by_another_tools_is_closed(pool):
    explorer = _explorer(pool, "login")
    old = explorer.form
    old.inputs["password"].value = PASSWORD  # typed, then another tool picked: never sent
    explorer.tool_pick.value = "ask_secrets"
    assert explorer.form is not old
    assert all(w.comm is None for w in _widgets(old.widget))  # closed: its state left the frontend
    assert old.inputs["password"].comm is None


def test_a_question_inside_the_explorer_ends_as_its_record_and_its_widgets_close(pool):
    from mcpnb.notebook.cell import NotebookInteraction

    pool.interaction = NotebookInteraction()  # what %load_ext installs
    explorer = _explorer(pool, "ask_secrets", era="legacy")  # a form pushed mid-call: that era's
    running = explorer.call()
    assert wait_until(lambda: len(explorer.asking.children) == 1)
    (question,) = explorer.asking.children
    _css(question, "mcpnb-field-user").value = "ann"
    _css(question, "mcpnb-field-secret_answer").value = PASSWORD
    pin = _css(question, "mcpnb-field-pin")
    pin.value = PIN
    _css(question, "mcpnb-accept").click()
    assert wait_until(lambda: running.done() and explorer.call_button.description == "Call")
    assert explorer.result.text == f"accept: pin={len(PIN)}, secret_answer={len(PASSWORD)}, user=3"
    (record,) = explorer.asking.children  # the record, in the question's place
    assert "mcpnb-explore-record" in record._dom_classes
    assert "••••••" in record.value and PASSWORD not in record.value and PIN not in record.value
    assert "ann" in record.value
    assert pin.value == "" and all(w.comm is None for w in _widgets(question))
    # the next call closes the record too
    explorer.tool_pick.value = "login"
    inputs = explorer.form.inputs
    inputs["username"].value, inputs["password"].value = "ann", PASSWORD
    _landed(explorer)
    assert record.comm is None and explorer.asking.children == ()


def test_a_retry_sends_the_secret_again_though_the_widget_was_emptied(pool):
    """−32042: the call is refused until a page is opened; the secret left its widget when the
    first call was sent, and Retry sends it again (from memory, not from a widget)."""
    explorer = _explorer(pool, "gated_login", era="legacy")
    inputs = explorer.form.inputs
    inputs["username"].value, inputs["password"].value = "ann", PASSWORD
    assert _landed(explorer) is None and "open a page first" in explorer.status.value
    assert inputs["password"].value == ""
    (panel,) = explorer.asking.children
    _css(panel, "mcpnb-retry").click()
    assert wait_until(lambda: explorer.result is not None and explorer.call_button.description == "Call")
    assert explorer.result.text == f"logged in as ann (password {len(PASSWORD)})"
    assert inputs["password"].value == ""
