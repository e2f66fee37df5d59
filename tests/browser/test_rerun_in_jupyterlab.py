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
    kept_by_new_cell,
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


RUN_ALL_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'a = %mcp call probe.ask_user question="First?"',
    'b = %mcp call probe.ask_user question="Second?"',
    "print('end')",
)


def test_a_reload_during_run_all_then_running_the_cell_again_asks_afresh(lab, pw, shots):
    """The sweep's steps: Run All, the first form shows; the page is reloaded (F5, unsaved); the
    person clicks into the asking cell and presses Shift+Enter. The lost form is withdrawn (the same
    cell); the rest of the lost page's Run All queue asks "Second?" into an output the reloaded page
    does not show: withdrawn at once, so the queue runs through. The person's run asks afresh, says
    what went at its top, and the kernel is not left busy. (It showed [*] with nothing, for good.)"""
    write_notebook(lab.root / "reload.ipynb", *RUN_ALL_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "reload.ipynb")
        expect(code_cell(page, "First?").locator(".mcpnb-form")).to_be_visible(timeout=90000)

        page.reload()
        asking = code_cell(page, "First?")
        expect(asking).to_be_visible(timeout=90000)
        expect(asking.locator(".mcpnb-form")).to_have_count(0)  # never saved: the form is gone
        page.wait_for_function(
            "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel"
            "?.connectionStatus === 'connected'",
            timeout=90000,
        )
        run_again(page, asking)
        said = asking.locator(".mcpnb-withdrawn")
        expect(said.first).to_contain_text(WITHDRAWN, timeout=60000)  # its own lost form
        expect(said.last).to_contain_text('("Second?") was withdrawn')  # the lost queue's question
        expect(said.last).to_contain_text("reloaded or closed")
        form = asking.locator(".mcpnb-form")
        expect(form).to_be_visible()
        expect(form).to_contain_text("First?")
        expect(asking.locator(".mcpnb-field-answer input")).to_have_value("")
        shots.take(page, "asked-afresh")

        answer(page, asking, "Grace")
        expect(asking.locator(".jp-OutputArea-output", has_text="Grace").last).to_be_visible()
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)  # nothing is left waiting
        got = kept_by_new_cell(page, lab.root / "after-reload.json", "[a.data, b.data]")
        assert got[0]["action"] == "accept"
        assert got[0]["answers"] == [{"question": "First?", "answer": "Grace"}]
        assert got[1]["action"] == "cancel"  # the lost page's "Second?", withdrawn
        shots.take(page, "after-reload")
    finally:
        browser.close()
