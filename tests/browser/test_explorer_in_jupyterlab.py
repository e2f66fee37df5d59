"""``%mcp explore`` in JupyterLab: a person picks a tool, types its arguments key by key, clicks Call,
and the server receives what was typed. What is asserted is what probe-kit answered (it echoes the
query), written to a file by a cell added below the explorer and run afterwards."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser.lab import (
    KEY_DELAY_MS,
    PANEL,
    launch,
    new_page,
    open_and_run,
    retype,
    type_into,
    wait_file,
    write_notebook,
)
from browser.scenarios import SAVE

pytestmark = pytest.mark.timeout(240)


def test_a_person_explores_a_tool_and_calls_it(lab, pw, shots):
    cells = ("%load_ext mcpnb\n%mcp serve probe-kit", "ex = %mcp explore probe\nex")
    write_notebook(lab.root / "explore.ipynb", *cells)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "explore.ipynb")
        explorer = page.locator(PANEL).locator(".mcpnb-explorer")
        expect(explorer).to_be_visible(timeout=90000)
        explorer.locator(".widget-dropdown", has_text="tool").locator("select").select_option("ui_search")
        query = explorer.locator(".mcpnb-field-query input")
        expect(query).to_be_visible()
        shots.take(page, "picked")
        call = explorer.get_by_role("button", name="Call")
        call.click()  # the required query still empty: said under the field, nothing sent
        expect(explorer.locator(".mcpnb-error", has_text="required")).to_have_count(1)
        expect(explorer.locator(".mcpnb-explore-result")).to_have_text("")
        type_into(page, query, "logn")  # a typo, fixed key by key
        page.keyboard.press("Backspace")
        query.press_sequentially("in form", delay=KEY_DELAY_MS)
        limit = explorer.locator(".mcpnb-field-limit input")
        retype(page, limit, "2")
        call.click()  # at once, as people click
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("login-form")  # shown there
        shots.take(page, "called")
        # then a cell below asks the kernel what the server answered (the test's own view)
        for command in ("notebook:insert-cell-below", "notebook:enter-edit-mode"):
            page.evaluate(f"() => window.jupyterapp.commands.execute('{command}')")
        page.keyboard.type(SAVE.format(file="explore.json", expr="ex.result.data"))
        page.keyboard.press("Shift+Enter")
        got = wait_file(lab.root / "explore.json")
        assert got["query"] == "login form"
        assert len(got["results"]) == 2
    finally:
        browser.close()


def test_a_tool_that_asks_the_person_asks_inside_the_explorer(lab, pw, shots):
    """``ask_user`` elicits: the form shows inside the explorer (a click has no cell to show it in),
    the person types the answer, Accept, and the result lands there too. It was declined unseen."""
    cells = ("%load_ext mcpnb\n%mcp serve probe-kit", "ex = %mcp explore probe\nex")
    write_notebook(lab.root / "ask.ipynb", *cells)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "ask.ipynb")
        explorer = page.locator(PANEL).locator(".mcpnb-explorer")
        expect(explorer).to_be_visible(timeout=90000)
        explorer.locator(".widget-dropdown", has_text="tool").locator("select").select_option("ask_user")
        type_into(page, explorer.locator(".mcpnb-field-question input"), "Your name?")
        explorer.get_by_role("button", name="Call").click()
        form = explorer.locator(".mcpnb-form")  # the server's question, under the Call button
        expect(form).to_be_visible(timeout=30000)
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("waiting for your answer")
        type_into(page, form.locator(".mcpnb-field-answer input"), "Ada")
        shots.take(page, "asked")
        form.get_by_role("button", name="Accept").click()
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("Ada")
        shots.take(page, "answered")
        for command in ("notebook:insert-cell-below", "notebook:enter-edit-mode"):
            page.evaluate(f"() => window.jupyterapp.commands.execute('{command}')")
        page.keyboard.type(SAVE.format(file="asked.json", expr="ex.result.data"))
        page.keyboard.press("Shift+Enter")
        got = wait_file(lab.root / "asked.json")
        assert got["action"] == "accept"
        assert [row["answer"] for row in got["answers"]] == ["Ada"]
    finally:
        browser.close()
