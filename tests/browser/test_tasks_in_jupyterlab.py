"""A task's live view in JupyterLab: a person clicks its Cancel button while the task works.

The click runs on the kernel's thread and only schedules the cancel on mcpnb's runtime loop; what
is asserted is what the person sees (the status turns to cancelled, Cancel is spent) and what the
server says about the task afterwards (``tasks/get``, from a cell run after the click).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser.lab import PANEL, kept_by_new_cell, launch, new_page, open_and_run, write_notebook

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
        expect(cancel).to_be_disabled()
        expect(view.locator(".widget-progress")).to_be_hidden()  # never a full bar, which reads as done
        shots.take(page, "cancelled")
        expr = '{"handle": h.status, "server": h.refresh(), "id": h.task_id}'
        seen = kept_by_new_cell(page, lab.root / "task.json", expr)
    finally:
        browser.close()
    assert seen["id"]  # a real task on the server, not a call answered at once
    assert seen == {"handle": "cancelled", "server": "cancelled", "id": seen["id"]}
