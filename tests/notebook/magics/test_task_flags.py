"""``--task`` and ``--ttl`` on ``%mcp call`` against tools that decide for themselves.

``--task`` for a tool that runs only as a plain call left an empty output in the notebook (the
"starting … as a task…" line replaced by blank text) and said "call it without task=True", the
Python argument's words; ``--ttl`` for a tool that runs only as a task was refused with "--ttl
goes with --task", though that call is a task anyway.
"""

from __future__ import annotations

import time

import nbformat
import pytest
from conftest import EVERYTHING, ROOT
from IPython.core.error import UsageError
from nbclient import NotebookClient

from .conftest import line

TASK_TOOL = "simulate-research-query"  # server-everything's one tool with execution.taskSupport required
REFUSED = "ev.get-sum does not run as a task (its execution.taskSupport is forbidden): call it without --task"


def connect_everything(ip) -> None:
    """server-everything over stdio, once its task tool is listed (it registers it just after
    initialization)."""
    line(ip, f"connect ev -- node {EVERYTHING} stdio")
    from mcpnb.notebook.magics import get_magics

    pool = get_magics(ip).pool
    deadline = time.monotonic() + 20
    while TASK_TOOL not in {t.name for t in pool.tools("ev", refresh=True)}:
        assert time.monotonic() < deadline, "the task tool never appeared"
        time.sleep(0.1)


def test_task_for_a_plain_only_tool_is_refused_in_the_magic_s_words(ip, mcp, everything):
    connect_everything(ip)
    with pytest.raises(UsageError) as refused:
        line(ip, "call ev.get-sum a=1 b=2 --task")
    assert REFUSED in str(refused.value) and "task=True" not in str(refused.value)
    assert "nothing was started" in str(refused.value)
    assert "is 3" in line(ip, "call ev.get-sum a=1 b=2").text  # the plain call still works


def test_ttl_is_taken_for_a_tool_that_runs_only_as_a_task(ip, mcp, everything):
    """server-everything's research tool requires a task: ``--ttl`` goes with it, no ``--task``
    needed; a tool that is no task still says ``--ttl`` goes with ``--task``."""
    connect_everything(ip)
    handle = line(ip, f"call ev.{TASK_TOOL} topic=ttl --ttl 60000")
    try:
        assert handle.task_id and handle.status in ("working", "input_required")
    finally:
        assert handle.cancel() == "cancelled"
    with pytest.raises(UsageError, match="--ttl goes with --task"):
        line(ip, "call ev.get-sum a=1 b=2 --ttl 5")


def test_a_refused_task_leaves_no_blank_output_in_a_kernel(everything):
    """In a real kernel the refusal is the cell's only output: no emptied "starting … as a task"."""
    nb = nbformat.v4.new_notebook()
    for source in (
        f"%load_ext mcpnb\n%mcp connect ev -- node {EVERYTHING} stdio;",
        "%mcp call ev.get-sum a=1 b=2 --task",
        "%mcp disconnect ev",
    ):
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": ["raises-exception"]}))
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = nb.cells[1].outputs
    assert not [o for o in outputs if o.output_type in ("display_data", "update_display_data")], outputs
    said = "".join(o.get("text", "") + o.get("evalue", "") for o in outputs)
    assert REFUSED in said and "task=True" not in said
