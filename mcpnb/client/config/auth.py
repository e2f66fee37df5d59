"""``AuthConfig``: how to authenticate to an HTTP/SSE server, and the secrets that produces."""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from mcpnb.client.config.frozen import is_default
from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.redact import REDACTED

_SECRET_FIELDS = ("token", "password", "client_secret")
_WHERE_FIELDS = ("server_name", "source")


@dataclass(frozen=True, eq=True, repr=False)
class AuthConfig:
    """How to authenticate to an HTTP/SSE server. Secrets may stay in the environment (``*_env``)
    until connect time, so a saved notebook or committed file never has to hold them."""

    type: Literal["bearer", "basic", "oauth"]
    token: str | None = None
    token_env: str | None = None
    username: str | None = None
    password: str | None = None
    password_env: str | None = None
    flow: Literal["client_credentials", "authorization_code"] = "client_credentials"
    client_id: str | None = None
    client_secret: str | None = None
    client_secret_env: str | None = None
    scope: str | None = None
    # a URL-based client id (a Client ID Metadata Document): used where the authorization server
    # supports it, instead of registering a client
    client_metadata_url: str | None = None
    # a fixed loopback port for the sign-in redirect (http://127.0.0.1:PORT/callback), for a client
    # registered by hand where the authorization server wants that exact address
    redirect_port: int | None = None
    token_storage: Literal["memory", "file"] = "memory"
    # Where this auth belongs, so resolve_* errors can say which server and file need fixing.
    server_name: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False)

    def _from_env(
        self, value: str | None, var: str | None, key: str, environ: Mapping[str, str] | None
    ) -> str:
        if value:
            return value
        env = os.environ if environ is None else environ
        if not var:
            raise ConfigError(
                f"{self.type} auth needs {key!r} or {key + '_env'!r}",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}",
            )
        resolved = env.get(var)
        if not resolved:
            state = "is empty" if resolved == "" else "is not set"
            raise ConfigError(
                f"environment variable {var!r} {state} (it should hold the {key})",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}_env",
                suggestion=did_you_mean(var, env),
            )
        return resolved

    def resolve_token(self, environ: Mapping[str, str] | None = None) -> str:
        """The bearer token, read from the environment at the last moment so rotation just works."""
        if self.type != "bearer":
            raise ConfigError(
                f"auth type {self.type!r} has no static token",
                file=self.source,
                server=self.server_name,
                key="auth",
            )
        return self._from_env(self.token, self.token_env, "token", environ)

    def resolve_password(self, environ: Mapping[str, str] | None = None) -> str:
        """The basic-auth password (from ``password`` or ``password_env``)."""
        return self._from_env(self.password, self.password_env, "password", environ)

    def resolve_client_secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The OAuth client secret; ``None`` for a public client (authorization code without a secret)."""
        if not self.client_secret and not self.client_secret_env and self.flow == "authorization_code":
            return None
        return self._from_env(self.client_secret, self.client_secret_env, "client_secret", environ)

    def secrets(self) -> set[str]:
        """Every secret value this auth can produce now, best effort: never raises (used while reporting)."""
        found: set[str] = set()
        for key in _SECRET_FIELDS:
            value, var = getattr(self, key), getattr(self, f"{key}_env")
            if value:
                found.add(value)
            if var and os.environ.get(var):
                found.add(os.environ[var])
        if self.type == "basic":
            password = self.password or (os.environ.get(self.password_env) if self.password_env else None)
            if password:  # the header carries base64("user:password"), which a log line may show
                found.add(base64.b64encode(f"{self.username or ''}:{password}".encode()).decode())
        return found

    def _settings(self) -> dict[str, Any]:
        """The fields that differ from their defaults (``type`` always), as a ``.mcp.json`` would say them."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in _WHERE_FIELDS and not is_default(f, getattr(self, f.name))
        }

    def redacted(self) -> dict[str, Any]:
        """A JSON-able view for display: secret values replaced, variable names kept (they help debugging)."""
        shown = {k: v for k, v in self._settings().items() if k != "type" and v is not None}
        return {"type": self.type} | {k: REDACTED if k in _SECRET_FIELDS else v for k, v in shown.items()}

    def __repr__(self) -> str:
        return "AuthConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__
