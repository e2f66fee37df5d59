"""``AuthConfig``: how to authenticate to an HTTP/SSE server, and the secrets that produces."""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal
from urllib.parse import urlsplit

from mcpnb.client.config.frozen import is_default
from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.redact import REDACTED, is_secret_key, url_secrets

#: What each kind of private key signs with (``private_key_jwt``), first the one a key of that kind
#: is taken to mean: :mod:`mcpnb.client.auth.keys` signs, the config checks names against these.
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "RSA": ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
    "P-256": ("ES256",),
    "P-384": ("ES384",),
    "P-521": ("ES512",),
    "Ed25519": ("EdDSA",),
}
SIGNING_ALGORITHMS: tuple[str, ...] = tuple(alg for algs in ALGORITHMS.values() for alg in algs)

_SECRET_FIELDS = (
    "token", "password", "client_secret", "private_key", "id_token", "idp_client_secret", "assertion"
)  # fmt: skip
_SECRET_FILES = ("private_key_file", "id_token_file", "assertion_file")
_WHERE_FIELDS = ("server_name", "source")


def env_value(var: str, env: Mapping[str, str], what: str, **where: Any) -> str:
    """The value of the environment variable ``var``, which holds ``what`` (a secret, read at the last
    moment so rotation just works); unset, empty or blank is a :class:`ConfigError` at ``where``
    (``file``, ``server``, ``key``), with the variable it may have meant when it is not set. The line
    endings around the value are not part of it: a token set from a file saved on Windows
    (``TOKEN=$(cat token.txt)``, ``docker --env-file``) ends in ``\\r``, and the request carrying it
    failed with "Illegal header value". Shared by ``auth`` and ``tls``."""
    resolved = env.get(var)
    if resolved is None:
        raise ConfigError(
            f"environment variable {var!r} is not set (it should hold the {what})",
            suggestion=did_you_mean(var, [name for name in env if name != var]),
            **where,
        )
    if not resolved.strip():
        state = "is empty" if resolved == "" else "holds only spaces"
        raise ConfigError(f"environment variable {var!r} {state} (it should hold the {what})", **where)
    return resolved.strip("\r\n")


def settings_of(config: Any) -> dict[str, Any]:
    """A config dataclass's fields that differ from their defaults, as a ``.mcp.json`` would say
    them: not where it belongs (``server_name``, ``source``). Shared by ``auth`` and ``tls``."""
    return {
        f.name: getattr(config, f.name)
        for f in fields(config)
        if f.name not in _WHERE_FIELDS and not is_default(f, getattr(config, f.name))
    }


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
    flow: Literal["client_credentials", "authorization_code", "identity_assertion", "jwt_bearer"] = (
        "client_credentials"
    )
    client_id: str | None = None
    client_secret: str | None = None
    client_secret_env: str | None = None
    # client_credentials with private_key_jwt instead of a secret: a PEM private key, in a file
    # (the usual way), a variable, or the config itself; the algorithm follows from the key
    private_key: str | None = None
    private_key_env: str | None = None
    private_key_file: str | None = None
    signing_algorithm: str | None = None
    key_id: str | None = None  # the JWT's "kid", for a server that holds several keys of this client
    # identity_assertion (SEP-990, enterprise-managed): the person's ID token from the company's
    # identity provider, exchanged there (RFC 8693) for a grant the MCP authorization server takes;
    # read at each exchange, so a refreshed token file or variable just works. None given: the
    # person signs in at the identity provider for one (redirect_port as for authorization_code)
    id_token: str | None = None
    id_token_env: str | None = None
    id_token_file: str | None = None
    idp_issuer: str | None = None  # its token endpoint found from its metadata, or given:
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None  # this client at the identity provider (the ID token's audience)
    idp_client_secret: str | None = None
    idp_client_secret_env: str | None = None
    # jwt_bearer (workload identity federation, SEP-1933): a JWT the workload's platform issued (a
    # Kubernetes service account token, a CI job's OIDC token) presented as the grant itself (RFC
    # 7523); read at each exchange, so the file the platform rotates just works
    assertion: str | None = None
    assertion_env: str | None = None
    assertion_file: str | None = None
    scope: str | None = None
    # the authorization server this client belongs to (its RFC 8414 issuer identifier): secrets,
    # assertions and sign-ins go there only, not wherever the MCP server's metadata points
    issuer: str | None = None
    # a URL-based client id (a Client ID Metadata Document): used where the authorization server
    # supports it, instead of registering a client
    client_metadata_url: str | None = None
    # a fixed loopback port for the sign-in redirect (http://127.0.0.1:PORT/callback), for a client
    # registered by hand where the authorization server wants that exact address
    redirect_port: int | None = None
    # authorization_code: sign in where the authorization server's metadata leaves out
    # code_challenge_methods_supported, taking PKCE with S256 on the person's word (Microsoft Entra
    # ID supports it without saying so); MCP says to refuse such a server, so this is never the default
    assume_pkce: bool = False
    token_storage: Literal["memory", "file"] = "memory"
    # Where this auth belongs, so resolve_* errors can say which server and file need fixing.
    server_name: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False)

    def _from_env(
        self, value: str | None, var: str | None, key: str, environ: Mapping[str, str] | None
    ) -> str:
        if value:
            return value.strip("\r\n")  # "${TOKEN}" of a token set from a file saved on Windows
        env = os.environ if environ is None else environ
        if not var:
            raise ConfigError(
                f"{self.type} auth needs {key!r} or {key + '_env'!r}",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}",
            )
        return env_value(var, env, key, file=self.source, server=self.server_name, key=f"auth.{key}_env")

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
        """The OAuth client secret; ``None`` for a public client (authorization code without a
        secret), for one that signs with a private key, and for a workload (its token is the proof)."""
        unset = not self.client_secret and not self.client_secret_env
        if unset and (self.flow in ("authorization_code", "jwt_bearer") or self.signs_with_key):
            return None
        return self._from_env(self.client_secret, self.client_secret_env, "client_secret", environ)

    @property
    def asks_a_person(self) -> bool:
        """Connecting may wait for a person signing in, in a browser (not on the server's clock)."""
        if self.type != "oauth":
            return False
        has_id_token = bool(self.id_token or self.id_token_env or self.id_token_file)
        return self.flow == "authorization_code" or (self.flow == "identity_assertion" and not has_id_token)

    @property
    def signs_with_key(self) -> bool:
        """client_credentials with ``private_key_jwt``: a signed assertion instead of a secret."""
        return bool(self.private_key or self.private_key_env or self.private_key_file)

    def resolve_private_key(self, environ: Mapping[str, str] | None = None) -> str:
        """The PEM text of the private key, read at connect time (a rotated key file just works)."""
        if self.private_key_file:
            return self._read_file("private_key_file", "private key")
        return self._from_env(self.private_key, self.private_key_env, "private_key", environ)

    def resolve_id_token(self, environ: Mapping[str, str] | None = None) -> str:
        """The person's ID token, read at each exchange: identity providers issue them for an hour or
        so, and the tool that renews one rewrites its file or variable."""
        if self.id_token_file:
            return self._read_file("id_token_file", "ID token").strip()
        return self._from_env(self.id_token, self.id_token_env, "id_token", environ).strip()

    def resolve_assertion(self, environ: Mapping[str, str] | None = None) -> str:
        """The workload's JWT, read at each exchange: platforms issue them for minutes and rewrite
        the file (or variable) before they expire."""
        if self.assertion_file:
            return self._read_file("assertion_file", "workload token").strip()
        return self._from_env(self.assertion, self.assertion_env, "assertion", environ).strip()

    def read_from(self, key: str) -> str:
        """Where the token ``key`` (``id_token``, ``assertion``) is read from, in the words of its
        setting: what an error tells the person to look at or renew."""
        if path := getattr(self, f"{key}_file"):
            return f"the file auth.{key}_file names ({path})"
        if var := getattr(self, f"{key}_env"):
            return f"the variable auth.{key}_env names ({var})"
        return f"auth.{key}"

    def described(self) -> str:
        """The credentials this auth sends, and the settings that hold them (for advice on a 401)."""
        if self.type == "bearer":
            held = f"the variable {self.token_env} (auth.token_env)" if self.token_env else "auth.token"
            return f"the bearer token in {held}"
        if self.type == "basic":
            held = "auth.password"
            if self.password_env:
                held = f"the variable {self.password_env} (auth.password_env)"
            return f"the username {self.username!r} (auth.username) and the password in {held}"
        return f"the OAuth access token (auth flow {self.flow})"

    def resolve_idp_client_secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """This client's secret at the identity provider; None where it is a public client there."""
        if not self.idp_client_secret and not self.idp_client_secret_env:
            return None
        return self._from_env(
            self.idp_client_secret, self.idp_client_secret_env, "idp_client_secret", environ
        )

    def _read_file(self, key: str, what: str) -> str:
        path = getattr(self, key)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise ConfigError(
                f"cannot read the {what} file {path!r} ({reason})",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}",
            ) from None

    def secrets(self) -> set[str]:
        """Every secret value this auth can produce now, best effort: never raises (used while reporting)."""
        found: set[str] = set()
        for key in _SECRET_FIELDS:
            value, var = getattr(self, key), getattr(self, f"{key}_env")
            if value:
                found.add(value)
            if var and os.environ.get(var):
                found.add(os.environ[var])
        for key in _SECRET_FILES:
            if getattr(self, key):
                with contextlib.suppress(ConfigError):  # unreadable: nothing of it can be shown
                    found.add(self._read_file(key, key).strip())
        if self.type == "basic":
            password = self.password or (os.environ.get(self.password_env) if self.password_env else None)
            if password:  # the header carries base64("user:password"), which a log line may show
                found.add(base64.b64encode(f"{self.username or ''}:{password}".encode()).decode())
        return {value for value in found | {v.strip() for v in found} if value}  # a PEM's final newline

    def _settings(self) -> dict[str, Any]:
        """The fields that differ from their defaults (``type`` always), as a ``.mcp.json`` would say them."""
        return settings_of(self)

    def redacted(self) -> dict[str, Any]:
        """A JSON-able view for display: secret values replaced, variable names kept (they help debugging)."""
        shown = {k: v for k, v in self._settings().items() if k != "type" and v is not None}
        return {"type": self.type} | {k: REDACTED if k in _SECRET_FIELDS else v for k, v in shown.items()}

    def __repr__(self) -> str:
        return "AuthConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__


#: OAuth 2.1 §1.5 (draft-ietf-oauth-v2-1-13, "Communication security"; the MCP authorization spec
#: makes it a MUST) and RFC 6750 §5.3: tokens and secrets travel over TLS, except to the loopback
#: interface, where they never cross a network.
TLS_RULE = "OAuth 2.1 §1.5 and RFC 6750 want TLS for credentials, except to this machine's loopback"


def cleartext_to_another_host(url: str) -> bool:
    """Whether requests to ``url`` cross a network unencrypted: ``http://`` to a host that is not
    this machine's loopback (``localhost``, ``127.0.0.0/8``, ``[::1]``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme.lower() != "http" or not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):  # RFC 6761: always the loopback
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a name: another machine, as far as anyone can tell before resolving it


def credentials_sent(auth: AuthConfig | None, headers: Mapping[str, str], url: str | None) -> str | None:
    """What credentials requests to the server carry, in the words of the settings that hold them
    (for an error that says what to check or update); None when they carry none."""
    said: list[str] = []
    if auth is not None:
        said.append(auth.described())
    said += [f"the {key} header (headers)" for key, value in headers.items() if value and is_secret_key(key)]
    if url and url_secrets(url):
        said.append("the credential in its url")
    return " and ".join(said) or None
