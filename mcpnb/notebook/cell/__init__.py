"""The notebook side of people-in-the-loop: forms in the calling cell, progress bars, live calls.

:class:`CellUI` is captured in the cell that makes a call; :class:`NotebookInteraction` answers a
server's questions through it (a widget form, a text prompt, or a policy when nobody can answer);
:func:`call_in_cell` runs a call so a person can answer in the same cell; :mod:`.asynccell` makes
``%mcp`` cells awaitable on ipykernel >= 7.4, which is what lets a widget click reach a waiting cell.
"""

from mcpnb.notebook.cell.asynccell import (
    arun_cell_magic,
    arun_line_magic,
    install_async_cells,
    off_loop,
    uninstall_async_cells,
)
from mcpnb.notebook.cell.capture import CellUI
from mcpnb.notebook.cell.explorer import ToolExplorer
from mcpnb.notebook.cell.live import LiveCall, acall_in_cell, call_in_cell
from mcpnb.notebook.cell.questions import NotebookInteraction
from mcpnb.notebook.cell.urlretry import UrlRetry, url_retry

__all__ = [
    "CellUI",
    "LiveCall",
    "NotebookInteraction",
    "ToolExplorer",
    "UrlRetry",
    "acall_in_cell",
    "arun_cell_magic",
    "arun_line_magic",
    "call_in_cell",
    "install_async_cells",
    "off_loop",
    "uninstall_async_cells",
    "url_retry",
]
