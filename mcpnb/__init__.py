"""mcpnb: a real MCP client for people in Jupyter notebooks.

``import mcpnb`` and ``%load_ext mcpnb`` stay fast: the SDK, pandas and widgets load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "Pool": "mcpnb.pool",
    "default_pool": "mcpnb.pool",
    "Connection": "mcpnb.connection",
    "ConnectionEvent": "mcpnb.events",
    "ServerConfig": "mcpnb.config",
    "AuthConfig": "mcpnb.config",
    "load_config": "mcpnb.config",
    "ToolResult": "mcpnb.results",
    "ToolInfo": "mcpnb.tools",
    "ServerStatus": "mcpnb.status",
    "StatusTable": "mcpnb.status",
    "McpnbError": "mcpnb.errors",
    "ConfigError": "mcpnb.errors",
    "ConnectError": "mcpnb.errors",
    "CallError": "mcpnb.errors",
    "CallTimeoutError": "mcpnb.errors",
    "NotConnectedError": "mcpnb.errors",
    "ToolNotFoundError": "mcpnb.errors",
    "UnknownServerError": "mcpnb.errors",
    "UrlRequiredError": "mcpnb.errors",
    "Interaction": "mcpnb.interaction",
    "CallContext": "mcpnb.interaction",
    "get_runtime": "mcpnb.runtime",
    "serve_probekit": "mcpnb.serve",
    "set_authorization_ui": "mcpnb.auth",
    "AuthError": "mcpnb.errors",
    "stop_probekit": "mcpnb.serve",
}

__all__ = [
    "AuthConfig",
    "AuthError",
    "CallContext",
    "CallError",
    "CallTimeoutError",
    "ConfigError",
    "ConnectError",
    "Connection",
    "ConnectionEvent",
    "Interaction",
    "McpnbError",
    "NotConnectedError",
    "Pool",
    "ServerConfig",
    "ServerStatus",
    "StatusTable",
    "ToolInfo",
    "ToolNotFoundError",
    "ToolResult",
    "UnknownServerError",
    "UrlRequiredError",
    "__version__",
    "default_pool",
    "get_runtime",
    "load_config",
    "serve_probekit",
    "set_authorization_ui",
    "stop_probekit",
]

if TYPE_CHECKING:  # pragma: no cover
    from .auth import set_authorization_ui
    from .config import AuthConfig, ServerConfig, load_config
    from .connection import Connection
    from .errors import (
        AuthError,
        CallError,
        CallTimeoutError,
        ConfigError,
        ConnectError,
        McpnbError,
        NotConnectedError,
        ToolNotFoundError,
        UnknownServerError,
        UrlRequiredError,
    )
    from .events import ConnectionEvent
    from .interaction import CallContext, Interaction
    from .pool import Pool, default_pool
    from .results import ToolResult
    from .runtime import get_runtime
    from .serve import serve_probekit, stop_probekit
    from .status import ServerStatus, StatusTable
    from .tools import ToolInfo


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpnb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext mcpnb``: register the ``%mcp`` magics."""
    from .magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext mcpnb``."""
    from .magics import unload_ipython_extension as unload

    unload(ipython)
