"""probe-kit: the teaching MCP server inside mcpnb.

Every tool does real, deterministic work and returns structured results with a text fallback, in
both protocol eras, with elicitation and a tasks API, so a person can learn MCP by calling it::

    server = create_server("core")           # in-process: hand it to mcp.Client(server)
    handle = await serve_http(server)        # or over HTTP on 127.0.0.1; handle.url, await handle.stop()

From a shell: ``python -m mcpnb.probekit`` (stdio) or ``python -m mcpnb.probekit --http --port 0``;
for a class, ``--workers N --task-store redis://127.0.0.1:6379/0`` (see docs/classroom.md).
"""

from mcpnb.probekit.http_server import HttpHandle, serve_http
from mcpnb.probekit.server import create_server
from mcpnb.probekit.tasks import TaskManager
from mcpnb.probekit.tasks_wire import TASKS_EXTENSION
from mcpnb.probekit.toolsets import TOOLSETS, UnknownToolsetError

__all__ = [
    "TASKS_EXTENSION",
    "TOOLSETS",
    "HttpHandle",
    "TaskManager",
    "UnknownToolsetError",
    "create_server",
    "serve_http",
]
