"""Roo Code's (and Kilo Code's, its fork) MCP files: a project's ``.roo/mcp.json`` (``.kilocode/``)
and the editor-wide ``mcp_settings.json``; their ``mcpServers``, read as Roo Code reads them.

Named as a config file, an entry is mostly mcpnb's format (``command``, ``args``, ``cwd``, ``env``,
``url``, ``headers``); the rest, from Roo Code's own schema:

- ``type`` is ``stdio``, ``sse`` or ``streamable-http``; a ``url`` needs one (Roo Code refuses a url
  without it), and an entry with both a ``command`` and a ``url`` is refused, as there;
- ``"disabled": true`` leaves the server off; ``disabledTools`` hides those tools;
- ``timeout`` counts the seconds a tool call may take (1 to 3600): mcpnb's ``tool_timeout``;
- ``${env:NAME}`` is the variable's value (one that is not set stays as written, as in Roo Code),
  ``${workspaceFolder}`` the project's folder (the one holding ``.roo``; for the editor-wide file,
  the working directory); nothing else is expanded;
- ``alwaysAllow`` (tools run without asking Roo Code's user) and ``watchPaths`` (restart on change)
  change nothing for calls a person runs from cells, and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import escape, literal, respell
from mcpnb.client.config.validate import boolean, each_entry, misspelt, seconds, strings
from mcpnb.client.errors import ConfigError

PROJECT_FOLDERS = (".roo", ".kilocode")
EDITOR_FILE = "mcp_settings.json"
#: Roo Code keys that do not change how a server is reached or called from a cell.
IGNORED_KEYS = frozenset({"alwaysAllow", "watchPaths"})
#: Every key of Roo Code's server entries: a near miss of one is that key misspelt.
ROO_KEYS = IGNORED_KEYS | {
    "command", "args", "cwd", "env", "url", "headers", "type", "disabled", "timeout", "disabledTools",
}  # fmt: skip
_TYPES = {"stdio": "stdio", "sse": "sse", "streamable-http": "http"}
_VARIABLE = re.compile(r"\$\{(?:env:(\w+)|(workspaceFolder))\}")


def is_roo(path: Path) -> bool:
    """A project's ``.roo/mcp.json`` (or ``.kilocode/``), or the editor-wide ``mcp_settings.json``."""
    return path.name == EDITOR_FILE or (
        path.name == "mcp.json" and path.resolve().parent.name in PROJECT_FOLDERS
    )


def read_servers(data: Mapping[str, Any], path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """The file's ``mcpServers`` as mcpnb entries (``data`` has one, an object); an entry that cannot
    be read is refused, for that server alone."""
    folder = path.resolve().parent
    workspace = folder.parent if folder.name in PROJECT_FOLDERS else Path.cwd()
    variables = _Variables(environ, workspace)
    return each_entry(data["mcpServers"], lambda name, entry: _entry(name, entry, path, variables), _reach)


def _reach(entry: dict[str, Any]) -> dict[str, Any]:
    """How a refused entry is reached, for its status row."""
    if "url" not in entry:
        return {"command": entry.get("command")}
    written = entry.get("type")
    return {"url": entry["url"], "type": _TYPES.get(written, "http") if isinstance(written, str) else "http"}


class _Variables:
    """Roo Code's ``${env:NAME}`` and ``${workspaceFolder}`` in mcpnb's spelling."""

    def __init__(self, environ: Mapping[str, str], workspace: Path) -> None:
        self.environ, self.workspace = environ, workspace

    def __call__(self, value: Any) -> Any:
        return respell(value, _VARIABLE, self._spell)

    def _spell(self, m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None:
            return escape(str(self.workspace))
        # set: mcpnb expands it (and knows a secret's value); unset: kept as written, as in Roo Code
        return "${" + name + "}" if name in self.environ else escape(m.group(0))


def _entry(name: str, entry: dict[str, Any], path: Path, variables: _Variables) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=str(path), server=name, key=key, suggestion=suggestion)

    if "command" in entry and "url" in entry:
        raise fail("an entry has a 'command' or a 'url', not both (Roo Code refuses both)", "url")
    written = entry.get("type", "stdio" if "command" in entry else None)
    if written is None:
        raise fail("a 'url' needs a 'type': 'sse' or 'streamable-http', as Roo Code requires", "type")
    if not isinstance(written, str) or written not in _TYPES:
        raise fail(f"expected one of {', '.join(map(repr, _TYPES))}, got {written!r}", "type")
    out: dict[str, Any] = {"type": _TYPES[written]}
    for key, value in entry.items():
        if key in IGNORED_KEYS or key == "type":
            continue
        if key == "disabled":
            out["enabled"] = not boolean(value, fail, key)
        elif key == "timeout":
            out["tool_timeout"] = seconds(value, fail, key, most=3600)
        elif key == "disabledTools":
            out["disabled_tools"] = strings(value, fail, key, "names")
        elif key == "cwd" and isinstance(value, str) and not value.startswith("${"):
            out["cwd"] = escape(str(variables.workspace / value))  # relative: from the project's folder
        elif near := misspelt(key, ROO_KEYS):
            raise fail("unknown key", key, suggestion=near)  # Roo Code's spelling, not mcpnb's
        else:
            out[key] = variables(value) if key in ROO_KEYS else literal(value)
    return out
