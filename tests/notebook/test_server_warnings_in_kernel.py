"""Warnings in a real kernel: an in-process server's go to its log, the person's stay in the cell.

The SDK's own server warns (``MCPDeprecationWarning``: the logging capability is deprecated as of
2026-07-28) each time a tool logs with ``ctx.info``. Those lines landed in every calling cell: the
magic showed every warning of the process while it ran, and once a connect had run inside it, the
routing to the server's log was undone for the Python API too.
"""

from __future__ import annotations

import sys

import nbformat
from conftest import DEMO, ROOT
from nbclient import NotebookClient

SERVER = """
%load_ext mcpnb
import mcpnb
from mcp.server.mcpserver import Context, MCPServer

srv = MCPServer("chatty", log_level="WARNING")

@srv.tool()
async def chatty(ctx: Context) -> str:
    \"\"\"Logs a line, then answers.\"\"\"
    await ctx.info("working on it")
    return "done"
"""


def _stderr(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stderr")


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def test_an_in_process_servers_warnings_go_to_its_log_and_the_persons_to_the_cell():
    cells = [
        SERVER,
        "%mcp connect chatty {{srv}}",
        "%mcp call chatty.chatty",
        "print(mcpnb.default_pool().call('chatty', 'chatty').text)",
        "r = await mcpnb.default_pool().acall('chatty', 'chatty'); print(r.text)",
        "print('\\n'.join(mcpnb.default_pool().logs('chatty')))",
        # a warning for the person, from the magic itself: still in the cell, as plain text
        f"%mcp connect other --env API_KEY=sk-live-0123456789abcdef -- {sys.executable} {DEMO} stdio",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    for cell in nb.cells[2:5]:
        assert "done" in _text(cell)
        assert "Warning" not in _stderr(cell), _stderr(cell)
    logged = _text(nb.cells[5])
    assert logged.count("warning: MCPDeprecationWarning: The logging capability is deprecated") >= 3
    said = _stderr(nb.cells[6])
    assert said.startswith("UserWarning: --env API_KEY holds a secret written in this line"), said
    assert "sk-live-0123456789abcdef" not in said
