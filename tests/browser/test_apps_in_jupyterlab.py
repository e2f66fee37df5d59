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

import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import EVERYTHING
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    code_cell,
    kept_by_new_cell,
    launch,
    new_page,
    open_and_run,
    retype,
    write_notebook,
)

pytestmark = pytest.mark.timeout(240)

BASIC = EVERYTHING.parents[2] / "server-basic-vanillajs" / "dist" / "index.js"
PDF_SERVER = EVERYTHING.parents[2] / "server-pdf" / "dist" / "index.js"
ISO_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


def test_a_person_uses_a_tools_page_drawn_by_mcp_call(lab, pw, shots):
    assert BASIC.exists(), "run `npm ci --prefix tests/peers` (the README's test command does)"
    node = shutil.which("node")
    with drawn(
        pw,
        lab,
        "apps.ipynb",
        "first = %mcp call basic.get-time",
        [
            f"%load_ext mcpnb\n%mcp connect basic -- {node} {BASIC} --stdio",
            "first = %mcp call basic.get-time",
            "import mcpnb\nview = mcpnb.AppView(mcpnb.default_pool(), first)\nview",
        ],
    ) as (page, cell, frame):
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
        assert len(page.context.pages) == 1, "a page opened a tab by itself"
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
        expr = "[[c.data for c in view.calls], first.data]"
        calls, first_data = kept_by_new_cell(page, lab.root / "kept.json", expr)
        assert first_data == {"time": first_time}
        assert len(calls) == 1 and calls[0]["time"] != first_time
        stderr = page.locator(PANEL).locator('[data-mime-type="application/vnd.jupyter.stderr"]')
        expect(stderr).to_have_count(0)


def test_a_page_drawn_for_a_models_call_tells_the_model_what_the_person_did(lab, pw, shots):
    """The notebook's loop is the chat host: ``tools.run_all(reply)`` runs the model's call of a
    tool with a page and draws the page in that cell; the person rolls again and clicks "Tell the
    model"; the next turn (``tools.from_pages``) carries the page's words, as an Anthropic user
    message, once."""
    from anthropic.types import MessageParam
    from pydantic import TypeAdapter

    call = {"type": "tool_use", "id": "toolu_1", "name": "mcp__probe__dice", "input": {"count": 2}}
    with drawn(
        pw,
        lab,
        "loop.ipynb",
        "replies = tools.run_all(",
        [
            "%load_ext mcpnb\n%mcp serve probe-kit --toolset apps\n"
            "import mcpnb\ntools = mcpnb.default_pool().functions()",
            f"replies = tools.run_all([{call!r}])  # the model's turn, scripted",
        ],
    ) as (page, _cell, frame):
        expect(frame.locator(".die")).to_have_count(2, timeout=90000)  # the model's arguments, drawn
        frame.get_by_role("button", name="Roll again").click()  # the page's own call, through the kernel
        expect(frame.locator("#status")).to_have_text("rolled")
        total = frame.locator("#total").inner_text()
        frame.get_by_role("button", name="Tell the model").click()
        expect(frame.locator("#status")).to_have_text("told")
        shots.take(page, "told")

        expr = "[tools.from_pages('anthropic'), tools.from_pages('anthropic'), replies]"
        turn, again, replies = kept_by_new_cell(page, lab.root / "turn.json", expr)
        assert replies[0]["tool_use_id"] == "toolu_1" and not replies[0]["is_error"]
        [message] = turn
        TypeAdapter(MessageParam).validate_python(message)
        assert message["role"] == "user"
        [said] = message["content"]
        heading = "[probe.dice's page (an MCP App) says:]\n\n"  # the page's words, never the person's
        assert said["type"] == "text" and said["text"].startswith(heading + "I rolled ")
        assert said["text"].endswith(f" = {total}.")  # the roll the person made, not the model's
        assert again == []  # handed over once


def test_a_person_approves_on_fastmcps_approval_page_and_the_model_reads_it(lab, pw, shots):
    """FastMCP's own MCP App for a person's yes (``fastmcp.apps.Approval``, drawn by prefab-ui): the
    model asks for approval; ``tools.run_all`` draws the card in the cell; the person clicks Approve,
    which the page sends as ``ui/message``; the model's next turn (``tools.from_pages``) reads the
    decision in FastMCP's own words, as the tool's description promises the model."""
    from anthropic.types import MessageParam
    from pydantic import TypeAdapter

    from tests.peers.fastmcp_venv import FASTMCP_APPS_SERVER, fastmcp_python

    summary = "Delete 3 old reports"
    ask = {"summary": summary, "details": "They are in ./reports, older than 2024."}
    call = {"type": "tool_use", "id": "toolu_1", "name": "mcp__fm__request_approval", "input": ask}
    with drawn(
        pw,
        lab,
        "approve.ipynb",
        "replies = tools.run_all(",
        [
            f"%load_ext mcpnb\n%mcp connect fm --env PREFAB_BUNDLED_RENDERER=1 -- {fastmcp_python()} "
            f"{FASTMCP_APPS_SERVER}\nimport mcpnb\ntools = mcpnb.default_pool().functions()",
            f"replies = tools.run_all([{call!r}])  # the model's turn, scripted",
        ],
    ) as (page, cell, frame):
        expect(frame.get_by_text(summary)).to_be_visible(timeout=90000)  # the model's arguments, drawn
        frame.get_by_role("button", name="Approve").click()
        expect(frame.get_by_text("Response sent.")).to_be_visible()
        expect(cell.locator(".mcpnb-app-notes")).to_contain_text("the page says, for a model:")
        shots.take(page, "approved")

        expr = "[tools.from_pages('anthropic'), replies]"
        turn, replies = kept_by_new_cell(page, lab.root / "decision.json", expr)
        assert replies[0]["tool_use_id"] == "toolu_1" and not replies[0]["is_error"]
        [message] = turn
        TypeAdapter(MessageParam).validate_python(message)
        assert message == {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": f"[fm.request_approval's page (an MCP App) says:]\n\n"
                    f'"{summary}" — I selected: Approve',
                }
            ],
        }


def test_a_person_uploads_a_file_through_fastmcps_upload_page(lab, pw, shots, tmp_path):
    """FastMCP's ``FileUpload`` app: a file chosen in the page's drop zone (a file input inside
    mcpnb's sandboxed frame) goes to the server with the page's own ``tools/call``; the server then
    hands it to whoever asks (``read_file``), here the next cell."""
    from tests.peers.fastmcp_venv import FASTMCP_APPS_SERVER, fastmcp_python

    chosen = tmp_path / "rolls.csv"
    chosen.write_text("roll,total\n1,7\n")
    with drawn(
        pw,
        lab,
        "upload.ipynb",
        "%mcp call fm.file_manager",
        [
            f"%load_ext mcpnb\n%mcp connect fm --env PREFAB_BUNDLED_RENDERER=1 -- {fastmcp_python()} "
            f"{FASTMCP_APPS_SERVER}",
            "%mcp call fm.file_manager",
        ],
    ) as (page, cell, frame):
        expect(frame.get_by_text("Drop files here")).to_be_visible(timeout=90000)
        with page.expect_file_chooser() as chooser:  # the person clicks the drop zone, picks a file
            frame.get_by_text("Drop files here").click()
        chooser.value.set_files(str(chosen))
        frame.get_by_role("button", name="Upload to Server").click()
        expect(frame.get_by_text("rolls.csv")).to_be_visible()
        expect(cell.locator(".mcpnb-app-notes")).to_contain_text("the page called store_files(")
        shots.take(page, "uploaded")

        read = "read = %mcp call fm.read_file name=rolls.csv\n"
        stored = kept_by_new_cell(page, lab.root / "uploaded.json", "read.data", first=read)
        assert (stored["name"], stored["content"]) == ("rolls.csv", chosen.read_text())


def test_a_person_downloads_the_pdf_a_real_viewer_page_offers(lab, pw, shots, tmp_path):
    """The MCP Apps project's PDF viewer (``@modelcontextprotocol/server-pdf``, in ``tests/peers``)
    draws a local PDF through its app-only byte-range tool; its Download button sends
    ``ui/download-file`` with the PDF as a blob. The person clicks the link mcpnb shows under the
    page and gets the bytes the page sent; the kernel keeps the same. The viewer declares a CDN: nothing but
    127.0.0.1 is reachable here, and it draws all the same; it keeps its place in ``localStorage``,
    which a sandboxed frame lacks, and gets mcpnb's stand-in instead of an error."""
    assert PDF_SERVER.exists(), "run `npm ci --prefix tests/peers`"
    pdf = tmp_path / "rolls.pdf"
    pdf.write_bytes(one_page_pdf("mcpnb rolled 7"))
    said: list[str] = []  # the console of the page and its frames

    def before(page: Any) -> None:
        page.on("console", lambda message: said.append(message.text))

    with drawn(
        pw,
        lab,
        "pdf.ipynb",
        "%mcp call pdf.display_pdf",
        [
            f"%load_ext mcpnb\n%mcp connect pdf -- {shutil.which('node')} {PDF_SERVER} --stdio {pdf}",
            f"%mcp call pdf.display_pdf url={pdf.as_uri()}",
        ],
        before=before,
    ) as (page, cell, frame):
        expect(frame.locator("#total-pages")).to_have_text("of 1", timeout=90000)  # read through the kernel
        notes = cell.locator(".mcpnb-app-notes")
        expect(notes).to_contain_text("the page called read_pdf_bytes(")  # its app-only tool
        expect(notes.locator(".mcpnb-app-context")).to_have_count(1)  # set again and again: one line
        # the viewer keeps its place in localStorage, which a sandboxed frame lacks: it got the stand-in
        assert any("loadSavedPage" in line for line in said), "the viewer looked for its saved place"
        assert not [line for line in said if "localStorage" in line and "sandboxed" in line]
        frame.get_by_role("button", name="Download PDF").click()
        link = notes.locator("a[download]")
        expect(link).to_have_count(1)
        with page.expect_download() as saved:
            link.click()
        got = Path(saved.value.path()).read_bytes()
        assert got.startswith(b"%PDF-")  # the viewer saves the document anew (pdf-lib), not the file's bytes
        shots.take(page, "pdf")

        expr = "[(f.name, f.mime, f.data().hex()) for f in mcpnb.AppView.drawn[-1].downloads]"
        [[name, mime, data]] = kept_by_new_cell(page, lab.root / "pdf.json", expr, first="import mcpnb\n")
        assert (mime, bytes.fromhex(data)) == ("application/pdf", got)  # the link's bytes are the page's
        assert name == saved.value.suggested_filename and name.endswith(".pdf")


def one_page_pdf(text: str) -> bytes:
    """A valid one-page PDF saying ``text`` (a PDF's offsets table computed, as a viewer reads it)."""
    stream = f"BT /F1 24 Tf 40 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    table = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{table}\n%%EOF\n".encode()
    return bytes(out)


@contextmanager
def drawn(
    pw: Any, lab: Any, name: str, source: str, cells: list[str], before: Callable[[Any], None] | None = None
) -> Iterator[tuple[Any, Any, Any]]:
    """Run the notebook ``name`` made of ``cells`` in JupyterLab (``before`` first sees the fresh
    page) and give the page, the cell whose source starts with ``source``, and the MCP App page's
    frame in it; the browser closes after."""
    write_notebook(lab.root / name, *cells)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        if before is not None:
            before(page)
        open_and_run(page, lab.base, name)
        cell = code_cell(page, source)
        yield page, cell, cell.frame_locator("iframe.mcpnb-app-frame")
    finally:
        browser.close()


def _iso():
    return re.compile(ISO_TIME)


#: Every JSON-RPC message a window receives, recorded from its first script on (Playwright runs this
#: in each frame): the top window receives what the page sends its host. What the host sends the
#: page is recorded as the host hands it to the page's MessagePort (``__told``), in the top window:
#: the page's own recorder, in its sandboxed frame, once started after the page's first exchange.
RECORD = """
window.__heard = [];
window.__told = [];
window.addEventListener("message", (e) => {
  if (e.data && e.data.jsonrpc === "2.0") window.__heard.push(e.data);
}, true);
const send = MessagePort.prototype.postMessage;
MessagePort.prototype.postMessage = function (data, ...rest) {
  if (data && data.jsonrpc === "2.0") window.__told.push(data);
  return send.call(this, data, ...rest);
};
"""


def test_probe_kits_dice_page_and_its_host_keep_to_the_extensions_schema(lab, pw, shots):
    """probe-kit's page is hand-written against the extension's text, and so is mcpnb's host: each
    message either sends is checked against the MCP Apps project's schema (tests/apps_schema.py),
    the core MCP ones against the SDK's types."""
    from mcp import types

    from tests.apps_schema import problems

    to_kernel: list[str] = []  # what JupyterLab sends the kernel over its websocket

    def before(page: Any) -> None:
        page.add_init_script(RECORD)
        page.on("websocket", lambda ws: ws.on("framesent", lambda frame: to_kernel.append(str(frame))))

    with drawn(
        pw,
        lab,
        "dice.ipynb",
        "rolled = %mcp call probe.dice",
        [
            "%load_ext mcpnb\n%mcp serve probe-kit --toolset apps",
            "rolled = %mcp call probe.dice count=3",
        ],
        before=before,
    ) as (page, cell, frame):
        expect(frame.locator(".die")).to_have_count(3, timeout=90000)
        first = frame.locator("#total").inner_text()
        expect(frame.locator("#status")).to_contain_text("connected to mcpnb")

        frame.get_by_role("button", name="Roll again").click()
        expect(frame.locator("#status")).to_have_text("rolled")
        frame.get_by_role("button", name="History").click()  # a tool for the page only
        history = frame.locator("#history")
        expect(history).to_contain_text("totals so far: ")
        totals = history.inner_text().removeprefix("totals so far: ").split(", ")
        assert totals[0] == first and totals[1] == frame.locator("#total").inner_text()
        frame.get_by_role("button", name="Tell the model").click()
        notes = cell.locator(".mcpnb-app-notes")
        expect(notes).to_contain_text("the page says, for a model: I rolled ")
        expect(notes).to_contain_text("info: rolled ")  # its log line
        frame.get_by_role("button", name="Save totals").click()  # ui/download-file: a link to click
        expect(frame.locator("#status")).to_have_text("offered to save")
        with page.expect_download() as saved:
            notes.locator("a", has_text="dice-totals.csv").click()
        assert saved.value.suggested_filename == "dice-totals.csv"
        rows = [f"{n},{total}" for n, total in enumerate(totals, start=1)]
        assert Path(saved.value.path()).read_text() == "\n".join(["roll,total", *rows]) + "\n"
        page.evaluate(
            "() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})"
        )
        # the one page this window shows (the recorders hear every page of the window) is this cell's
        expect(page.locator("iframe.mcpnb-app-frame")).to_have_count(1)
        inside = cell.locator("iframe.mcpnb-app-frame").element_handle().content_frame()
        assert inside is not None and inside.title() == "probe-kit dice"
        expect(frame.locator("html")).to_have_attribute("data-theme", "dark")
        # the frame is as tall as the page says it is (its size-changed), not the first guess
        height = cell.locator("iframe.mcpnb-app-frame").evaluate("f => f.getBoundingClientRect().height")
        assert 100 < height < 320 and height >= inside.evaluate("() => document.body.scrollHeight")
        shots.take(page, "dice-dark")

        # full screen, as the page asks (it declared the mode; the host offers it), then back
        box = cell.locator(".mcpnb-app")
        frame.get_by_role("button", name="Full screen").click()
        expect(frame.locator("#status")).to_have_text("display: fullscreen")
        assert box.evaluate("b => document.fullscreenElement === b")
        size = page.viewport_size
        whole = box.bounding_box()
        assert whole["width"] >= size["width"] - 1 and whole["height"] >= size["height"] - 1
        shots.take(page, "dice-fullscreen")
        box.locator(".mcpnb-app-exit").click()  # the person's way back; the page is told
        expect(frame.locator("html")).to_have_attribute("data-mode", "inline")
        assert box.evaluate("b => document.fullscreenElement === null")
        expect(frame.get_by_role("button", name="Full screen")).to_be_visible()

        sent, received = page.evaluate("() => window.__heard"), page.evaluate("() => window.__told")
        by_method: dict[str, list] = {}
        for message in sent:
            by_method.setdefault(message.get("method", "(answer)"), []).append(message)
        assert {
            "ui/initialize",
            "ui/notifications/initialized",
            "tools/call",
            "ui/message",
            "ui/download-file",
        } <= set(by_method)
        official = {
            "ui/initialize": "McpUiInitializeRequest",
            "ui/notifications/initialized": "McpUiInitializedNotification",
            "ui/notifications/size-changed": "McpUiSizeChangedNotification",
            "ui/message": "McpUiMessageRequest",
            "ui/download-file": "McpUiDownloadFileRequest",
        }
        for method, messages in by_method.items():
            for message in messages:
                if method in official:
                    assert problems(official[method], message) == [], message
                elif method == "tools/call":
                    types.CallToolRequest.model_validate(message)
                elif method == "notifications/message":
                    types.LoggingMessageNotification.model_validate(message)
        answers = {m["id"]: m for m in received if "id" in m and "method" not in m}
        [initialize] = by_method["ui/initialize"]
        assert problems("McpUiInitializeResult", answers[initialize["id"]]["result"]) == []
        for call in by_method["tools/call"]:
            types.CallToolResult.model_validate(answers[call["id"]]["result"])
        heard = {m["method"]: m for m in received if "method" in m}
        for method, definition in (
            ("ui/notifications/tool-input", "McpUiToolInputNotification"),
            ("ui/notifications/tool-result", "McpUiToolResultNotification"),
            ("ui/notifications/host-context-changed", "McpUiHostContextChangedNotification"),
        ):
            assert problems(definition, heard[method]) == [], method
        asked_mode = by_method["ui/request-display-mode"][0]
        assert problems("McpUiRequestDisplayModeRequest", asked_mode) == []
        assert problems("McpUiRequestDisplayModeResult", answers[asked_mode["id"]]["result"]) == []
        changes = [
            m["params"] for m in received if m.get("method") == "ui/notifications/host-context-changed"
        ]
        assert {"displayMode": "inline"} in changes and all(
            problems(
                "McpUiHostContextChangedNotification",
                {"method": "ui/notifications/host-context-changed", "params": c},
            )
            == []
            for c in changes
        )
        assert heard["ui/notifications/tool-input"]["params"] == {"arguments": {"count": 3}}
        # the frame's size is the frontend's business: resizes never travel to the kernel
        assert by_method.get("ui/notifications/size-changed"), "the page reported its size"
        assert any("ui/initialize" in f for f in to_kernel)  # the recorder sees the page's traffic
        assert not any("size-changed" in f for f in to_kernel)
