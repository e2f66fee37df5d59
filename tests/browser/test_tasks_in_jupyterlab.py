"""A task's live view in JupyterLab: a person clicks its Cancel button while the task works.

The click runs on the kernel's thread and only schedules the cancel on mcpnb's runtime loop; what
is asserted is what the person sees (the status turns to cancelled, Cancel is spent) and what the
server says about the task afterwards (``tasks/get``, from a cell run after the click).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser.lab import (
    KEY_DELAY_MS,
    PANEL,
    code_cell,
    kept_by_new_cell,
    launch,
    new_page,
    open_and_run,
    write_notebook,
)

pytestmark = pytest.mark.timeout(240)

CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    "h = %mcp call probe.slow_task steps=600 delay=0.1 --task\nh",
)


def test_a_person_cancels_a_task_from_its_live_view(lab, pw, shots):
    write_notebook(lab.root / "task.ipynb", *CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "task.ipynb")
        view = page.locator(PANEL).locator(".mcpnb-task")
        expect(view).to_be_visible(timeout=90000)
        status = view.locator(".mcpnb-task-status")
        expect(status).to_have_text("working", timeout=30000)
        cancel = view.get_by_role("button", name="Cancel")
        expect(cancel).to_be_enabled()
        shots.take(page, "working")
        cancel.click()
        expect(status).to_have_text("cancelled", timeout=30000)
        expect(cancel).to_be_hidden()  # ended: nothing left to stop
        expect(view.locator(".widget-progress")).to_be_hidden()  # never a full bar, which reads as done
        shots.take(page, "cancelled")
        expr = '{"handle": h.status, "server": h.refresh(), "id": h.task_id}'
        seen = kept_by_new_cell(page, lab.root / "task.json", expr)
    finally:
        browser.close()
    assert seen["id"]  # a real task on the server, not a call answered at once
    assert seen == {"handle": "cancelled", "server": "cancelled", "id": seen["id"]}


def test_a_tasks_later_question_in_text_mode_is_typed_under_its_ended_cell(lab, pw, shots):
    """Text mode (no widgets): the task asks after its cell has ended. JupyterLab keeps an ended
    cell's request open until the cell runs again, so the kernel's ``input_request`` for that cell
    shows an input box under it; the person types the answer there and the task goes on."""
    cells = (
        "%load_ext mcpnb\n%mcp serve probe-kit\n%config Mcp.elicitation = 'text'",
        "h = %mcp call probe.slow_task steps=12 delay=0.5 confirm=true --task\nh",  # asks at ~3.5 s
    )
    write_notebook(lab.root / "text-task.ipynb", *cells)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "text-task.ipynb")
        cell = code_cell(page, "--task")
        box = cell.locator(".jp-Stdin-input")
        expect(cell.locator(".jp-InputPrompt")).to_have_text("[2]:", timeout=90000)  # ended, not [*]
        expect(box).to_have_count(0)  # not asked yet: what follows is asked under an ended cell
        expect(box).to_be_visible()
        expect(cell.locator(".mcpnb-task-status")).to_have_text("input_required")
        shots.take(page, "asked")
        box.click()
        page.keyboard.type("y", delay=KEY_DELAY_MS)
        page.keyboard.press("Enter")
        expect(cell.locator(".mcpnb-task-status")).to_have_text("completed")
        expect(cell.get_by_role("button", name="Cancel")).to_be_hidden()
        expect(cell.locator(".jp-Cell-outputArea")).to_contain_text('sending to probe: {"proceed": true}')
        shots.take(page, "answered")
        seen = kept_by_new_cell(page, lab.root / "text-task.json", "h.result(timeout=60).data")
    finally:
        browser.close()
    assert seen["confirmed"] is True


def test_a_keyboard_cancel_leaves_the_focus_on_the_tasks_record(lab, pw, shots):
    """Enter on Cancel: the live view ends and is replaced by its record, which dropped the focus to
    <body> (a keyboard user started again at the top of the page)."""
    write_notebook(lab.root / "task-keys.ipynb", *CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "task-keys.ipynb")
        cell = code_cell(page, "--task")
        view = cell.locator(".mcpnb-task")
        expect(view.locator(".mcpnb-task-status")).to_have_text("working", timeout=90000)
        cancel = view.get_by_role("button", name="Cancel")
        cancel.focus()
        page.keyboard.press("Enter")
        expect(cell.locator(".mcpnb-task-status")).to_have_text("cancelled", timeout=30000)
        expect(cell.get_by_role("button", name="Cancel")).to_have_count(0, timeout=30000)  # the record
        focused = page.locator(":focus")
        expect(focused).to_have_count(1)
        assert cell.locator(":focus").count() == 1, page.evaluate("() => document.activeElement.tagName")
        shots.take(page, "cancelled by keys")
    finally:
        browser.close()
