"""Every ``%mcp`` subcommand, registered in :data:`COMMANDS` (importing this module registers them).

Nothing here talks to a server directly: each subcommand calls the public :class:`~mcpnb.client.pool.Pool`
API, so everything a magic does can also be done from Python. A subcommand returns the object to
display (and to keep with ``-o VAR`` or ``x = %mcp …``).
"""

from __future__ import annotations

from mcpnb.notebook.magics import (  # noqa: F401  (registration on import)
    connect,
    functions,
    offers,
    require,
    servers,
    skills,
    watching,
)
from mcpnb.notebook.magics.offers import find_tool
from mcpnb.notebook.magics.registry import COMMANDS, ORDER, Command, Context, overview

__all__ = ["COMMANDS", "ORDER", "Command", "Context", "find_tool", "overview"]
