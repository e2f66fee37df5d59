"""Spellings: every accepted key and transport name, mapped to the one field name it sets.

Files written for other MCP clients say ``startupTimeoutSec`` or ``type`` where mcpnb's fields are
``startup_timeout`` and ``transport``; both spellings are accepted (the schema lists each one), and
errors quote the spelling the user actually wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from mcpnb.client.errors import ConfigError

Transport = Literal["stdio", "http", "sse", "inprocess"]
Era = Literal["auto", "legacy", "modern"]

TRANSPORTS: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "sse": "sse",
    "inprocess": "inprocess",
}
# Other spellings -> field names. Everything else is spelled as the field.
ALIASES: dict[str, str] = {
    "type": "transport",
    "startupTimeoutSec": "startup_timeout",
    "startup_timeout_sec": "startup_timeout",
    "toolTimeoutSec": "tool_timeout",
    "tool_timeout_sec": "tool_timeout",
    "maxTotalTimeoutSec": "max_total_timeout",
    "max_total_timeout_sec": "max_total_timeout",
    "enabledTools": "enabled_tools",
    "disabledTools": "disabled_tools",
    "maxRetries": "max_retries",
    "retryDelay": "retry_delay",
    "healthCheckInterval": "health_check_interval",
    "cacheTtl": "cache_ttl",
}
AUTH_ALIASES: dict[str, str] = {
    "tokenEnv": "token_env",
    "passwordEnv": "password_env",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "clientSecretEnv": "client_secret_env",
    "tokenStorage": "token_storage",
    "clientMetadataUrl": "client_metadata_url",
    "redirectPort": "redirect_port",
    "assumePkce": "assume_pkce",
    "privateKey": "private_key",
    "privateKeyEnv": "private_key_env",
    "privateKeyFile": "private_key_file",
    "signingAlgorithm": "signing_algorithm",
    "keyId": "key_id",
    "idToken": "id_token",
    "idTokenEnv": "id_token_env",
    "idTokenFile": "id_token_file",
    "idpIssuer": "idp_issuer",
    "idpTokenEndpoint": "idp_token_endpoint",
    "idpClientId": "idp_client_id",
    "assertionEnv": "assertion_env",
    "assertionFile": "assertion_file",
    "idpClientSecret": "idp_client_secret",
    "idpClientSecretEnv": "idp_client_secret_env",
}
#: ``tls``'s own spellings (the client certificate, mutual TLS).
TLS_ALIASES: dict[str, str] = {"passwordEnv": "password_env"}
# The original plan's .mcp.json format (shared with other MCP clients) counts these camelCase time keys
# in milliseconds; every snake_case key and every ``...Sec`` spelling is in seconds.
MILLISECOND_KEYS: dict[str, str] = {
    "retryDelay": "retry_delay",
    "healthCheckInterval": "health_check_interval",
    "cacheTtl": "cache_ttl",
}
# Keys that say "this is how to reach the server": a later layer naming one replaces all of these.
TRANSPORT_NAMING = frozenset({"command", "url", "transport"})
TRANSPORT_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "transport"})
# Auth fields taken as written, never ``${VAR}``-expanded: the ``*_env`` ones hold names of variables
# (expanding would put the secret where names are shown), the others are choices from a list or numbers.
AUTH_VERBATIM = frozenset(
    {
        "token_env",
        "password_env",
        "client_secret_env",
        "private_key_env",
        "id_token_env",
        "idp_client_secret_env",
        "assertion_env",
        "type",
        "flow",
        "token_storage",
        "redirect_port",
        "assume_pkce",
        "signing_algorithm",
    }
)


def canonical(
    name: str, entry: Mapping[str, Any], source: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Field names for every spelling, and how each was spelled (``auth.x`` for auth fields).
    Two spellings of one setting in one entry is an error. ``entry`` has passed the schema."""
    canon: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for raw, value in entry.items():
        key = ALIASES.get(raw, raw)
        if key in canon:
            raise ConfigError(
                f"set twice, as {spelled[key]!r} and {raw!r}", file=source, server=name, key=raw
            )
        if key == "transport":
            value = TRANSPORTS[value]
        elif key in _NESTED:
            value = _nested(raw, key, value, name, source, spelled)
        canon[key] = value
        spelled[key] = raw
    return canon, spelled


#: The settings that are tables of their own, with their own spellings.
_NESTED: dict[str, dict[str, str]] = {"auth": AUTH_ALIASES, "tls": TLS_ALIASES}


def _nested(
    raw: str, key: str, table: Mapping[str, Any], name: str, source: str | None, spelled: dict[str, str]
) -> dict[str, Any]:
    """``auth``'s or ``tls``'s own spellings, as :func:`canonical` for the entry (``spelled`` says
    ``auth.x``/``tls.x`` as written, ``raw`` being how the table itself was spelled)."""
    aliases = _NESTED[key]
    canon: dict[str, Any] = {}
    for inner_raw, value in table.items():
        inner = aliases.get(inner_raw, inner_raw)
        if inner in canon:
            raise ConfigError(
                f"set twice, as {spelled[f'{key}.{inner}']!r} and {f'{raw}.{inner_raw}'!r}",
                file=source,
                server=name,
                key=f"{raw}.{inner_raw}",
            )
        canon[inner] = value
        spelled[f"{key}.{inner}"] = f"{raw}.{inner_raw}"
    return canon
