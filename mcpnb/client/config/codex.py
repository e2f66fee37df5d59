"""Codex's ``config.toml`` (``~/.codex/`` or a project's ``.codex/``): its ``[mcp_servers.NAME]``.

Named as a config file (``%mcp connect --config ~/.codex/config.toml``; any ``.toml`` file), it is
read as Codex reads it; the rest of the file (models, profiles, …) is left alone. Codex's keys are
mostly mcpnb's already (``command``, ``args``, ``env``, ``cwd``, ``url``, ``enabled``,
``enabled_tools``, ``disabled_tools``, ``startup_timeout_sec``, ``tool_timeout_sec``); the others:

- values are taken as written: Codex expands no ``${VAR}``, so neither does a value from this file;
- ``url`` is a Streamable HTTP server (Codex has no SSE);
- ``env_vars`` lists variables passed on from the environment, ``env_http_headers`` maps a header
  to the variable that holds its value, ``bearer_token_env_var`` names the variable that holds the
  token: read when the server starts, so the secret stays out of the file and the notebook; a
  variable that is not set is not passed on (no header), as in Codex;
- ``http_headers`` are the headers, ``startup_timeout_ms`` is milliseconds;
- ``scopes`` sign in with OAuth in the browser (Codex's ``codex mcp login``);
- a tool both enabled and disabled is disabled;
- ``required``, ``tools`` (per-tool approval), ``oauth_resource`` and the experimental keys change
  nothing for calls a person runs from cells, and are left out. An inline ``bearer_token`` is
  refused, as Codex refuses it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import escape, literal
from mcpnb.client.config.validate import Refused, kind, milliseconds, misspelt, read_text, strings
from mcpnb.client.errors import ConfigError, did_you_mean

#: Codex keys that do not change how a server is reached or called from a cell.
IGNORED_KEYS = frozenset(
    {"required", "tools", "oauth_resource", "experimental_environment", "experimental_use_rmcp_client"}
)
#: Every key of Codex's server tables: a near miss of one is that key misspelt.
CODEX_KEYS = IGNORED_KEYS | {
    "command", "args", "env", "env_vars", "cwd", "url", "http_headers", "env_http_headers",
    "bearer_token", "bearer_token_env_var", "startup_timeout_sec", "startup_timeout_ms",
    "tool_timeout_sec", "enabled", "enabled_tools", "disabled_tools", "scopes",
}  # fmt: skip
#: Keys that hold names of environment variables.
_VARIABLE_KEYS = ("env_vars", "env_http_headers", "bearer_token_env_var")


def is_codex(path: Path) -> bool:
    """A ``.toml`` file: Codex's is the one MCP client config written in TOML."""
    return path.suffix == ".toml"


def read_toml(path: Path) -> dict[str, Any]:
    """The file as TOML, with a located message for a syntax error."""
    file = str(path)
    try:
        return tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=file) from None


def read_servers(data: Mapping[str, Any], path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """``[mcp_servers.*]`` as mcpnb entries (one that cannot be read: :class:`Refused`, saying why);
    ``environ`` says which listed variables are set."""
    file = str(path)
    if "mcp_servers" not in data:
        near = did_you_mean("mcp_servers", [k for k in data if "server" in k.lower() or "mcp" in k.lower()])
        raise ConfigError(
            "no [mcp_servers.NAME] table: Codex's servers go under 'mcp_servers'"
            + (f" (this file has {near!r})" if near else ""),
            file=file,
        )
    servers = data["mcp_servers"]
    if not isinstance(servers, dict):
        raise ConfigError(f"expected a table of servers, got {kind(servers)}", file=file, key="mcp_servers")
    entries: dict[str, Any] = {}
    for name, entry in servers.items():
        try:
            entries[name] = _entry(name, entry, path, environ) if isinstance(entry, dict) else entry
        except ConfigError as exc:  # that server's alone: parse() raises it where entries are checked
            reach = (
                {"url": entry["url"], "type": "http"} if "url" in entry else {"command": entry.get("command")}
            )
            entries[name] = Refused(exc, reach)
    return entries


def _entry(name: str, entry: dict[str, Any], path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=str(path), server=name, key=key, suggestion=suggestion)

    out: dict[str, Any] = {}
    forwarded: dict[str, str] = {}  # env_vars: the variables passed on from the environment
    env: dict[str, str] = {}
    headers: dict[str, str] = {}
    from_env: dict[str, str] = {}  # env_http_headers: over the written ones, as in Codex
    scopes: list[str] | None = None
    for key, value in entry.items():
        if key in IGNORED_KEYS:
            continue
        if key == "bearer_token":
            raise fail(
                "a token written in the file is refused (Codex refuses it too): put it in an environment "
                "variable and name it with bearer_token_env_var",
                key,
            )
        if key in _VARIABLE_KEYS:
            _variables(key, value, fail, environ, forwarded, from_env, out)
        elif key == "url":
            out["url"], out["type"] = literal(value), "http"
        elif key == "scopes":
            scopes = strings(value, fail, key, "scopes")
        elif key == "env":
            env.update(_table(value, fail, key))
        elif key == "http_headers":
            headers.update(_table(value, fail, key))
        elif key == "startup_timeout_ms":
            out["startup_timeout"] = milliseconds(value, fail, key)
        elif key == "cwd" and isinstance(value, str) and not Path(value).expanduser().is_absolute():
            out["cwd"] = escape(str(_project(path) / value))
        elif near := misspelt(key, CODEX_KEYS):
            raise fail("unknown key", key, suggestion=near)  # Codex's spelling, not mcpnb's
        else:
            out[key] = literal(value)
    if forwarded or env:
        out["env"] = {**forwarded, **env}
    if scopes is not None and "auth" not in out:  # a bearer token, when given, is what Codex sends
        out["auth"] = {"type": "oauth", "flow": "authorization_code", "scope": " ".join(scopes)}
    if headers or from_env:
        out["headers"] = {**headers, **from_env}
    disabled = out.get("disabled_tools")
    if isinstance(out.get("enabled_tools"), list) and isinstance(disabled, list):
        out["enabled_tools"] = [t for t in out["enabled_tools"] if t not in disabled]
    return out


def _variables(
    key: str,
    value: Any,
    fail: Any,
    environ: Mapping[str, str],
    env: dict[str, str],
    headers: dict[str, str],
    out: dict[str, Any],
) -> None:
    """The keys that name environment variables, as ``${NAME}`` references read at connect time."""
    if key == "bearer_token_env_var":
        if not isinstance(value, str) or not value:
            raise fail(f"expected the name of an environment variable, got {kind(value)}", key)
        out["auth"] = {"type": "bearer", "token_env": value}
    elif key == "env_vars":
        if not isinstance(value, list):
            raise fail(f"expected a list of variable names, got {kind(value)}", key)
        for item in value:
            name = item.get("name") if isinstance(item, dict) else item
            if not isinstance(name, str) or not name:
                raise fail(f'expected a variable name or {{name = "..."}}, got {kind(item)}', key)
            if name in environ:
                env[name] = "${" + name + "}"
    else:
        for header, variable in _table(value, fail, key, escaped=False).items():
            if environ.get(variable, "").strip():
                headers[header] = "${" + variable + "}"


def _table(value: Any, fail: Any, key: str, *, escaped: bool = True) -> dict[str, str]:
    if not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        raise fail(f"expected a table of strings, got {kind(value)}", key)
    return {k: escape(v) if escaped else v for k, v in value.items()}


def _project(path: Path) -> Path:
    """Where a relative ``cwd`` starts: the folder holding ``.codex``, else the file's own folder."""
    folder = path.resolve().parent
    return folder.parent if folder.name == ".codex" else folder
