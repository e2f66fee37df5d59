"""One notebook shown in two places at once: a teacher's projected tab and laptop tab of one
JupyterLab, or a cell's output in a second view ("Create New View for Cell Output").

Both places render the same widget models (a second tab restores them from the kernel when it
opens the saved notebook), so a form, a consent panel or a task's Cancel is live in both. What a
person does in one place must reach the kernel once: the other place then offers no live button
that could answer a second time, and what the server received is the one answer. A second tab of
JupyterLab without real-time collaboration never sees the outputs of runs it did not start, the
records that replace ended panels included (they go by display id, which a tab opened from the
saved file does not know): there the ended panel's widgets are closed and it goes blank.

Every click and key is a person's (:mod:`browser.lab`). Exceptions a click's handler raises in the
kernel reach no cell (their ``error`` message's parent is the widget message, which no cell
waits for), so each tab collects every ``error`` the kernel publishes, and none may come.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    TOKEN,
    code_cell,
    launch,
    new_page,
    open_and_run,
    type_into,
    wait_file,
    write_notebook,
)

pytestmark = pytest.mark.timeout(300)

#: Every ``error`` message the kernel publishes (iopub reaches every tab connected to the kernel),
#: kept on the page for the test to read.
WATCH_ERRORS = """() => {
    const w = window.jupyterapp.shell.currentWidget;
    const kernel = w.sessionContext.session.kernel;
    window.__kernelErrors = [];
    kernel.iopubMessage.connect((_k, msg) => {
        if (msg.header.msg_type === 'error') {
            window.__kernelErrors.push(msg.content.ename + ': ' + msg.content.evalue);
        }
    });
}"""

KERNEL_CONNECTED = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    return !!(w && w.sessionContext?.session?.kernel?.connectionStatus === 'connected'); }"""


def save(page: Any) -> None:
    """Ctrl+S, as a person saves: the second tab opens the file as saved (the live widget views)."""
    page.locator(PANEL).locator(".jp-Cell-inputArea").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)


def second_tab(browser: Any, base: str, name: str) -> Any:
    """The same notebook in another tab (a page of its own, its own JupyterLab workspace), on the
    kernel that is running it; its errors watched. The kernel may be busy (a cell waits for a form)."""
    page = new_page(browser, base)
    page.goto(f"{base}/lab/workspaces/second{int(time.time() * 1000)}/tree/{name}?reset&token={TOKEN}")
    page.wait_for_function(KERNEL_CONNECTED, timeout=90000)
    page.evaluate(WATCH_ERRORS)
    return page


def form_in_two_tabs(browser: Any, lab: Any, name: str) -> tuple[Any, Any, Any, Any]:
    """Notebook ``name`` run in the projected tab until its form shows, saved, and opened in the
    laptop's tab: the two pages, then the form in each."""
    projected = new_page(browser, lab.base)
    open_and_run(projected, lab.base, name)
    projected.evaluate(WATCH_ERRORS)
    form_a = code_cell(projected, "ask_user").locator(".mcpnb-form")
    expect(form_a).to_be_visible(timeout=90000)
    save(projected)
    laptop = second_tab(browser, lab.base, name)
    return projected, laptop, form_a, code_cell(laptop, "ask_user").locator(".mcpnb-form")


def kernel_errors(page: Any) -> list[str]:
    return page.evaluate("() => window.__kernelErrors")


def click_where(page: Any, locator: Any) -> dict[str, float]:
    """Where ``locator`` is on the page now (a person's hand over a button, about to click)."""
    box = locator.bounding_box()
    assert box is not None
    return {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}


FORM_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'r = %mcp call probe.ask_user question="Who is presenting?" --transcript\nr',
    "import json, pathlib\n"
    "sent = [m.method for m in r.transcript.messages if m.direction == '→' and m.kind == 'request']\n"
    "_ = pathlib.Path('form.json').write_text(json.dumps({'data': r.data, 'sent': sent}))",
)


def test_a_form_in_two_tabs_is_answered_once(lab, pw, shots):
    """Typed in the laptop's tab, accepted in both at once: the server gets one answer; the other
    tab has no live form left."""
    write_notebook(lab.root / "two-tabs.ipynb", *FORM_CELLS)
    browser = launch(pw)
    try:
        projected, laptop, form_a, form_b = form_in_two_tabs(browser, lab, "two-tabs.ipynb")
        expect(form_b).to_be_visible()  # the same live form, restored from the kernel
        field_a, field_b = (f.locator(".mcpnb-field-answer input") for f in (form_a, form_b))

        type_into(laptop, field_b, "Grace")
        laptop.keyboard.press("Tab")  # a text field sends what it holds as it loses the focus
        expect(field_a).to_have_value("Grace")  # the kernel echoes it to the projected tab
        type_into(projected, field_a, " Hopper")
        projected.keyboard.press("Tab")
        expect(field_b).to_have_value("Grace Hopper")  # and back: no stale value left in either
        shots.take(laptop, "laptop-filled")

        # Accept in both tabs at once: the laptop's click lands before its tab hears of the first
        where = click_where(laptop, form_b.get_by_role("button", name="Accept"))
        form_a.get_by_role("button", name="Accept").click()
        laptop.mouse.click(where["x"], where["y"])

        status = form_a.locator(".mcpnb-status")
        expect(status).to_contain_text("Sent to probe")
        expect(status).to_contain_text("Grace Hopper")
        got = wait_file(lab.root / "form.json")
        assert got["data"]["answers"] == [{"question": "Who is presenting?", "answer": "Grace Hopper"}]
        # 2026-07-28: the call, then the same call again with the one answer (no third with another)
        assert got["sent"] == ["tools/call", "tools/call"]
        # nothing on the laptop could answer again: the form's widgets are closed
        expect(code_cell(laptop, "ask_user").locator(".jp-Cell-outputArea button:enabled")).to_have_count(0)
        expect(code_cell(laptop, "ask_user").locator(".jp-Cell-outputArea input:enabled")).to_have_count(0)
        shots.take(projected, "projected-answered")
        shots.take(laptop, "laptop-answered")
        assert kernel_errors(projected) == []
        assert kernel_errors(laptop) == []
    finally:
        browser.close()


#: The kernel answers the widget control channel 6 s late, as a loaded machine may: JupyterLab's
#: widget manager waits 4 s for it, then asks the kernel which widget comms it has.
LATE_CONTROL = (
    "import asyncio, ipywidgets\n"
    "_reply = ipywidgets.Widget._handle_control_comm_msg.__func__\n"
    "ipywidgets.Widget._handle_control_comm_msg = classmethod(\n"
    "    lambda cls, msg: asyncio.get_running_loop().call_later(6, _reply, cls, msg))"
)


def test_a_second_tab_gets_the_live_form_when_the_control_channel_answers_late(lab, pw, shots):
    """JupyterLab restores a tab's widgets through the control channel, and when that is slow (a
    loaded laptop, a Binder) through the list of widget comms; the kernel answers that list while
    the cell waits for the form, so the laptop's tab gets the live form and its answer lands."""
    cells = (
        FORM_CELLS[0] + "\n" + LATE_CONTROL,
        FORM_CELLS[1],
        FORM_CELLS[2].replace("form.json", "late.json"),
    )
    write_notebook(lab.root / "late-control.ipynb", *cells)
    browser = launch(pw)
    try:
        projected, laptop, _form_a, form_b = form_in_two_tabs(browser, lab, "late-control.ipynb")
        field_b = form_b.locator(".mcpnb-field-answer input")
        expect(field_b).to_be_editable(timeout=30000)
        shots.take(laptop, "laptop-restored")
        type_into(laptop, field_b, "Ada")
        laptop.keyboard.press("Tab")
        form_b.get_by_role("button", name="Accept").click()
        got = wait_file(lab.root / "late.json")
        assert got["data"]["answers"] == [{"question": "Who is presenting?", "answer": "Ada"}]
        assert kernel_errors(projected) == []
        assert kernel_errors(laptop) == []
    finally:
        browser.close()


TASK_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    "h = %mcp call probe.slow_task steps=600 delay=0.1 --task\nh",
    # 36 s: the bar must still run when the laptop's tab has loaded and restored it, which on a
    # loaded machine took longer than the 15 s this call once lasted (an ended bar's model is gone)
    "p = %mcp call probe.slow_task steps=60 delay=0.6",
    "import json, pathlib\n"
    "_ = pathlib.Path('task.json').write_text(json.dumps({'status': h.status, 'server': h.refresh(), "
    "'id': h.task_id, 'rows': len(p.df)}))",
)


def test_a_task_cancelled_in_the_second_tab_ends_in_both(lab, pw, shots):
    """A task's live view and a progress bar in two tabs: Cancel in the laptop's tab; the projected
    tab shows the task cancelled, Cancel is spent in both, the bar ends; no error in the kernel."""
    write_notebook(lab.root / "task-tabs.ipynb", *TASK_CELLS)
    browser = launch(pw)
    try:
        projected = new_page(browser, lab.base)
        open_and_run(projected, lab.base, "task-tabs.ipynb")
        projected.evaluate(WATCH_ERRORS)
        task_a = code_cell(projected, "--task").locator(".mcpnb-task")
        expect(task_a.locator(".mcpnb-task-status")).to_have_text("working", timeout=90000)
        bar_a = code_cell(projected, "steps=60").locator(".mcpnb-progress")
        expect(bar_a).to_be_visible()
        save(projected)
        laptop = second_tab(browser, lab.base, "task-tabs.ipynb")
        task_b = code_cell(laptop, "--task").locator(".mcpnb-task")
        expect(task_b.locator(".mcpnb-task-status")).to_have_text("working")
        expect(code_cell(laptop, "steps=60").locator(".mcpnb-progress")).to_be_visible()
        shots.take(laptop, "laptop-working")

        where = click_where(projected, task_a.get_by_role("button", name="Cancel"))
        task_b.get_by_role("button", name="Cancel").click()
        projected.mouse.click(where["x"], where["y"])  # the projected tab's Cancel too, at once

        cell_a = code_cell(projected, "--task")
        expect(cell_a.locator(".mcpnb-task-status")).to_have_text("cancelled")
        expect(cell_a.get_by_role("button", name="Cancel")).to_have_count(0)  # its record
        expect(code_cell(laptop, "--task").locator(".jp-Cell-outputArea button:enabled")).to_have_count(0)
        got = wait_file(lab.root / "task.json", timeout=120)
        assert got["id"]
        assert (got["status"], got["server"], got["rows"]) == ("cancelled", "cancelled", 60)
        expect(code_cell(projected, "steps=60").locator(".mcpnb-progress")).to_contain_text("done")
        expect(code_cell(laptop, "steps=60").locator(".widget-progress")).to_have_count(0)
        shots.take(projected, "projected-cancelled")
        shots.take(laptop, "laptop-cancelled")
        assert kernel_errors(projected) == []
        assert kernel_errors(laptop) == []
    finally:
        browser.close()


CONSENT_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    "u = %mcp call probe.open_local_page path=page.html\nu",
    "import json, pathlib\n_ = pathlib.Path('consent.json').write_text(json.dumps(u.text))",
)


def test_url_consent_given_in_a_second_view_leaves_no_live_button(lab, pw, shots):
    """The consent panel in its cell, in a second view of that output and in the laptop's tab:
    "I've completed it" in the second view; the cell and that view show the record, the laptop's
    tab no link or button that would answer (or open the page) again."""
    (lab.root / "page.html").write_text("<h1>Today's lesson</h1>")
    write_notebook(lab.root / "consent-tabs.ipynb", *CONSENT_CELLS)
    browser = launch(pw)
    try:
        projected = new_page(browser, lab.base)
        open_and_run(projected, lab.base, "consent-tabs.ipynb")
        projected.evaluate(WATCH_ERRORS)
        cell = code_cell(projected, "open_local_page")
        expect(cell.locator(".mcpnb-url-consent")).to_be_visible(timeout=90000)
        save(projected)
        laptop = second_tab(browser, lab.base, "consent-tabs.ipynb")
        consent_b = code_cell(laptop, "open_local_page").locator(".mcpnb-url-consent")
        expect(consent_b.get_by_role("button", name="I've completed it")).to_be_enabled()

        # the cell's output in a view of its own (right-click on the output in JupyterLab)
        cell.locator(".mcpnb-url-consent").click(button="right", position={"x": 5, "y": 5})
        projected.get_by_role("menuitem", name="Create New View for Cell Output").click()
        view = projected.locator(".jp-LinkedOutputView")
        consent_view = view.locator(".mcpnb-url-consent")
        expect(consent_view.get_by_role("button", name="I've completed it")).to_be_enabled()
        shots.take(projected, "two-views")
        where = click_where(laptop, consent_b.get_by_role("button", name="I've completed it"))
        consent_view.get_by_role("button", name="I've completed it").click()
        laptop.mouse.click(where["x"], where["y"])  # the laptop's, at once

        for place in (cell, view):
            record = place.locator(".mcpnb-url-consent.mcpnb-record")
            expect(record).to_contain_text("Told probe you completed it")
            expect(place.locator(".mcpnb-url-consent button")).to_have_count(0)
            expect(place.locator(".mcpnb-url-open a")).to_have_count(0)  # the link is no button now
        assert "Today's lesson" in wait_file(lab.root / "consent.json")
        laptop_cell = code_cell(laptop, "open_local_page")
        expect(laptop_cell.locator(".jp-Cell-outputArea button:enabled")).to_have_count(0)
        expect(laptop_cell.locator(".mcpnb-url-open a")).to_have_count(0)
        shots.take(projected, "projected-consented")
        shots.take(laptop, "laptop-consented")
        assert kernel_errors(projected) == []
        assert kernel_errors(laptop) == []
    finally:
        browser.close()


RUN_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'r = %mcp call probe.ask_user question="Who is presenting?"\nr',
    "import json, pathlib\n_ = pathlib.Path('answered.json').write_text(json.dumps(r.data))",
    "print('the laptop ran this')",
)


def test_a_run_in_the_tab_that_types_into_the_form_does_not_withdraw_it(lab, pw, shots):
    """The teacher types the answer in the laptop's tab, then runs another cell there before
    accepting. The projected tab, where the form was asked, has been silent since the laptop's
    opened, which is how a reloaded page looks to the kernel: the run withdrew the form (the server
    was told "cancel", the name typed was lost) and said the form's page had gone, though the
    laptop was showing it, and typing into it. Now the run waits behind the form, as in one tab."""
    write_notebook(lab.root / "run-tabs.ipynb", *RUN_CELLS)
    browser = launch(pw)
    try:
        projected, laptop, form_a, form_b = form_in_two_tabs(browser, lab, "run-tabs.ipynb")
        field_b = form_b.locator(".mcpnb-field-answer input")
        type_into(laptop, field_b, "Grace")
        laptop.keyboard.press("Tab")
        expect(form_a.locator(".mcpnb-field-answer input")).to_have_value("Grace")

        ran = code_cell(laptop, "the laptop ran")
        ran.locator(".jp-InputArea").click()
        laptop.keyboard.press("Shift+Enter")
        expect(ran.locator(".jp-InputPrompt")).to_have_text("[*]:")  # queued behind the form
        # the run has reached the kernel (its prompt turns to [*] as it is sent): the form stays
        try:
            form_b.get_by_role("button", name="Accept").click()
        except PlaywrightTimeout:
            said = ran.locator(".jp-Cell-outputArea").inner_text()
            pytest.fail(f"the laptop's run took the form away: {said}")
        expect(ran.locator(".jp-OutputArea-output", has_text="the laptop ran this")).to_be_visible()
        expect(ran.locator(".jp-Cell-outputArea")).not_to_contain_text("withdrawn")
        got = wait_file(lab.root / "answered.json")
        assert got["action"] == "accept"
        assert got["answers"] == [{"question": "Who is presenting?", "answer": "Grace"}]
        status = form_a.locator(".mcpnb-status")
        expect(status).to_contain_text("Sent to probe")
        expect(status).to_contain_text("Grace")
        shots.take(projected, "projected-answered")
        shots.take(laptop, "laptop-ran")
        assert kernel_errors(projected) == []
        assert kernel_errors(laptop) == []
    finally:
        browser.close()
