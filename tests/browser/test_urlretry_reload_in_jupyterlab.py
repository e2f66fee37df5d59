"""A reload during Run All while the −32042 panel waits, in a real JupyterLab: nothing hangs.

probe-kit's ``open_local_page`` (``via=error``) answers −32042 ("open this page, then retry"); the
panel holds Run All, as a form does. A person reloads the page (F5, unsaved): the panel is gone from
the screen, and the kernel stayed busy for good (``[*]``, nothing shown; only an interrupt got
out). Now the panel goes as a lost form goes (:mod:`mcpnb.notebook.forms.rerun`): the call is not
retried, the rest of the lost Run All queue runs, and the person's run says at its top what went.
Keys as a person presses them: Shift+Enter in a cell's editor, a new cell typed key by key.
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
    write_notebook,
)

pytestmark = pytest.mark.timeout(240)

SETUP = "%load_ext mcpnb\n%mcp serve probe-kit --era legacy"  # −32042 is 2025-11-25's
NOT_RETRIED = "the call was not retried"
CONNECTED = (
    "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel"
    "?.connectionStatus === 'connected'"
)


def refused(page_name: str) -> str:
    """A cell whose call probe-kit refuses until the page is opened (−32042)."""
    return f"r = %mcp call probe.open_local_page path={page_name} via=error\nr"


def run_all_then_reload(page: Any, lab: Any, notebook: str, page_name: str) -> Any:
    """Run All until the −32042 panel holds it, then reload the page; the refused cell, as the
    reloaded page shows it (no panel: never saved) once the kernel is connected again."""
    open_and_run(page, lab.base, notebook)
    cell = code_cell(page, page_name)
    panel = cell.locator(".mcpnb-url-consent")
    expect(panel).to_be_visible(timeout=90000)
    expect(panel.get_by_role("button", name="Retry the call")).to_be_visible()

    page.reload()
    cell = code_cell(page, page_name)
    expect(cell).to_be_visible(timeout=90000)
    expect(cell.locator(".mcpnb-url-consent")).to_have_count(0)
    page.wait_for_function(CONNECTED, timeout=90000)
    return cell


def run_again(page: Any, cell: Any) -> None:
    """Click into the cell's editor and press Shift+Enter, as a person re-runs a cell."""
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_after_a_reload_a_new_cell_runs_and_the_lost_panel_goes(lab, pw, shots):
    """The person types a new cell in the reloaded page and runs it: it runs (the lost panel, whose
    page has said nothing since, is withdrawn, and the lost queue's last cell runs too), says at
    its top what went, and the kernel is idle. Then running the refused cell again calls afresh."""
    (lab.root / "reload-new.md").write_text("# After the reload\n")
    write_notebook(lab.root / "reload-new.ipynb", SETUP, refused("reload-new.md"), "print('end of Run All')")
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        asking = run_all_then_reload(page, lab, "reload-new.ipynb", "reload-new.md")

        got = kept_by_new_cell(page, lab.root / "after-reload.json", "r is None")
        assert got is True  # the lost run's call was not retried: its value is None
        mine = code_cell(page, "after-reload.json")
        said = mine.locator(".mcpnb-withdrawn")
        expect(said).to_contain_text('("Open the local page reload-new.md?") was withdrawn')
        expect(said).to_contain_text("reloaded or closed")
        expect(said).to_contain_text(NOT_RETRIED)
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)  # nothing is left waiting
        shots.take(page, "new-cell-ran")

        run_again(page, asking)  # probe-kit asked for this page once already: it lets the call through
        expect(asking.locator(".jp-OutputArea-executeResult")).to_contain_text(
            "Opened reload-new.md", timeout=60000
        )
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)
        shots.take(page, "called-again")
    finally:
        browser.close()


def test_after_a_reload_running_the_refused_cell_again_calls_afresh(lab, pw, shots):
    """The person clicks into the refused cell in the reloaded page and presses Shift+Enter: the
    lost panel goes (its cell ran again), the new run calls and shows the page's text, says at its
    top what went, and the kernel is idle."""
    (lab.root / "reload-again.md").write_text("# Called again\n")
    write_notebook(
        lab.root / "reload-again.ipynb", SETUP, refused("reload-again.md"), "print('end of Run All')"
    )
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        asking = run_all_then_reload(page, lab, "reload-again.ipynb", "reload-again.md")

        run_again(page, asking)
        said = asking.locator(".mcpnb-withdrawn")
        expect(said).to_contain_text("in this cell's previous run was withdrawn", timeout=60000)
        expect(said).to_contain_text(NOT_RETRIED)
        expect(asking.locator(".jp-OutputArea-executeResult")).to_contain_text("Opened reload-again.md")
        page.wait_for_function(KERNEL_IDLE_LAB, timeout=60000)  # nothing is left waiting
        shots.take(page, "called-again")
    finally:
        browser.close()
