"""What a person does with probe-kit's interview form, shared by the JupyterLab and Notebook 7 tests."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from browser.lab import SAVE, paste_into, retype, type_into

__all__ = ["INTERVIEW_CELLS", "SAVE", "answer_interview", "answers_of"]


def answers_of(data: dict) -> dict:
    return {row["question"]: row["answer"] for row in data["answers"]}


INTERVIEW_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'interview = %mcp call probe.interview topic="the newcomer test"',
    SAVE.format(file="interview.json", expr="interview.data"),
)


def answer_interview(page: Any, cell: Any, shots: Any) -> dict:
    """A person answers probe-kit's interview in ``cell``; returns what the server must receive."""
    form = cell.locator(".mcpnb-form")
    expect(form).to_be_visible(timeout=90000)
    shots.take(page, "form-before")
    name = cell.locator(".mcpnb-field-project_name input")
    goal = cell.locator(".mcpnb-field-goal input")
    audience = cell.locator(".mcpnb-field-audience input")
    # Accept with the required fields empty: errors inline, nothing sent
    form.get_by_role("button", name="Accept").click()
    expect(cell.locator(".mcpnb-error", has_text="required")).to_have_count(3)
    type_into(page, name, "Newcomer tesy")
    page.keyboard.press("Backspace")  # a typo, erased
    name.press_sequentially("t", delay=15)
    page.keyboard.press("Tab")  # Tab to the next field and type there
    expect(goal).to_be_focused()
    page.keyboard.type("Try mcpnb", delay=15)
    page.keyboard.press("Tab")
    expect(audience).to_be_focused()
    page.keyboard.type("students", delay=15)
    retype(page, goal, "Every key reaches the server")  # the same field, edited a second time
    paste_into(page, audience, " and teachers")
    deadline = cell.locator(".mcpnb-field-deadline input")
    type_into(page, deadline, "Friday")
    type_into(page, deadline, " noon")  # and once more, appending
    stack = cell.locator(".mcpnb-field-stack select")
    stack.select_option(label="rust")
    stack.select_option(label="typescript")  # changed twice
    tests = cell.locator(".mcpnb-field-has_tests input[type=checkbox]")
    tests.click()
    tests.click()
    tests.click()  # on, off, on
    # a stale "required" under a field that is now filled goes away as the field changes
    expect(cell.locator(".mcpnb-error", has_text="required")).to_have_count(0)
    shots.take(page, "form-filled")
    form.get_by_role("button", name="Accept").click()
    expect(form.locator(".mcpnb-status")).to_contain_text("Sent to probe")
    expect(form.locator(".mcpnb-status")).to_contain_text("Newcomer test")
    return {
        "What is the project called?": "Newcomer test",
        "What should it achieve, in one sentence?": "Every key reaches the server",
        "Who will use it?": "students and teachers",
        "Main language or stack": "typescript",
        "When is it due? (free text)": "Friday noon",
        "Does it already have tests?": "True",
    }
