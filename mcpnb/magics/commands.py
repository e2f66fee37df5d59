"""Every ``%mcp`` subcommand, registered in :data:`COMMANDS` (importing this module registers them).

Nothing here talks to a server directly: each subcommand calls the public :class:`~mcpnb.pool.Pool`
API, so everything a magic does can also be done from Python. A subcommand returns the object to
display (and to keep with ``-o VAR`` or ``x = %mcp …``).
"""

from __future__ import annotations

from . import explore, servers  # noqa: F401  (registration happens on import)
from .explore import find_tool
from .registry import COMMANDS, ORDER, Command, Context, overview

__all__ = ["COMMANDS", "ORDER", "Command", "Context", "find_tool", "overview"]
