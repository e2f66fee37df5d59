"""The magics inside a real ipykernel (nbclient): rich outputs, short errors, state across cells."""

from __future__ import annotations

import nbformat
from conftest import ROOT
from nbclient import NotebookClient


def run(*cells: tuple[str, bool]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for source, may_fail in cells:
        cell = nbformat.v4.new_code_cell(source)
        if may_fail:
            cell.metadata["tags"] = ["raises-exception"]
        nb.cells.append(cell)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return nb


def test_magics_in_a_kernel():
    nb = run(
        ("%load_ext mcpnb", False),
        ("%mcp serve probe-kit", False),
        ('r = %mcp call probe.estimate task="ship it" files=2', False),
        ("r", False),
        ("%mcp connect bad -- /nonexistent/server", True),
        ("%mcp connect bad --verbose -- /nonexistent/server", True),
        ("%mcp call probe.estimate files=x", True),
    )
    status = nb.cells[1].outputs[0]["data"]
    assert "<table" in status["text/html"] and "connected" in status["text/plain"]
    result = nb.cells[3].outputs[0]["data"]
    assert "<table" in result["text/html"] and "schema ✓" in result["text/plain"]

    short = next(o for o in nb.cells[4].outputs if o.output_type == "error")
    assert short["ename"] == "ConnectError" and "command not found" in short["evalue"]
    assert len(short["traceback"]) == 2 and "--verbose" in short["traceback"][1]
    verbose = next(o for o in nb.cells[5].outputs if o.output_type == "error")
    assert len(verbose["traceback"]) > 2  # the full traceback, on request

    usage = "".join(o.get("text", "") for o in nb.cells[6].outputs)
    assert "UsageError" in usage and "missing required argument 'task'" in usage


def test_a_final_semicolon_hides_the_output_in_a_kernel_and_keeps_the_value():
    nb = run(
        ("%load_ext mcpnb\n%mcp serve probe-kit;", False),
        ('%mcp call probe.estimate task="ship it" files=2;', False),
        ('r = %mcp call probe.estimate task="ship it" files=2;', False),
        ("type(r).__name__, r.is_error", False),
        ("%mcp status", False),
    )
    for silenced in nb.cells[:3]:
        assert not [o for o in silenced.outputs if o.output_type in ("execute_result", "display_data")]
    assert nb.cells[3].outputs[0]["data"]["text/plain"] == "('ToolResult', False)"
    assert nb.cells[4].outputs[0]["output_type"] == "execute_result"  # the next cell shows again


FASTMCP_SERVER = """\
import fastmcp

srv = fastmcp.FastMCP("notes")

@srv.tool
def add(a: int, b: int) -> int:
    return a + b

@srv.tool
def boom() -> str:
    raise ValueError("the disk is full")
"""


def test_a_fastmcp_server_written_in_a_cell():
    """The server a person writes with FastMCP, connected from the next cell in a real kernel: its
    result renders as a table, and a raising tool's traceback stays out of the cell (its log has it)."""
    nb = run(
        ("%load_ext mcpnb", False),
        (FASTMCP_SERVER, False),
        ("%mcp connect notes {{srv}}", False),
        ("%mcp call notes.add a=2 b=40", False),
        ("%mcp call notes.boom", False),
        ("import mcpnb\nprint('\\n'.join(mcpnb.default_pool().logs('notes')))", False),
    )
    assert "connected" in nb.cells[2].outputs[0]["data"]["text/plain"]
    assert "42" in nb.cells[3].outputs[0]["data"]["text/plain"]
    boom = nb.cells[4].outputs
    assert [o.output_type for o in boom] == ["execute_result"]  # no stream: no framed traceback
    assert "the disk is full" in boom[0]["data"]["text/plain"]
    assert (
        "server: [error] Error calling tool 'boom' (ValueError: the disk is full)"
        in nb.cells[5].outputs[0]["text"]
    )


def test_warnings_still_show_after_a_magic_connects():
    """A connect inside a magic routes warnings (a server's go to its log); the magic's own way of
    showing them lasts only while it runs: the person's, pandas' and mcpnb's warnings after it show."""
    warn = "import warnings; warnings.warn({!r}, stacklevel=1)"
    nb = run(
        ("%load_ext mcpnb", False),
        (warn.format("before the connect"), False),
        ("%mcp serve probe-kit", False),
        (warn.format("after the serve"), False),
        ("%mcp connect again -- python -m mcpnb.probekit", False),
        (warn.format("after a stdio connect"), False),
        (
            "import sys, mcpnb\nmcpnb.default_pool().connect('third', command=sys.executable, "
            "args=['-m', 'mcpnb.probekit'])",
            False,
        ),
        (warn.format("after the Python API's connect"), False),
    )
    for index, said in ((1, "before the connect"), (3, "after the serve"), (5, "after a stdio connect"),
                        (7, "after the Python API's connect")):  # fmt: skip
        text = "".join(o.get("text", "") for o in nb.cells[index].outputs if o.output_type == "stream")
        assert f"UserWarning: {said}" in text, (index, nb.cells[index].outputs)


def test_a_traceback_through_a_magic_line_reads_like_ipython_s_own():
    """The awaited rewrite of a %mcp line is what a traceback shows: it read
    ``(await __import__('mcpnb.notebook.cell', fromlist=['_']).arun_line_magic(...))``."""
    nb = run(
        ("%load_ext mcpnb\n%mcp serve probe-kit", False),
        ("r = %mcp call probe.estimate task=x files=1\nr.nonexistent", True),
    )
    error = next(o for o in nb.cells[1].outputs if o.output_type == "error")
    shown = "\n".join(error["traceback"])
    assert "get_ipython().arun_line_magic(" in shown and "__import__" not in shown, shown
