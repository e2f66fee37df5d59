"""A person runs a cell again while its form waits, in a real JupyterLab, and nothing hangs.

JupyterLab clears the cell's output (the form with it) when the cell runs again. The waiting form is
withdrawn: probe-kit is told "cancel", the queued run runs and asks afresh, and its output says
what became of the earlier form. Keys as a person presses them: Shift+Enter in the cell's editor.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from browser.lab import (
    KERNEL_IDLE_LAB,
    code_cell,
    launch,
    new_page,
    open_and_run,
    type_into,
    wait_file,
    write_notebook,
)
from browser.scenarios import SAVE

pytestmark = pytest.mark.timeout(240)

ASK = 'r = %mcp call probe.ask_user question="What should we call you?"\nr'
CELLS = ("%load_ext mcpnb\n%mcp serve probe-kit", ASK, SAVE.format(file="rerun.json", expr="r.data"))
WITHDRAWN = "withdrawn when the cell ran again"


def run_again(page: Any, cell: Any) -> None:
    """Click into the cell's editor and press Shift+Enter, as a person re-runs a cell."""
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def answer(page: Any, cell: Any, text: str) -> None:
    form = cell.locator(".mcpnb-form")
    type_into(page, cell.locator(".mcpnb-field-answer input"), text)
    form.get_by_role("button", name="Accept").click()
    expect(form.locator(".mcpnb-status")).to_contain_text("Sent to probe")


def test_running_a_cell_again_while_its_form_waits_asks_afresh(lab, pw, shots):
    write_notebook(lab.root / "rerun.ipynb", *CELLS)
    saved = lab.root / "rerun.json"
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "rerun.ipynb")  # Run All: the cell below waits behind the form
        asking = code_cell(page, "probe.ask_user")
        form = asking.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        type_into(page, asking.locator(".mcpnb-field-answer input"), "Half-typ")  # a start, then...
        shots.take(page, "form-before")

        run_again(page, asking)  # ...the person runs the cell again: its output (the form) is cleared
        # the earlier run ends with "cancel" (no interrupt), and the Run All cell below it runs
        assert wait_file(saved)["action"] == "cancel"
        expect(asking.locator(".mcpnb-withdrawn")).to_contain_text(WITHDRAWN)
        expect(asking.locator(".mcpnb-withdrawn")).to_contain_text('probe was told "cancel"')
        expect(form).to_have_count(1)  # one form: the new run's, fresh
        expect(asking.locator(".mcpnb-field-answer input")).to_have_value("")
        shots.take(page, "asked-afresh")

        answer(page, asking, "Ada")
        expect(asking.locator(".jp-OutputArea-output", has_text="Ada").last).to_be_visible()
        saved.unlink()
        run_again(page, code_cell(page, "rerun.json"))
        got = wait_file(saved)
        assert got["action"] == "accept"
        assert got["answers"] == [{"question": "What should we call you?", "answer": "Ada"}]
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)  # nothing is left waiting
        shots.take(page, "answered")
    finally:
        browser.close()


def test_after_a_page_reload_running_the_cell_again_withdraws_the_lost_form(lab, pw, shots):
    """The page is reloaded while the form waits (unsaved: the form is gone); the kernel still waits.
    Running the cell again withdraws the lost form, and the new run asks."""
    write_notebook(lab.root / "reload.ipynb", *CELLS[:2])
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "reload.ipynb")
        expect(code_cell(page, "probe.ask_user").locator(".mcpnb-form")).to_be_visible(timeout=90000)

        page.reload()
        asking = code_cell(page, "probe.ask_user")
        expect(asking).to_be_visible(timeout=90000)
        expect(asking.locator(".mcpnb-form")).to_have_count(0)  # never saved: the form is gone
        page.wait_for_function(
            "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel"
            "?.connectionStatus === 'connected'",
            timeout=90000,
        )
        run_again(page, asking)
        expect(asking.locator(".mcpnb-withdrawn")).to_contain_text(WITHDRAWN, timeout=60000)
        expect(asking.locator(".mcpnb-form")).to_be_visible()
        answer(page, asking, "Grace")
        expect(asking.locator(".jp-OutputArea-output", has_text="Grace").last).to_be_visible()
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)
        shots.take(page, "after-reload")
    finally:
        browser.close()
