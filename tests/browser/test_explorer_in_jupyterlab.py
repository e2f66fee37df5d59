"""``%mcp explore`` in JupyterLab: a person picks a tool, types its arguments key by key, clicks Call,
and the server receives what was typed. What is asserted is what probe-kit answered (it echoes the
arguments), written to a file by a cell added below the explorer and run afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from browser.lab import (
    KEY_DELAY_MS,
    PANEL,
    kept_by_new_cell,
    launch,
    new_page,
    open_and_run,
    paste_into,
    retype,
    type_into,
    write_notebook,
)

pytestmark = pytest.mark.timeout(240)


PROBE_KIT = ("%load_ext mcpnb\n%mcp serve probe-kit", "ex = %mcp explore probe\nex")


@contextlib.contextmanager
def exploring(lab: Any, pw: Any, tool: str, cells: tuple[str, ...] = PROBE_KIT) -> Iterator[tuple[Any, Any]]:
    """A notebook of ``cells`` (probe-kit and ``ex = %mcp explore probe``), run; the page and the
    explorer, with ``tool`` picked in its dropdown."""
    write_notebook(lab.root / f"{tool}.ipynb", *cells)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, f"{tool}.ipynb")
        explorer = page.locator(PANEL).locator(".mcpnb-explorer")
        expect(explorer).to_be_visible(timeout=90000)
        explorer.locator(".widget-dropdown", has_text="tool").locator("select").select_option(tool)
        yield page, explorer
    finally:
        browser.close()


def what_the_server_answered(page: Any, lab: Any, tool: str) -> Any:
    """A cell added below the explorer writes ``ex.result.data`` to a file (the kernel's view).

    One file per tool, removed first: the module's tests share one JupyterLab root, and a file an
    earlier test left would be read before this cell has run (it was, under load).
    """
    return kept_by_new_cell(page, lab.root / f"explored-{tool}.json", "ex.result.data")


def test_a_person_explores_a_tool_and_calls_it(lab, pw, shots):
    with exploring(lab, pw, "ui_search") as (page, explorer):
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
        retype(page, explorer.locator(".mcpnb-field-limit input"), "2")
        call.click()  # at once, as people click
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("login-form")  # shown there
        shots.take(page, "called")
        got = what_the_server_answered(page, lab, "ui_search")
        assert got["query"] == "login form"
        assert len(got["results"]) == 2


def test_enter_in_a_field_calls_the_tool(lab, pw, shots):
    # Enter did nothing in the explorer (its form's Accept is hidden): a person had to reach for Call
    with exploring(lab, pw, "ui_search") as (page, explorer):
        query = explorer.locator(".mcpnb-field-query input")
        type_into(page, query, "login form")
        page.keyboard.press("Enter")
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("login-form")
        shots.take(page, "entered")
        assert what_the_server_answered(page, lab, "ui_search")["query"] == "login form"


def test_a_tool_that_asks_the_person_asks_inside_the_explorer(lab, pw, shots):
    """``ask_user`` elicits: the form shows inside the explorer (a click has no cell to show it in),
    the person types the answer, Accept, and the result lands there too. It was declined unseen."""
    with exploring(lab, pw, "ask_user") as (page, explorer):
        type_into(page, explorer.locator(".mcpnb-field-question input"), "Your name?")
        expect(explorer.locator(".mcpnb-field-choices textarea")).to_have_value("")  # not "null"
        call = explorer.get_by_role("button", name="Call")
        call.click()
        form = explorer.locator(".mcpnb-form")  # the server's question, under the Call button
        expect(form).to_be_visible(timeout=30000)
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("waiting for your answer")
        # another Call now would hide the question: the button is Stop until the call ends
        expect(explorer.locator(".mcpnb-explore-call")).to_have_text("Stop")
        type_into(page, form.locator(".mcpnb-field-answer input"), "Ada")
        shots.take(page, "asked")
        form.get_by_role("button", name="Accept").click()
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("Ada")
        expect(explorer.locator(".mcpnb-explore-call")).to_have_text("Call")
        shots.take(page, "answered")
        got = what_the_server_answered(page, lab, "ask_user")
        assert got["action"] == "accept"
        assert [row["answer"] for row in got["answers"]] == ["Ada"]


def test_a_person_runs_a_tool_as_a_task_from_the_explorer(lab, pw, shots):
    """probe-kit's ``slow_task`` supports tasks: the person types the steps, ticks "as a task",
    clicks Call; the task's live view shows under the form and its result lands there."""
    with exploring(lab, pw, "slow_task") as (page, explorer):
        retype(page, explorer.locator(".mcpnb-field-steps input"), "20")
        ticked = explorer.locator(".mcpnb-explore-task input[type=checkbox]")
        expect(ticked).not_to_be_checked()
        ticked.click()
        expect(ticked).to_be_checked()
        explorer.get_by_role("button", name="Call").click()
        view = explorer.locator(".mcpnb-task")
        expect(view).to_be_visible(timeout=30000)  # the task's live view, not a plain call
        expect(view.locator(".mcpnb-task-status")).to_contain_text("completed", timeout=60000)
        expect(explorer.locator(".mcpnb-explore-result")).to_contain_text("19997", timeout=30000)
        shots.take(page, "task-done")
        got = what_the_server_answered(page, lab, "slow_task")
        assert got["upTo"] == 20000 and len(got["steps"]) == 20


def test_a_list_typed_as_people_write_it_reaches_the_server(lab, pw, shots):
    """The JSON editor takes a list written without quotes, as a ``%mcp`` line does (YAML's flow
    style): ``[Ada, Grace Hopper]`` for ``ask_user``'s choices. Its hint said what to type; the
    server's question then offers exactly those, and the picked one comes back."""
    with exploring(lab, pw, "ask_user") as (page, explorer):
        type_into(page, explorer.locator(".mcpnb-field-question input"), "Who first?")
        choices = explorer.locator(".mcpnb-field-choices textarea")
        expect(explorer).to_contain_text("a list of texts")
        type_into(page, choices, "[Ada, Grace Hopper")  # a bracket missing: said, nothing sent
        call = explorer.get_by_role("button", name="Call")
        call.click()
        expect(explorer.locator(".mcpnb-error", has_text="not valid JSON")).to_have_count(1)
        type_into(page, choices, "]")
        call.click()
        form = explorer.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=30000)
        shots.take(page, "choices-asked")
        form.get_by_label("Grace Hopper").click()
        form.get_by_role("button", name="Accept").click()
        expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
        got = what_the_server_answered(page, lab, "ask_user")
        assert [row["answer"] for row in got["answers"]] == ["Grace Hopper"]


def test_code_pasted_into_the_explorer_keeps_its_lines(lab, pw, shots):
    """``code_review(source)``: a person pastes a few lines of Python. A one-line input drops line
    breaks on paste (the browser's rule for ``<input type=text>``), so the server reviewed one
    run-on line; the field takes lines, and the finding is on the line it is on."""
    with exploring(lab, pw, "code_review") as (page, explorer):
        got = paste_and_call(lab, page, explorer, shots, "source", "import os\n\nresult = eval(input())\n")
        assert [(f["rule"], f["line"]) for f in got["findings"] if f["rule"] == "S-EVAL"] == [("S-EVAL", 3)]


def paste_and_call(lab: Any, page: Any, explorer: Any, shots: Any, field: str, text: str) -> Any:
    """Paste ``text`` into the box of ``field`` (a box that keeps lines: a textarea), click Call,
    and return what the server answered."""
    box = explorer.locator(f".mcpnb-field-{field} textarea")
    expect(box).to_be_visible()
    paste_into(page, box, text)
    explorer.get_by_role("button", name="Call").click()
    expect(explorer.locator(".mcpnb-explore-status")).to_contain_text("✓", timeout=30000)
    shots.take(page, f"pasted into {field}")
    tool = explorer.locator(".widget-dropdown", has_text="tool").locator("select").input_value()
    return what_the_server_answered(page, lab, tool)


SQL_SERVER = """%load_ext mcpnb
import sqlite3
from mcp.server.mcpserver import MCPServer

srv = MCPServer("db")


@srv.tool()
def run_query(query: str) -> list[dict]:
    \"\"\"Run a SQL query on an empty in-memory SQLite database.\"\"\"
    cursor = sqlite3.connect(":memory:").execute(query)
    return [dict(zip([c[0] for c in cursor.description], row)) for row in cursor]

%mcp connect db {{srv}}"""


def test_a_query_pasted_for_a_tool_that_runs_sql_keeps_its_lines(lab, pw, shots):
    """mcp-alchemy's ``execute_query(query)``, the PostgreSQL and DuckDB servers' ``query``: the
    parameter's name says nothing, the tool says it runs SQL. In a one-line input a pasted query
    lost its line breaks (``select 1 as n`` and ``union select 2`` became ``… as nunion …``)."""
    cells = (SQL_SERVER, "ex = %mcp explore db\nex")
    with exploring(lab, pw, "run_query", cells) as (page, explorer):
        got = paste_and_call(lab, page, explorer, shots, "query", "select 1 as n\nunion select 2\norder by n")
        assert got == [{"n": 1}, {"n": 2}]
