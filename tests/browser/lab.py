"""JupyterLab (or Notebook 7) on 127.0.0.1, Debian's chromium driven by Playwright, and a person's hands.

The hands type the way people do: key by key (``press_sequentially`` / ``keyboard.type``), with
Backspace, Tab, Control+A, a paste from the clipboard. ``Locator.fill()`` sets a value in one event,
which hides bugs a person meets, so these helpers never use it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import nbformat

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
    # Only 127.0.0.1, as everywhere in the tests: a page (an MCP App may declare a CDN) gets no name
    # resolved and no route out; loopback itself is never proxied.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
]
#: JupyterLab plugins no test opens or clicks, left out of every page (``disabledExtensions``): a page
#: load costs chromium ~5 CPU-s, and each of these loads code, activates and draws panels (debugger,
#: LSP, table of contents, property inspector, help, terminals, ...). Measured over fresh pages of a
#: notebook: ~5.0 -> ~4.1 chromium CPU-s a load. The notebook, its toolbar and status bar, the cell
#: toolbar, completer, file browser, themes, widgets and the Binder settings' plugins stay.
UNUSED_LAB_PLUGINS = [
    "@jupyterlab/apputils-extension:announcements",
    "@jupyterlab/application-extension:property-inspector",
    "@jupyterlab/celltags-extension",
    "@jupyterlab/debugger-extension",
    "@jupyterlab/extensionmanager-extension",
    "@jupyterlab/fileeditor-extension:language-server",
    "@jupyterlab/help-extension",
    "@jupyterlab/hub-extension",
    "@jupyterlab/inspector-extension",
    "@jupyterlab/lsp-extension",
    "@jupyterlab/metadataform-extension",
    "@jupyterlab/notebook-extension:active-cell-tool",
    "@jupyterlab/notebook-extension:language-server",
    "@jupyterlab/notebook-extension:metadata-editor",
    "@jupyterlab/notebook-extension:toc",
    "@jupyterlab/notebook-extension:tools",
    "@jupyterlab/notebook-extension:update-raw-mimetype",  # needs the metadata form
    "@jupyterlab/pluginmanager-extension",
    "@jupyterlab/running-extension",
    "@jupyterlab/settingeditor-extension",
    "@jupyterlab/terminal-extension",
    "@jupyterlab/toc-extension",
    "@jupyterlab/workspaces-extension",
    "@jupyter-notebook/lab-extension",
]
#: A person's pace is ~100 ms a key; 15 ms keeps the tests quick and still sends one event per key.
KEY_DELAY_MS = 15
#: The visible notebook only (JupyterLab keeps hidden tabs in the DOM).
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``jupyter lab`` or ``jupyter notebook`` serving ``root`` on a free loopback port."""

    def __init__(self, app: str, home: Path, *, wait: bool = True) -> None:
        self.app = app
        self.home = home
        self.root = home / "root"
        self.root.mkdir(parents=True, exist_ok=True)
        settings = home / ".lab-settings"
        (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True, exist_ok=True)
        (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False})
        )
        # every cell in the DOM (and painted), so locators and whole-notebook screenshots see them all
        (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True, exist_ok=True)
        (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
            json.dumps({"windowingMode": "none"})
        )
        # no "build recommended" check at each page load: it ran a build dry run in the server for
        # 1.5 s of every page's start, while the page's own requests waited behind it
        (home / ".jupyter" / "labconfig").mkdir(parents=True, exist_ok=True)
        page_config: dict[str, Any] = {"buildCheck": False, "buildAvailable": False}
        if app == "lab":
            page_config["disabledExtensions"] = dict.fromkeys(UNUSED_LAB_PLUGINS, True)
        (home / ".jupyter" / "labconfig" / "page_config.json").write_text(json.dumps(page_config))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "JUPYTERLAB_SETTINGS_DIR": str(settings),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / ".lab-ws"),
            "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        }
        self.log = home / f"{app}.log"
        app_class = "LabApp" if app == "lab" else "JupyterNotebookApp"
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "jupyter",
                    app,
                    "--no-browser",
                    "--ip=127.0.0.1",
                    f"--port={self.port}",
                    "--allow-root",
                    f"--IdentityProvider.token={TOKEN}",
                    f"--ServerApp.root_dir={self.root}",
                    f"--{app_class}.expose_app_in_browser=True",
                    # no PyPI lookups from JupyterLab's extension manager (Notebook 7 has no such trait)
                    *(["--LabApp.extension_manager=readonly"] if app == "lab" else []),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        #: What the kernels it starts inherit (the course's tests set a policy before their lab).
        self.environ = dict(os.environ)
        if wait:
            self.ready()

    def ready(self) -> Server:
        """Once it answers (a server spawned with ``wait=False`` starts while other work goes on)."""
        self._wait_http(f"{self.base}/api/status?token={TOKEN}", 90)
        return self

    def _wait_http(self, url: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"jupyter {self.app} exited:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=1) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        log = self.log.read_text()[-3000:]
        raise AssertionError(f"jupyter {self.app} did not answer in {timeout} s:\n{log}")

    def stop(self, wait: bool = True) -> None:
        """SIGTERM: the server shuts its kernels down (and they their MCP servers), which takes a
        second or three; ``wait=False`` leaves that to go on while the next tests run, and
        :meth:`reap` to make sure of it later."""
        if self.proc.poll() is None:
            self.proc.terminate()
        if wait:
            self.reap()

    def reap(self) -> None:
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def launch_chromium(playwright: Any) -> Any:
    """Debian's chromium (Playwright never downloads a browser here)."""
    assert Path(CHROMIUM).exists(), "Debian chromium is required: apt-get install -y chromium"
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


class Chromium:
    """One chromium for a test file (the ``pw`` fixture), launched when a test first asks for it.

    Starting Playwright's driver and a chromium took about a second a test; a browser context is
    what keeps tests apart (its own cookies, storage, cache, permissions and pages), and each test
    gets its own through :class:`Lease`. A chromium that died is launched again.
    """

    def __init__(self, playwright: Any) -> None:
        self.playwright = playwright
        self._browser: Any = None
        self.leases: list[Lease] = []

    def browser(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            self._browser = launch_chromium(self.playwright)
        return self._browser

    def end_test(self) -> None:
        """Close what a test left open (a test closes its lease itself; a failed one may not)."""
        while self.leases:
            self.leases.pop().close()

    def close(self) -> None:
        self.end_test()
        if self._browser is not None and self._browser.is_connected():
            self._browser.close()
        self._browser = None


class Lease:
    """A test's share of the file's chromium: what it opens are contexts of its own, and its
    ``close()`` closes them (and so their pages), not the chromium the next test uses."""

    def __init__(self, chromium: Chromium) -> None:
        self._browser = chromium.browser()
        self._contexts: list[Any] = []
        chromium.leases.append(self)

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def new_page(self, **options: Any) -> Any:
        """A page in a context of its own, as ``Browser.new_page`` gives."""
        return self.new_context(**options).new_page()

    def close(self) -> None:
        while self._contexts:
            context = self._contexts.pop()
            try:
                context.close()
            except Exception:  # its chromium died: nothing left to close
                if self._browser.is_connected():
                    raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def launch(pw: Any) -> Any:
    """A browser for one test: a :class:`Lease` of the file's chromium (the ``pw`` fixture), or a
    chromium of its own when ``pw`` is a Playwright."""
    if isinstance(pw, Chromium):
        return Lease(pw)
    return launch_chromium(pw)


def new_page(browser: Any, base: str, height: int = 1400) -> Any:
    """A page whose clipboard the test may write (for pasting), on the server's origin."""
    context = browser.new_context(viewport={"width": 1280, "height": height})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    return context.new_page()


def write_notebook(path: Path, *cells: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


KERNEL_IDLE_LAB = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    return w && w.sessionContext?.session?.kernel?.status === 'idle'; }"""


def open_and_run(page: Any, base: str, name: str, app: str = "lab") -> None:
    """Open ``name`` (a fresh JupyterLab workspace), wait for an idle kernel, then Run All.

    The command's promise is not returned: it resolves only when the awaiting cells end.
    """
    if app == "lab":
        page.goto(f"{base}/lab/workspaces/t{int(time.time() * 1000)}/tree/{name}?reset&token={TOKEN}")
    else:
        page.goto(f"{base}/notebooks/{name}?token={TOKEN}")
    page.wait_for_function(KERNEL_IDLE_LAB, timeout=90000)
    page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def code_cell(page: Any, source: str) -> Any:
    """The code cell of the visible notebook whose source contains ``source``."""
    return (
        page.locator(PANEL).locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=source))
    )


def wait_file(path: Path, timeout: float = 60) -> Any:
    """What a cell wrote for the test (the kernel side's view of what the server returned).

    The file can be seen while the kernel is still writing it: wait until it holds whole JSON.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):  # not there yet, or half written
            time.sleep(0.1)
    assert path.exists(), f"the kernel never wrote {path.name}"
    return json.loads(path.read_text())


# ---------------------------------------------------------------------------- a person's hands
#: A cell that writes ``expr`` (evaluated in the kernel) as JSON to ``file``, for the test to read.
SAVE = "import json, pathlib\n_ = pathlib.Path({file!r}).write_text(json.dumps({expr}))"


def kept_by_new_cell(page: Any, path: Path, expr: str, *, first: str = "") -> Any:
    """What ``expr`` is in the kernel now: a cell added below, typed as a person types (``first``
    lines, then :data:`SAVE`), writes it to ``path``; the value, read back. An earlier file of
    that name is removed first, so a stale one is never read."""
    path.unlink(missing_ok=True)
    for command in ("notebook:insert-cell-below", "notebook:enter-edit-mode"):
        page.evaluate(f"() => window.jupyterapp.commands.execute('{command}')")
    page.keyboard.type(first + SAVE.format(file=path.name, expr=expr))
    page.keyboard.press("Shift+Enter")
    return wait_file(path)


def type_into(page: Any, field: Any, text: str) -> None:
    """Click into ``field`` and type ``text`` key by key at the end of what is there."""
    field.click()
    page.keyboard.press("End")
    field.press_sequentially(text, delay=KEY_DELAY_MS)


def retype(page: Any, field: Any, text: str) -> None:
    """Select what the field holds, erase it with Backspace, type ``text`` key by key."""
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    field.press_sequentially(text, delay=KEY_DELAY_MS)


def paste_into(page: Any, field: Any, text: str) -> None:
    """Put ``text`` on the clipboard and paste it with Control+V (one input event, as a real paste)."""
    page.evaluate("t => navigator.clipboard.writeText(t)", text)
    field.click()
    page.keyboard.press("End")
    page.keyboard.press("Control+V")


def edit_readout(page: Any, readout: Any, text: str) -> None:
    """A slider's number readout: click, select, type the number key by key, Enter."""
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(text, delay=KEY_DELAY_MS)
    page.keyboard.press("Enter")
