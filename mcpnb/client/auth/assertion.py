"""Enterprise-managed authorization (SEP-990): the person's ID token from the company's identity
provider becomes an MCP access token, with no sign-in page and no consent screen.

Two legs. Here: the RFC 8693 token exchange at the identity provider, the ID token in, an Identity
Assertion JWT Authorization Grant (ID-JAG) out, made out to the MCP server's authorization server
(``auth.issuer``) and to the MCP server itself (``resource``). Then the SDK's
``IdentityAssertionOAuthProvider`` presents the grant there (RFC 7523 jwt-bearer) with this client's
secret. Both servers are configuration, never taken from the MCP server's metadata, so neither the
grant nor the secret can be sent anywhere else; and whether a person may use a server is the
identity provider's decision, which the errors below say in those words.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import issuers_match

from mcpnb.client.auth.provider import SIDE_REQUEST_TIMEOUT, _Friendly, refusal
from mcpnb.client.errors import AuthError, ConfigError

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class IdentityAssertion(_Friendly, IdentityAssertionOAuthProvider):
    """The SDK's jwt-bearer provider, fed by our token exchange at the identity provider."""

    _flow_name = "identity_assertion"
    context = None  # the SDK's OAuthContext: this SDK provider keeps its state in attributes of its own

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: Any,
        *,
        client_id: str,
        client_secret: str,
        issuer: str,
        idp_client_id: str,
        idp_client_secret: str | None,
        idp_issuer: str | None,
        idp_token_endpoint: str | None,
        id_token: Callable[[], str],
        id_token_from: str,
        scope: str | None = None,
    ) -> None:
        super().__init__(
            server_url,
            storage,
            client_id,
            client_secret,
            issuer,
            self._grant,
            scope=scope,
            token_endpoint_auth_method="client_secret_basic",  # the one every server must take
        )
        self._setup(server, client_id, client_secret, scope, issuer)
        self._idp_client_id = idp_client_id
        self._idp_client_secret = idp_client_secret
        self._idp_issuer = idp_issuer
        self._idp_token_endpoint = idp_token_endpoint
        self._read_id_token = id_token
        self._id_token_from = id_token_from  # where the person puts a fresh one, for the errors
        self._used: list[str] = []  # ID tokens and grants this provider handled: never in a message

    def _secret_values(self) -> list[str | None]:
        tokens = getattr(self, "_tokens", None)  # the SDK provider's, after the jwt-bearer grant
        access = [tokens.access_token, tokens.refresh_token] if tokens is not None else []
        return [*super()._secret_values(), self._idp_client_secret, *self._used, *access]

    def _credentials_hint(self) -> str:
        return (
            "check auth.client_id and auth.client_secret (this client at the MCP server's authorization "
            "server)"
        )

    async def _grant(self, audience: str, resource: str) -> str:
        """Leg 1: the ID token for an ID-JAG made out to ``audience`` (the configured issuer) and
        ``resource`` (the MCP server), on a client of its own like the flow's other side requests."""
        try:
            id_token = self._read_id_token()
        except ConfigError as exc:
            raise self._error(f"OAuth identity_assertion: {exc.message}") from None
        self._used.append(id_token)
        async with httpx2.AsyncClient(timeout=SIDE_REQUEST_TIMEOUT) as idp:
            endpoint = self._idp_token_endpoint or await self._discover(idp)
            data = {
                "grant_type": TOKEN_EXCHANGE,
                "requested_token_type": ID_JAG,
                "audience": audience,
                "resource": resource,
                "subject_token": id_token,
                "subject_token_type": ID_TOKEN,
            }
            if self._scope:
                data["scope"] = self._scope
            headers = {}
            if self._idp_client_secret:  # RFC 6749 §2.3.1: each part form-encoded, then base64
                pair = f"{quote(self._idp_client_id, safe='')}:{quote(self._idp_client_secret, safe='')}"
                headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
            else:
                data["client_id"] = self._idp_client_id
            response = await self._ask_idp(idp, "POST", endpoint, data=data, headers=headers)
        if response.status_code >= 400:
            raise self._exchange_failure(response)
        try:
            body = response.json()
        except ValueError:
            body = None
        grant = body.get("access_token") if isinstance(body, dict) else None
        issued = body.get("issued_token_type") if isinstance(body, dict) else None
        if not isinstance(grant, str) or not grant or issued != ID_JAG:
            raise self._error(
                f"the identity provider answered the token exchange without an identity assertion grant "
                f"(issued_token_type {issued!r}, expected {ID_JAG!r}); does it support enterprise-managed "
                "authorization (ID-JAG, SEP-990) for this client?"
            )
        self._used.append(grant)
        return grant

    async def _discover(self, idp: httpx2.AsyncClient) -> str:
        """The token endpoint from the identity provider's OpenID (or OAuth) metadata, kept."""
        issuer = self._idp_issuer
        assert issuer is not None
        parts = urlsplit(issuer)
        origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
        for url in (
            f"{issuer.rstrip('/')}/.well-known/openid-configuration",
            f"{origin}/.well-known/oauth-authorization-server{path}",
        ):
            response = await self._ask_idp(idp, "GET", url)
            try:
                metadata = response.json() if response.status_code == 200 else None
            except ValueError:
                metadata = None
            if not isinstance(metadata, dict):
                continue
            named = str(metadata.get("issuer") or "")
            if not issuers_match(named, issuer):
                raise self._error(
                    f"the identity provider's metadata at {url} names issuer {named!r}, not auth.idp_issuer "
                    f"{issuer}: nothing was sent there; set auth.idp_issuer to the issuer it names if it is "
                    "the right one"
                )
            endpoint = metadata.get("token_endpoint")
            if isinstance(endpoint, str) and endpoint:
                self._idp_token_endpoint = endpoint
                return endpoint
        raise self._error(
            f"found no token endpoint in the metadata of the identity provider {issuer} (its "
            "/.well-known/openid-configuration); check auth.idp_issuer, or give auth.idp_token_endpoint"
        )

    async def _ask_idp(self, idp: httpx2.AsyncClient, method: str, url: str, **kw: Any) -> httpx2.Response:
        where = url.split("?", 1)[0]
        try:
            return await idp.request(method, url, **kw)
        except httpx2.TimeoutException:
            raise self._error(
                f"the identity provider at {where} did not answer within {SIDE_REQUEST_TIMEOUT:g} s",
                retryable=True,
            ) from None
        except httpx2.TransportError as exc:
            reason = type(exc).__name__ + (f": {exc}" if str(exc) else "")
            raise self._error(
                f"could not reach the identity provider at {where} ({reason}); check auth.idp_issuer "
                "(or idp_token_endpoint) and that it is up",
                retryable=True,
            ) from None

    def _exchange_failure(self, response: httpx2.Response) -> AuthError:
        error, detail = refusal(response)
        if response.status_code == 401 or error == "invalid_client":
            failure = self._error(
                f"the identity provider rejected client {self._idp_client_id!r} ({detail}); check "
                "auth.idp_client_id and auth.idp_client_secret (or idp_client_secret_env)"
            )
            self._rejected = failure  # the same client will be rejected again: do not ask again
            return failure
        if error == "invalid_grant":
            return self._error(
                f"the identity provider refused the ID token ({detail}); it may have expired, or be for "
                f"another client (its audience must be auth.idp_client_id): put a fresh one in "
                f"{self._id_token_from}"
            )
        if error in ("invalid_target", "access_denied", "unauthorized_client", "invalid_scope"):
            return self._error(
                f"the identity provider will not grant you access to this server ({detail}); which "
                "people may use which servers is your identity provider administrator's decision"
            )
        failed = f"the token exchange at the identity provider failed ({detail})"
        return self._error(failed, retryable=response.status_code >= 500)
