"""The same person, the same forms, in Jupyter Notebook 7 (its own application over the same widgets).

Notebook 7 ships its own JupyterLab-based frontend; the widget manager and the kernel connection
are the ones JupyterLab uses, which is exactly what the typing fix depends on, so it is checked here
rather than assumed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    Server,
    code_cell,
    launch,
    new_page,
    open_and_run,
    type_into,
    wait_file,
    write_notebook,
)
from browser.scenarios import INTERVIEW_CELLS, SAVE, answer_interview, answers_of

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def nb7(tmp_path_factory) -> Iterator[Server]:
    import notebook  # noqa: F401  (Notebook 7 is in the test extra: missing is a failure, not a skip)

    server = Server("notebook", tmp_path_factory.mktemp("nb7"))
    try:
        yield server
    finally:
        server.stop()


def test_interview_typed_key_by_key_in_notebook7(nb7, pw, shots):
    write_notebook(nb7.root / "interview.ipynb", *INTERVIEW_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, nb7.base)
        open_and_run(page, nb7.base, "interview.ipynb", app="notebook")
        expected = answer_interview(page, page.locator(PANEL).locator(".jp-CodeCell").nth(1), shots)
        got = wait_file(nb7.root / "interview.json")
        assert got["action"] == "accept" and answers_of(got) == expected
        shots.take(page, "form-after")
    finally:
        browser.close()


RETRY_CELLS = (  # −32042 ("open this page, then retry") is 2025-11-25's: probe-kit in that era
    "%load_ext mcpnb\n%mcp serve probe-kit --era legacy\nimport pathlib\n"
    "_ = pathlib.Path('page.md').write_text('# Hi')",
    'first = %mcp call probe.ask_user question="Name?"\nsecond = %mcp call probe.ask_user question="Why?"',
    "opened = %mcp call probe.open_local_page path=page.md via=error",
    SAVE.format(file="nb7.json", expr="{'first': first.data, 'second': second.data, 'opened': opened.data}"),
)


def test_two_forms_then_a_retry_panel_in_notebook7(nb7, pw, shots):
    write_notebook(nb7.root / "retry.ipynb", *RETRY_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, nb7.base)
        open_and_run(page, nb7.base, "retry.ipynb", app="notebook")
        asking = code_cell(page, "first = %mcp")
        first = asking.locator(".mcpnb-form").first
        expect(first).to_be_visible(timeout=90000)
        shots.take(page, "first-form-before")
        type_into(page, first.locator(".mcpnb-field-answer input"), "Grace")
        first.get_by_role("button", name="Accept").click()
        second = asking.locator(".mcpnb-form").nth(1)
        expect(second).to_be_visible(timeout=60000)
        type_into(page, second.locator(".mcpnb-field-answer input"), "Because")
        shots.take(page, "second-form-filled")
        second.get_by_role("button", name="Decline").click()
        panel = code_cell(page, "open_local_page").locator(".mcpnb-url-consent")
        expect(panel).to_be_visible(timeout=60000)
        shots.take(page, "retry-before")
        panel.get_by_role("button", name="Retry the call").click()
        got = wait_file(nb7.root / "nb7.json")
        assert got["first"]["answers"] == [{"question": "Name?", "answer": "Grace"}]
        assert got["second"]["action"] == "decline"
        assert got["opened"]["action"] == "accept" and got["opened"]["title"] == "Hi"
        expect(panel.locator(".mcpnb-status")).to_contain_text("Done: the result is below")
        shots.take(page, "retry-after")
    finally:
        browser.close()


def test_a_tools_page_is_drawn_and_used_in_notebook7(nb7, pw, shots):
    """An MCP App's page (probe-kit's dice) comes through anywidget's frontend in Notebook 7 too:
    drawn, answered (the page's own status line), and its button calls the server again."""
    write_notebook(
        nb7.root / "dice.ipynb",
        "%load_ext mcpnb\n%mcp serve probe-kit --toolset apps",
        "%mcp call probe.dice count=4",
    )
    browser = launch(pw)
    try:
        page = new_page(browser, nb7.base)
        open_and_run(page, nb7.base, "dice.ipynb", app="notebook")
        frame = code_cell(page, "%mcp call probe.dice").frame_locator("iframe.mcpnb-app-frame")
        expect(frame.locator(".die")).to_have_count(4, timeout=90000)
        expect(frame.locator("#status")).to_contain_text("connected to mcpnb")
        frame.get_by_role("button", name="History").click()
        expect(frame.locator("#history")).to_have_text(
            f"totals so far: {frame.locator('#total').inner_text()}"
        )
        frame.get_by_role("button", name="Roll again").click()
        expect(frame.locator("#history")).to_contain_text("totals so far: ")
        expect(frame.locator("#status")).to_have_text("rolled")
        shots.take(page, "dice")
    finally:
        browser.close()
