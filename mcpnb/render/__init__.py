"""Rich display for mcpnb objects: results, tool listings and the status table.

Every bundle carries ``text/plain`` (terminal IPython, logs) and ``text/html`` (JupyterLab), plus the
first image of a result under its own mime type. Only the standard library is imported here; pandas
loads when a table is actually drawn, so ``import mcpnb`` stays fast.
"""

from __future__ import annotations

from .defaults import DEFAULTS, RenderDefaults
from .result import result_bundle
from .status import status_bundle
from .tables import NotTabularError, to_dataframe
from .tools import ToolList, tools_bundle

__all__ = [
    "DEFAULTS",
    "NotTabularError",
    "RenderDefaults",
    "ToolList",
    "result_bundle",
    "status_bundle",
    "to_dataframe",
    "tools_bundle",
]
