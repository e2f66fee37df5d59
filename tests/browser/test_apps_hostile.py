"""MCP App pages that try what a hostile page would, in Debian's chromium (and JupyterLab).

The pages are served over stdio by ``tests/servers/hostile_app_server.py`` (the SDK's
``MCPServer``); what they reach goes to an HTTP server of the test's on 127.0.0.1, which counts it.
What is asserted is what reached that server, what the person sees in the cell, and what the page
heard (its console).
"""

from __future__ import annotations

import http.server
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser.lab import code_cell, kept_by_new_cell, launch, new_page, open_and_run, write_notebook

pytestmark = pytest.mark.timeout(240)

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_app_server.py"

#: What the frame's page is sent to by ``wanders``: a document that is not the page asks the host
#: for a tool call at once and twice more a little later. ``Allow-CSP-From`` lets it load under the
#: frame's ``csp`` attribute (Chromium's), as a server that wants it loaded would say.
AWAY = b"""<!DOCTYPE html><html><head><title>away</title></head><body><h3>not the page</h3><script>
const call = (n) => parent.postMessage({jsonrpc: "2.0", id: 900 + n, method: "tools/call",
  params: {name: "whoami", arguments: {caller: "away"}}}, "*");
call(0); setTimeout(() => call(1), 100); setTimeout(() => call(2), 400);
</script></body></html>"""


#: A document that is not the page and says (to its parent, as ``{"echo": …}``) every message it
#: gets: nothing of the host's should reach it.
ECHO = b"""<!DOCTYPE html><html><head><title>echo</title></head><body>not the page<script>
addEventListener("message", (e) => parent.postMessage({echo: e.data}, "*"));
</script></body></html>"""


class Leak:
    """An HTTP server on 127.0.0.1 that keeps the path of every request it gets."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        paths = self.paths

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                paths.append(self.path)
                if self.path == "/nocontent":  # a navigation that never commits: the page stays
                    self.send_response(204)
                    self.send_header("Allow-CSP-From", "*")
                    self.end_headers()
                    return
                if self.path == "/slow-away":  # slower than the page's half-second: it has said it goes
                    time.sleep(1)
                body = {"/away": AWAY, "/slow-away": ECHO}.get(self.path, b"")
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Allow-CSP-From", "*")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def leak() -> Iterator[Leak]:
    server = Leak()
    try:
        yield server
    finally:
        server.close()


def _connect(leak: Leak) -> str:
    return f"%load_ext mcpnb\n%mcp connect hostile --env LEAK={leak.port} -- {sys.executable} {HOSTILE}"


def test_a_page_that_hides_head_in_a_comment_reaches_nothing_without_the_frames_csp(pw, leak):
    """Firefox and Safari ignore the frame's ``csp`` attribute (Chromium's embedded enforcement):
    the page's own ``<meta>`` policy is all they have. Here the page as mcpnb draws it
    (``AppPage.document``, read from the server over stdio) is loaded in a sandboxed frame with no
    ``csp`` attribute, as those browsers would apply it. A policy put after the first ``<head`` in
    the text sat inside the page's comment, and its script reached 127.0.0.1."""
    from mcpnb import Pool
    from mcpnb.client.apps import page_from, view_uri

    pool = Pool()
    try:
        pool.connect("hostile", command=sys.executable, args=[str(HOSTILE)], env={"LEAK": str(leak.port)})
        tool = next(t for t in pool.tools("hostile") if t.name == "commented")
        document = page_from("hostile", view_uri(tool), list(pool.read("hostile", view_uri(tool)))).document
    finally:
        pool.close()
    browser = launch(pw)
    try:
        page = browser.new_page()
        page.set_content("<!DOCTYPE html><title>host</title><body></body>")
        with page.expect_console_message(lambda m: m.text.startswith("HOSTILE commented: fetch")) as said:
            page.evaluate(
                """doc => { const f = document.createElement('iframe');
                    f.setAttribute('sandbox', 'allow-scripts allow-forms'); f.srcdoc = doc;
                    document.body.append(f); }""",
                document,
            )
        assert said.value.text == "HOSTILE commented: fetch refused"
        expect(page.frame_locator("iframe").locator("h3")).to_have_text("commented")
        assert leak.paths == []  # neither the fetch nor the image reached 127.0.0.1
    finally:
        browser.close()


def test_a_page_that_sends_its_frame_elsewhere_is_blanked_and_answered_no_more(lab, pw, leak, shots):
    """``wanders`` makes the handshake (its host is ready to answer it), then sends its own frame to
    127.0.0.1. The document there is not the page: its ``tools/call``, sent at once and again, is
    never answered (the server's ``tally`` says nobody called), the frame is blanked, and the cell
    says why."""
    write_notebook(lab.root / "wanders.ipynb", _connect(leak), "%mcp call hostile.wanders")
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "wanders.ipynb")
        cell = code_cell(page, "%mcp call hostile.wanders")
        note = cell.locator(".mcpnb-app-left")
        expect(note).to_have_text(
            "the page left itself (its frame was sent to another address): it is no longer answered",
            timeout=90000,
        )
        assert "/away" in leak.paths  # it did leave: the one request no policy governs
        expect(cell.locator("iframe.mcpnb-app-frame")).to_have_attribute("src", "about:blank")
        shots.take(page, "left")
        tally = kept_by_new_cell(
            page, lab.root / "tally.json", "called.data", first="called = %mcp call hostile.tally\n"
        )
        assert tally == [], "a document that is not the page had a tool called"
        expect(cell.locator(".mcpnb-app-notes")).not_to_contain_text("the page called whoami")
    finally:
        browser.close()


APP_VIEW = Path(__file__).parents[2] / "mcpnb" / "notebook" / "render" / "app_view.js"

#: ``app_view.js`` rendered in a bare page with the little a widget model gives it (``get``, ``on``,
#: ``send``); what it would send to the kernel is kept in ``window.sent``. ``deaf`` stops the page's
#: "I am going" before the view hears it, as a busy browser may deliver it late.
HARNESS = """async ([source, page, deaf]) => {
  const view = await import(URL.createObjectURL(new Blob([source], {type: "text/javascript"})));
  const stop = (e) => { if (e.data?.mcpnbGone) e.stopImmediatePropagation(); };
  if (deaf) addEventListener("message", stop, true);
  window.sent = [];
  const values = {document: page, policy: "default-src 'none'; script-src 'unsafe-inline'", label: "bare",
    height: 200, border: false, notes: [], max_height: 600};
  window.views = []; window.echoed = [];
  addEventListener("message", (e) => { if (e.data?.echo) window.echoed.push(e.data.echo); });
  const model = {get: (k) => values[k], off() {},
    on: (n, f) => { if (n === "msg:custom") window.toPage = f; },
    send: (m) => { window.sent.push(m.message); window.views.push(m.view); }};
  const el = document.createElement("div");
  document.body.append(el);
  view.default.render({model, el});
}"""


def _bare_view(pw, leak: Leak, script: str, deaf: bool = False):
    """A browser showing a page whose body runs ``script``, through ``app_view.js`` alone."""
    head = "<!DOCTYPE html><html><head><!--mcpnb:frontend--></head>"
    page_html = f"{head}<body><script>{script}</script></body></html>"
    browser = launch(pw)
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{leak.port}/host")
    page.evaluate(HARNESS, [APP_VIEW.read_text(), page_html, deaf])
    return browser, page


def test_a_document_the_page_sent_its_frame_to_is_not_relayed_even_before_the_page_says_it_left(pw, leak):
    """The page says it is going (beforeunload) before its frame asks for another document, but a
    busy browser can deliver that after the new document has spoken (CI saw a call get through).
    Here the view never hears it: the document at ``/away`` is still refused, as the frame it asks
    from holds no document that announced itself, and the frame is blanked."""
    script = (
        'parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {}}, "*");'
        f'setTimeout(() => {{ location.href = "http://127.0.0.1:{leak.port}/away"; }}, 300);'
    )
    browser, page = _bare_view(pw, leak, script, deaf=True)
    try:
        expect(page.locator(".mcpnb-app-left")).to_be_visible(timeout=30000)
        assert "/away" in leak.paths
        sent = page.evaluate("window.sent")
        assert [m["method"] for m in sent] == ["ui/initialize"], sent  # the page's, and nothing of /away's
    finally:
        browser.close()


def test_a_pages_messages_reach_the_kernel_all_and_in_order(pw, leak):
    """Each message waits for the frame's document to say it is the page: none is lost or reordered
    by that, however quickly they come."""
    script = (
        'for (let n = 1; n <= 40; n++) parent.postMessage({jsonrpc: "2.0", id: n, method: "ping"}, "*");'
        'parent.postMessage({mcpnbHere: "a guess"}, "*");'  # a page cannot answer for itself
    )
    browser, page = _bare_view(pw, leak, script)
    try:
        page.wait_for_function("window.sent.length >= 40", timeout=30000)
        page.wait_for_timeout(300)  # and nothing more comes
        assert [m["id"] for m in page.evaluate("window.sent")] == list(range(1, 41))
        expect(page.locator(".mcpnb-app-left")).to_be_hidden()
    finally:
        browser.close()


def test_a_message_sent_as_the_page_reloads_is_relayed_or_said_lost_never_silently_dropped(pw, leak):
    """The page calls a tool and reloads at once: the call is relayed if the going document could
    still vouch for it, else the cell says a message was not relayed; the reloaded page is heard."""
    script = (
        "if (window.name !== 'again') {"
        " window.name = 'again';"
        ' parent.postMessage({jsonrpc: "2.0", id: 7, method: "tools/call", params: {name: "save"}}, "*");'
        " location.reload();"
        '} else { parent.postMessage({jsonrpc: "2.0", id: 8, method: "ping"}, "*"); }'
    )
    browser, page = _bare_view(pw, leak, script)
    try:
        page.wait_for_function("window.sent.some((m) => m.id === 8)", timeout=30000)
        page.wait_for_timeout(300)
        ids = [m["id"] for m in page.evaluate("window.sent")]
        lost = page.locator(".mcpnb-app-lost")
        if 7 not in ids:
            expect(lost).to_contain_text("1 message the page sent as its document was replaced")
        assert ids.count(8) == 1 and ids.count(7) <= 1, ids
    finally:
        browser.close()


@pytest.mark.parametrize("deaf", [False, True], ids=["going-heard", "going-unheard"])
def test_a_document_the_page_sent_its_frame_to_hears_nothing_of_the_host_and_is_blanked(pw, leak, deaf):
    """The late review's: the host's answers (a tool's result) kept going to the frame after a slow
    navigation had put another document in it, and so they did whenever the page's "going" came
    late (``deaf``: a busy browser). Here the kernel answers the page every 50 ms while its frame
    goes to a document that repeats whatever it gets: it gets nothing (the host speaks through the
    page's own MessagePort), and the frame is blanked."""
    script = (
        'parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {}}, "*");'
        f'setTimeout(() => {{ location.href = "http://127.0.0.1:{leak.port}/slow-away"; }}, 300);'
    )
    browser, page = _bare_view(pw, leak, script, deaf=deaf)
    try:
        page.wait_for_function("window.views.length >= 1", timeout=30000)
        answer = "{jsonrpc: '2.0', id: 1, result: {said: 'a tool result'}}"
        for _ in range(60):  # 3 s: before, during and after the navigation
            page.evaluate(f"window.toPage({{view: window.views[0], message: {answer}}})")
            page.wait_for_timeout(50)
        assert "/slow-away" in leak.paths
        heard = page.evaluate("window.echoed")  # the host's question "who are you?" carries nothing
        assert [m for m in heard if "mcpnbCheck" not in m] == [], heard
        expect(page.locator(".mcpnb-app-left")).to_be_visible(timeout=10000)
    finally:
        browser.close()


def test_a_page_whose_navigation_never_commits_is_still_heard(pw, leak):
    """A 204 answer leaves the page where it was: it goes on being heard (it stayed deaf when its
    "going" was taken at its word)."""
    script = (
        f'location.href = "http://127.0.0.1:{leak.port}/nocontent";'
        'setTimeout(() => parent.postMessage({jsonrpc: "2.0", id: 3, method: "ping"}, "*"), 1500);'
    )
    browser, page = _bare_view(pw, leak, script)
    try:
        page.wait_for_function("window.sent.some((m) => m.id === 3)", timeout=30000)
        assert "/nocontent" in leak.paths
        expect(page.locator(".mcpnb-app-left")).to_be_hidden()
    finally:
        browser.close()


def test_a_page_hears_its_teardown_when_its_output_is_cleared_or_its_cell_runs_again(lab, pw, leak):
    """The extension: the host MUST send ``ui/resource-teardown`` before it tears a page down. A
    notebook tears it down when the person clears the output, or runs the cell again."""
    write_notebook(
        lab.root / "listens.ipynb",
        _connect(leak),
        "# cleared\n%mcp call hostile.listens",
        "# run again\n%mcp call hostile.listens",
    )
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        said: list[str] = []
        page.on("console", lambda message: said.append(message.text))
        open_and_run(page, lab.base, "listens.ipynb")
        for source in ("# cleared", "# run again"):
            frame = code_cell(page, source).frame_locator("iframe.mcpnb-app-frame")
            expect(frame.locator("#heard")).to_contain_text(
                "heard ui/notifications/tool-result", timeout=90000
            )
        assert not [line for line in said if "teardown" in line]

        teardown = "HOSTILE listens: heard ui/resource-teardown"
        cleared = code_cell(page, "# cleared")
        cleared.locator(".jp-InputArea").click()
        with page.expect_console_message(lambda m: m.text == teardown, timeout=30000):
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-cell-output')")
        expect(cleared.locator("iframe.mcpnb-app-frame")).to_have_count(0)

        rerun = code_cell(page, "# run again")
        rerun.locator(".jp-InputArea").click()
        with page.expect_console_message(lambda m: m.text == teardown, timeout=30000):
            page.keyboard.press("Shift+Enter")
        frame = rerun.frame_locator("iframe.mcpnb-app-frame")
        expect(frame.locator("#heard")).to_contain_text("heard ui/notifications/tool-result", timeout=90000)
        assert said.count(teardown) == 2  # once each
    finally:
        browser.close()
