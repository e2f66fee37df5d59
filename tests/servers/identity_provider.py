"""A company's identity provider for the SEP-990 tests, on 127.0.0.1 (a free port).

It signs a person in (OpenID Connect: authorization code + PKCE, auto-approved as the person
``person``) or signs ID tokens directly (what a sign-on would have left with them), and exchanges
them for Identity Assertion JWT Authorization Grants: the RFC 8693 token exchange of
draft-ietf-oauth-identity-assertion-authz-grant, with the checks that draft asks of it (the client
authenticates, the ID token is its own and fresh, the grant names the authorization server and the
resource) and an administrator's policy of who may not. The MCP side is ``oauth_server.OAuthServers``
with ``trust(idp)``.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import time
import uuid
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from servers.oauth_server import (
    CLIENT_ID,
    CLIENT_SECRET,
    HOST,
    ID_JAG_TYP,
    Served,
    _bind,
    _error,
    _is_loopback,
    credentials,
)

IDP_CLIENT_ID = "notebook-at-idp"
IDP_CLIENT_SECRET = "idp-secret-0123456789"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class IdentityProvider:
    """Use as a context manager. ``exchanges`` holds each token exchange as the IdP saw it (the
    subject token left out) with the status it answered; ``denied`` is the policy's deny list."""

    def __init__(self, *, mcp_client_id: str = CLIENT_ID, tls: dict[str, Any] | None = None) -> None:
        """``tls``: uvicorn's ``ssl_*`` settings, to serve https."""
        self._sock = _bind()
        self.issuer = f"{'https' if tls else 'http'}://{HOST}:{self._sock.getsockname()[1]}"
        self.token_endpoint = f"{self.issuer}/token"
        self._key = ec.generate_private_key(ec.SECP256R1())
        self.public_pem = (
            self._key.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )
        self.clients = {IDP_CLIENT_ID: IDP_CLIENT_SECRET}
        self.mcp_client_id = mcp_client_id  # the client the grants name at the MCP side
        self.denied: set[str] = set()  # people the administrator's policy keeps out
        self.exchanges: list[dict[str, Any]] = []
        self.grants: list[str] = []  # the ID-JAGs it issued
        self.person = "ada@example.com"  # who signs in at /authorize
        self.id_token_ttl = 3600  # of the ID tokens a sign-in gets
        self.replays = False  # True: a sign-in gets an ID token of an earlier sign-in (another nonce)
        self.sign_ins: list[dict[str, str]] = []  # each /authorize request's parameters
        self._codes: dict[str, dict[str, str]] = {}
        self._served = Served([(self._app(), self._sock)], tls={0: tls} if tls else None)

    def id_token(self, subject: str = "ada@example.com", *, ttl: int = 3600, **more: str) -> str:
        """An ID token as the person's sign-in at this provider would have issued it."""
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": subject, "aud": IDP_CLIENT_ID, "iat": now, "exp": now + ttl}
        claims.update(more)
        return jwt.encode(claims, self._key, algorithm="ES256")

    def _app(self) -> Starlette:
        async def metadata(request: Request) -> Response:
            return JSONResponse(
                {
                    "issuer": self.issuer,
                    "authorization_endpoint": f"{self.issuer}/authorize",
                    "token_endpoint": self.token_endpoint,
                    "grant_types_supported": ["authorization_code", TOKEN_EXCHANGE],
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                }
            )

        async def authorize(request: Request) -> Response:
            """The person signs in and approves at once; what a real provider checks is checked."""
            q = dict(request.query_params)
            self.sign_ins.append(q)
            redirect = q.get("redirect_uri", "")
            if q.get("client_id") not in self.clients or not _is_loopback(redirect):
                return _error(400, "invalid_request", "unknown client or redirect address")
            if q.get("response_type") != "code" or "openid" not in q.get("scope", "").split():
                return _error(
                    400, "invalid_request", "an OpenID sign-in needs response_type=code, scope=openid"
                )
            if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
                return _error(400, "invalid_request", "PKCE (S256) is required")
            code = secrets.token_urlsafe(16)
            self._codes[code] = q
            back = {"code": code, "state": q.get("state", ""), "iss": self.issuer}
            return RedirectResponse(f"{redirect}?{urlencode(back)}", status_code=302)

        async def token(request: Request) -> Response:
            form = {k: str(v) for k, v in (await request.form()).items()}
            if form.get("grant_type") == "authorization_code":
                return self._code_for_id_token(request, form)
            response = self._exchange(request, form)
            seen = {k: v for k, v in form.items() if k != "subject_token"}
            self.exchanges.append({**seen, "status": response.status_code})
            return response

        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", metadata),
                Route("/authorize", authorize),
                Route("/token", token, methods=["POST"]),
            ]
        )

    def _code_for_id_token(self, request: Request, form: dict[str, str]) -> Response:
        client = self._client(request, form)
        asked = self._codes.pop(form.get("code", ""), None)  # single use
        if client is None:
            return _error(401, "invalid_client", "client authentication failed")
        if asked is None or asked["client_id"] != client or asked["redirect_uri"] != form.get("redirect_uri"):
            return _error(400, "invalid_grant", "unknown or used code")
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        if base64.urlsafe_b64encode(digest).decode().rstrip("=") != asked["code_challenge"]:
            return _error(400, "invalid_grant", "PKCE verification failed")
        nonce = "an-earlier-sign-in" if self.replays else asked.get("nonce", "")
        id_token = self.id_token(self.person, ttl=self.id_token_ttl, nonce=nonce)
        return JSONResponse(
            {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "id_token": id_token}
        )

    def _client(self, request: Request, form: dict[str, str]) -> str | None:
        client_id, secret = credentials(request, form)
        known = self.clients.get(client_id)
        return client_id if known and secrets.compare_digest(known, secret) else None

    def _exchange(self, request: Request, form: dict[str, str]) -> Response:
        client = self._client(request, form)
        if client is None:
            return _error(401, "invalid_client", "client authentication failed")
        if form.get("grant_type") != TOKEN_EXCHANGE:
            return _error(400, "unsupported_grant_type")
        wrong = [
            key
            for key, want in (("subject_token_type", ID_TOKEN), ("requested_token_type", ID_JAG))
            if form.get(key) != want
        ] + [key for key in ("audience", "resource") if not form.get(key)]
        if wrong:
            return _error(400, "invalid_request", f"missing or wrong: {', '.join(wrong)}")
        try:
            person = jwt.decode(
                form.get("subject_token", ""),
                self._key.public_key(),
                algorithms=["ES256"],
                audience=client,  # the ID token was issued to this client
                issuer=self.issuer,
            )
        except jwt.PyJWTError as exc:
            return _error(400, "invalid_grant", f"the ID token is not valid: {exc}")
        if person["sub"] in self.denied:
            return _error(400, "access_denied", "your administrator has not given you this server")
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": person["sub"],
            "aud": form["audience"],
            "client_id": self.mcp_client_id,
            "resource": form["resource"],
            "iat": now,
            "exp": now + 300,
            "jti": str(uuid.uuid4()),
        }
        grant = jwt.encode(claims, self._key, algorithm="ES256", headers={"typ": ID_JAG_TYP})
        self.grants.append(grant)
        return JSONResponse({"access_token": grant, "issued_token_type": ID_JAG, "token_type": "N_A"})

    def __enter__(self) -> IdentityProvider:
        self._served.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._served.stop()


def assertion_auth(authorization_server: str, idp: IdentityProvider) -> dict[str, Any]:
    """The ``auth`` of an ``identity_assertion`` config for the test servers, with no ID token
    given (the person signs in at ``idp``); the tests add or drop keys."""
    return {
        "type": "oauth",
        "flow": "identity_assertion",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "issuer": authorization_server,
        "idp_issuer": idp.issuer,
        "idp_client_id": IDP_CLIENT_ID,
        "idp_client_secret": IDP_CLIENT_SECRET,
    }


def unused_port() -> int:
    """A loopback port where nothing listens (it was free a moment ago)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]
