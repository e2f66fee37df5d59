"""Gemini CLI's ``settings.json`` (``~/.gemini/`` or a project's ``.gemini/``): its ``mcpServers``.

Named as a config file (``%mcp connect --config .gemini/settings.json``), a file in a ``.gemini``
folder is read as Gemini CLI reads it; everything else in it (themes, models, …) is left alone:

- JSON with comments, as Gemini CLI allows;
- ``httpUrl`` is a Streamable HTTP server and ``url`` an SSE one (``"type": "http"`` makes a ``url``
  Streamable HTTP too);
- ``timeout`` counts milliseconds (mcpnb's ``tool_timeout`` counts seconds);
- ``includeTools`` / ``excludeTools`` filter tools, and a tool in both is excluded;
- ``$VAR`` as well as ``${VAR}`` takes a value from the environment, and one that is not set stays
  as written (a ``$`` in a password is no variable); a relative ``cwd`` is in the project's folder
  (the one holding ``.gemini``);
- ``oauth`` (``clientId``, ``clientSecret``, ``scopes``) signs in through the browser; its endpoints
  are found from the server's metadata, as Gemini CLI does when they are not written;
- the top-level ``mcp.allowed`` / ``mcp.excluded`` lists say which servers may start: the others
  are disabled, as an ``"enabled": false`` entry is;
- ``trust`` (skip Gemini CLI's confirmations) and ``extensionName`` change nothing for calls a
  person runs from cells, and are left out (``description`` is kept: ``%mcp config`` shows it).
  Google's own sign-ins (``authProviderType`` ``google_credentials``,
  ``service_account_impersonation``) are refused, saying what to write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import escape, respell
from mcpnb.client.config.validate import Refused, kind, milliseconds, misspelt, strings
from mcpnb.client.errors import ConfigError

#: Gemini CLI keys that do not change how a server is reached or called from a cell.
IGNORED_KEYS = frozenset({"trust", "extensionName", "targetAudience", "targetServiceAccount"})
#: Every key of Gemini CLI's server entries: a near miss of one is that key misspelt.
GEMINI_KEYS = IGNORED_KEYS | {
    "command", "args", "env", "cwd", "url", "httpUrl", "type", "headers", "timeout", "description",
    "includeTools", "excludeTools", "oauth", "authProviderType",
}  # fmt: skip
#: ``oauth`` keys read: the rest (endpoints, redirect, audiences) are found from the server's metadata.
_OAUTH_KEYS = {"clientId": "client_id", "clientSecret": "client_secret"}
#: A reference as Gemini CLI finds one: ``$VAR`` or ``${VAR}`` (``${VAR:-default}`` in newer versions).
_REFERENCE = re.compile(r"\$(?:(\w+)|\{([^}]+)\})")


def is_gemini(path: Path) -> bool:
    """A file in a ``.gemini`` folder: Gemini CLI's settings (user or project)."""
    return path.resolve().parent.name == ".gemini"


def read_servers(data: Mapping[str, Any], path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """The file's ``mcpServers`` as mcpnb entries (``data`` has one, an object); an entry that cannot
    be read is :class:`Refused`: why, for that server alone."""
    file = str(path)
    allowed, excluded = _server_lists(data.get("mcp"), file)
    entries = {}
    for name, entry in data["mcpServers"].items():
        if not isinstance(entry, dict):
            entries[name] = entry  # the schema says what is wrong with it
            continue
        try:
            converted = _entry(name, entry, path, environ)
        except ConfigError as exc:
            entries[name] = Refused(exc, _reach(entry))
            continue
        if (allowed is not None and name not in allowed) or name in excluded:
            converted["enabled"] = False
        entries[name] = converted
    return entries


def _entry(name: str, entry: dict[str, Any], path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=str(path), server=name, key=key, suggestion=suggestion)

    def refs(value: Any) -> Any:
        return _references(value, environ)

    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key in IGNORED_KEYS:
            continue
        if key == "httpUrl":
            out["url"], out["type"] = refs(_string(value, fail, key)), "http"
        elif key == "url":
            out["url"] = refs(value)
            out.setdefault("type", "sse")  # Gemini CLI's url is SSE unless "type" says otherwise
        elif key == "type":
            out["type"] = value
        elif key == "timeout":
            out["tool_timeout"] = milliseconds(value, fail, key)
        elif key in ("includeTools", "excludeTools"):
            field = "enabled_tools" if key == "includeTools" else "disabled_tools"
            out[field] = strings(value, fail, key, "names")
        elif key == "oauth":
            auth = _oauth(refs(value), fail)
            if auth is not None:
                out["auth"] = auth
        elif key == "authProviderType":
            if value != "dynamic_discovery":
                raise fail(
                    f"{value!r} is Gemini CLI's own Google sign-in, which mcpnb does not do: give the token "
                    'as a header ("headers": {"Authorization": "Bearer ${TOKEN}"})',
                    key,
                )
        elif key == "cwd" and isinstance(value, str) and not _absolute(value):
            out["cwd"] = str(path.resolve().parent.parent / refs(value))  # the project's folder
        elif near := misspelt(key, GEMINI_KEYS):
            raise fail("unknown key", key, suggestion=near)  # Gemini CLI's spelling, not mcpnb's
        else:
            out[key] = refs(value)
    if "enabled_tools" in out and "disabled_tools" in out:  # excluded wins, as in Gemini CLI
        out["enabled_tools"] = [t for t in out["enabled_tools"] if t not in out["disabled_tools"]]
    return out


def _absolute(path: str) -> bool:
    """A ``cwd`` that does not start in the project's folder (``~`` and ``$VAR`` ones neither)."""
    return path.startswith("$") or Path(path).expanduser().is_absolute()


def _reach(entry: dict[str, Any]) -> dict[str, Any]:
    """How an entry is reached, in mcpnb's keys, as far as its transport keys say."""
    if "httpUrl" in entry:
        return {"url": entry["httpUrl"], "type": "http"}
    if "url" in entry:
        return {"url": entry["url"], "type": entry.get("type", "sse")}
    return {"command": entry["command"]} if "command" in entry else {}


def _server_lists(mcp: Any, file: str) -> tuple[set[str] | None, set[str]]:
    """``mcp.allowed`` (None: no list, all allowed) and ``mcp.excluded``."""
    if not isinstance(mcp, dict):
        return None, set()
    lists = []
    for key in ("allowed", "excluded"):
        value = mcp.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(
                f"expected a list of server names, got {kind(value)}", file=file, key=f"mcp.{key}"
            )
        lists.append(value)
    return (None if lists[0] is None else set(lists[0])), set(lists[1] or ())


def _oauth(value: Any, fail: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        raise fail(f"expected an object, got {kind(value)}", "oauth")
    if value.get("enabled") is False:
        return None
    auth: dict[str, Any] = {"type": "oauth", "flow": "authorization_code"}
    for key, field in _OAUTH_KEYS.items():
        if key in value:
            auth[field] = _string(value[key], fail, f"oauth.{key}")
    if "scopes" in value:
        auth["scope"] = " ".join(strings(value["scopes"], fail, "oauth.scopes", "names"))
    return auth


def _string(value: Any, fail: Any, key: str) -> str:
    if not isinstance(value, str):
        raise fail(f"expected a string, got {kind(value)}", key)
    return value


def _references(value: Any, environ: Mapping[str, str]) -> Any:
    """``value`` with Gemini CLI's references in mcpnb's spelling: ``$VAR`` and ``${VAR}`` of a set
    variable as ``${VAR}`` (mcpnb expands it, and knows a secret's value), of an unset one kept as
    written, as Gemini CLI keeps it; every other ``${`` literal."""

    def spell(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return "${" + name + "}" if name in environ or ":-" in name else escape(m.group(0))

    return respell(value, _REFERENCE, spell)
