"""Enterprise-managed authorization (SEP-990): the person's ID token from the company's identity
provider becomes an MCP access token, with no sign-in page and no consent screen.

Two legs. Here: the RFC 8693 token exchange at the identity provider, the ID token in, an Identity
Assertion JWT Authorization Grant (ID-JAG) out, made out to the MCP server's authorization server
(``auth.issuer``) and to the MCP server itself (``resource``). Then the SDK's
``IdentityAssertionOAuthProvider`` presents the grant there (RFC 7523 jwt-bearer) with this client's
secret. Both servers are configuration, never taken from the MCP server's metadata, so neither the
grant nor the secret can be sent anywhere else; and whether a person may use a server is the
identity provider's decision, which the errors below say in those words.

Where no ID token is configured, the person signs in at the identity provider for one (OpenID
Connect: authorization code + PKCE, ``scope=openid``, a nonce), through the same browser sign-in
as the ``authorization_code`` flow; the ID token is then kept for this connection.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx2
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import issuers_match

from mcpnb.client.auth.provider import _Friendly, refusal
from mcpnb.client.auth.redirect import HOST
from mcpnb.client.auth.sides import SIDE_REQUEST_TIMEOUT
from mcpnb.client.auth.signin import BrowserSignIn, free_port
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
        id_token: Callable[[], str] | None,
        id_token_from: str,
        scope: str | None = None,
        redirect_port: int | None = None,
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
        self._read_id_token = id_token  # None: the person signs in at the identity provider
        self._id_token_from = id_token_from  # where the person puts a fresh one, for the errors
        self._signed_in: str | None = None  # the ID token of that sign-in, kept for this connection
        self._redirect_uri = f"http://{HOST}:{redirect_port or free_port()}/callback"
        self._sign_in = BrowserSignIn(server, self._redirect_uri)
        self._idp_metadata: dict[str, Any] | None = None
        self._used: set[str] = set()  # ID tokens, codes and grants it handled: never in a message

    def _flow_ended(self) -> None:
        self._sign_in.release()

    def _secret_values(self) -> list[str | None]:
        tokens = getattr(self, "_tokens", None)  # the SDK provider's, after the jwt-bearer grant
        access = [tokens.access_token, tokens.refresh_token] if tokens is not None else []
        return [*super()._secret_values(), self._idp_client_secret, self._sign_in.state, *self._used, *access]

    def _credentials_hint(self) -> str:
        return (
            "check auth.client_id and auth.client_secret (this client at the MCP server's authorization "
            "server)"
        )

    async def _grant(self, audience: str, resource: str) -> str:
        """Leg 1: the ID token for an ID-JAG made out to ``audience`` (the configured issuer) and
        ``resource`` (the MCP server), on a client of its own like the flow's other side requests.
        That client presents the ``tls`` client certificate, should the identity provider ask: it
        goes only to the identity provider the config names (auth.idp_issuer, idp_token_endpoint,
        and the token endpoint its own metadata, checked to be its, names), never to a server an
        MCP server's metadata chose (:meth:`.sides.SideRequests._presents_certificate`)."""
        from mcpnb.client.transports import direct_to_this_machine  # a server on this machine: direct

        async with httpx2.AsyncClient(
            timeout=SIDE_REQUEST_TIMEOUT, mounts=direct_to_this_machine(), verify=self._side_verify()
        ) as idp:
            id_token = await self._id_token(idp)
            endpoint = self._idp_token_endpoint or (await self._metadata(idp))["token_endpoint"]
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
            response = await self._ask_idp(idp, "POST", endpoint, data=data, headers=self._authenticate(data))
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
        self._used.add(grant)
        return grant

    def _authenticate(self, data: dict[str, str]) -> dict[str, str]:
        """This client at the identity provider: HTTP Basic with a secret (RFC 6749 §2.3.1, each
        part form-encoded first), else its id in the form (a public client). The headers to send."""
        if not self._idp_client_secret:
            data["client_id"] = self._idp_client_id
            return {}
        pair = f"{quote(self._idp_client_id, safe='')}:{quote(self._idp_client_secret, safe='')}"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}

    async def _id_token(self, idp: httpx2.AsyncClient) -> str:
        """The configured ID token, read now; else the one this connection's sign-in got."""
        if self._read_id_token is not None:
            try:
                id_token = self._read_id_token()
            except ConfigError as exc:
                raise self._error(f"OAuth identity_assertion: {exc.message}") from None
        else:
            id_token = self._signed_in or await self._sign_in_at_idp(idp)
            self._signed_in = id_token
        self._used.add(id_token)
        return id_token

    async def _sign_in_at_idp(self, idp: httpx2.AsyncClient) -> str:
        """OpenID Connect at the identity provider: the person signs in in a browser, the code
        comes back, and the token endpoint gives the ID token (checked against this sign-in's nonce)."""
        import jwt

        metadata = await self._metadata(idp)
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        nonce = secrets.token_urlsafe(24)
        query = {
            "response_type": "code",
            "client_id": self._idp_client_id,
            "redirect_uri": self._redirect_uri,
            "scope": "openid",
            "state": secrets.token_urlsafe(24),
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        endpoint = str(metadata.get("authorization_endpoint") or "")
        if not endpoint:
            raise self._error(
                f"the identity provider {self._idp_issuer} publishes no sign-in page "
                "(authorization_endpoint); give an ID token instead (auth.id_token_file or id_token_env)"
            )
        await self._sign_in.show_link(f"{endpoint}?{urlencode(query)}")
        result = await self._sign_in.receive_code()
        if result.iss is not None and not issuers_match(result.iss, str(metadata["issuer"])):
            raise self._error(
                f"the sign-in came back from {result.iss!r}, not the identity provider; sign in again"
            )
        data = {
            "grant_type": "authorization_code",
            "code": result.code,
            "redirect_uri": self._redirect_uri,
            "code_verifier": verifier,
        }
        self._used.add(result.code)
        response = await self._ask_idp(
            idp,
            "POST",
            self._idp_token_endpoint or metadata["token_endpoint"],
            data=data,
            headers=self._authenticate(data),
        )
        if response.status_code >= 400:
            raise self._exchange_failure(response, sign_in=True)
        try:
            id_token = str(response.json()["id_token"])
            said = jwt.decode(id_token, options={"verify_signature": False}).get("nonce")
        except (ValueError, KeyError, TypeError, jwt.PyJWTError):
            raise self._error(
                "the identity provider's sign-in gave no ID token (is auth.idp_client_id an OpenID "
                "Connect client there?)"
            ) from None
        if said != nonce:  # an ID token from another sign-in (replayed or mixed up): not used
            raise self._error(
                "the ID token from the sign-in does not belong to it (its nonce differs); sign in again"
            )
        return id_token

    async def _metadata(self, idp: httpx2.AsyncClient) -> dict[str, Any]:
        """The identity provider's OpenID (or OAuth) metadata, checked to be its own, and kept."""
        if self._idp_metadata is not None:
            return self._idp_metadata
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
            if isinstance(metadata.get("token_endpoint"), str) and metadata["token_endpoint"]:
                self._idp_metadata = metadata
                return metadata
        raise self._error(
            f"found no token endpoint in the metadata of the identity provider {issuer} (its "
            "/.well-known/openid-configuration); check auth.idp_issuer, or give auth.idp_token_endpoint"
        )

    async def _ask_idp(self, idp: httpx2.AsyncClient, method: str, url: str, **kw: Any) -> httpx2.Response:
        return await self._reach(
            idp.request(method, url, **kw),
            f"the identity provider at {url.split('?', 1)[0]}",
            "check auth.idp_issuer (or idp_token_endpoint) and that it is up",
        )

    def _exchange_failure(self, response: httpx2.Response, *, sign_in: bool = False) -> AuthError:
        error, detail = refusal(response)
        if response.status_code == 401 or error == "invalid_client":
            failure = self._error(
                f"the identity provider rejected client {self._idp_client_id!r} ({detail}); check "
                "auth.idp_client_id and auth.idp_client_secret (or idp_client_secret_env)"
            )
            self._rejected = failure  # the same client will be rejected again: do not ask again
            return failure
        if error == "invalid_grant" and sign_in:
            return self._error(f"the identity provider refused the sign-in's code ({detail}); sign in again")
        if error == "invalid_grant" and self._read_id_token is None:
            self._signed_in = None  # expired, say: the next exchange signs in anew
            return self._error(
                f"the identity provider refused the ID token of your sign-in ({detail}); connect again "
                "to sign in anew"
            )
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
