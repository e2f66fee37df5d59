"""``%mcp`` with IPython's own features, in a real kernel: ``%run`` of a notebook, ``run_cell``
from code, ``%unload_ext`` in the middle of a cell, ``%pdb on``. The rewrite into awaits is for
the cell the kernel runs; a cell run inside a running one (``%run``'s cells, ``run_cell``) runs the
magic as in a ``def``, whatever ran before it (an empty cell ends without having started: counted
with IPython's events, it made the next ``%mcp`` cell of a ``%run`` notebook fail with "This event
loop is already running")."""

from __future__ import annotations

import json

from tests.frontend import Frontend

SETUP = "%load_ext mcpnb\n_ = %mcp serve probe-kit"


def _notebook(path, *sources: str) -> None:
    cells = [
        {
            "cell_type": "code",
            "id": f"c{n}",
            "metadata": {},
            "source": s,
            "outputs": [],
            "execution_count": None,
        }
        for n, s in enumerate(sources)
    ]
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    path.write_text(json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}))


def test_run_of_a_notebook_with_an_empty_cell_runs_its_calls(kernel, tmp_path):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    other = tmp_path / "other.ipynb"
    _notebook(other, "print('first')", "", "r = %mcp call probe.greet name=Ada\nprint(r.text)")
    ran = fe.run_ok(f"%run {other}")
    assert fe.stdout[ran].split() == ["first", "Hello,", "Ada!"]
    # the same from code: an empty cell first, then a call
    said = fe.run_ok(
        "get_ipython().run_cell('')\n"
        "get_ipython().run_cell('r2 = %mcp call probe.greet name=Bo')\n"
        "print(r2.text)"
    )
    assert fe.stdout[said].strip() == "Hello, Bo!"
    after = fe.run_ok("%mcp call probe.greet name=Cy")  # the kernel's next cell awaits as before
    assert "Hello, Cy!" in fe.results[after]["text/plain"]


def test_unload_in_a_cell_then_mcp_says_the_magic_is_gone(kernel):
    """A cell rewritten before its ``%unload_ext mcpnb`` ran: its later ``%mcp`` line says what
    IPython says of a missing magic (it was an AttributeError on ``arun_line_magic``); the server
    stays, and ``%load_ext`` finds it again."""
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    reply = fe.reply(fe.execute("%unload_ext mcpnb\n%mcp status"))
    assert reply["status"] == "error" and reply["ename"] == "UsageError", reply
    assert "`%mcp` not found" in reply["evalue"]
    fe.run_ok("%load_ext mcpnb")
    back = fe.run_ok("%mcp call probe.greet name=Di")
    assert "Hello, Di!" in fe.results[back]["text/plain"]


def test_pdb_on_opens_no_debugger_on_a_usage_error(kernel):
    """A mistake in a ``%mcp`` line is a ``UsageError``, which IPython's ``%pdb on`` leaves alone:
    no debugger waits on stdin, and the next cell runs."""
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok("%pdb on")
    failed = fe.execute("%mcp call probe.nosuch", allow_stdin=False)  # a debugger would fail on stdin
    reply = fe.reply(failed)
    assert reply["status"] == "error" and reply["ename"] == "UsageError", reply
    assert "ipdb" not in fe.stdout.get(failed, "")
    after = fe.run_ok("%mcp call probe.greet name=Ed")
    assert "Hello, Ed!" in fe.results[after]["text/plain"]
