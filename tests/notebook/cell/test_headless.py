"""A notebook run headless (nbclient, as ``jupyter nbconvert --execute``, ``jupyter execute`` and
papermill run it): nobody clicks, nobody types, and each cell has a timeout.

Every question a server asks is answered at once, by the policy, and said in the cell; what cannot
be answered without a person fails its cell with what was asked; the saved notebook reads as text
and runs again; the servers the kernel started end with it. Real kernels, real servers.
"""

from __future__ import annotations

import sys

import nbformat
import pytest
from conftest import DEMO, ROOT, alive, wait_until
from nbclient import NotebookClient
from nbconvert import HTMLExporter

WIDGET = "application/vnd.jupyter.widget-view+json"
#: A cell that waited for a person would wait for this long, and the run would fail on it.
CELL_TIMEOUT = 60

REPLY = {  # a model's turn calling a tool that needs a person's approval
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t1", "name": "mcp__old__estimate", "input": {"task": "x"}}],
}


@pytest.fixture(autouse=True)
def _nobody_chose_a_policy(monkeypatch):
    """The kernel inherits this environment: the notebook alone says how questions are answered."""
    monkeypatch.delenv("MCPNB_ELICITATION", raising=False)


def _notebook(*cells: str | tuple[str, str]) -> nbformat.NotebookNode:
    """Code cells; a ``(source, tag)`` pair is a cell with that tag (``raises-exception``)."""
    nb = nbformat.v4.new_notebook()
    for cell in cells:
        source, tags = (cell[0], [cell[1]]) if isinstance(cell, tuple) else (cell, [])
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags}))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def _run(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Execute as ``nbconvert --execute`` does: an error in a cell not tagged ``raises-exception``,
    or a cell still waiting at its timeout, fails the run."""
    NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return nb


def _text(cell: nbformat.NotebookNode) -> str:
    """What a reader without widgets or HTML sees of a cell: its text, errors included. A print
    may reach the notebook in pieces (the kernel flushes its stdout on a timer, not by line), which
    a frontend shows as one text: so are they here."""
    said: list[str] = []
    stream = None  # the stream the last output was part of, if it was one
    for output in cell.outputs:
        if output.output_type == "stream":
            if output.name == stream:
                said[-1] += output.text
            else:
                said.append(output.text)
            stream = output.name
            continue
        stream = None
        if output.output_type == "error":
            said.append(f"{output.ename}: {output.evalue}")
        else:
            said.append(output.data.get("text/plain", ""))
    return "\n".join(said)


def test_every_question_of_a_headless_run_is_answered_at_once_and_said(tmp_path):
    nb = _run(
        _notebook(
            "%load_ext mcpnb\nimport mcpnb\npool = mcpnb.default_pool()\n"
            "%mcp serve probe-kit\n%mcp serve probe-kit --era legacy --name old\n"
            f"%mcp connect demo -- {sys.executable} {DEMO} stdio",
            "%mcp call probe.ask_user question='Your name?'",  # a form, 2026-07-28
            "%mcp call old.ask_user question='Your name?'",  # a form mid-call, 2025-11-25
            "%mcp call old.open_local_page path=README.md",  # URL consent mid-call
            ("%mcp call old.open_local_page path=README.md via=error", "raises-exception"),  # -32042
            ("%mcp call probe.test_sampling prompt=hi", "raises-exception"),
            "h = %mcp call old.confirm_delete --task\nprint('TASK', h.result(timeout=30).text)",
            (
                "tools = pool.functions('old', approve='always')\n"
                f"tools.run_all({REPLY!r}, raise_errors=True)",
                "raises-exception",
            ),
            "r = %mcp call demo.pid\nprint('PID', r.data)",
        )
    )
    said = [_text(cell) for cell in nb.cells]
    for form in said[1:3]:
        assert "“Your name?”, answered without asking anyone: declined" in form, form
        assert "nobody can answer in this run" in form and "--answers" in form, form
    assert "asked to open a page" in said[3] and "answered without asking anyone: declined" in said[3]
    assert said[4].startswith("UrlRequiredError:") and "README.md" in said[4], said[4]
    assert said[5].startswith("CallError:") and "no person is there to answer" in said[5], said[5]
    assert "TASK notes.txt kept" in said[6], said[6]  # the task was answered, not left input_required
    assert said[7].startswith("NotApprovedError:") and "nobody to ask" in said[7], said[7]

    # the saved notebook: valid, each widget with words beside it, readable as HTML, runs again
    nbformat.validate(nb)
    for cell in nb.cells:
        for output in cell.outputs:
            if WIDGET in output.get("data", {}):
                assert output.data.get("text/plain"), output
    page, _ = HTMLExporter().from_notebook_node(nb)
    assert "Your name?" in page and "NotApprovedError" in page
    saved = tmp_path / "ran.ipynb"
    nbformat.write(nb, saved)
    again = _run(nbformat.read(saved, as_version=4))
    assert "“Your name?”, answered without asking anyone: declined" in _text(again.cells[1])

    # the stdio server the first kernel started ended with it
    pid = int(_text(nb.cells[8]).split("PID", 1)[1].split()[0])
    assert wait_until(lambda: not alive(pid), 15), f"the stdio server {pid} outlived its kernel"


def test_mcpnb_elicitation_set_in_the_notebook_answers_the_next_question():
    """``%env MCPNB_ELICITATION=defaults`` (or ``os.environ``, or a papermill parameter) after a
    first call: the decline's own advice. ``Mcp.elicitation`` had read the variable once, at that
    first call, so every later question of the headless run was declined all the same."""
    nb = _run(
        _notebook(
            "%load_ext mcpnb\n%mcp serve probe-kit --era legacy",
            "%mcp call probe.ask_user question='Your name?'",
            "%env MCPNB_ELICITATION=defaults",
            "r = %mcp call probe.test_elicitation_sep1034_defaults\nprint(r.text)\n"
            "print(r.answered_without_asking)",
            "%config Mcp.elicitation = 'decline'",
            "r = %mcp call probe.test_elicitation_sep1034_defaults\nprint(r.text)",
        )
    )
    assert "declined by the 'decline' policy" in _text(nb.cells[1])
    said = _text(nb.cells[3])
    assert "action=accept" in said and '"name": "John Doe"' in said, said
    assert "accepted by the 'defaults' policy" in said and "$MCPNB_ELICITATION is 'defaults'" in said
    assert "nobody can answer in this run" in said, said
    # a policy the notebook named itself stands
    assert "action=decline" in _text(nb.cells[5])


def test_a_config_server_that_fails_connects_the_others_and_stops_the_run(tmp_path):
    """``%mcp connect --config`` with one broken server of three: the other two connect (one broken
    server never takes the others down) and the table shows every row, but the cell ends in a
    ``ConnectError`` naming it, as ``%mcp connect NAME`` does. It printed the table and the run went
    on: ``nbconvert --execute`` exited 0 without the server. A failed ``%%mcp call`` fails its cell too."""
    import json

    from nbclient.exceptions import CellExecutionError

    good = {"command": sys.executable, "args": [DEMO, "stdio"]}
    team = tmp_path / "team.json"
    broken = str(tmp_path / "no-such-server")
    team.write_text(json.dumps({"mcpServers": {"good": good, "broken": {"command": broken}, "good2": good}}))
    nb = _run(
        _notebook(
            "%load_ext mcpnb",
            (f"%mcp connect --config {team}", "raises-exception"),
            "r = %mcp call good2.echo text=hi\nprint(r.text)",
            ("%%mcp call good.slow --timeout 0.5\nseconds: 3", "raises-exception"),
        )
    )
    connect = nb.cells[1]
    assert [o.output_type for o in connect.outputs] == ["display_data", "error"], connect.outputs
    table, error = connect.outputs[0].data["text/plain"], connect.outputs[1]
    rows = {line.split()[0]: line.split()[2] for line in table.splitlines()[1:]}
    assert rows == {"good": "connected", "broken": "failed", "good2": "connected"}, table
    assert error.ename == "ConnectError", error
    assert error.evalue.startswith(f"could not connect to 'broken': command not found: {broken}"), error
    assert "Connected: 'good', 'good2'" in error.evalue
    assert f"%mcp connect --config {team} broken" in error.evalue  # what to run once it is fixed
    assert f"%mcp connect --config {team} good good2" in error.evalue  # or without it
    assert "hi" in _text(nb.cells[2])  # the others work
    call = nb.cells[3]
    assert [(o.output_type, o.get("ename")) for o in call.outputs] == [("error", "CallTimeoutError")]

    # untagged, the cell stops the run there, as nbconvert --execute and papermill run it
    stopped = _notebook("%load_ext mcpnb", f"%mcp connect --config {team} broken", "print('went on')")
    with pytest.raises(CellExecutionError, match="could not connect to 'broken'"):
        _run(stopped)
    assert stopped.cells[2].outputs == []
