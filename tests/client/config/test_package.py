"""The package surface: the public names, and an import that stays fast (no jsonschema, no platformdirs)."""

from __future__ import annotations

import subprocess
import sys

from mcpnb.client import config


def test_public_names() -> None:
    assert sorted(config.__all__) == [
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
        "find_other_configs",
        "find_project_config",
        "find_vscode_config",
        "load_config",
        "load_file",
        "schema",
        "site_config_paths",
        "user_config_path",
    ]
    assert all(hasattr(config, name) for name in config.__all__)
    assert (config.PROJECT_FILE, config.LOCAL_FILE) == (".mcp.json", ".mcp.local.json")
    assert (config.CODE_SOURCE, config.MAX_SECONDS) == ("<code>", 86400)


def test_import_loads_neither_jsonschema_nor_platformdirs() -> None:
    code = (
        "import sys, mcpnb.client.config; "
        "print([m for m in ('jsonschema', 'platformdirs') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_valid_config_is_checked_without_importing_jsonschema() -> None:
    """jsonschema can take seconds to import: only a config with a mistake pays for its wording."""
    code = (
        "import sys\n"
        "from mcpnb.client.config import ServerConfig\n"
        "ServerConfig.build('x', command='python', args=['-m', 'y'], env={'A': '1'}, tool_timeout=5)\n"
        "print('jsonschema' in sys.modules)\n"
        "try:\n"
        "    ServerConfig.build('x', command='python', tool_timeout='soon')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "ConfigError"]
