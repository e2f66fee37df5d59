"""The shipped notebooks, run top to bottom in JupyterLab with Run All, a person answering every panel.

Notebook 02 asks five times (a form, a URL consent request in each era, a −32042 refusal with Retry
from the 2025-11-25 probe-kit); each
answer must arrive whole, and Run All must wait at each one. A screenshot of each notebook's final
state is kept.
"""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import ROOT
from playwright.sync_api import expect

from browser.lab import PANEL, code_cell, launch, new_page, open_and_run, paste_into, type_into

pytestmark = pytest.mark.timeout(300)
NOTEBOOKS = ROOT / "notebooks"


def _copy(lab, name: str) -> None:
    shutil.copy(NOTEBOOKS / name, lab.root / name)
    shutil.copy(NOTEBOOKS / "welcome.md", lab.root / "welcome.md")


_ERRORS = (
    ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
    ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"
)


def _error_cells(page) -> list[str]:
    """The sources of the cells that show an error (a traceback or text on stderr)."""
    cells = page.locator(PANEL).locator(".jp-CodeCell").filter(has=page.locator(_ERRORS))
    return [c.locator(".jp-InputArea").inner_text() for c in cells.all()]


def test_quickstart_runs_top_to_bottom(lab, pw, shots):
    _copy(lab, "01-quickstart.ipynb")
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "01-quickstart.ipynb")
        last = code_cell(page, "%mcp disconnect --all")
        expect(last.locator(".jp-OutputArea-output")).to_contain_text("disconnected: probe", timeout=120000)
        grouped = code_cell(page, "df.groupby")
        expect(grouped.locator(".jp-OutputArea-output table")).to_contain_text("Lyon")
        bad = code_cell(page, "limit=three")
        expect(bad.locator(".jp-OutputArea-output")).to_contain_text("nothing was sent")
        errors = _error_cells(page)
        assert len(errors) == 1 and "limit=three" in errors[0], errors  # only the cell meant to fail
        shots.whole_notebook(page)
    finally:
        browser.close()


def test_people_in_the_loop_answered_by_a_person(lab, pw, shots):
    _copy(lab, "02-people-in-the-loop.ipynb")
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "02-people-in-the-loop.ipynb")
        last = code_cell(page, "%mcp disconnect --all").locator(".jp-OutputArea-output")

        # 1. the interview form, typed key by key
        interview = code_cell(page, "probe.interview")
        form = interview.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=120000)
        shots.take(page, "interview-before")
        type_into(page, interview.locator(".mcpnb-field-project_name input"), "Orbit")
        page.keyboard.press("Tab")
        page.keyboard.type("Map every moon", delay=15)
        page.keyboard.press("Tab")
        page.keyboard.type("astronomers", delay=15)
        paste_into(page, interview.locator(".mcpnb-field-deadline input"), "next spring")
        interview.locator(".mcpnb-field-stack select").select_option(label="go")
        interview.locator(".mcpnb-field-has_tests input[type=checkbox]").click()
        form.get_by_role("button", name="Accept").click()
        result = interview.locator(".jp-OutputArea-output .mcpnb-r")
        for typed in ("Orbit", "Map every moon", "astronomers", "next spring", "go", "True"):
            expect(result).to_contain_text(typed)  # echoed by the server: it received every key
        shots.take(page, "interview-after")
        expect(last).to_have_count(0)  # Run All is still held further down

        # 2. URL consent, 2026-07-28: the call's InputRequiredResult; the cell waits, no Retry
        modern = code_cell(page, "%mcp call probe.open_local_page")
        asked = modern.locator(".mcpnb-url-consent")
        expect(asked).to_be_visible(timeout=120000)
        expect(asked.get_by_role("button", name="Retry the call")).to_have_count(0)
        expect(last).to_have_count(0)  # Run All waits for the person here too
        asked.get_by_role("button", name="I've completed it").click()
        expect(modern.locator(".jp-OutputArea-output", has_text="'accept'").first).to_be_visible()
        shots.take(page, "modern-consent-after")

        # 3. URL consent by request (2025-11-25 era): a link that opens, then "I've completed it"
        classic = code_cell(page, "classic.open_local_page path=welcome.md via=elicit")
        consent = classic.locator(".mcpnb-url-consent")
        expect(consent).to_be_visible(timeout=120000)
        link = consent.locator(".mcpnb-url-open a")
        expect(link).to_have_attribute("href", re.compile(r"^http://127\.0\.0\.1:\d+/.+/welcome\.md$"))
        expect(consent.locator(".mcpnb-url-info")).not_to_contain_text("⚠")  # nothing to warn about
        shots.take(page, "consent-before")
        with page.expect_popup() as opened:
            link.click()
        tab = opened.value
        expect(tab.locator("body")).to_contain_text("Welcome to probe-kit")
        tab.close()
        consent.get_by_role("button", name="I've completed it").click()
        expect(classic.locator(".jp-OutputArea-output", has_text="'accept'").first).to_be_visible()
        shots.take(page, "consent-after")

        # 4. −32042 (2025-11-25): the panel holds Run All until Retry; the result is the retried call's
        refused = code_cell(page, "classic.open_local_page path=welcome.md via=error")
        panel = refused.locator(".mcpnb-url-consent")
        expect(panel).to_be_visible(timeout=120000)
        retry = panel.get_by_role("button", name="Retry the call")
        expect(retry).to_be_visible()
        shots.take(page, "retry-before")
        expect(last).to_have_count(0)  # the disconnect below has not run
        retry.click()
        expect(panel.locator(".mcpnb-status")).to_contain_text("Done: the result is below")
        expect(refused.locator(".jp-OutputArea-output .mcpnb-r")).to_contain_text("Welcome to probe-kit")
        expect(last).to_contain_text("disconnected:", timeout=60000)
        shots.take(page, "retry-after")
        assert _error_cells(page) == []  # every panel answered: nothing failed
        shots.whole_notebook(page)
    finally:
        browser.close()
