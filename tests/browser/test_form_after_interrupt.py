"""A person interrupts a cell while server-everything's form waits: the form says it is no longer
waited for, and nothing they do with it afterwards reaches the server.

Before, the form stayed live under ``interrupted; the call was cancelled on the server``: typing a
name and clicking Accept then said ``✓ Sent`` and the server's log said ``elicitation answered:
accept``, for a call already gone. The person here types into the form and interrupts the kernel
with the toolbar's ■ button; the form becomes its record at once, with no field or button left.
"""

from __future__ import annotations

import pytest
from conftest import EVERYTHING, LOOPBACK
from playwright.sync_api import expect

from browser.lab import PANEL, kept_by_new_cell, launch, new_page, open_and_run, type_into, write_notebook

pytestmark = pytest.mark.timeout(240)

CELLS = (
    f'%load_ext mcpnb\n%config Mcp.elicitation = "widget"\n'
    f"%mcp connect everything --era legacy -- node -r {LOOPBACK} {EVERYTHING} stdio",
    "r = %mcp call everything.trigger-elicitation-request",
)


def test_an_interrupted_form_says_so_and_leaves_nothing_to_click(lab, pw, shots):
    write_notebook(lab.root / "interrupted.ipynb", *CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "interrupted.ipynb")
        cell = page.locator(PANEL).locator(".jp-CodeCell").nth(1)
        form = cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        name = cell.locator(".mcpnb-field-name input")
        type_into(page, name, "Ada")
        shots.take(page, "form-before")

        page.locator(PANEL).locator(".jp-Toolbar [data-jp-item-name='interrupt']").click()  # the ■ button
        expect(cell.locator(".jp-Cell-outputArea")).to_contain_text(
            "interrupted; the server was told to cancel the call"
        )
        status = form.locator(".mcpnb-status")
        expect(status).to_contain_text("no longer waiting: the call was interrupted")
        # the form is now its record (what a saved notebook keeps): nothing left to type into or click
        expect(form.locator("input")).to_have_count(0)
        expect(form.get_by_role("button")).to_have_count(0)
        shots.take(page, "form-after")

        log = kept_by_new_cell(page, lab.root / "log.json", "repr(lg)", first="lg = %mcp logs everything\n")
        assert "elicitation answered: accept" not in log, log
        expect(status).not_to_contain_text("Sent")
    finally:
        browser.close()
