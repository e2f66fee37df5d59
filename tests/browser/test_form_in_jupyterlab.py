"""A person answers forms and panels in a real JupyterLab, in Debian's chromium driven by Playwright.

Fixtures and a person's hands (typing key by key, never ``fill()``) are in :mod:`browser.lab`.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from browser.lab import (
    PANEL,
    launch,
    new_page,
    open_and_run,
    paste_into,
    retype,
    type_into,
    wait_file,
    write_notebook,
)
from tests.client.config.helpers import write_probe_vscode

pytestmark = pytest.mark.timeout(240)

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "description": "As printed on your badge"},
        "age": {"type": "integer", "title": "Age", "minimum": 0},
        "ticket": {"type": "integer", "title": "Ticket number"},
        "email": {"type": "string", "format": "email", "title": "Email", "default": "ada@example.com"},
        "level": {
            "type": "string",
            "title": "Level",
            "oneOf": [
                {"const": "beginner", "title": "Beginner"},
                {"const": "expert", "title": "Expert"},
            ],
            "default": "expert",
        },
        "score": {"type": "number", "title": "Score", "minimum": 0, "maximum": 10, "default": 7.5},
        "apiToken": {"type": "string", "title": "API token", "description": "Optional"},
        "newsletter": {"type": ["boolean", "null"], "title": "Newsletter"},
        "remember": {"type": ["boolean", "null"], "title": "Remember me", "default": None},
    },
    "required": ["name", "age"],
}

CELL = f"""\
import asyncio, json, pathlib
from IPython.display import display
from mcpnb.notebook.forms import ElicitationForm

fut = asyncio.get_running_loop().create_future()
form = ElicitationForm(
    {SCHEMA!r},
    message="Tell us <who> you are",
    server="browser-test",
    on_done=lambda o: fut.done() or fut.set_result(o),
)
display(form.widget)
o = await asyncio.wait_for(fut, 120)
pathlib.Path("answer.json").write_text(json.dumps({{"action": o.action, "content": o.content}}))
print("kernel got", o.action)
"""


def test_type_and_accept_a_form_in_jupyterlab(lab, pw, shots):
    write_notebook(lab.root / "form.ipynb", CELL)
    answer = lab.root / "answer.json"
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "form.ipynb")
        panel = page.locator(PANEL)
        form = panel.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        expect(form).to_contain_text("browser-test asks for input")
        expect(form).to_contain_text("Tell us <who> you are")  # escaped, shown as text
        expect(panel.locator(".mcpnb-field-email input")).to_have_value("ada@example.com")
        expect(form.locator(".mcpnb-secret-warning")).to_be_visible()
        shots.take(page, "form-before")

        # Accept with required fields empty: inline errors, nothing sent (an untouched number is
        # no answer: a number box would have sent its 0)
        form.get_by_role("button", name="Accept").click()
        expect(form.locator(".mcpnb-error", has_text="required")).to_have_count(2)
        assert not answer.exists()

        type_into(page, panel.locator(".mcpnb-field-name input"), "Ada Lovelace")
        page.keyboard.press("Tab")
        expect(form.locator(".mcpnb-error", has_text="required")).to_have_count(1)  # no stale "✗"
        age = panel.locator(".mcpnb-field-age input")
        retype(page, age, "63")
        page.keyboard.press("Tab")
        expect(form.locator(".mcpnb-error", has_text="required")).to_have_count(0)
        retype(page, age, "36")  # a number, typed twice
        page.keyboard.press("Tab")
        type_into(page, panel.locator(".mcpnb-field-ticket input"), "12345678901234567891")  # exact
        page.keyboard.press("Tab")
        newsletter = panel.locator(".mcpnb-field-newsletter")
        newsletter.get_by_role("radio", name="true").click()  # radios: a screen reader hears the choice
        newsletter.get_by_role("radio", name="false").click()  # changed their mind: a chosen false
        token = panel.locator(".mcpnb-field-apiToken input")
        expect(token).to_have_attribute("type", "password")
        type_into(page, token, "tok-9 x")
        form.get_by_role("button", name="Accept").click()

        got = wait_file(answer)
        assert got == {
            "action": "accept",
            "content": {
                "name": "Ada Lovelace",
                "age": 36,
                "ticket": 12345678901234567891,
                "email": "ada@example.com",
                "level": "expert",
                "score": 7.5,
                "apiToken": "tok-9 x",
                "newsletter": False,  # "remember", left on "not set", is not sent
            },
        }
        status = form.locator(".mcpnb-status")
        expect(status).to_contain_text("Sent to browser-test")
        expect(status).to_contain_text("Ada Lovelace")
        expect(status).to_contain_text("••••••")
        expect(status).not_to_contain_text("tok-9 x")
        expect(token).to_have_value("")  # sent, the secret leaves the page and the widget state
        expect(form.get_by_role("button", name="Accept")).to_be_disabled()
        expect(panel.locator(".jp-OutputArea-output", has_text="kernel got accept").first).to_be_visible()
        shots.take(page, "form-after")
    finally:
        browser.close()


PANELS_CELL = """\
import asyncio, json, pathlib, threading, time
from IPython.display import display
from mcpnb.notebook.forms import LogView, ProgressView, SamplingPanel, UrlConsent

progress, log = ProgressView(), LogView()
display(progress.widget)
def work():
    for i in range(1, 5):
        progress.update(i, 8, f"step {i} <of> 8")
        time.sleep(0.05)
threading.Thread(target=work).start()
log.add("warning", "auth", "token expires <soon>")
log.add("info", None, {"step": 1})
display(log.widget)
loop = asyncio.get_running_loop()
consented, sampled = loop.create_future(), loop.create_future()
consent = UrlConsent(
    "https://user@login.example.com/authorize?state=<x>",
    message="Sign in <script>alert(1)</script>",
    server="url-test",
    on_done=lambda o: consented.done() or consented.set_result(o),
)
display(consent.widget)
sampling = SamplingPanel(
    {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
     "systemPrompt": "Be brief", "maxTokens": 20},
    server="url-test", on_done=lambda o: sampled.done() or sampled.set_result(o))
display(sampling.widget)
o, s = await asyncio.wait_for(asyncio.gather(consented, sampled), 120)
pathlib.Path("panels.json").write_text(json.dumps({"consent": o.action, "reply": s.text}))
"""


def test_url_consent_sampling_progress_and_log_in_jupyterlab(lab, pw, shots):
    write_notebook(lab.root / "panels.ipynb", PANELS_CELL)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "panels.ipynb")
        panel = page.locator(PANEL)
        consent = panel.locator(".mcpnb-url-consent")
        expect(consent).to_be_visible(timeout=90000)
        expect(consent).to_contain_text("Sign in <script>alert(1)</script>")
        expect(consent.locator("b", has_text="login.example.com").first).to_be_visible()
        link = consent.locator(".mcpnb-url-open a")
        expect(link).to_have_attribute("href", "https://user@login.example.com/authorize?state=<x>")
        expect(link).to_have_attribute("target", "_blank")
        expect(panel.locator(".mcpnb-progress")).to_contain_text("50%")
        expect(panel.locator(".mcpnb-progress")).to_contain_text("step 4 <of> 8")
        expect(panel.locator(".mcpnb-log")).to_contain_text("Show server log (2)")
        sampling = panel.locator(".mcpnb-sampling")
        expect(sampling).to_contain_text("token limit 20")
        shots.take(page, "panels-before")
        assert len(page.context.pages) == 1  # nothing opened by itself
        consent.get_by_role("button", name="I've completed it").click()
        expect(consent.locator(".mcpnb-status")).to_contain_text("completed it")
        reply = sampling.locator(".mcpnb-sampling-reply textarea")
        type_into(page, reply, "Hi!")
        type_into(page, reply, " Bye.")  # typed in two goes
        sampling.get_by_role("button", name="Send reply").click()
        assert wait_file(lab.root / "panels.json") == {"consent": "accept", "reply": "Hi! Bye."}
        panel.locator(".mcpnb-log").get_by_role("button", name="Show server log (2)").click()  # expand
        expect(panel.locator(".mcpnb-log")).to_contain_text("token expires <soon>")
        shots.take(page, "panels-after")
    finally:
        browser.close()


MAGIC_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'r = %mcp call probe.ask_user question="What should we call you?"\nr',
    "import json, pathlib\n_ = pathlib.Path('magic.json').write_text(json.dumps(r.data))",
)


def test_a_magic_call_asks_the_person_in_its_own_cell(lab, pw, shots):
    """The whole path a person takes: Run All, the server asks, the form is in the calling cell,
    Accept, the same cell shows the result, and the cells below run with it."""
    write_notebook(lab.root / "magic.ipynb", *MAGIC_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "magic.ipynb")
        calling_cell = page.locator(PANEL).locator(".jp-CodeCell").nth(1)
        form = calling_cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)  # in the cell that made the call
        expect(form).to_contain_text("probe asks for input")
        expect(form).to_contain_text("What should we call you?")
        shots.take(page, "form-before")
        assert not (lab.root / "magic.json").exists()  # Run All waits for the person
        type_into(page, calling_cell.locator(".mcpnb-field-answer input"), "Ada")
        form.get_by_role("button", name="Accept").click()
        got = wait_file(lab.root / "magic.json")
        assert got["action"] == "accept"
        assert got["answers"] == [{"question": "What should we call you?", "answer": "Ada"}]
        expect(calling_cell.locator(".jp-OutputArea-output", has_text="Ada").last).to_be_visible()
        shots.take(page, "form-after")
    finally:
        browser.close()


VSCODE_CELLS = (
    "%load_ext mcpnb",
    "%mcp connect --config .vscode/mcp.json",
    "import json, pathlib, mcpnb\n"
    "config = mcpnb.default_pool().connection('probe').config\n"
    "_ = pathlib.Path('vscode.json').write_text(json.dumps([config.args[-1], config.env['PROBE_KEY']]))",
)


def test_a_vs_code_files_inputs_are_typed_into_a_form_in_jupyterlab(lab, pw, shots):
    """``%mcp connect --config .vscode/mcp.json``: what VS Code would prompt for is one form in the
    cell; the password typed key by key reaches the server and leaves the page once sent."""
    write_probe_vscode(lab.root)
    write_notebook(lab.root / "vscode.ipynb", *VSCODE_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base)
        open_and_run(page, lab.base, "vscode.ipynb")
        cell = page.locator(PANEL).locator(".jp-CodeCell").nth(1)
        form = cell.locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        expect(form).to_contain_text(".vscode/mcp.json asks its client for these values")
        cell.locator(".mcpnb-field-toolset").get_by_text("ui", exact=True).click()
        key = cell.locator(".mcpnb-field-key input")
        expect(key).to_have_attribute("type", "password")
        type_into(page, key, "k-typed 42")
        shots.take(page, "inputs-before")
        form.get_by_role("button", name="Accept").click()
        assert wait_file(lab.root / "vscode.json") == ["ui", "k-typed 42"]
        expect(cell.locator(".jp-OutputArea-output", has_text="connected").last).to_be_visible()
        expect(key).to_have_count(0)  # sent, the form (and the secret in it) leaves the page...
        record = cell.locator(".mcpnb-form.mcpnb-record")  # ...for its record: the key masked
        expect(record).to_contain_text("••••••")
        expect(cell).not_to_contain_text("k-typed 42")
        shots.take(page, "inputs-after")
    finally:
        browser.close()


def test_sign_in_with_oauth_by_clicking_the_link_in_jupyterlab(lab, pw, shots):
    """``%mcp connect NAME URL --oauth``: the person clicks the link in the cell's output, approves in
    the tab it opens, and that tab lands on mcpnb's loopback listener; the cell then shows the server
    connected and the next cell calls it signed in."""
    from servers.oauth_server import OAuthServers

    with OAuthServers() as servers:
        write_notebook(
            lab.root / "signin.ipynb",
            f"%load_ext mcpnb\n%mcp connect secure {servers.mcp_url} --oauth",
            "who = %mcp call secure.whoami\nprint('signed in as', who.text)\n%mcp disconnect secure",
        )
        browser = launch(pw)
        try:
            page = new_page(browser, lab.base)
            open_and_run(page, lab.base, "signin.ipynb")
            link = page.locator(PANEL).get_by_role("link", name="open the sign-in page")
            expect(link).to_be_visible(timeout=90000)
            assert len(page.context.pages) == 1  # nothing opened by itself
            shots.take(page, "link")
            with page.context.expect_page() as opened:
                link.click()
            tab = opened.value  # the authorization server approves at once and sends it home
            expect(tab.locator("h2")).to_have_text("Authorization complete")
            assert tab.url.startswith("http://127.0.0.1:") and "/callback?" in tab.url
            shots.take(tab, "tab")
            expect(page.locator(PANEL)).to_contain_text("signed in as dyn-", timeout=60000)
            expect(page.locator(PANEL).locator(".jp-OutputArea").first).to_contain_text("connected")
            expect(page.locator(PANEL)).to_contain_text("Approved at 127.0.0.1:")  # in the link's place
            expect(link).to_have_count(0)
            shots.take(page, "connected")
        finally:
            browser.close()
    assert servers.state.authorize_requests == 1 and servers.token_requests == [("authorization_code", 200)]


def _sign_in_cells(servers: Any, mode: str) -> tuple[str, ...]:
    return (
        f"import os; os.environ['MCPNB_OAUTH_REDIRECT'] = {mode!r}\n%load_ext mcpnb",
        f"%mcp connect secure {servers.mcp_url} --oauth",
        "who = %mcp call secure.whoami\nprint('signed in as', who.text)\n%mcp disconnect secure",
    )


def _approve_in_a_tab(page: Any, redirects: list[str]) -> str:
    """Click the sign-in link; the tab opened goes to the authorization server, which approves at
    once and sends it home: the redirect's address (``redirects`` records it)."""
    link = page.locator(PANEL).get_by_role("link", name="open the sign-in page")
    expect(link).to_be_visible(timeout=90000)
    with page.context.expect_page():
        link.click()
    for _ in range(300):
        if redirects:
            break
        page.wait_for_timeout(100)
    assert redirects, "the approved tab was never sent to the redirect address"
    return redirects[0]


def test_sign_in_with_oauth_by_pasting_the_address_in_jupyterlab(lab, pw, shots):
    """Paste mode (JupyterHub, Binder: the browser cannot reach the kernel's 127.0.0.1): the approved
    tab cannot load the redirect, so the person copies its address and pastes it into the password
    box the cell shows; the code is not echoed into the notebook."""
    from servers.oauth_server import OAuthServers

    with OAuthServers() as servers:
        write_notebook(lab.root / "paste.ipynb", *_sign_in_cells(servers, "paste"))
        browser = launch(pw)
        try:
            page = new_page(browser, lab.base)
            page.context.grant_permissions(["clipboard-read", "clipboard-write"])
            redirects: list[str] = []
            page.context.on("request", lambda r: "/callback?" in r.url and redirects.append(r.url))
            open_and_run(page, lab.base, "paste.ipynb")
            address = _approve_in_a_tab(page, redirects)
            box = page.locator(PANEL).locator(".jp-Stdin-input")
            expect(box).to_be_visible()
            expect(box).to_have_attribute("type", "password")
            paste_into(page, box, address)
            page.keyboard.press("Enter")
            expect(page.locator(PANEL)).to_contain_text("signed in as dyn-", timeout=60000)
            expect(page.locator(PANEL)).to_contain_text("Approved at 127.0.0.1:")
            code = address.split("code=")[1].split("&")[0]
            assert code not in page.locator(PANEL).inner_text()
            shots.take(page, "connected")
        finally:
            browser.close()


def test_sign_in_pasting_into_the_box_when_the_listener_is_out_of_reach(lab, pw, shots):
    """Listener mode, but the browser is not on the kernel's machine (a kernel in a container the
    signs missed): the approved tab's redirect to 127.0.0.1 fails to load (here: answered 502), so the
    person pastes that address into the box under the link and clicks; the cell signs in at once
    instead of waiting five minutes for a redirect that cannot come, and the box leaves the cell."""
    from servers.oauth_server import OAuthServers

    with OAuthServers() as servers:
        write_notebook(lab.root / "boxed.ipynb", *_sign_in_cells(servers, "listener"))
        browser = launch(pw)
        try:
            page = new_page(browser, lab.base)
            page.context.grant_permissions(["clipboard-read", "clipboard-write"])
            redirects: list[str] = []

            def out_of_reach(route: Any) -> None:
                # the approval's redirect home goes to 127.0.0.1 on the person's own machine, where
                # nothing listens: the tab shows the address but never reaches the kernel's listener
                approved = route.fetch(max_redirects=0)
                redirects.append(approved.headers["location"])
                route.fulfill(status=502, body="127.0.0.1 refused to connect")

            page.context.route(lambda url: "/authorize?" in url, out_of_reach)
            open_and_run(page, lab.base, "boxed.ipynb")
            box = page.locator(PANEL).locator(".mcpnb-signin-paste")
            expect(box).to_be_visible(timeout=90000)
            address = _approve_in_a_tab(page, redirects)
            field = box.locator("input[type=password]")
            paste_into(page, field, "http://127.0.0.1:1/callback?code=x&state=not-this-one")
            box.get_by_role("button", name="Use this address").click()
            expect(box).to_contain_text("another sign-in")  # said in place; the wait goes on
            shots.take(page, "box")
            paste_into(page, field, address)
            box.get_by_role("button", name="Use this address").click()
            expect(page.locator(PANEL)).to_contain_text("signed in as dyn-", timeout=60000)
            expect(page.locator(PANEL)).to_contain_text("Approved at 127.0.0.1:")
            expect(box).to_have_count(0)  # the box left with the link
            code = address.split("code=")[1].split("&")[0]
            assert code not in page.locator(PANEL).inner_text()
            shots.take(page, "connected")
        finally:
            browser.close()
    assert servers.token_requests == [("authorization_code", 200)]


APPROVAL_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    "import json, pathlib, mcpnb\n"
    "tools = mcpnb.default_pool().functions('probe', approve='destructive')\n"
    "replies = [tools.run({'type': 'tool_use', 'id': f't{i}', 'name': 'mcp__probe__test_simple_text',"
    " 'input': {}}) for i in (1, 2)]\n"
    "_ = pathlib.Path('approval.json').write_text(json.dumps([str(r['content']) for r in replies]))",
)


def test_a_person_says_yes_then_no_to_the_models_calls_in_jupyterlab(lab, pw, shots):
    """``approve="destructive"``: a tool with no annotations may destroy data, so each of the model's
    calls waits for the person, asked in the cell that runs the loop (on stdin: that cell blocks in
    the call). They type y and then n, as people do, key by key."""
    write_notebook(lab.root / "approval.ipynb", *APPROVAL_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "approval.ipynb")
        calling_cell = page.locator(PANEL).locator(".jp-CodeCell").nth(1)
        for answer in ("y", "n"):
            box = calling_cell.locator(".jp-Stdin-input").last
            expect(box).to_be_visible(timeout=90000)
            expect(calling_cell).to_contain_text("The model asks to run probe.test_simple_text with {}")
            shots.take(page, f"asked-{answer}")
            type_into(page, box, answer)
            page.keyboard.press("Enter")
            # answered: JupyterLab keeps the prompt with the answer as text; the next is a new box
            expect(calling_cell).to_contain_text(
                f"Run probe.test_simple_text? [y/N]: {answer}", timeout=30000
            )
        ran, refused = wait_file(lab.root / "approval.json")
        assert "This is a simple text response for testing." in ran
        assert "probe.test_simple_text was not run: the person did not approve it" in refused
    finally:
        browser.close()


AWAITED_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    "import json, pathlib, mcpnb\n"
    "r = await mcpnb.default_pool().acall('probe', 'ask_user', {'question': 'What should we call you?'})\n"
    "_ = pathlib.Path('awaited.json').write_text(json.dumps(r.data))",
    "tools = mcpnb.default_pool().functions('probe', approve='always')\n"
    "reply = await tools.arun({'type': 'tool_use', 'id': 't1', 'name': 'mcp__probe__estimate',"
    " 'input': {'task': 'login page'}})\n"
    "_ = pathlib.Path('approved.json').write_text(json.dumps(str(reply['content'])))",
)


def test_awaited_calls_from_code_ask_with_forms_in_jupyterlab(lab, pw, shots):
    """A cell that awaits ``pool.acall`` (or ``tools.arun``) leaves the kernel free for clicks: the
    server's question is a form in that cell, and the approval of a model's call two buttons."""
    write_notebook(lab.root / "awaited.ipynb", *AWAITED_CELLS)
    browser = launch(pw)
    try:
        page = new_page(browser, lab.base, height=1300)
        open_and_run(page, lab.base, "awaited.ipynb")
        cells = page.locator(PANEL).locator(".jp-CodeCell")
        form = cells.nth(1).locator(".mcpnb-form")
        expect(form).to_be_visible(timeout=90000)
        expect(form).to_contain_text("What should we call you?")
        type_into(page, cells.nth(1).locator(".mcpnb-field-answer input"), "Ada")
        form.get_by_role("button", name="Accept").click()
        assert wait_file(lab.root / "awaited.json")["answers"][0]["answer"] == "Ada"
        approval = cells.nth(2).locator(".mcpnb-confirm")
        expect(approval).to_be_visible(timeout=90000)
        expect(approval).to_contain_text("Run probe.estimate?")
        expect(approval).to_contain_text('The model asks to run probe.estimate with {"task": "login page"}')
        shots.take(page, "approval")
        approval.get_by_role("button", name="Run it", exact=True).click()
        expect(approval).to_contain_text("✓ Run it")
        assert "points; expected" in wait_file(lab.root / "approved.json")
    finally:
        browser.close()
