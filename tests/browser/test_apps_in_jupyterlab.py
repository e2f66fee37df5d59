"""An MCP App in JupyterLab: ``%mcp call`` on a tool with a page of its own draws that page, and a
person uses it. The server and its page are the MCP Apps project's own example
(``@modelcontextprotocol/server-basic-vanillajs``, in ``tests/peers``), written against its SDK's
``App`` class: the host side is tested against a page we did not write.

What is asserted is what a person sees in the page (the server's time, put there by the page from
the result the host handed it; a new time after a click on its button, which the page fetched with
``tools/call`` through the kernel), what shows under it (the notes), and what the kernel kept
(written to a file by a later cell). The sandbox is checked from inside the frame: no reach into
JupyterLab, no network.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import EVERYTHING
from playwright.sync_api import expect

from browser.lab import PANEL, code_cell, launch, new_page, open_and_run, retype, wait_file, write_notebook
from browser.scenarios import SAVE

pytestmark = pytest.mark.timeout(240)

BASIC = EVERYTHING.parents[2] / "server-basic-vanillajs" / "dist" / "index.js"
ISO_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


def test_a_person_uses_a_tools_page_drawn_by_mcp_call(lab, pw, shots):
    assert BASIC.exists(), "run `npm ci --prefix tests/peers` (the README's test command does)"
    node = shutil.which("node")
    write_notebook(
        lab.root / "apps.ipynb",
        f"%load_ext mcpnb\n%mcp connect basic -- {node} {BASIC} --stdio",
        "first = %mcp call basic.get-time",
        "import mcpnb\nview = mcpnb.AppView(mcpnb.default_pool(), first)\nview",
    )
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "apps.ipynb")
        cell = code_cell(page, "first = %mcp call basic.get-time")
        frame = cell.frame_locator("iframe.mcpnb-app-frame")
        shown = frame.locator("#server-time")
        expect(shown).to_have_text(_iso(), timeout=90000)  # the result the host handed the page
        first_time = shown.inner_text()
        shots.take(page, "drawn")

        frame.get_by_role("button", name="Get Server Time").click()  # tools/call from the page
        expect(shown).not_to_have_text(first_time)
        expect(shown).to_have_text(_iso())
        notes = cell.locator(".mcpnb-app-notes")
        expect(notes).to_contain_text("the page called get-time({}) ✓")

        retype(page, frame.locator("#message-text"), "hello from the page")
        frame.get_by_role("button", name="Send Message").click()
        expect(notes).to_contain_text("the page says, for a model: hello from the page")
        frame.get_by_role("button", name="Send Log").click()
        expect(notes).to_contain_text("This is log text.")
        frame.get_by_role("button", name="Open Link").click()  # asked, never opened for the page
        link = notes.locator("a", has_text="https://modelcontextprotocol.io/")
        expect(link).to_have_attribute("target", "_blank")
        assert len(browser.contexts[0].pages) == 1, "a page opened a tab by itself"
        shots.take(page, "used")

        # the sandbox: an origin of its own (nothing of JupyterLab's), and no network at all
        inside = next(f for f in page.frames if f != page.main_frame and "Get Time App" in f.title())
        assert inside.evaluate(
            "() => { try { return parent.document.title } catch { return 'refused' } }"
        ) == ("refused")
        assert inside.evaluate("() => window.origin") == "null"
        fetched = inside.evaluate(
            "url => fetch(url).then(() => 'fetched', () => 'refused')", f"{lab.base}/api/status"
        )
        assert fetched == "refused"

        # the page drawn from Python: same page, its own state; what the page did is kept there
        second = code_cell(page, "view = mcpnb.AppView").frame_locator("iframe.mcpnb-app-frame")
        expect(second.locator("#server-time")).to_have_text(first_time)  # the result it was given
        second.get_by_role("button", name="Get Server Time").click()
        expect(second.locator("#server-time")).not_to_have_text(first_time)
        kept = lab.root / "kept.json"
        for command in ("notebook:insert-cell-below", "notebook:enter-edit-mode"):
            page.evaluate(f"() => window.jupyterapp.commands.execute('{command}')")
        page.keyboard.type(SAVE.format(file=kept.name, expr="[[c.data for c in view.calls], first.data]"))
        page.keyboard.press("Shift+Enter")
        calls, first_data = wait_file(kept)
        assert first_data == {"time": first_time}
        assert len(calls) == 1 and calls[0]["time"] != first_time
        stderr = page.locator(PANEL).locator('[data-mime-type="application/vnd.jupyter.stderr"]')
        expect(stderr).to_have_count(0)
    finally:
        browser.close()


def _iso():
    import re

    return re.compile(ISO_TIME)
