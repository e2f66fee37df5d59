"""Every notebook of the course, run the way a student runs it: opened in JupyterLab (Debian's
chromium driven by Playwright), Run All, and no error output except in cells tagged
``raises-exception``. A screenshot of each notebook's final state is saved in a folder the test
prints (``$MCPNB_SCREENSHOT_DIR`` when set). The Binder settings are applied too, and the course
map must open rendered.

Nobody clicks here, so the kernel gets the headless policy that nbclient runs under
(``MCPNB_ELICITATION=decline``, as in tests/test_notebooks.py): a form is declined instead of
waiting for a person, and notebook 02 shows the same answers it shows in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

# JupyterLab (the ``lab`` fixture), chromium and the helpers are the browser tests' own (lab.py).
from browser.lab import CHROMIUM, CHROMIUM_ARGS, TOKEN, open_and_run

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: A notebook's state, read from JupyterLab's own model: per code cell, whether it ran, its tags
#: and its error outputs. ``done`` once every code cell has an execution count and the kernel idles.
STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    const errors = cell.outputs.toJSON().filter(o => o.output_type === 'error')
      .map(o => o.ename + ': ' + o.evalue);
    out.push({index: i, ran: cell.executionCount !== null, tags: cell.getMetadata('tags') || [],
              source: cell.sharedModel.getSource().slice(0, 120), errors,
              outputs: cell.outputs.length});
  }
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return {cells: out, idle: !!kernel && kernel.status === 'idle',
          kernel: kernel ? kernel.status + '/' + kernel.connectionStatus : 'none'};
}"""


@pytest.fixture(scope="module")
def headless_policy():
    """The kernels JupyterLab starts inherit this: nobody is there to answer a form."""
    before = os.environ.get("MCPNB_ELICITATION")
    os.environ["MCPNB_ELICITATION"] = "decline"
    yield
    if before is None:
        os.environ.pop("MCPNB_ELICITATION", None)
    else:
        os.environ["MCPNB_ELICITATION"] = before


@pytest.fixture(scope="module")
def course(headless_policy, lab, tmp_path_factory):
    """The course copied into the served root (with the test servers its lessons start), Binder's
    JupyterLab settings as user settings, every cell rendered (no windowing, for the screenshots)."""
    base, root, tmp_path = lab.base, lab.root, lab.home
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    shutil.copytree(ROOT / "tests" / "servers", root / "tests" / "servers")
    settings = tmp_path / ".lab-settings"
    overrides = json.loads((ROOT / "binder" / "overrides.json").read_text())
    overrides["@jupyterlab/notebook-extension:tracker"] = {"windowingMode": "none"}
    for key, values in overrides.items():
        extension, plugin = key.split(":")
        folder = settings / extension
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))
    shots = Path(os.environ.get("MCPNB_SCREENSHOT_DIR") or tmp_path_factory.mktemp("course-screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    return base, shots


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _wait_for_run_all(page, name: str, timeout: float = 240) -> dict:
    """Until every code cell ran and the kernel idles; a stall says which cells never ran."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    done = f"() => {{ const s = ({STATE})(); return s.idle && s.cells.length && s.cells.every(c => c.ran); }}"
    try:
        page.wait_for_function(done, timeout=timeout * 1000, polling=500)
    except PlaywrightTimeout:
        state = page.evaluate(STATE)
        stuck = [c for c in state["cells"] if not c["ran"]]
        errors = [c for c in state["cells"] if c["errors"]]
        # "outputs" on a cell that never ran: its code finished, and the kernel's reply never came
        raise AssertionError(
            f"{name}: Run All did not finish (kernel {state['kernel']}); never ran: {stuck[:3]}; "
            f"errors: {errors}"
        ) from None
    return page.evaluate(STATE)


def _screenshot(page, path: Path) -> None:
    """The whole notebook in one picture: the viewport grows to the notebook's height first."""
    height = page.evaluate(
        """() => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')
                 .scrollHeight"""
    )
    page.set_viewport_size({"width": 1280, "height": min(int(height) + 200, 16000)})
    page.evaluate(
        """() => new Promise(done => {
             const panel = '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer';
             document.querySelector(panel).scrollTop = 0;
             requestAnimationFrame(() => requestAnimationFrame(done));
           })"""
    )
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


@pytest.mark.timeout(300)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_in_jupyterlab_without_an_error(course, browser, notebook, capsys):
    base, shots = course
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        open_and_run(page, base, f"notebooks/{notebook.name}")
        state = _wait_for_run_all(page, notebook.name)
        unexpected = [c for c in state["cells"] if c["errors"] and "raises-exception" not in c["tags"]]
        assert not unexpected, (
            f"{notebook.name}: error outputs in cells not tagged raises-exception: {unexpected}"
        )
        shot = shots / notebook.with_suffix(".png").name
        _screenshot(page, shot)
        with capsys.disabled():
            print(f"\n  screenshot of {notebook.name}: {shot}")
    finally:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()


def test_an_error_outside_a_raises_exception_cell_is_seen(course, browser, lab):
    """The detector itself: Run All goes past a tagged error, and an untagged one is reported."""
    import nbformat

    base, _ = course
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("1 / 0"), nbformat.v4.new_code_cell("undefined_name")]
    nb.cells[0].metadata["tags"] = ["raises-exception"]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab.root / "notebooks" / "zz-broken-on-purpose.ipynb")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        open_and_run(page, base, "notebooks/zz-broken-on-purpose.ipynb")
        cells = _wait_for_run_all(page, "zz-broken-on-purpose.ipynb")["cells"]
        assert cells[0]["errors"] == ["ZeroDivisionError: division by zero"]
        assert cells[1]["errors"] == ["NameError: name 'undefined_name' is not defined"]
        assert "raises-exception" in cells[0]["tags"] and cells[1]["tags"] == []
    finally:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()


def test_the_course_map_opens_rendered(course, browser):
    """A Binder link ends in ``?urlpath=lab/tree/notebooks/README.md``: that opens the map as a page."""
    from playwright.sync_api import expect

    base, shots = course
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        page.goto(
            f"{base}/lab/workspaces/map{int(time.time() * 1000)}/tree/notebooks/README.md?reset&token={TOKEN}"
        )
        rendered = page.locator(".jp-RenderedMarkdown").filter(has_text="A course in MCP")
        expect(rendered.first).to_be_visible(timeout=60000)
        expect(rendered.first.locator("table")).to_contain_text("09-resilience.ipynb")
        page.screenshot(path=str(shots / "course-map.png"))
    finally:
        page.close()
