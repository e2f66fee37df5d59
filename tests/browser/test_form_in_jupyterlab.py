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
from mcpnb.forms import ElicitationForm

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


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 with a token, serving ``tmp_path``; no news popup, no PyPI lookups."""
    assert Path(CHROMIUM).exists(), "Debian chromium is required: apt-get install -y chromium"
    assert shutil.which("node") or True  # JupyterLab needs no node at runtime
    import jupyterlab  # noqa: F401  (a missing JupyterLab is a failure, not a skip)

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


def test_fill_and_accept_a_form_in_jupyterlab(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root, tmp_path = lab
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "form.ipynb")
    answer = root / "answer.json"
    shot = tmp_path / "form.png"

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(f"{base}/lab/workspaces/t{int(time.time() * 1000)}/tree/form.ipynb?reset&token={TOKEN}")
            page.wait_for_function(
                """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                    return w && w.sessionContext?.session?.kernel?.status === 'idle'; }""",
                timeout=60000,
            )
            # don't return the command's promise: it resolves only when the awaiting cell ends
            page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
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

            end = time.monotonic() + 30
            while not answer.exists() and time.monotonic() < end:
                time.sleep(0.1)
            assert answer.exists(), "the kernel never received the answer"
            got = json.loads(answer.read_text())
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
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("MCPNB_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "form_in_jupyterlab.png")
