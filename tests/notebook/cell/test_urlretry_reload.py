"""The −32042 panel ("open this page, then retry") a cell waits on is withdrawn as a waiting form is.

A page reloaded during Run All while that panel waited left the kernel busy for good: the panel was
in an output no page shows, the person's next run queued behind it (``[*]``, nothing on screen),
and only an interrupt got out. Now it follows :mod:`mcpnb.notebook.forms.rerun`'s rule: withdrawn
when its cell runs again, or when another page runs a cell while its own page is silent; a panel
of the lost page's queue asked while such a run waits goes at once. The call is not retried, the
cell's value is None, the panel's record says why, and the run that withdrew it says so at its top.

A real kernel, probe-kit's ``open_local_page`` answering −32042 (a real MCP server, in the
2025-11-25 era that has −32042), and this test playing JupyterLab over jupyter_client: each page is
a session id of its own, each run carries its cell's id (``cellId``), as JupyterLab sends them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpnb.notebook.forms.rerun import NOTE, PAGE_NOTE
from tests.frontend import Frontend
from tests.notebook.forms.test_rerun_in_kernel import _answer, _form, _ok, _said, another_page, run_cell
from tests.notebook.test_saved_forms import WIDGET_VIEW, SavedNotebook, _html, _text

pytestmark = pytest.mark.timeout(180)

#: −32042 is the 2025-11-25 era's (2026-07-28 asks with an InputRequiredResult): probe-kit in that era
SETUP = "import os; os.chdir({root!r})\n%load_ext mcpnb\n%mcp serve probe-kit --era legacy"
#: probe-kit lets a page through once it asked for it: each run that must be refused opens its own
REFUSED = "r{n} = %mcp call probe.open_local_page path=page{n}.md via=error\nprint('RESULT{n}', r{n})"
NOT_RETRIED = "the call was not retried"


def _pages(root: Path, *numbers: int) -> None:
    for n in numbers:
        (root / f"page{n}.md").write_text(f"# Page {n}\n")


def _panel(fe: Frontend, run: str) -> str:
    """The status line of the −32042 panel ``run`` shows, once the panel is there."""
    fe.wait_for(lambda: fe.find(run, css="mcpnb-url-consent"), what="the −32042 panel")
    status = fe.find(run, css="mcpnb-status")
    assert status
    return status


def _record(saved: SavedNotebook, run: str) -> dict:
    """The panel's output as a saved notebook keeps it."""
    outputs = json.loads(saved.json([("", run)]))["cells"][0]["outputs"]
    (panel,) = [o for o in outputs if "mcpnb-url-consent" in _html(o)]
    assert WIDGET_VIEW not in panel["data"]  # its record, not a widget that says "model not found"
    return panel


def test_a_reload_while_the_panel_waits_lets_the_lost_run_all_queue_run_through(kernel, tmp_path):
    """Run All; the −32042 panel holds the kernel; the page is reloaded (a new session) and the
    person runs a cell there. The panel is withdrawn (not retried), the rest of the lost queue runs,
    the person's run runs and says at its top what went; the panel's record says why."""
    _pages(tmp_path, 1)
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    _ok(fe, run_cell(fe, SETUP.format(root=str(tmp_path)), "setup"))
    waiting = run_cell(fe, REFUSED.format(n=1), "c2")
    below = run_cell(fe, 'print("BELOW")', "c3")
    status = _panel(fe, waiting)

    reloaded = another_page(fe)
    mine = run_cell(fe, 'print("MINE")', "c4", page=reloaded)
    _ok(fe, waiting)  # no interrupt needed
    assert "RESULT1 None" in fe.stdout[waiting]
    fe.wait_for(lambda: PAGE_NOTE in fe.models[status].get("value", ""), what="why it went")
    _ok(fe, below)
    assert "BELOW" in fe.stdout[below]
    _ok(fe, mine)
    assert "MINE" in fe.stdout[mine]
    said = _said(fe, mine)
    assert '("Open the local page page1.md?") was withdrawn' in said
    assert "reloaded or closed" in said and NOT_RETRIED in said

    fe.pump(0.3)
    plain = _text(_record(saved, waiting)["data"]["text/plain"])
    assert "probe asks you to open a link" in plain and "page1.md" in plain and PAGE_NOTE in plain


def test_running_the_cell_again_withdraws_its_panel(kernel, tmp_path):
    """Shift+Enter on the cell whose panel waits: the earlier run ends without a retry, the new run
    calls afresh (probe-kit has asked for that page already: it opens) and says what went."""
    _pages(tmp_path, 1)
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    _ok(fe, run_cell(fe, SETUP.format(root=str(tmp_path)), "setup"))
    first = run_cell(fe, REFUSED.format(n=1), "c2")
    status = _panel(fe, first)
    again = run_cell(fe, REFUSED.format(n=1), "c2")
    _ok(fe, first)
    assert "RESULT1 None" in fe.stdout[first]
    fe.wait_for(lambda: NOTE in fe.models[status].get("value", ""), what="why it went")
    _ok(fe, again)
    assert "Opened page1.md" in fe.stdout[again]
    said = _said(fe, again)
    assert "in this cell's previous run was withdrawn when the cell ran again" in said
    assert NOT_RETRIED in said
    fe.pump(0.3)
    assert NOTE in _text(_record(saved, first)["data"]["text/plain"])


FIRST = 'a = %mcp call probe.ask_user question="First?"\nprint("FIRST", a.data["action"])'


def test_a_panel_of_the_lost_queue_goes_at_once(kernel, tmp_path):
    """Run All: a form, then a cell that is refused with −32042. The page is reloaded and the person
    runs the asking cell again: its lost form goes, and the panel the lost queue shows next, in an
    output no page shows while the person's run waits behind it, goes as soon as it is asked."""
    _pages(tmp_path, 2)
    fe = Frontend(kernel)
    _ok(fe, run_cell(fe, SETUP.format(root=str(tmp_path)), "setup"))
    first = run_cell(fe, FIRST, "c2")
    refused = run_cell(fe, REFUSED.format(n=2), "c3")
    end = run_cell(fe, 'print("end")', "c4")
    _form(fe, first)

    reloaded = another_page(fe)
    again = run_cell(fe, FIRST, "c2", page=reloaded)
    _ok(fe, first)
    assert "FIRST cancel" in fe.stdout[first]
    _ok(fe, refused)  # refused into an output no page shows, while the person's run waited
    assert "RESULT2 None" in fe.stdout[refused]
    status = _panel(fe, refused)
    fe.wait_for(lambda: PAGE_NOTE in fe.models[status].get("value", ""), what="why it went")
    _ok(fe, end)

    new = _form(fe, again)  # the person's run asks afresh
    said = _said(fe, again)
    assert '("Open the local page page2.md?") was withdrawn' in said and NOT_RETRIED in said
    _answer(fe, new, "Ada")
    _ok(fe, again)
    assert "FIRST accept" in fe.stdout[again]
