"""A person types into the forms servers send, in JupyterLab, and every keystroke reaches the server.

Each form is answered the way people do it: text typed key by key, a field edited twice, a typo
erased with Backspace, a paste, Tab to the next field, a number, a checkbox, a dropdown, then
Accept. What is asserted is what the *server* received: probe-kit echoes its answers in the result,
server-everything prints the raw result it got; a later cell writes that to a file for the test.
"""

from __future__ import annotations

import json

import pytest
from conftest import EVERYTHING, LOOPBACK
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    code_cell,
    edit_readout,
    launch,
    new_page,
    open_and_run,
    paste_into,
    retype,
    type_into,
    wait_file,
    write_notebook,
)
from browser.scenarios import INTERVIEW_CELLS, SAVE, answer_interview, answers_of

pytestmark = pytest.mark.timeout(240)


def test_interview_typed_key_by_key_reaches_probe_kit(lab, pw, shots):
    write_notebook(lab.root / "interview.ipynb", *INTERVIEW_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "interview.ipynb")
        expected = answer_interview(page, page.locator(PANEL).locator(".jp-CodeCell").nth(1), shots)
        got = wait_file(lab.root / "interview.json")
        assert got["action"] == "accept"
        assert answers_of(got) == expected
        shots.take(page, "form-after")
    finally:
        browser.close()


EVERYTHING_CELLS = (
    f"%load_ext mcpnb\n%mcp connect everything --era legacy -- node -r {LOOPBACK} {EVERYTHING} stdio",
    "r = %mcp call everything.trigger-elicitation-request",
    SAVE.format(file="everything.json", expr="r.text"),
)


def test_server_everything_form_of_thirteen_fields_typed_by_a_person(lab, pw, shots):
    write_notebook(lab.root / "everything.ipynb", *EVERYTHING_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "everything.ipynb")
        cell = page.locator(PANEL).locator(".jp-CodeCell").nth(1)
        form = cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        shots.take(page, "form-before")

        def field(name: str, css: str = "input"):
            return cell.locator(f".mcpnb-field-{name} {css}")

        type_into(page, field("name"), "Ada Lovelacd")
        page.keyboard.press("Backspace")
        page.keyboard.type("e", delay=15)
        page.keyboard.press("Tab")
        retype(page, field("firstLine"), "Call me Ishmael.")
        type_into(page, field("email"), "ada@example.org")
        retype(page, field("email"), "ada@analytical.engine")  # edited twice
        paste_into(page, field("homepage"), "https://example.com/ada")
        type_into(page, field("birthdate"), "1815-12-10")
        edit_readout(page, field("integer", ".widget-readout"), "7")
        edit_readout(page, field("integer", ".widget-readout"), "73")  # the number, changed again
        edit_readout(page, field("number", ".widget-readout"), "2.5")
        field("check", "input[type=checkbox]").click()
        field("untitledSingleSelectEnum", "select").select_option(label="Joey")
        field("untitledSingleSelectEnum", "select").select_option(label="Phoebe")
        cell.locator(".mcpnb-field-untitledMultipleSelectEnum").get_by_label("Piano").click()
        cell.locator(".mcpnb-field-titledSingleSelectEnum").get_by_label("Wonder Woman").click()
        cell.locator(".mcpnb-field-titledMultipleSelectEnum").get_by_label("Trout").click()
        cell.locator(".mcpnb-field-titledMultipleSelectEnum").get_by_label("Tuna").click()  # unticked
        field("legacyTitledEnum", "select").select_option(label="Birds")
        shots.take(page, "form-filled")
        form.get_by_role("button", name="Accept").click()

        text = wait_file(lab.root / "everything.json")
        raw = json.loads(text.split("Raw result:", 1)[1])  # what server-everything received
        assert raw == {
            "action": "accept",
            "content": {
                "name": "Ada Lovelace",
                "check": True,
                "firstLine": "Call me Ishmael.",
                "email": "ada@analytical.engine",
                "homepage": "https://example.com/ada",
                "birthdate": "1815-12-10",
                "integer": 73,
                "number": 2.5,
                "untitledSingleSelectEnum": "Phoebe",
                "untitledMultipleSelectEnum": ["Guitar", "Piano"],
                "titledSingleSelectEnum": "hero-3",
                "titledMultipleSelectEnum": ["fish-3"],
                "legacyTitledEnum": "pet-3",
            },
        }
        expect(form.locator(".mcpnb-status")).to_contain_text("Ada Lovelace")
        shots.take(page, "form-after")
    finally:
        browser.close()


TWO_FORMS_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'first = %mcp call probe.ask_user question="What should we call you?"\n'
    'second = %mcp call probe.ask_user question="Your favourite colour?" choices=\'["red","green","blue"]\'',
    'no = %mcp call probe.interview topic="declined"',
    'gone = %mcp call probe.ask_user question="Cancel me"',
    SAVE.format(
        file="answers.json",
        expr="{'first': first.data, 'second': second.data, 'no': no.data, 'gone': gone.data}",
    ),
)


def test_two_forms_in_one_cell_then_decline_and_cancel(lab, pw, shots):
    write_notebook(lab.root / "two.ipynb", *TWO_FORMS_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "two.ipynb")
        cells = page.locator(PANEL).locator(".jp-CodeCell")
        two = cells.nth(1)
        first = two.locator(".mcpnb-form").first
        expect(first).to_be_visible(timeout=90000)
        shots.take(page, "first-form-before")
        answer = first.locator(".mcpnb-field-answer input")
        type_into(page, answer, "Ad")
        type_into(page, answer, "a")
        first.get_by_role("button", name="Accept").click()
        second = two.locator(".mcpnb-form").nth(1)  # the second form, in the same cell
        expect(second).to_be_visible(timeout=60000)
        expect(second).to_contain_text("Your favourite colour?")
        expect(first.locator(".mcpnb-status")).to_contain_text("Ada")
        shots.take(page, "second-form-before")
        second.get_by_label("green").click()
        second.get_by_label("blue").click()
        shots.take(page, "second-form-filled")
        second.get_by_role("button", name="Accept").click()

        declined = cells.nth(2).locator(".mcpnb-form")
        expect(declined).to_be_visible(timeout=60000)
        type_into(page, declined.locator(".mcpnb-field-project_name input"), "never sent")
        shots.take(page, "decline-before")
        declined.get_by_role("button", name="Decline").click()
        cancelled = cells.nth(3).locator(".mcpnb-form")
        expect(cancelled).to_be_visible(timeout=60000)
        shots.take(page, "cancel-before")
        cancelled.get_by_role("button", name="Cancel").click()

        got = wait_file(lab.root / "answers.json")
        assert got["first"]["answers"] == [{"question": "What should we call you?", "answer": "Ada"}]
        assert got["second"]["answers"] == [{"question": "Your favourite colour?", "answer": "blue"}]
        assert got["no"] == {"action": "decline", "answers": [], "message": got["no"]["message"]}
        assert got["gone"]["action"] == "cancel" and got["gone"]["answers"] == []
        expect(declined.locator(".mcpnb-status")).to_contain_text("Declined")
        expect(cancelled.locator(".mcpnb-status")).to_contain_text("Cancelled")
        shots.take(page, "after")
    finally:
        browser.close()


QUESTION = "What should we call you?"
ENTER_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    f'r = %mcp call probe.ask_user question="{QUESTION}"',
    SAVE.format(file="enter.json", expr="r.data"),
)


def test_enter_sends_a_one_question_form_which_asks_it_once(lab, pw, shots):
    """probe-kit's ``ask_user``: the question shows once (it was the message and the field's
    description too); the answer typed key by key, then Enter, as in any dialog (it did nothing)."""
    write_notebook(lab.root / "enter.ipynb", *ENTER_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "enter.ipynb")
        cell = code_cell(page, "probe.ask_user")
        form = cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        assert form.inner_text().count(QUESTION) == 1
        type_into(page, cell.locator(".mcpnb-field-answer input"), "Ada")
        shots.take(page, "typed")
        page.keyboard.press("Enter")
        got = wait_file(lab.root / "enter.json")
        assert got["action"] == "accept"
        assert got["answers"] == [{"question": QUESTION, "answer": "Ada"}]
        expect(form.locator(".mcpnb-status")).to_contain_text("Sent to probe")
        shots.take(page, "sent")
    finally:
        browser.close()
