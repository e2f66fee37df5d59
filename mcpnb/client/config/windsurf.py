"""Windsurf's ``mcp_config.json`` (``~/.codeium/windsurf/``, once ``~/.codeium/``): its
``mcpServers``, read as Windsurf reads them.

Named as a config file (``%mcp connect --config ~/.codeium/windsurf/mcp_config.json``), an entry is
mostly mcpnb's format (``command``, ``args``, ``env``, ``url``, ``headers``); the rest, from
Windsurf's documentation:

- a remote server is at ``serverUrl`` (or ``url``); which transport it speaks is found out as for
  any URL without a ``type`` (Windsurf speaks Streamable HTTP and SSE);
- ``${env:NAME}`` in ``command``, ``args``, ``env``, ``serverUrl``, ``url`` and ``headers`` is the
  variable's value (one that is not set is an error that names it); nothing else is expanded, and
  other fields are taken as written;
- ``"disabled": true`` leaves the server off; ``disabledTools`` hides those tools.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import literal, respell
from mcpnb.client.config.validate import boolean, each_entry, misspelt, strings
from mcpnb.client.errors import ConfigError

FILENAME = "mcp_config.json"
#: The fields Windsurf interpolates ``${env:NAME}`` in.
INTERPOLATED = frozenset({"command", "args", "env", "serverUrl", "url", "headers"})
#: Every key of Windsurf's server entries: a near miss of one is that key misspelt.
WINDSURF_KEYS = INTERPOLATED | {"disabled", "disabledTools"}
_VARIABLE = re.compile(r"\$\{env:(\w+)\}")


def is_windsurf(path: Path) -> bool:
    """Windsurf's file, known by its name (it lives in ``~/.codeium``, not in a project)."""
    return path.name == FILENAME


def read_servers(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The file's ``mcpServers`` as mcpnb entries (``data`` has one, an object); an entry that cannot
    be read is refused, for that server alone."""
    return each_entry(data["mcpServers"], lambda name, entry: _entry(name, entry, path), _reach)


def _reach(entry: dict[str, Any]) -> dict[str, Any]:
    """How a refused entry is reached, for its status row."""
    url = entry.get("serverUrl", entry.get("url"))
    return {"url": url} if url is not None else {"command": entry.get("command")}


def _spell(m: re.Match[str]) -> str:
    return "${" + m.group(1) + "}"  # mcpnb expands it, knows a secret's value, names an unset one


def _entry(name: str, entry: dict[str, Any], path: Path) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=str(path), server=name, key=key, suggestion=suggestion)

    if "serverUrl" in entry and "url" in entry:
        raise fail("an entry has a 'serverUrl' or a 'url', not both", "url")
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key == "disabled":
            out["enabled"] = not boolean(value, fail, key)
        elif key == "disabledTools":
            out["disabled_tools"] = strings(value, fail, key, "names")
        elif key in INTERPOLATED:
            out["url" if key == "serverUrl" else key] = respell(value, _VARIABLE, _spell)
        elif near := misspelt(key, WINDSURF_KEYS):
            raise fail("unknown key", key, suggestion=near)  # Windsurf's spelling, not mcpnb's
        else:
            out[key] = literal(value)
    return out
