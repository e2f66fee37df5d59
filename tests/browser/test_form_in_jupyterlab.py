"""A person fills an elicitation form in a real JupyterLab, in Debian's chromium driven by Playwright.

This fails (never skips) when chromium, JupyterLab or playwright is missing: CI installs them
(``apt-get install chromium``; ``pip install jupyterlab playwright``; never ``playwright install``).
The screenshot stays in the test's tmp dir (and in ``$MCPNB_SCREENSHOT_DIR`` when set).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

CHROMIUM = "/usr/bin/chromium"
TOKEN = "mcpnb-browser-test"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "description": "As printed on your badge"},
        "age": {"type": "integer", "title": "Age", "minimum": 0},
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout: float, proc: subprocess.Popen, log: Path) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"JupyterLab exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise AssertionError(f"JupyterLab did not answer in {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 with a token, serving a tmp dir; no news popup, no PyPI lookups."""
    assert Path(CHROMIUM).exists(), "Debian chromium is required: apt-get install -y chromium"
    import jupyterlab  # noqa: F401  (a missing JupyterLab is a failure, not a skip)

    tmp_path = tmp_path_factory.mktemp("lab")

    settings = tmp_path / ".lab-settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    root = tmp_path / "root"
    root.mkdir()
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / ".lab-ws"),
    }
    log = tmp_path / "lab.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "lab",
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={port}",
                "--allow-root",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={root}",
                "--LabApp.expose_app_in_browser=True",
                "--LabApp.extension_manager=readonly",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(f"{base}/api/status?token={TOKEN}", 60, proc, log)
        yield base, root, tmp_path
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _open_and_run(page, base: str, name: str) -> None:
    """Open ``name`` in a fresh workspace, wait for an idle kernel, then Run All without awaiting it."""
    page.goto(f"{base}/lab/workspaces/t{int(time.time() * 1000)}/tree/{name}?reset&token={TOKEN}")
    page.wait_for_function(
        """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            return w && w.sessionContext?.session?.kernel?.status === 'idle'; }""",
        timeout=60000,
    )
    # don't return the command's promise: it resolves only when the awaiting cell ends
    page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def _write_notebook(path: Path, *cells: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def _wait_file(path: Path, timeout: float = 30) -> dict:
    end = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.1)
    assert path.exists(), f"the kernel never wrote {path.name}"
    return json.loads(path.read_text())


def _keep(shot: Path, name: str) -> None:
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("MCPNB_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / name)


def test_fill_and_accept_a_form_in_jupyterlab(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root, tmp_path = lab
    _write_notebook(root / "form.ipynb", CELL)
    answer = root / "answer.json"
    shot = tmp_path / "form.png"

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            _open_and_run(page, base, "form.ipynb")
            panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            form = panel.locator(".mcpnb-form")
            expect(form).to_be_visible(timeout=60000)
            expect(form).to_contain_text("browser-test asks for input")
            expect(form).to_contain_text("Tell us <who> you are")  # escaped, shown as text
            expect(panel.locator(".mcpnb-field-email input")).to_have_value("ada@example.com")
            expect(form.locator(".mcpnb-secret-warning")).to_be_visible()

            # Accept with a required field empty: an inline error, nothing sent
            form.get_by_role("button", name="Accept").click()
            expect(form.locator(".mcpnb-error").first).to_contain_text("required")
            assert not answer.exists()

            panel.locator(".mcpnb-field-name input").fill("Ada Lovelace")
            age = panel.locator(".mcpnb-field-age input")
            age.fill("36")
            age.press("Tab")
            form.get_by_role("button", name="Accept").click()

            got = _wait_file(answer)
            assert got == {
                "action": "accept",
                "content": {
                    "name": "Ada Lovelace",
                    "age": 36,
                    "email": "ada@example.com",
                    "level": "expert",
                    "score": 7.5,
                },
            }
            status = form.locator(".mcpnb-status")
            expect(status).to_contain_text("Sent to browser-test")
            expect(status).to_contain_text("Ada Lovelace")
            expect(form.get_by_role("button", name="Accept")).to_be_disabled()
            expect(panel.locator(".jp-OutputArea-output", has_text="kernel got accept").first).to_be_visible()
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    _keep(shot, "form_in_jupyterlab.png")


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
fut = asyncio.get_running_loop().create_future()
consent = UrlConsent(
    "https://user@login.example.com/authorize?state=<x>",
    message="Sign in <script>alert(1)</script>",
    server="url-test",
    on_done=lambda o: fut.done() or fut.set_result(o),
    on_retry=lambda: None,
)
display(consent.widget)
sampling = SamplingPanel(
    {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
     "systemPrompt": "Be brief", "maxTokens": 20},
    server="url-test", on_done=lambda o: None)
display(sampling.widget)
o = await asyncio.wait_for(fut, 120)
pathlib.Path("consent.json").write_text(json.dumps({"action": o.action}))
"""


def test_url_consent_progress_and_log_in_jupyterlab(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root, tmp_path = lab
    _write_notebook(root / "panels.ipynb", PANELS_CELL)
    shot = tmp_path / "panels.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1300})
            _open_and_run(page, base, "panels.ipynb")
            panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            consent = panel.locator(".mcpnb-url-consent")
            expect(consent).to_be_visible(timeout=60000)
            expect(consent).to_contain_text("Sign in <script>alert(1)</script>")
            expect(consent.locator("b", has_text="login.example.com").first).to_be_visible()
            link = consent.locator(".mcpnb-url-open a")
            expect(link).to_have_attribute("href", "https://user@login.example.com/authorize?state=<x>")
            expect(link).to_have_attribute("target", "_blank")
            expect(panel.locator(".mcpnb-progress")).to_contain_text("50%")
            expect(panel.locator(".mcpnb-progress")).to_contain_text("step 4 <of> 8")
            expect(panel.locator(".mcpnb-log")).to_contain_text("Server log (2)")
            expect(panel.locator(".mcpnb-sampling")).to_contain_text("token limit 20")
            assert len(page.context.pages) == 1  # nothing opened by itself
            consent.get_by_role("button", name="I've completed it").click()
            assert _wait_file(root / "consent.json") == {"action": "accept"}
            expect(consent.locator(".mcpnb-status")).to_contain_text("completed it")
            panel.locator(".mcpnb-log").get_by_text("Server log (2)").click()  # expand the log
            expect(panel.locator(".mcpnb-log")).to_contain_text("token expires <soon>")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    _keep(shot, "panels_in_jupyterlab.png")


MAGIC_CELLS = (
    "%load_ext mcpnb\n%mcp serve probe-kit",
    'r = %mcp call probe.ask_user question="What should we call you?"\nr',
    "import json, pathlib\npathlib.Path('magic.json').write_text(json.dumps(r.data))",
)


def test_a_magic_call_asks_the_person_in_its_own_cell(lab):
    """The whole path a person takes: Run All, the server asks, the form is in the calling cell,
    Accept, the same cell shows the result, and the cells below run with it."""
    from playwright.sync_api import expect, sync_playwright

    base, root, tmp_path = lab
    _write_notebook(root / "magic.ipynb", *MAGIC_CELLS)
    shot = tmp_path / "magic.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1300})
            _open_and_run(page, base, "magic.ipynb")
            panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            calling_cell = panel.locator(".jp-CodeCell").nth(1)
            form = calling_cell.locator(".mcpnb-form")
            expect(form).to_be_visible(timeout=60000)  # in the cell that made the call
            expect(form).to_contain_text("probe asks for input")
            expect(form).to_contain_text("What should we call you?")
            assert not (root / "magic.json").exists()  # Run All waits for the person
            calling_cell.locator(".mcpnb-field-answer input").fill("Ada")
            form.get_by_role("button", name="Accept").click()
            got = _wait_file(root / "magic.json")
            assert got["action"] == "accept"
            assert got["answers"] == [{"question": "What should we call you?", "answer": "Ada"}]
            expect(calling_cell.locator(".jp-OutputArea-output", has_text="Ada").last).to_be_visible()
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    _keep(shot, "magic_call_in_jupyterlab.png")
