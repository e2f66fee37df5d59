"""The tool explorer and the −32042 retry panel, as widgets a person uses (in-process here; the
kernel tests click them through a real kernel). −32042 is 2025-11-25's ("open this page, then
retry"): those tests connect probe-kit in the legacy era and call ``open_local_page`` with
``via=error``; 2026-07-28 asks with an InputRequiredResult instead (a URL consent panel)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from conftest import demo_command, wait_until

from mcpnb import UrlRequiredError, serve_probekit
from mcpnb.notebook.cell import ToolExplorer, UrlRetry
from mcpnb.notebook.cell.capture import CellUI


def landed(explorer: ToolExplorer) -> Any:
    """Click Call and wait for the outcome to show (the click lets go at once): the result, or None."""
    live = explorer.call()
    assert live is not None, explorer.form.errors
    assert wait_until(lambda: live.done() and explorer.call_button.description == "Call")
    return explorer.result


def test_explorer_calls_the_picked_tool_with_the_form(pool):
    pool.connect("demo", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    assert "add" in explorer.tool_pick.options and explorer.server_pick.value == "demo"
    explorer.tool_pick.value = "add"
    explorer.form.inputs["a"].value = "2"
    explorer.form.inputs["b"].value = "40"
    result = landed(explorer)
    assert result.data == 42
    assert "42" in explorer.result_view.value and "✓" in explorer.status.value
    # the outcome on a line of its own: beside the "as a task" box, "✓ in 5177 ms" read as a task's
    row = next(c for c in explorer.widget.children if explorer.call_button in getattr(c, "children", ()))
    assert explorer.as_task in row.children and explorer.status not in row.children


def test_explorer_checks_the_form_before_sending(pool):
    pool.connect("demo", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    explorer.tool_pick.value = "echo"  # text is required and left empty
    assert explorer.call() is None
    assert "text" in explorer.form.errors
    assert pool.call("demo", "calls").data == []  # nothing reached the server


def test_explorer_switches_servers(pool):
    pool.connect("demo", **demo_command())
    serve_probekit("probe", pool=pool)
    explorer = ToolExplorer(pool)
    explorer.server_pick.value = "probe"
    assert "ui_search" in explorer.tool_pick.options
    explorer.tool_pick.value = "ui_search"
    explorer.form.inputs["query"].value = "date picker"
    assert landed(explorer).data["results"][0]["id"] == "date-picker"


def test_explorer_needs_a_connected_server(pool):
    with pytest.raises(ValueError, match="no connected server"):
        ToolExplorer(pool)


def test_explorer_shows_the_page_to_open_first_and_retries(pool, tmp_path, monkeypatch):
    """−32042 from probe-kit's ``open_local_page`` (2025-11-25, ``via=error``): a link with Retry
    under the Call button, not one line of text; Decline says nothing was called again, Retry calls
    again."""
    (tmp_path / "page.md").write_text("# Thanks for visiting\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool, era="legacy")
    explorer = ToolExplorer(pool, "probe")
    explorer.tool_pick.value = "open_local_page"
    explorer.form.inputs["path"].value = "page.md"
    explorer.form.inputs["via"].label = "error"

    def panel_buttons() -> dict[str, Any]:
        (panel,) = explorer.asking.children
        assert "mcpnb-url-consent" in panel._dom_classes
        assert ".md" in panel.children[1].children[0].value  # the Open ↗ link
        return {c._dom_classes[0].removeprefix("mcpnb-"): c for c in panel.children[1].children[1:]}

    assert landed(explorer) is None
    assert "open a page first" in explorer.status.value
    panel_buttons()["decline"].click()
    assert "not called again" in explorer.status.value and explorer.result is None
    (tmp_path / "other.md").write_text("# Another page\n")
    explorer.form.inputs["path"].value = "other.md"
    assert landed(explorer) is None  # another page: asked again
    explorer.form.inputs["path"].value = "page.md"  # Retry calls with the form as it is then
    panel_buttons()["retry"].click()
    assert wait_until(lambda: explorer.result is not None and explorer.call_button.description == "Call")
    assert "Thanks for visiting" in explorer.result.text and "✓" in explorer.status.value
    assert explorer.asking.children == ()


@pytest.mark.parametrize("button", ["accept", "decline"])
def test_explorer_asks_url_consent_in_the_modern_era(pool, tmp_path, monkeypatch, button):
    """2026-07-28: no −32042. The call's InputRequiredResult holds the URL request; its consent
    panel (no Retry: the call itself waits) shows under Call, and the answer completes the call."""
    from mcpnb.notebook.cell import NotebookInteraction

    (tmp_path / "page.md").write_text("# Thanks for visiting\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool)
    pool.interaction = NotebookInteraction()  # what %load_ext installs: questions go to the cell's UI
    explorer = ToolExplorer(pool, "probe")
    explorer.tool_pick.value = "open_local_page"
    explorer.form.inputs["path"].value = "page.md"
    running = explorer.call()
    assert running is not None
    assert wait_until(lambda: len(explorer.asking.children) == 1)
    (panel,) = explorer.asking.children
    assert "mcpnb-url-consent" in panel._dom_classes and "page.md" in panel.children[0].value
    buttons = {c._dom_classes[0].removeprefix("mcpnb-"): c for c in panel.children[1].children[1:]}
    assert "retry" not in buttons  # the call waits for the answer; nothing to call again
    buttons[button].click()
    assert wait_until(lambda: running.done() and explorer.call_button.description == "Call")
    assert explorer.result.data["action"] == button and "✓" in explorer.status.value
    assert ("Thanks for visiting" in explorer.result.text) == (button == "accept")


def test_retry_panel_calls_again_after_the_page(pool, tmp_path, monkeypatch):
    (tmp_path / "page.md").write_text("# Consent given\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool, era="legacy")
    with pytest.raises(UrlRequiredError) as info:
        pool.call("probe", "open_local_page", {"path": "page.md", "via": "error"})
    retry = UrlRetry(pool, info.value, {"path": "page.md", "via": "error"})
    assert "probe" in retry.panel.widget.children[0].value  # which server asks
    retry.panel.buttons["retry"].click()  # lets go at once: the result lands under the panel
    assert wait_until(lambda: retry.result is not None)
    assert retry.result.data["title"] == "Consent given"
    assert "Consent given" in retry.result_view.value
    assert "Done: the result is below" in retry.panel.status.value  # not left on "Retrying…"
    assert "Retrying" not in retry.panel.status.value


class _ClickedAsItShows(CellUI):
    """An awaiting cell whose person clicks the instant the panel appears: before the cell has
    started to wait for the answer (the race a loaded kernel loses: the click was dropped and the
    cell waited forever)."""

    def __init__(self, button: str) -> None:
        super().__init__("widget", awaiting=True)
        self.mode, self.button, self.retry = "widget", button, None

    def show(self, slot: str, obj: object, plain: str | None = None) -> None:
        self.retry.panel.buttons[self.button].click()


@pytest.mark.parametrize("button", ["decline", "retry"])
def test_a_click_before_the_awaiting_cell_waits_is_kept(pool, tmp_path, monkeypatch, button):
    (tmp_path / "page.md").write_text("# Consent given\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool, era="legacy")
    with pytest.raises(UrlRequiredError) as info:
        pool.call("probe", "open_local_page", {"path": "page.md", "via": "error"})
    ui = _ClickedAsItShows(button)
    retry = ui.retry = UrlRetry(pool, info.value, {"path": "page.md", "via": "error"}, ui=ui)
    outcome: dict[str, object] = {}
    waiter = threading.Thread(target=lambda: outcome.update(result=retry.wait()), daemon=True)
    waiter.start()
    waiter.join(30)
    assert not waiter.is_alive(), f"the cell still waits after a click on {button}"
    if button == "decline":
        assert outcome["result"] is None
        assert "Declined" in retry.panel.status.value
    else:
        assert outcome["result"].data["title"] == "Consent given"
        assert "Done: the result is below" in retry.panel.status.value


# --- tools that run as tasks ---------------------------------------------------------------------


def _widgets(root: Any) -> list[Any]:
    """``root`` and every widget inside it, depth first."""
    return [root, *(w for child in getattr(root, "children", ()) for w in _widgets(child))]


def _css(root: Any, css: str) -> Any:
    return next(w for w in _widgets(root) if css in getattr(w, "_dom_classes", ()))


def _slow_task(pool: Any, **values: Any) -> ToolExplorer:
    pool.connect("demo", **demo_command())
    serve_probekit("probe", pool=pool)
    explorer = ToolExplorer(pool, "demo")
    explorer.tool_pick.value = "add"
    assert explorer.as_task.layout.display == "none"  # no task support declared: nothing to tick
    explorer.server_pick.value = "probe"
    explorer.tool_pick.value = "slow_task"  # execution.taskSupport "optional"
    assert explorer.as_task.layout.display is None and not explorer.as_task.disabled
    assert explorer.as_task.value is False  # a plain call unless the person ticks it
    for name, value in values.items():
        explorer.form.inputs[name].value = value if isinstance(value, bool) else str(value)  # typed
    explorer.as_task.value = True
    return explorer


def test_a_tool_that_can_run_as_a_task_runs_as_one_from_the_explorer(pool):
    from mcpnb.probekit.tools.demo import primes_in

    explorer = _slow_task(pool, steps=3, delay=0.0)
    running = explorer.call()
    handle = explorer.task
    assert handle is not None and handle.task_id  # a real task on the server, not a plain call
    assert "mcpnb-task" in explorer.asking.children[0]._dom_classes  # its live view, under Call
    assert wait_until(lambda: running.done() and explorer.call_button.description == "Call")
    assert explorer.result.data["totalPrimes"] == len(primes_in(0, 3000))
    assert "✓" in explorer.status.value and "2999" in explorer.result_view.value  # its last row
    assert handle.status == "completed"


def test_stop_cancels_the_task_on_the_server(pool):
    explorer = _slow_task(pool, steps=600, delay=0.1)
    running = explorer.call()
    handle = explorer.task
    assert wait_until(lambda: handle.status == "working")
    assert explorer.call_button.description == "Stop"
    explorer._clicked()  # Stop
    assert wait_until(lambda: running.done() and explorer.call_button.description == "Call")
    assert handle.refresh() == "cancelled"  # what the server says now
    assert "cancelled" in explorer.status.value


def test_a_task_asks_its_question_inside_the_explorer(pool):
    """probe-kit's ``slow_task`` with ``confirm`` asks half-way whether to go on (input_required):
    the question shows under Call, as a call's would, and the answer reaches the task."""
    from mcpnb.notebook.cell import NotebookInteraction

    pool.interaction = NotebookInteraction()  # what %load_ext installs: questions go to the cell's UI
    explorer = _slow_task(pool, steps=2, delay=0.0, confirm=True)
    running = explorer.call()
    assert wait_until(lambda: len(explorer.asking.children) == 2)  # the task's view, then the question
    form = explorer.asking.children[1]
    next(w for w in _widgets(form) if type(w).__name__ == "Checkbox").value = True  # "Continue?"
    _css(form, "mcpnb-accept").click()
    assert wait_until(lambda: running.done() and explorer.call_button.description == "Call")
    assert explorer.result.data["confirmed"] is True and len(explorer.result.data["steps"]) == 2


def test_a_tasks_view_heads_its_question_whichever_came_first(pool):
    """A task is followed as soon as it starts, so its question can reach the explorer before the
    task's live view is shown; the view still comes first, the question under it."""
    import ipywidgets as w

    serve_probekit("probe", pool=pool)
    explorer = ToolExplorer(pool, "probe")
    question, view = w.HTML("Continue?"), w.HTML("task view")
    explorer.keep_in_view("form", question)
    explorer.keep_in_view("task", view)
    assert explorer.asking.children == (view, question)


def test_a_question_the_policy_answers_in_the_explorer_is_said_with_the_result(pool, monkeypatch):
    """With ``Mcp.elicitation = "decline"`` the explorer's call asks nobody; its result says so and
    why, not only the server's "You declined"."""
    from mcpnb.notebook.cell import NotebookInteraction
    from mcpnb.notebook.settings import get_settings

    monkeypatch.setattr(get_settings(), "elicitation", "decline")
    pool.interaction = NotebookInteraction()  # what %load_ext installs
    serve_probekit("probe", pool=pool)
    explorer = ToolExplorer(pool, "probe")
    explorer.tool_pick.value = "ask_user"
    explorer.form.inputs["question"].value = "Colour?"
    result = landed(explorer)
    assert result.answered_without_asking == [
        "probe asked “Colour?”, answered without asking anyone: declined by the 'decline' policy "
        "(Mcp.elicitation is 'decline')"
    ]
    assert "answered without asking anyone" in explorer.result_view.value


def test_the_explorer_opens_on_a_tool_and_switching_servers_picks_one_too(pool):
    """ipywidgets leaves a dropdown on nothing after new options: the explorer opened saying "this
    server has no tools" over a list of them, and Call did nothing."""
    pool.connect("demo", **demo_command())
    pool.connect("other", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    first = sorted(explorer.tool_pick.options)[0]
    assert explorer.tool_pick.value == first and explorer.form is not None
    assert "no tools" not in explorer.about.value
    explorer.server_pick.value = "other"
    assert explorer.tool_pick.value == first and "no tools" not in explorer.about.value


def _enter(explorer: ToolExplorer, name: str) -> None:
    """What the browser sends when Enter is pressed in field ``name`` (a one-line box)."""
    explorer.form.inputs[name]._handle_custom_msg({"event": "submit"}, [])


def test_enter_in_a_field_calls_the_tool_as_the_button_does(pool):
    # Enter did nothing: the explorer's form is an elicitation form with its Accept hidden
    pool.connect("demo", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    explorer.tool_pick.value = "add"
    explorer.form.inputs["a"].value = "2"
    _enter(explorer, "a")  # b still empty: checked as a click is, nothing sent
    assert "b" in explorer.form.errors and explorer.running is None
    explorer.form.inputs["b"].value = "40"
    _enter(explorer, "a")  # any one-line field, as in a search box
    assert wait_until(lambda: explorer.running is not None and explorer.running.done())
    assert explorer.result.data == 42 and "✓" in explorer.status.value


def test_enter_while_a_call_runs_does_not_stop_it(pool):
    pool.connect("demo", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    explorer.tool_pick.value = "slow"
    name = "seconds"
    explorer.form.inputs[name].value = "1"
    _enter(explorer, name)
    assert wait_until(lambda: explorer.call_button.description == "Stop")
    first = explorer.running
    _enter(explorer, name)  # a second Enter: no Stop, no second call
    assert explorer.running is first
    assert wait_until(lambda: first.done() and explorer.call_button.description == "Call")
    assert not explorer.result.is_error, explorer.result.text
