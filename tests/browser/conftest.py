"""Fixtures of the browser tests: one JupyterLab and one chromium per module, screenshots kept.

These tests fail (never skip) when chromium, JupyterLab or playwright is missing: CI installs them
(``apt-get install chromium``; ``pip install -e .[test]``; never ``playwright install``).
Screenshots go to ``$MCPNB_SCREENSHOT_DIR`` when set, else to ``screenshots/`` in pytest's tmp dir;
the folder is printed at the end of the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import report_at_the_end, run_basetemp
from playwright.sync_api import expect

from browser.lab import Chromium, Server

# What a click sets off (the kernel, a server, the widget's answer) shows on the page only after a
# round trip; on a loaded 2-core machine (parallel test workers, each with a kernel, a JupyterLab
# and a chromium) that can take longer than Playwright's 5 s default for ``expect``. This bounds a
# wait; it is no speed check (tests never assert how fast anything is).
expect.set_options(timeout=30_000)


@pytest.fixture(scope="session")
def shot_dir(tmp_path_factory) -> Path:
    chosen = os.environ.get("MCPNB_SCREENSHOT_DIR")
    folder = Path(chosen) if chosen else run_basetemp(tmp_path_factory) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    report_at_the_end(f"browser screenshots: {folder}")
    return folder


class Shots:
    """Numbered full-page screenshots of one test, e.g. ``interview-01-form-before.png``."""

    def __init__(self, folder: Path, test: str) -> None:
        self.folder, self.test, self.count = folder, test, 0

    def take(self, page: Any, what: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.test}-{self.count:02d}-{what}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000, f"an empty screenshot: {path}"
        return path

    def whole_notebook(self, page: Any, what: str = "final") -> Path:
        """The notebook from its first cell to its last: the window grows to the notebook's height
        (JupyterLab scrolls inside the page, so a full-page shot alone shows one screen)."""
        height = page.evaluate(
            """() => { const s = document.querySelector(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
                return s ? s.scrollHeight : document.body.scrollHeight; }"""
        )
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": min(16000, int(height) + 200)})
        page.evaluate(
            """() => { const s = document.querySelector(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
                if (s) s.scrollTop = 0; }"""
        )
        try:
            return self.take(page, what)
        finally:
            page.set_viewport_size(size)


@pytest.fixture
def shots(shot_dir, request) -> Shots:
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", request.node.name.removeprefix("test_"))
    return Shots(shot_dir, name)


class Labs:
    """The JupyterLab servers of one test process. Each test file gets its own (a fresh root, no
    kernels, files or workspaces of another file's tests); a file's server is stopped as the file
    ends, and its shutdown (kernels, their MCP servers) goes on while the next file runs: every
    one is waited for at the end of the session."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.tmp = tmp_path_factory
        self.stopping: list[Server] = []

    def start(self) -> Server:
        return Server("lab", self.tmp.mktemp("lab"))

    def stop(self, server: Server) -> None:
        server.stop(wait=False)
        self.stopping.append(server)

    def close(self) -> None:
        while self.stopping:
            self.stopping.pop().reap()


@pytest.fixture(scope="session")
def labs(tmp_path_factory) -> Iterator[Labs]:
    all_labs = Labs(tmp_path_factory)
    try:
        yield all_labs
    finally:
        all_labs.close()


@pytest.fixture(scope="module")
def lab(labs) -> Iterator[Server]:
    """JupyterLab on 127.0.0.1 with a token, serving a tmp dir; no news popup, no PyPI lookups."""
    import jupyterlab  # noqa: F401  (a missing JupyterLab is a failure, not a skip)

    server = labs.start()
    try:
        yield server
    finally:
        labs.stop(server)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    """One Playwright driver and one chromium per test file (see :class:`browser.lab.Chromium`).

    Module scope, not session: a file may drive Playwright itself (the course's tests do), and
    Playwright's sync API allows one driver at a time in a thread."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        shared = Chromium(p)
        try:
            yield shared
        finally:
            shared.close()


@pytest.fixture
def pw(chromium) -> Iterator[Chromium]:
    """What a test passes to :func:`browser.lab.launch` for a browser of its own (a fresh context
    of the file's chromium); whatever it left open is closed after it."""
    try:
        yield chromium
    finally:
        chromium.end_test()
