"""The tool explorer and the −32042 retry panel, as widgets a person uses (in-process here; the
kernel tests click them through a real kernel)."""

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
    explorer.form.inputs["a"].value = 2
    explorer.form.inputs["b"].value = 40
    result = landed(explorer)
    assert result.data == 42
    assert "42" in explorer.result_view.value and "✓" in explorer.status.value


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
    """−32042 from probe-kit's ``open_local_page`` (modern era): a link with Retry under the Call
    button, not one line of text; Decline says nothing was called again, Retry calls again."""
    (tmp_path / "page.md").write_text("# Thanks for visiting\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool)
    explorer = ToolExplorer(pool, "probe")
    explorer.tool_pick.value = "open_local_page"
    explorer.form.inputs["path"].value = "page.md"

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


def test_retry_panel_calls_again_after_the_page(pool, tmp_path, monkeypatch):
    (tmp_path / "page.md").write_text("# Consent given\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool)
    with pytest.raises(UrlRequiredError) as info:
        pool.call("probe", "open_local_page", {"path": "page.md"})
    retry = UrlRetry(pool, info.value, {"path": "page.md"})
    assert "probe" in retry.panel.widget.children[0].value  # which server asks
    result = retry.panel.buttons["retry"].click() or retry.result
    assert result.data["title"] == "Consent given"
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

    def show(self, slot: str, obj: object) -> None:
        self.retry.panel.buttons[self.button].click()


@pytest.mark.parametrize("button", ["decline", "retry"])
def test_a_click_before_the_awaiting_cell_waits_is_kept(pool, tmp_path, monkeypatch, button):
    (tmp_path / "page.md").write_text("# Consent given\n")
    monkeypatch.chdir(tmp_path)
    serve_probekit("probe", pool=pool)
    with pytest.raises(UrlRequiredError) as info:
        pool.call("probe", "open_local_page", {"path": "page.md"})
    ui = _ClickedAsItShows(button)
    retry = ui.retry = UrlRetry(pool, info.value, {"path": "page.md"}, ui=ui)
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
