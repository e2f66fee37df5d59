"""mcpnb: a real MCP client for people in Jupyter notebooks.

``import mcpnb`` and ``%load_ext mcpnb`` stay fast: the SDK, pandas and widgets load on first use.
"""

from __future__ import annotations

import logging as _logging
from typing import TYPE_CHECKING, Any

from mcpnb._moved import install as _install_moved

__version__ = "0.2.0"

_install_moved()  # 0.1's deep imports (mcpnb.pool, mcpnb.results, ...) still work, with a warning

# A library's logger prints nothing unless the application configures logging: without a handler,
# Python's last resort writes WARNING and above on stderr, which a kernel shows, in red, in whichever
# cell runs when a server is lost. mcpnb says that in its status and its calls' errors already.
# Once: %reload_ext mcpnb runs this module again.
_logger = _logging.getLogger("mcpnb")
if not any(isinstance(h, _logging.NullHandler) for h in _logger.handlers):
    _logger.addHandler(_logging.NullHandler())

_LAZY = {
    "AppView": "mcpnb.notebook.render.app_view",
    "Pool": "mcpnb.client.pool",
    "default_pool": "mcpnb.client.pool",
    "Connection": "mcpnb.client.connection",
    "ConnectionEvent": "mcpnb.client.events",
    "ServerConfig": "mcpnb.client.config",
    "AuthConfig": "mcpnb.client.config",
    "load_config": "mcpnb.client.config",
    "ToolResult": "mcpnb.client.results",
    "ToolInfo": "mcpnb.client.toolinfo",
    "ToolList": "mcpnb.client.toolinfo",
    "Toolbox": "mcpnb.client.toolbox",
    "TaskHandle": "mcpnb.client.tasks",
    "ArgumentsError": "mcpnb.client.errors",
    "ServerStatus": "mcpnb.client.status",
    "StatusTable": "mcpnb.client.status",
    "McpnbError": "mcpnb.client.errors",
    "ConfigError": "mcpnb.client.errors",
    "ConnectError": "mcpnb.client.errors",
    "CallError": "mcpnb.client.errors",
    "CallTimeoutError": "mcpnb.client.errors",
    "NotConnectedError": "mcpnb.client.errors",
    "ToolNotFoundError": "mcpnb.client.errors",
    "UnknownServerError": "mcpnb.client.errors",
    "UrlRequiredError": "mcpnb.client.errors",
    # the errors of the parts beyond the pool: each raised where its docstring says, all McpnbErrors
    "NoSkillsError": "mcpnb.client.server_skills",
    "SkillVerificationError": "mcpnb.client.server_skills",
    "NotApprovedError": "mcpnb.client.toolbox.approval",
    "NameCollisionError": "mcpnb.client.toolbox.names",
    "ToolFailedError": "mcpnb.client.toolbox.box",
    "NotTabularError": "mcpnb.client.frames",
    "ContentsError": "mcpnb.client.contents",
    "RequirementError": "mcpnb.client.requirements.errors",
    "RequirementConflictError": "mcpnb.client.requirements.errors",
    "RequirementCycleError": "mcpnb.client.requirements.errors",
    "RequiredServerError": "mcpnb.client.requirements.errors",
    "TaskError": "mcpnb.client.tasks.errors",
    "TaskCancelledError": "mcpnb.client.tasks.errors",
    "TaskExpiredError": "mcpnb.client.tasks.errors",
    "TaskTimeoutError": "mcpnb.client.tasks.errors",
    "TaskResultError": "mcpnb.client.tasks.errors",
    "TaskRefusedError": "mcpnb.client.tasks.errors",
    "TaskInputRequiredError": "mcpnb.client.tasks.errors",
    "Interaction": "mcpnb.client.interaction",
    "CallContext": "mcpnb.client.interaction",
    "get_runtime": "mcpnb.client.runtime",
    "RuntimeClosedError": "mcpnb.client.runtime",
    "ForkedPoolError": "mcpnb.client.runtime",
    "OwnThreadError": "mcpnb.client.runtime",
    "serve_probekit": "mcpnb.notebook.launch",
    "set_authorization_ui": "mcpnb.client.auth",
    "AuthError": "mcpnb.client.errors",
    "stop_probekit": "mcpnb.notebook.launch",
    "teach": "mcpnb.notebook.teach",  # a module: the course's self-checking exercises
}

__all__ = [
    "AppView",
    "ArgumentsError",
    "AuthConfig",
    "AuthError",
    "CallContext",
    "CallError",
    "CallTimeoutError",
    "ConfigError",
    "ConnectError",
    "Connection",
    "ConnectionEvent",
    "ContentsError",
    "ForkedPoolError",
    "Interaction",
    "McpnbError",
    "NameCollisionError",
    "NoSkillsError",
    "NotApprovedError",
    "NotConnectedError",
    "NotTabularError",
    "OwnThreadError",
    "Pool",
    "RequiredServerError",
    "RequirementConflictError",
    "RequirementCycleError",
    "RequirementError",
    "RuntimeClosedError",
    "ServerConfig",
    "ServerStatus",
    "SkillVerificationError",
    "StatusTable",
    "TaskCancelledError",
    "TaskError",
    "TaskExpiredError",
    "TaskHandle",
    "TaskInputRequiredError",
    "TaskRefusedError",
    "TaskResultError",
    "TaskTimeoutError",
    "ToolFailedError",
    "ToolInfo",
    "ToolList",
    "ToolNotFoundError",
    "ToolResult",
    "Toolbox",
    "UnknownServerError",
    "UrlRequiredError",
    "__version__",
    "default_pool",
    "get_runtime",
    "load_config",
    "serve_probekit",
    "set_authorization_ui",
    "stop_probekit",
    "teach",
]

if TYPE_CHECKING:  # pragma: no cover
    from mcpnb.client.auth import set_authorization_ui
    from mcpnb.client.config import AuthConfig, ServerConfig, load_config
    from mcpnb.client.connection import Connection
    from mcpnb.client.contents import ContentsError
    from mcpnb.client.errors import (
        ArgumentsError,
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
    from mcpnb.client.events import ConnectionEvent
    from mcpnb.client.frames import NotTabularError
    from mcpnb.client.interaction import CallContext, Interaction
    from mcpnb.client.pool import Pool, default_pool
    from mcpnb.client.requirements.errors import (
        RequiredServerError,
        RequirementConflictError,
        RequirementCycleError,
        RequirementError,
    )
    from mcpnb.client.results import ToolResult
    from mcpnb.client.runtime import ForkedPoolError, OwnThreadError, RuntimeClosedError, get_runtime
    from mcpnb.client.server_skills import NoSkillsError, SkillVerificationError
    from mcpnb.client.status import ServerStatus, StatusTable
    from mcpnb.client.tasks import TaskHandle
    from mcpnb.client.tasks.errors import (
        TaskCancelledError,
        TaskError,
        TaskExpiredError,
        TaskInputRequiredError,
        TaskRefusedError,
        TaskResultError,
        TaskTimeoutError,
    )
    from mcpnb.client.toolbox import Toolbox
    from mcpnb.client.toolbox.approval import NotApprovedError
    from mcpnb.client.toolbox.box import ToolFailedError
    from mcpnb.client.toolbox.names import NameCollisionError
    from mcpnb.client.toolinfo import ToolInfo, ToolList
    from mcpnb.notebook import teach
    from mcpnb.notebook.launch import serve_probekit, stop_probekit
    from mcpnb.notebook.render.app_view import AppView


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpnb' has no attribute {name!r}")
    import importlib

    imported = importlib.import_module(module)
    value = imported if module.endswith(f".{name}") else getattr(imported, name)
    globals()[name] = value
    return value


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext mcpnb``: register the ``%mcp`` magics."""
    from mcpnb.notebook.magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext mcpnb``."""
    from mcpnb.notebook.magics import unload_ipython_extension as unload

    unload(ipython)
