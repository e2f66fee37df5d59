"""Cline's ``cline_mcp_settings.json`` (in VS Code's storage for the extension, ``…/globalStorage/
saoudrizwan.claude-dev/settings/``): its ``mcpServers``, read as Cline reads them.

Named as a config file (``%mcp connect --config …/cline_mcp_settings.json``), the file is mostly
mcpnb's format already (``command``, ``args``, ``cwd``, ``env``, ``url``, ``headers``, ``type``); the
rest, from Cline's own schema:

- a ``url`` without a ``type`` is an SSE server, as Cline reads it (its older entries); ``"type":
  "streamableHttp"`` makes it Streamable HTTP; ``transportType`` (``stdio``, ``sse``, ``http``) is
  the older spelling of ``type``;
- ``"disabled": true`` leaves the server off, as ``"enabled": false`` does;
- ``timeout`` counts the seconds a tool call may take (Cline's "network timeout"): mcpnb's
  ``tool_timeout``;
- values are taken as written: Cline expands no ``${VAR}``, so neither does a value from this file;
- a server that runs a command ignores a ``url`` and ``headers`` written beside it, and one reached at
  a URL ignores ``command``, ``args`` and ``env``, as Cline does;
- ``autoApprove`` (tools Cline runs without asking its user) changes nothing for calls a person runs
  from cells, and is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import literal
from mcpnb.client.config.validate import boolean, each_entry, misspelt, seconds
from mcpnb.client.errors import ConfigError

FILENAME = "cline_mcp_settings.json"
#: Cline keys that do not change how a server is reached or called from a cell.
IGNORED_KEYS = frozenset({"autoApprove"})
#: Every key of Cline's server entries: a near miss of one is that key misspelt.
CLINE_KEYS = IGNORED_KEYS | {
    "command", "args", "cwd", "env", "url", "headers", "type", "transportType", "disabled", "timeout",
}  # fmt: skip
#: What a server run as a command and one reached at a URL keep of those keys.
_STDIO_KEYS = frozenset({"args", "cwd", "env"})
_URL_KEYS = frozenset({"url", "headers"})
#: ``transportType`` values (Cline's older key) as ``type`` values.
_OLD_TYPES = {"stdio": "stdio", "sse": "sse", "http": "streamableHttp"}


def is_cline(path: Path) -> bool:
    """Cline's settings file, known by its name (it lives in the editor's storage, not a project)."""
    return path.name == FILENAME


def read_servers(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The file's ``mcpServers`` as mcpnb entries (``data`` has one, an object); an entry that cannot
    be read is refused, for that server alone."""
    return each_entry(data["mcpServers"], lambda name, entry: _entry(name, entry, path), _reach)


def _entry(name: str, entry: dict[str, Any], path: Path) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=str(path), server=name, key=key, suggestion=suggestion)

    out = _reach(entry, fail)
    kept = _STDIO_KEYS if "command" in out else _URL_KEYS  # the others Cline lets stand, unused
    for key, value in entry.items():
        if key == "disabled":
            out["enabled"] = not boolean(value, fail, key)
        elif key == "timeout":
            out["tool_timeout"] = seconds(value, fail, key)
        elif key in CLINE_KEYS:
            if key in kept:
                out[key] = literal(value)
        elif near := misspelt(key, CLINE_KEYS):
            raise fail("unknown key", key, suggestion=near)  # Cline's spelling, not mcpnb's
        else:
            out[key] = literal(value)  # one of mcpnb's own keys
    return out


def _reach(entry: dict[str, Any], fail: Any = None) -> dict[str, Any]:
    """How the entry is reached, in mcpnb's keys: a command, or a URL with the transport Cline gives
    it (a ``url`` alone is SSE)."""
    transport = entry.get("type")
    old = entry.get("transportType")
    if transport is None and old is not None:
        transport = _OLD_TYPES.get(old) if isinstance(old, str) else None
        if transport is None and fail is not None:
            raise fail(f"expected one of {', '.join(map(repr, _OLD_TYPES))}, got {old!r}", "transportType")
    if "command" in entry and transport in (None, "stdio"):
        return {"command": literal(entry["command"])}
    reach = {"type": transport or ("sse" if "url" in entry else "stdio")}
    if "url" in entry:
        reach["url"] = literal(entry["url"])
    return reach
