"""Cursor's and Claude Code's ways to write a server's OAuth client, as mcpnb's ``auth``.

Both sign a person in with the authorization code flow, as ``auth: {"type": "oauth", "flow":
"authorization_code"}`` does here, and let a file name a client registered by hand:

- Cursor (``.cursor/mcp.json``): ``"auth": {"CLIENT_ID": ..., "CLIENT_SECRET": ..., "scopes": [...]}``;
- Claude Code (``.mcp.json``): ``"oauth": {"clientId": ..., "callbackPort": 8080, "scopes": "a b",
  "authServerMetadataUrl": ...}`` (its client secret stays in its keychain, never in the file).

Read in every file of the ``mcpServers`` format, since people paste one client's entry into
another's file. Whatever else such an entry says is checked by the schema as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcpnb.client.config.validate import Refused, each_entry, kind, strings
from mcpnb.client.errors import ConfigError, did_you_mean

#: Cursor's keys (its static OAuth client), and mcpnb's for each.
_CURSOR = {"CLIENT_ID": "client_id", "CLIENT_SECRET": "client_secret", "scopes": "scope"}
#: Claude Code's ``oauth`` keys, and the spelling mcpnb reads for each (``clientId`` is one of
#: mcpnb's own; ``authServerMetadataUrl`` becomes the ``issuer`` whose metadata it is).
_CLAUDE = {
    "clientId": "clientId",
    "callbackPort": "redirectPort",
    "scopes": "scope",
    "authServerMetadataUrl": "issuer",
}
#: Where RFC 8414 and OpenID Connect put an authorization server's metadata.
_WELL_KNOWN = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


def read_servers(servers: Mapping[str, Any], file: str) -> dict[str, Any]:
    """``servers`` with Cursor's and Claude Code's OAuth settings as mcpnb's ``auth``; an entry
    whose settings cannot be read that way is refused alone (:class:`Refused`)."""
    return each_entry(servers, lambda name, entry: _entry(name, entry, file), _reach)


def _reach(entry: Any) -> Mapping[str, Any]:
    return {k: entry[k] for k in ("url", "type", "command") if k in entry} if isinstance(entry, dict) else {}


def _entry(name: str, entry: dict[str, Any], file: str) -> dict[str, Any]:
    def fail(message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=file, server=name, key=key, suggestion=suggestion)

    auth = entry.get("auth")
    if "oauth" in entry:
        if "auth" in entry:
            raise fail("set twice, as 'auth' and 'oauth' (Claude Code's spelling): keep one", "oauth")
        return {**_without(entry, "oauth"), "auth": _claude(entry["oauth"], "oauth", fail)}
    if not isinstance(auth, dict) or auth.get("type", "oauth") != "oauth":
        return entry
    if {"CLIENT_ID", "CLIENT_SECRET"} & auth.keys():
        return {**entry, "auth": _cursor(auth, fail)}
    if {"callbackPort", "authServerMetadataUrl"} & auth.keys():  # Claude Code's, under auth
        return {**entry, "auth": _claude(auth, "auth", fail)}
    return entry


def _cursor(auth: dict[str, Any], fail: Any) -> dict[str, Any]:
    """Cursor's static client: the authorization code flow with a client registered by hand."""
    out: dict[str, Any] = {"type": "oauth", "flow": "authorization_code"}
    for key, value in auth.items():
        ours = _CURSOR.get(key, key)
        if ours in out and key not in ("type", "flow"):
            raise fail(f"set twice, as {ours!r} and {key!r} (Cursor's spelling): keep one", f"auth.{key}")
        if key == "scopes":
            value = " ".join(strings(value, lambda m, k: fail(m, f"auth.{k}"), key, "scope names"))
        out[ours] = value
    return out


def _claude(raw: Any, at: str, fail: Any) -> dict[str, Any]:
    """Claude Code's ``oauth`` object (or its keys under ``auth``)."""
    if not isinstance(raw, dict):
        raise fail(f"expected an object with the OAuth client's settings, got {kind(raw)}", at)
    out: dict[str, Any] = {"type": "oauth", "flow": "authorization_code"}
    for key, value in raw.items():
        if at == "oauth" and key not in _CLAUDE:
            raise fail(
                f"unknown key of Claude Code's oauth (it has {', '.join(_CLAUDE)})",
                f"oauth.{key}",
                suggestion=did_you_mean(key, _CLAUDE),
            )
        if key == "authServerMetadataUrl":
            value = _issuer_of(value, f"{at}.{key}", fail)
        elif key == "scopes" and not isinstance(value, str):
            raise fail(
                f"expected the scopes as one string, space-separated, got {kind(value)}", f"{at}.{key}"
            )
        ours = _CLAUDE.get(key, key)
        if ours in out and key not in ("type", "flow"):
            raise fail(
                f"set twice, as {ours!r} and {key!r} (Claude Code's spelling): keep one", f"{at}.{key}"
            )
        out[ours] = value
    return out


def _issuer_of(url: Any, at: str, fail: Any) -> str:
    """The issuer whose metadata ``url`` is (RFC 8414 §3: the well-known path goes between the host
    and the issuer's own path; OpenID Connect's may follow it). mcpnb finds the metadata from the
    issuer, and signs in only there."""
    if isinstance(url, str):
        parts = urlsplit(url)
        for well_known in _WELL_KNOWN:
            before, found, after = parts.path.partition(well_known)
            if found and parts.scheme in ("http", "https") and parts.netloc and not (before and after):
                return urlunsplit((parts.scheme, parts.netloc, (before or after).rstrip("/"), "", ""))
    raise fail(
        "expected the address of an authorization server's metadata (…/.well-known/"
        "oauth-authorization-server or …/.well-known/openid-configuration): mcpnb takes the "
        "authorization server as auth.issuer, its https:// address, and finds the metadata there",
        at,
    )


def _without(entry: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != key}


__all__ = ["Refused", "read_servers"]
