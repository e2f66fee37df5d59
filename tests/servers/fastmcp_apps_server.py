"""FastMCP's own MCP Apps, drawn with prefab-ui: an implementation of the extension we did not write,
pages included, to test mcpnb's host against.

It runs only in the FastMCP peer's virtual environment (``tests/peers/fastmcp_venv.py`` builds it) and
never imports mcpnb. Usage (stdio): ``PREFAB_BUNDLED_RENDERER=1 python fastmcp_apps_server.py``;
the variable makes prefab-ui serve its renderer whole instead of from a CDN (nothing but 127.0.0.1
is reachable in the tests).

Tools: ``request_approval`` (FastMCP's ``Approval``: a card with Approve and Reject, whose click
sends the decision into the conversation with ``ui/message``); ``file_manager`` (FastMCP's
``FileUpload``: a drop zone whose Upload sends the files to ``store_files``, a tool for the page
only) with ``list_files`` and ``read_file`` for the model.
"""

from __future__ import annotations

from fastmcp import FastMCP
from fastmcp.apps.approval import Approval
from fastmcp.apps.file_upload import FileUpload

mcp = FastMCP("fastmcp-apps-peer")
mcp.add_provider(Approval())
mcp.add_provider(FileUpload())

if __name__ == "__main__":
    mcp.run()
