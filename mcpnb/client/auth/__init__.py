"""OAuth for HTTP/SSE servers: ``auth: {"type": "oauth", ...}`` in a server's config.

``transports`` calls :func:`oauth_provider` and hands the result to its ``httpx2`` client. Four flows:

- ``client_credentials``: the SDK's ``ClientCredentialsOAuthProvider`` (client id + secret), or its
  ``PrivateKeyJWTOAuthProvider`` where the client signs an assertion with a private key instead
  (``private_key_file`` / ``private_key_env``; :mod:`.keys`).
- ``authorization_code`` + PKCE: the SDK's ``OAuthClientProvider``; the person approves in a browser,
  and the code comes back through a loopback listener or a pasted address
  (:func:`set_authorization_ui` replaces how the link is shown and how the address is read). Where
  nobody can follow the link (a notebook run headless), the sign-in fails at once and says what
  works without a person (:func:`.signin.nobody_to_sign_in`).
- ``jwt_bearer`` (SEP-1933, workload identity): the JWT the workload's platform issued is the grant
  (:mod:`.workload`).
- ``identity_assertion`` (SEP-990): the person's ID token, exchanged at the company's identity
  provider for a grant the MCP server's authorization server takes (:mod:`.assertion`).

Tokens stay in process memory unless ``token_storage: "file"`` keeps them (and a dynamic client
registration) in ``<user config dir>/mcpnb/tokens/<server>.json`` with mode 0600
(``$MCPNB_TOKEN_DIR`` moves that directory). Every failure is an :class:`AuthError` that says what to
change; no message, repr or log line carries a token, secret or code.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import TYPE_CHECKING, Any

from mcpnb.client.auth.redirect import (
    AuthorizationUI,
    CallbackListener,
    authorization_ui,
    parse_redirect,
    restore_authorization_ui,
    set_authorization_ui,
)
from mcpnb.client.auth.storage import (
    TOKEN_DIR_ENV,
    FileTokenStorage,
    MemoryTokenStorage,
    forget_tokens,
    memory_storage,
    token_dir,
    token_path,
)
from mcpnb.client.errors import AuthError, ConfigError

if TYPE_CHECKING:
    import httpx2

    from mcpnb.client.config import ServerConfig

__all__ = [
    "TOKEN_DIR_ENV",
    "AuthError",
    "AuthorizationUI",
    "CallbackListener",
    "FileTokenStorage",
    "MemoryTokenStorage",
    "authorization_ui",
    "forget_tokens",
    "oauth_provider",
    "parse_redirect",
    "restore_authorization_ui",
    "set_authorization_ui",
    "token_dir",
    "token_path",
]


def oauth_provider(config: ServerConfig) -> httpx2.Auth:
    """The ``httpx2.Auth`` for an ``oauth`` server config; raises :class:`AuthError` for what is missing.

    Secrets are resolved here, at connect time, so ``client_secret_env`` picks up a rotated value.
    The flow's own requests (discovery, registration, token) use the server's ``tls`` too.
    """
    provider = _provider(config)
    provider.use_tls(config.tls, config.url or "")  # type: ignore[attr-defined]
    return provider


def _provider(config: ServerConfig) -> httpx2.Auth:
    """The flow's provider (each one a ``provider._Friendly``), before its ``tls`` is given."""
    from mcpnb.client.auth.provider import AuthorizationCode, ClientCredentials
    from mcpnb.client.logfilter import install

    install()  # the SDK's OAuth loggers exist now: their warnings go to the server's log, not the cell

    auth, name = config.auth, config.name
    if auth is None or auth.type != "oauth":
        raise AuthError("oauth_provider needs auth type 'oauth'", server=name)
    if not config.url:
        raise AuthError("OAuth needs the server's url", server=name)
    try:
        secret = auth.resolve_client_secret()
    except ConfigError as exc:
        raise AuthError(
            f"OAuth {auth.flow} needs a client secret: {exc.message}; set auth.client_secret, or "
            "auth.client_secret_env to the name of a variable that holds it",
            server=name,
        ) from None
    if auth.flow == "identity_assertion":
        return _identity_assertion(config, secret or "")
    if auth.flow == "jwt_bearer":
        return _workload_identity(config)
    if auth.flow == "client_credentials" and not auth.client_id:
        raise AuthError("OAuth client_credentials needs auth.client_id", server=name)
    if auth.flow == "client_credentials" and auth.signs_with_key:
        assert auth.client_id
        return _private_key_jwt(config, auth.client_id)
    storage = _storage(config, secret)
    if auth.flow == "client_credentials":
        assert auth.client_id
        return ClientCredentials(
            name,
            config.url,
            storage,
            client_id=auth.client_id,
            client_secret=secret or "",
            scope=auth.scope,
            issuer=auth.issuer,
        )
    return AuthorizationCode(
        name,
        config.url,
        storage,
        client_id=auth.client_id,
        client_secret=secret,
        scope=auth.scope,
        issuer=auth.issuer,
        redirect_port=auth.redirect_port,
        client_metadata_url=auth.client_metadata_url,
        assume_pkce=auth.assume_pkce,
    )


def _private_key_jwt(config: ServerConfig, client_id: str) -> httpx2.Auth:
    """client_credentials with ``private_key_jwt``: the key is read and checked at connect time, so a
    wrong file is a clear error before any request (and a rotated one is picked up)."""
    from mcpnb.client.auth.keys import load_signing_key
    from mcpnb.client.auth.provider import PrivateKeyJWT

    auth = config.auth
    assert auth is not None and config.url
    where = "auth.private_key_file" if auth.private_key_file else "auth.private_key"
    try:
        pem = auth.resolve_private_key()
        key = load_signing_key(pem, auth.signing_algorithm, auth.key_id, where=where)
    except ConfigError as exc:
        raise AuthError(f"OAuth private_key_jwt: {exc.message}", server=config.name) from None
    return PrivateKeyJWT(
        config.name,
        config.url,
        _storage(config, pem),
        client_id=client_id,
        key=key,
        pem=pem,
        scope=auth.scope,
        issuer=auth.issuer,
    )


def _identity_assertion(config: ServerConfig, secret: str) -> httpx2.Auth:
    """SEP-990: a configured ID token is read now (a missing one is said before any request) and
    again at each exchange (the tool that renews it rewrites its file or variable); without one, the
    person signs in at the identity provider when the first exchange needs it."""
    from mcpnb.client.auth.assertion import IdentityAssertion

    auth = config.auth
    assert auth is not None and config.url and auth.client_id and auth.issuer and auth.idp_client_id
    signs_in = auth.asks_a_person
    try:
        idp_secret = auth.resolve_idp_client_secret()
        id_token = "" if signs_in else auth.resolve_id_token()
    except ConfigError as exc:
        raise AuthError(f"OAuth identity_assertion: {exc.message}", server=config.name) from None
    return IdentityAssertion(
        config.name,
        config.url,
        _storage(config, secret + "\n" + id_token),  # another person's ID token: other tokens
        client_id=auth.client_id,
        client_secret=secret,
        issuer=auth.issuer,
        idp_client_id=auth.idp_client_id,
        idp_client_secret=idp_secret,
        idp_issuer=auth.idp_issuer,
        idp_token_endpoint=auth.idp_token_endpoint,
        id_token=None if signs_in else auth.resolve_id_token,
        id_token_from=auth.read_from("id_token"),
        scope=auth.scope,
        redirect_port=auth.redirect_port,
    )


def _workload_identity(config: ServerConfig) -> httpx2.Auth:
    """SEP-1933: the workload's JWT is read now (a missing one is said before any request) and again
    at each exchange (its platform rewrites it before it expires)."""
    from mcpnb.client.auth.workload import WorkloadIdentity

    auth = config.auth
    assert auth is not None and config.url and auth.client_id
    try:
        token = auth.resolve_assertion()
    except ConfigError as exc:
        raise AuthError(f"OAuth jwt_bearer: {exc.message}", server=config.name) from None
    return WorkloadIdentity(
        config.name,
        config.url,
        _storage(config, token),  # another workload's token: other access tokens
        assertion=auth.resolve_assertion,
        assertion_from=auth.read_from("assertion"),
        client_id=auth.client_id,
        scope=auth.scope,
        issuer=auth.issuer,
    )


def _storage(config: ServerConfig, secret: str | None) -> Any:
    auth = config.auth
    assert auth is not None and config.url
    if auth.token_storage == "file":
        return FileTokenStorage(token_path(config.name), config.url)
    # Keyed by everything that makes tokens interchangeable: a changed client, secret or scope starts
    # afresh (a wrong secret must fail, not ride on tokens an earlier right one obtained).
    return memory_storage(
        config.name,
        config.url,
        auth.flow,
        auth.client_id or "",
        auth.client_metadata_url or "",
        auth.scope or "",
        auth.issuer or "",
        _fingerprint(secret),
    )


_SALT = os.urandom(16)


def _fingerprint(secret: str | None) -> str:
    """A per-process keyed hash: tells secrets apart without keeping (or revealing) them."""
    return hmac.new(_SALT, (secret or "").encode(), hashlib.sha256).hexdigest()[:16]
