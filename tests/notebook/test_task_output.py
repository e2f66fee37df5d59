"""A task started in a cell, in a real kernel: the cell's output follows it to its end.

``%mcp call ... --task`` shows the task's live view itself, with a display id, and replaces it with
the task's last word (its final status and its result) when the task ends, so a saved notebook
(JupyterLab's, or one run headless by nbclient) shows how the task ended, not the status it had when
the cell ran. The handle is still the cell's value (``h = %mcp call ... --task``), shown only once.
Each question the task asks gets an output of its own: an answered form stays above the next one.
"""

from __future__ import annotations

import nbformat
from conftest import ROOT
from nbclient import NotebookClient

from tests.frontend import Frontend

SETUP = "%load_ext mcpnb\n%mcp serve probe-kit"
WIDGET = "application/vnd.jupyter.widget-view+json"


def _outputs_of(fe: Frontend, cell: str) -> list[str]:
    """The display ids a cell showed, in the order they appeared."""
    return [i for i, shown_by in fe.display_cell.items() if shown_by == cell]


def test_the_cells_output_ends_as_the_tasks_last_word(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    cell = fe.run_ok("h = %mcp call probe.slow_task steps=3 delay=0.05 --task\nh")
    assert cell not in fe.results  # no execute_result: the handle is not shown a second time
    (task,) = _outputs_of(fe, cell)
    assert "starting probe.slow_task as a task" in fe.displays[cell][0]["text/plain"]  # its place, held
    assert fe.find(cell, css="mcpnb-task")  # then its live view, there
    later = fe.run_ok("print('TOTAL', h.result(timeout=60).data['totalPrimes'])")
    assert "TOTAL 430" in fe.stdout[later]
    last = fe.wait_for(
        lambda: WIDGET not in fe.by_display_id[task] and fe.by_display_id[task], what="the end"
    )
    assert '<b class="mcpnb-task-status" style="border-left:4px solid #1a7f37' in last["text/html"]
    assert ">completed</b>" in last["text/html"]
    assert "totalPrimes" in last["text/html"] and "as of" not in last["text/html"]  # the result, for good
    assert "completed" in last["text/plain"] and "totalPrimes  430" in last["text/plain"]
    again = fe.run_ok("h")  # elsewhere the handle shows as before: a view of its own
    assert WIDGET in fe.displays[again][0] and "completed" in fe.displays[again][0]["text/plain"]
    value = fe.run_ok("print('SAME', _ is h)")  # the cell's value is still kept (_, Out)
    assert "SAME True" in fe.stdout[value]


def test_a_notebook_run_headless_keeps_how_its_tasks_ended(tmp_path):
    """nbclient, as papermill and a CI run use it: the saved notebook shows each task's end (a
    result, and a tool error from a task that must run as one), not 'working as of ...'."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(c)
        for c in (
            SETUP + " --toolset full",
            "h = %mcp call probe.slow_task steps=3 delay=0.05 --task",
            "%mcp serve probe-kit --toolset conformance --name tasks\nf = %mcp call tasks.failing_job --task",
            "print('TOTAL', h.result(timeout=60).data['totalPrimes'], f.result(timeout=60).is_error)",
        )
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    assert "TOTAL 430 True" in nb.cells[3].outputs[0]["text"]
    for index, status, said in ((1, "completed", "totalPrimes"), (2, "completed", "failed on purpose")):
        outputs = [o for o in nb.cells[index].outputs if o.output_type != "stream"]
        assert [o.output_type for o in outputs] == ["display_data"], outputs  # one output: the task's
        data = outputs[0]["data"]
        assert WIDGET not in data and "as of" not in data["text/html"]
        assert f">{status}</b>" in data["text/html"] and said in data["text/html"], data["text/html"]
        assert said in data["text/plain"]


def test_each_question_of_a_task_keeps_its_own_output(kernel):
    """``multi_input`` asks two questions: the first answered form stays (what was sent) above the
    second; one output for both kept only the last. The task's own output comes first."""
    fe = Frontend(kernel)
    fe.run_ok(SETUP + " --toolset conformance")
    cell = fe.run_ok("h = %mcp call probe.multi_input --task")
    for n, (name, value) in enumerate((("colour", "green"), ("animal", "owl"))):
        field = fe.wait_for(lambda name=name: fe.find(None, css=f"mcpnb-field-{name}"), what=f"the {name}")
        fe.wait_for(
            lambda n=n: [m for m, st in fe.models.items() if "mcpnb-form" in st.get("_dom_classes", [])][n:],
            what="its form",
        )
        accepts = fe.wait_for(
            lambda n=n: [m for m, st in fe.models.items() if "mcpnb-accept" in st.get("_dom_classes", [])][
                n:
            ],
            what="its Accept",
        )
        fe.set(field, value)
        fe.click(accepts[0])
    later = fe.run_ok("print('GOT', h.result(timeout=60).text)")
    assert "GOT A green owl" in fe.stdout[later]
    task, *asked = _outputs_of(fe, cell)
    assert "A green owl" in fe.wait_for(lambda: fe.by_display_id[task].get("text/html", ""), what="end")
    assert len(asked) == 2  # each form in its own output, in the order asked, ending as its record
    records = [
        fe.wait_for(lambda i=i: WIDGET not in fe.by_display_id[i] and fe.by_display_id[i]) for i in asked
    ]
    assert "green" in records[0]["text/plain"] and "owl" not in records[0]["text/plain"]
    assert "owl" in records[1]["text/plain"] and "Sent to" in records[1]["text/html"]


def test_a_task_that_cannot_start_leaves_no_placeholder(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP + " --toolset conformance --era legacy")  # where greet says it is never a task
    cell = fe.execute("%mcp call probe.greet --task")
    reply = fe.reply(cell)
    assert reply["status"] == "error"
    assert "probe.greet does not run as a task" in reply["evalue"] and "without --task" in reply["evalue"]
    assert _outputs_of(fe, cell) == []  # refused before "starting … as a task" is shown: nothing to withdraw


def test_a_task_that_cannot_be_followed_says_so_in_its_place(kernel):
    """The place held for the task ("following task … on probe…") says in a line that it did not
    happen, above the error: a blank output stayed there, in the cell and the saved notebook."""
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    cell = fe.execute("%mcp tasks probe --attach no-such-task")
    reply = fe.reply(cell)
    assert reply["status"] == "error" and "knows no task 'no-such-task'" in reply["evalue"]
    (place,) = _outputs_of(fe, cell)
    assert "following task no-such-task on probe" in fe.displays[cell][0]["text/plain"]
    last = fe.wait_for(
        lambda: "✗" in fe.by_display_id[place].get("text/plain", "") and fe.by_display_id[place]
    )
    said = "✗ task no-such-task on probe could not be followed (the error is below)"
    assert last["text/plain"] == said and said in last["text/html"]
