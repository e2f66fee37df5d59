"""The course as students run it: out of order. An exercise's check before anything else, a setup
cell run twice, a first cell run again halfway; each in a real kernel (nbclient), the lessons'
own cells taken from the notebooks, and what the student reads asserted."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from test_course import COURSE, exercise_cells

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(cells: list[str]) -> list[str]:
    """Run ``cells`` in one fresh kernel, in this order, errors and all: what each cell shows."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    shown = []
    for cell in nb.cells:
        parts = []
        for out in cell.outputs:
            if out.output_type == "error":
                parts.append(f"ERROR {out.ename}: {out.evalue}")
            parts.append(out.get("text", "") + out.get("data", {}).get("text/plain", ""))
        shown.append(ANSI.sub("", "\n".join(parts)))
    return shown


def lesson(name: str) -> list[str]:
    """The notebook's cells by index (markdown too, so indices match what Jupyter shows)."""
    return [c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells]


def cell(name: str, text: str) -> str:
    """The lesson's first cell with ``text`` in it (found by content: indices move)."""
    return next(c for c in lesson(name) if text in c)


@pytest.mark.parametrize("path", COURSE, ids=[p.name for p in COURSE])
def test_an_exercise_run_first_says_it_is_not_answered_yet(path: Path):
    """A student's first move is often the check at the bottom. Its cell said
    ``NameError: name 'teach' is not defined`` (the import is in the lesson's first cell); each
    exercise cell imports ``teach`` itself, so it says "not answered yet", first or after a restart."""
    nb = nbformat.read(path, as_version=4)
    order = sorted(exercise_cells(nb).items(), key=lambda kv: kv[1])
    said = run([nb.cells[index].source for _, index in order])
    for (name, _), shown in zip(order, said, strict=True):
        assert "ERROR" not in shown, shown
        assert f"… {name}: not answered yet" in shown, shown


def test_a_wire_whose_server_was_restarted_says_which_cell_to_run_again():
    """07's first cell run again leaves its probe-kit serving where it was: the Wire made from its
    address still answers, and so it does after ``--restart`` (a fresh probe-kit on the same port).
    Once the probe-kit is stopped, the hand-cranked Wire made from its address answered with
    urllib's ``URLError: <urlopen error [Errno 111] Connection refused>`` and a traceback of urllib."""
    name = "07-two-eras.ipynb"
    first = cell(name, "%load_ext mcpnb")
    serve = "%mcp serve probe-kit --http --name kit"
    assert serve in first
    said = run(
        [
            first,
            cell(name, "pool = mcpnb.default_pool()"),
            cell(name, "modern = teach.Wire(url"),
            first,  # the student runs the first cell again: kit stays where it is
            cell(name, 'modern.send("tools/call"'),
            first.replace(serve, serve + " --restart"),  # a fresh probe-kit, on the same port
            cell(name, 'modern.send("tools/call"'),
            "%mcp serve --stop kit",
            cell(name, 'modern.send("tools/call"'),
        ]
    )
    assert "kit is already serving (http://127.0.0.1:" in said[3] and "ERROR" not in said[4], said[4]
    assert "write the docs" in said[4], said[4]
    assert "write the docs" in said[6] and "ERROR" not in said[6], said[6]  # its URL kept
    assert "ERROR NothingListening: nothing answers at http://127.0.0.1:" in said[-1], said[-1]
    assert "Run the cell that makes this Wire" in said[-1] and "urlopen" not in said[-1]


def test_resilience_setup_cells_run_twice_watch_once_and_leave_no_server_behind():
    """09's watcher cell run twice subscribed two watchers: every event of the kill printed twice;
    its kill cell run twice killed a process that was gone (ProcessLookupError).
    Its 401 cell run twice started a second HTTP demo server and lost the first, which the last cell
    (``web.terminate()``) never stopped: it outlived the lesson."""
    name = "09-resilience.ipynb"
    watcher, web = cell(name, "unsubscribe = pool.subscribe(watch)"), cell(name, "web = subprocess.Popen")
    said = run(
        [
            cell(name, "%load_ext mcpnb"),
            watcher,
            watcher,  # twice
            cell(name, 'pool.connect("demo"'),
            cell(name, "lost.clear(); back.clear()"),
            cell(name, "lost.clear(); back.clear()"),  # the kill again: the process serving now
            web,
            "first_web = web",
            web,  # twice
            "first_web.wait(10)\nprint('first server stopped:', first_web.returncode is not None)",
            # what the lesson's last cell does, and the first server too in case it still runs
            "unsubscribe()\n%mcp disconnect --all\n"
            "for w in (web, first_web):\n    w.terminate()\n    w.wait(10)",
        ]
    )
    for kill in said[4:6]:  # run again, it killed the new process (it killed the dead one: an error)
        lost = [
            line
            for line in kill.splitlines()
            if line.endswith("state: connection lost: the server process was killed (SIGKILL)")
        ]
        assert len(lost) == 1 and "ERROR" not in kill, kill  # two watchers printed each event twice
    assert "first server stopped: True" in said[9], said[9]


def test_a_page_s_call_after_the_server_was_restarted_says_why_not():
    """10's first cell run with ``--restart`` restarts probe-kit (run again as it is, it leaves it
    serving); the hand-driven page's next ``tools/call`` is refused in words ("draw the page
    again"), which the cell hid behind ``KeyError: 'result'``."""
    name = "10-mcp-apps.ipynb"
    serve = "%mcp serve probe-kit --toolset apps"
    first = cell(name, "%load_ext mcpnb")
    assert serve in first
    said = run(
        [
            first,
            cell(name, "rolled = %mcp call probe.dice"),
            cell(name, "page = %mcp read probe"),
            cell(name, "from mcpnb.client.apps import"),
            cell(name, "from mcpnb.client.app_host import AppHost"),
            cell(name, 'await host.receive({"jsonrpc": "2.0", "method": "ui/notifications/initialized"'),
            first.replace(serve, serve + " --restart"),  # the student starts probe-kit afresh
            cell(name, 'await host.receive({"jsonrpc": "2.0", "id": 2'),
        ]
    )
    assert "ERROR" not in said[-1], said[-1]
    assert "now names another server than the one this page came from: draw the page again" in said[-1]
