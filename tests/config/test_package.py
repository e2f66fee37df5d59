"""The package surface: the public names, and an import that stays fast (no jsonschema, no platformdirs)."""

from __future__ import annotations

import subprocess
import sys

import mcpnb.config


def test_public_names() -> None:
    assert sorted(mcpnb.config.__all__) == [
        "AuthConfig",
        "CODE_SOURCE",
        "ConfigSet",
        "Era",
        "FrozenDict",
        "LOCAL_FILE",
        "MAX_SECONDS",
        "PROJECT_FILE",
        "ServerConfig",
        "Transport",
        "find_project_config",
        "load_config",
        "load_file",
        "schema",
        "user_config_path",
    ]
    assert all(hasattr(mcpnb.config, name) for name in mcpnb.config.__all__)
    assert (mcpnb.config.PROJECT_FILE, mcpnb.config.LOCAL_FILE) == (".mcp.json", ".mcp.local.json")
    assert (mcpnb.config.CODE_SOURCE, mcpnb.config.MAX_SECONDS) == ("<code>", 86400)


def test_import_loads_neither_jsonschema_nor_platformdirs() -> None:
    code = "import sys, mcpnb.config; print([m for m in ('jsonschema', 'platformdirs') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
