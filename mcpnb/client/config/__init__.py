"""Server configuration: what to connect to and how, from files (layered) or from code.

One validation pipeline serves every entry point (``.mcp.json`` files, ``Pool.connect(...)``,
``ServerConfig.replace``), so a typo gets the same located, "did you mean" error wherever it was made:

    raw mapping ─► jsonschema (shipped ``schema.json``: unknown keys, types, ranges)    validate.py
                ─► canonical snake_case keys                                        keys.py
                ─► layers merged                                                    layers.py
                ─► ``${VAR}`` expansion (and a VS Code file's own variables)       expand.py, vscode.py
                ─► semantic checks (transport, tools, auth)                         resolve.py
                ─► frozen :class:`ServerConfig`                                     model.py, auth.py

Secrets never reach a repr, ``redacted()`` view or error message; :meth:`ServerConfig.secrets` lists the
values the pool must scrub from text it did not write itself (server errors, stderr lines).
``jsonschema`` and ``platformdirs`` are imported on first use: ``%load_ext mcpnb`` stays fast.
"""

from __future__ import annotations

from mcpnb.client.config.auth import AuthConfig
from mcpnb.client.config.frozen import FrozenDict
from mcpnb.client.config.keys import Era, Transport
from mcpnb.client.config.layers import (
    LOCAL_FILE,
    PROJECT_FILE,
    find_other_configs,
    find_project_config,
    find_vscode_config,
    load_config,
    load_file,
    site_config_paths,
    user_config_path,
)
from mcpnb.client.config.model import CODE_SOURCE, ConfigSet, ServerConfig
from mcpnb.client.config.validate import MAX_SECONDS, schema

__all__ = [
    "CODE_SOURCE",
    "LOCAL_FILE",
    "MAX_SECONDS",
    "PROJECT_FILE",
    "AuthConfig",
    "ConfigSet",
    "Era",
    "FrozenDict",
    "ServerConfig",
    "Transport",
    "find_other_configs",
    "find_project_config",
    "find_vscode_config",
    "load_config",
    "load_file",
    "schema",
    "site_config_paths",
    "user_config_path",
]
