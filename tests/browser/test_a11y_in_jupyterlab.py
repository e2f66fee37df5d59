"""A keyboard-only, screen-reader user answers an elicitation form in JupyterLab.

What is checked is what assistive technology gets: the accessibility tree (``aria_snapshot``), where
the focus is, and that keys pressed on the form's controls stay with the form (JupyterLab read them
as notebook shortcuts: ``B`` inserted a cell, ``R`` turned the running cell Raw).
"""

from __future__ import annotations

import time

from playwright.sync_api import expect

from browser.lab import (
    KEY_DELAY_MS,
    PANEL,
    code_cell,
    launch,
    new_page,
    open_and_run,
    wait_file,
    write_notebook,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "description": "As printed on your badge"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 6, "default": 2},
        "room": {"type": "string", "title": "Room", "enum": ["single", "double", "suite"]},
        "city": {
            "type": "string",
            "title": "City",
            "enum": ["Berlin", "Paris", "Rome", "Oslo", "Lima", "Quito"],
        },
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {"type": "string", "enum": ["breakfast", "parking"]},
        },
        "newsletter": {"type": ["boolean", "null"], "title": "Newsletter"},
        "terms": {"type": "boolean", "title": "I accept the terms"},
    },
    "required": ["name", "room"],
}
CELL = f"""\
import asyncio, json, pathlib
from IPython.display import display
from mcpnb.notebook.forms import ElicitationForm
fut = asyncio.get_running_loop().create_future()
form = ElicitationForm({SCHEMA!r}, message="Book a room", server="hotel",
    on_done=lambda o: fut.done() or fut.set_result(o))
display(form.widget)
o = await asyncio.wait_for(fut, 600)
pathlib.Path("answer.json").write_text(json.dumps({{"action": o.action, "content": o.content}}))
"""

FOCUSED = """() => { const e = document.activeElement; return e ? {tag: e.tagName,
    cls: String(e.className), text: (e.innerText || '').slice(0, 80)} : null; }"""


def test_a_keyboard_user_answers_a_form_heard_by_a_screen_reader(lab, pw, shots):
    write_notebook(lab.root / "a11y.ipynb", CELL)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "a11y.ipynb")
        cell = code_cell(page, "ElicitationForm")
        form = cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        city = form.locator(".mcpnb-field-city select")
        expect(city).to_be_visible()
        # every field has a name a screen reader says; a required one says so; groups are named
        expect(form).to_match_aria_snapshot(
            """
            - textbox "Full name (required)"
            - slider "Guests"
            - radiogroup "Room (required)":
              - radio "single"
            - combobox "City"
            - group "Extras":
              - checkbox "breakfast"
            - radiogroup "Newsletter":
              - radio "not set" [checked]
              - radio "true"
            - checkbox "I accept the terms"
            """
        )
        shots.take(page, "form")

        # keys on a non-text control stay with the form: no notebook shortcut runs
        cells = page.locator(PANEL).locator(".jp-Cell")
        before = cells.count()
        city.focus()
        for key in ("b", "r", "a", "m", "d", "d"):
            page.keyboard.press(key)
        page.keyboard.press("ArrowDown")  # the next city, not the next cell
        terms = form.locator(".mcpnb-field-terms input[type=checkbox]")
        terms.focus()
        page.keyboard.press("b")
        page.keyboard.press("d")
        page.keyboard.press("d")
        page.keyboard.press("Space")
        expect(terms).to_be_checked()
        expect(cells).to_have_count(before)
        assert "jp-CodeCell" in (cell.get_attribute("class") or "")  # still code, not Raw
        expect(form).to_be_visible()

        # Accept with the required fields empty: an alert, and the focus on the first field to fix
        form.get_by_role("button", name="Accept").focus()
        page.keyboard.press("Enter")
        expect(form.get_by_role("alert").filter(has_text="Please fix 2 problems")).to_be_visible()
        name = form.locator(".mcpnb-field-name input")
        expect(name).to_be_focused()
        page.keyboard.type("Ada Lovelace", delay=KEY_DELAY_MS)
        # the room radios, by keyboard: Tab into the group, an arrow picks
        form.locator(".mcpnb-field-room input[type=radio]").first.focus()
        page.keyboard.press("ArrowDown")
        form.get_by_role("button", name="Accept").focus()
        page.keyboard.press("Enter")
        answer = wait_file(lab.root / "answer.json")
        assert answer["action"] == "accept" and answer["content"]["name"] == "Ada Lovelace"
        # the letters typed on the list picked a city (its own type-ahead), and Space ticked the box
        assert answer["content"]["city"] in SCHEMA["properties"]["city"]["enum"]
        assert answer["content"]["terms"] is True
        # the focus went to the "✓ Sent to hotel" status (a polite live region), not to <body>
        status = form.get_by_role("status").filter(has_text="Sent to")
        expect(status).to_be_visible()
        expect(status).to_be_focused()
        shots.take(page, "sent")
    finally:
        browser.close()


def test_a_chord_on_a_forms_control_is_still_jupyterlabs(lab, pw, shots):
    """The mark that keeps a letter on a radio from running a notebook shortcut kept every binding
    off it: Ctrl+S saved nothing while a radio had the focus (the review's finding)."""
    path = lab.root / "chord.ipynb"
    write_notebook(path, CELL)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "chord.ipynb")
        form = code_cell(page, "ElicitationForm").locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        radio = form.locator(".mcpnb-field-room input[type=radio]").first
        radio.focus()
        page.keyboard.press("b")  # a letter is still the radio's: no cell inserted
        cells = page.locator(PANEL).locator(".jp-Cell")
        expect(cells).to_have_count(1)
        before = path.stat().st_mtime_ns
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 30
        while path.stat().st_mtime_ns == before and time.monotonic() < deadline:
            time.sleep(0.2)
        assert path.stat().st_mtime_ns != before, "Ctrl+S on the radio saved nothing"
        expect(radio).to_be_focused()
    finally:
        browser.close()
