"""A person answers a form in JupyterLab, saves with Ctrl+S, and the .ipynb keeps what they saw.

JupyterLab saves no widget state by default: an output left as a widget view says "Error
displaying widget: model not found" once the notebook is reopened with another kernel (or on
GitHub, nbviewer). An answered form and a finished progress bar end as static HTML in their own
place, so the file on disk holds the question, the answer (the password masked, nowhere in the
file) and the bar's last line; reopened after the kernel is gone, the record is what shows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import EVERYTHING, LOOPBACK
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    TOKEN,
    code_cell,
    launch,
    new_page,
    open_and_run,
    type_into,
    write_notebook,
)
from tests.notebook.forms.test_two_questions_record import AWAITED as ASK_TWICE
from tests.notebook.forms.test_two_questions_record import SETUP as TWICE
from tests.notebook.test_saved_forms import SETUP as VAULT

pytestmark = pytest.mark.timeout(240)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PASSWORD = "hunter2 typed"

SETUP = (
    VAULT
    + f"""\
%mcp connect everything --era legacy -- node -r {LOOPBACK} {EVERYTHING} stdio
"""
)
ASK = 'print("before the form")\nr = %mcp call vault.sign_in\nprint("after:", r.text)'
PROGRESS = (
    "p = %mcp call everything.trigger-long-running-operation duration=0.5 steps=5\nprint('progress ended')"
)


def _text(saved: Any) -> str:
    """A multiline string as a saved .ipynb holds it (a list of lines), whole again."""
    return saved if isinstance(saved, str) else "".join(saved)


def saved_with(path: Path, *words: str, timeout: float = 60) -> dict[str, Any]:
    """The notebook on disk once a save holds every one of ``words`` (words only outputs have: the
    file written before the run holds the cells' sources)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = path.read_text()
        if all(w in text for w in words):
            return json.loads(text)
        time.sleep(0.2)
    raise AssertionError(f"{path.name} was never saved with {words!r}")


def test_a_saved_notebook_keeps_the_answered_form_and_the_finished_bar(lab, pw, shots):
    path = lab.root / "saved.ipynb"
    write_notebook(path, SETUP, ASK, PROGRESS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "saved.ipynb")
        asking = code_cell(page, "vault.sign_in")
        form = asking.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        type_into(page, asking.locator(".mcpnb-field-user input"), "ada")
        password = asking.locator(".mcpnb-field-password input")
        expect(password).to_have_attribute("type", "password")
        type_into(page, password, PASSWORD)
        shots.take(page, "form-before")
        form.get_by_role("button", name="Accept").click()

        # the form's place now holds its record: the question and what was sent, as HTML
        record = asking.locator(".mcpnb-form.mcpnb-record")
        expect(record).to_contain_text("Sent to vault")
        expect(record).to_contain_text("ada")
        expect(record).to_contain_text("••••••")
        expect(asking).to_contain_text("after: signed in as ada (a password of 13 characters)")
        bar = code_cell(page, "trigger-long-running-operation")
        expect(bar).to_contain_text("progress ended", timeout=60000)
        expect(bar.locator(".mcpnb-progress.mcpnb-record")).to_contain_text("5/5")
        shots.take(page, "answered")

        bar.locator(".jp-InputPrompt").click()  # the notebook has the focus; then save as people do
        page.keyboard.press("Control+s")
        nb = saved_with(path, "signed in as ada", "mcpnb-progress mcpnb-record")
        raw = path.read_text()
        assert PASSWORD not in raw  # nowhere: not in an output, not in any widget state

        outputs = nb["cells"][1]["outputs"]
        assert [o["output_type"] for o in outputs] == ["stream", "display_data", "stream"], outputs
        assert _text(outputs[0]["text"]) == "before the form\n"
        saved = outputs[1]["data"]
        assert WIDGET_VIEW not in saved  # nothing that needs the kernel's widgets to show
        html = _text(saved["text/html"])
        assert "mcpnb-record" in html and "Sign in to the &lt;vault&gt;" in html
        assert "ada" in html and "••••••" in html
        assert "password: ••••••" in _text(saved["text/plain"])

        (line,) = [
            o
            for o in nb["cells"][2]["outputs"]
            if "mcpnb-progress" in _text(o.get("data", {}).get("text/html", ""))
        ]
        assert WIDGET_VIEW not in line["data"]
        assert _text(line["data"]["text/plain"]).startswith("✓ done in ")
        assert " · 5/5" in _text(line["data"]["text/plain"])

        # the kernel goes, the notebook is opened again: the record shows, no "model not found"
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.shutdown()")
        page.goto(
            f"{lab.base}/lab/workspaces/r{int(time.time() * 1000)}/tree/saved.ipynb?reset&token={TOKEN}"
        )
        reopened = code_cell(page, "vault.sign_in")
        expect(reopened.locator(".mcpnb-record")).to_contain_text("Sent to vault", timeout=90000)
        expect(reopened.locator(".mcpnb-record")).to_contain_text("••••••")
        expect(code_cell(page, "trigger-long").locator(".mcpnb-record")).to_contain_text("5/5")
        expect(page.locator(PANEL)).not_to_contain_text("model not found")
        expect(page.locator(PANEL)).not_to_contain_text(PASSWORD)
        shots.take(page, "reopened")
    finally:
        browser.close()


def test_a_call_that_asks_twice_saves_both_answers_in_order(lab, pw, shots):
    """Two questions of one call (a sign-in, then a question that follows from it): each answered
    form's place holds its record, and the saved file keeps both, in order (all the questions of
    a call shared one output, so the second took the first one's record's place)."""
    path = lab.root / "twice.ipynb"
    write_notebook(path, TWICE, ASK_TWICE)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "twice.ipynb")
        asking = code_cell(page, "vault.open_shelf")
        form = asking.locator(".mcpnb-form:not(.mcpnb-record)")
        expect(form).to_be_visible(timeout=90000)
        type_into(page, asking.locator(".mcpnb-field-user input"), "ada")
        type_into(page, asking.locator(".mcpnb-field-password input"), PASSWORD)
        form.get_by_role("button", name="Accept").click()

        shelf = asking.locator(".mcpnb-field-shelf input")
        expect(shelf).to_be_visible(timeout=60000)  # the second question, under the first's record
        records = asking.locator(".mcpnb-form.mcpnb-record")
        expect(records).to_have_count(1)
        type_into(page, shelf, "B-7")
        form.get_by_role("button", name="Accept").click()
        expect(asking).to_contain_text("after: ada opened shelf B-7", timeout=60000)
        expect(records).to_have_count(2)
        expect(records.first).to_contain_text("Sign in to the vault")
        expect(records.last).to_contain_text("Which shelf should ada open?")
        shots.take(page, "both-answered")

        asking.locator(".jp-InputPrompt").click()  # the notebook has the focus; then save
        page.keyboard.press("Control+s")
        nb = saved_with(path, "ada opened shelf B-7", "Which shelf should ada open?")
        assert PASSWORD not in path.read_text()
        outputs = nb["cells"][1]["outputs"]
        assert all(WIDGET_VIEW not in o.get("data", {}) for o in outputs), outputs
        saved = [
            _text(o["data"]["text/plain"])
            for o in outputs
            if "mcpnb-record" in _text(o.get("data", {}).get("text/html", ""))
        ]
        assert len(saved) == 2, outputs
        assert "Sign in to the vault" in saved[0] and "password: ••••••" in saved[0]
        assert "Which shelf should ada open?" in saved[1] and "shelf: B-7" in saved[1]
    finally:
        browser.close()
