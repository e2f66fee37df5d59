"""An OAuth-protected MCP server plus a tiny authorization server, both on 127.0.0.1 (free ports).

The MCP server is a plain ``MCPServer`` with a ``token_verifier``: it answers 401 without a valid
bearer token and publishes protected-resource metadata naming the authorization server. The
authorization server is a few Starlette routes, small enough to read in one sitting, that still do
the parts a client can get wrong: client authentication at ``/token`` (client_secret_basic or
_post), the S256 PKCE check, exact redirect URIs, single-use codes, dynamic registration.

Tests run both in a background thread (:class:`OAuthServers`, a context manager) so they can read
what the authorization server saw (``token_requests``, ``authorize_requests``, ``registrations``).
As a script it prints the URLs and a client to try by hand::

    python tests/servers/oauth_server.py
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode

import httpx2
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

HOST = "127.0.0.1"
CLIENT_ID = "cc-client"
CLIENT_SECRET = "cc-secret-0123456789"
JWT_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"  # SEP-990: an ID-JAG for a token
ID_JAG_TYP = "oauth-id-jag+jwt"


@dataclass
class Client:
    """A registered client. ``redirect_uris`` None: any loopback URI (RFC 8252 §7.3, pre-registered)."""

    client_id: str
    secret: str | None
    auth_method: str = "client_secret_basic"
    redirect_uris: list[str] | None = None
    public_key: str | None = None  # private_key_jwt: the PEM its assertions must verify with


@dataclass
class AuthState:
    """Everything the authorization server knows, shared with the MCP server's token verifier."""

    issuer: str = ""
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, str] = field(default_factory=dict)  # refresh token -> client id
    token_ttl: int = 3600
    # When each access token stops being accepted: its lifetime from the moment it was issued, plus
    # the leeway servers give for clocks and transit, so the client's own clock (started when the
    # response arrives) always says "expired" first. (AccessToken.expires_at is whole seconds: a
    # one-second token could die a few milliseconds after it was issued, mid-connect.)
    deadlines: dict[str, float] = field(default_factory=dict)
    leeway: float = 1.0
    # What happened, for the tests: (grant_type, http status) per token request, and so on.
    token_requests: list[tuple[str, int]] = field(default_factory=list)
    authorize_requests: int = 0
    registrations: int = 0
    # /register answers once this many registrations have come (0: at once): two clients that
    # start at the same moment then both register before either stores what it got
    register_together: int = 0
    registering: int = 0
    # private_key_jwt: the algorithms the metadata lists, and the assertion ids seen (no replays)
    signing_algorithms: list[str] = field(default_factory=lambda: ["RS256", "ES256", "EdDSA"])
    assertion_ids: set[str] = field(default_factory=set)
    # SEP-990: the identity provider whose grants it takes (issuer, public key PEM), the resource
    # they must name, and the people it gave tokens to that way
    trusted_idp: tuple[str, str] | None = None
    resource: str = ""
    granted_subjects: list[str] = field(default_factory=list)
    # Step-up authorization: the scope each tool's call needs (the MCP server answers 403
    # insufficient_scope naming it, :func:`scope_challenge`), and the scopes this authorization
    # server never grants (it answers invalid_scope, RFC 6749 §4.1.2.1 and §5.2)
    tool_scopes: dict[str, str] = field(default_factory=dict)
    withheld_scopes: set[str] = field(default_factory=set)
    challenges: list[str] = field(default_factory=list)  # the tools whose call was answered 403

    def withheld(self, scope: str | None) -> list[str]:
        """The scopes asked for that this server does not grant."""
        return [s for s in (scope or "").split() if s in self.withheld_scopes]

    def issue(self, client_id: str, scope: str | None, resource: str | None) -> dict[str, Any]:
        token = secrets.token_urlsafe(24)
        self.access[token] = AccessToken(
            token=token,
            client_id=client_id,
            scopes=scope.split() if scope else [],
            expires_at=int(time.time()) + self.token_ttl,
            resource=resource,
        )
        self.deadlines[token] = time.time() + self.token_ttl + self.leeway
        refresh = secrets.token_urlsafe(24)
        self.refresh[refresh] = client_id
        body: dict[str, Any] = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.token_ttl,
            "refresh_token": refresh,
        }
        if scope:
            body["scope"] = scope
        return body


class Verifier:
    """The MCP server's side: a token is valid if this authorization server issued it and it is fresh."""

    def __init__(self, state: AuthState) -> None:
        self.state = state

    async def verify_token(self, token: str) -> AccessToken | None:
        found = self.state.access.get(token)
        if found is None or self.state.deadlines[token] < time.time():
            return None
        return found


def _error(status: int, error: str, description: str = "", **headers: str) -> JSONResponse:
    body = {"error": error, **({"error_description": description} if description else {})}
    return JSONResponse(body, status_code=status, headers=headers or None)


def credentials(request: Request, form: dict[str, str]) -> tuple[str, str]:
    """The client id and secret a token request carries: HTTP Basic (each part form-encoded,
    RFC 6749 §2.3.1), else the form (client_secret_post, or a public client's id alone)."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("basic "):
        client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        return unquote(client_id), unquote(secret)
    return form.get("client_id", ""), form.get("client_secret", "")


def _is_loopback(uri: str) -> bool:
    return uri.startswith((f"http://{HOST}:", "http://localhost:"))


def authorization_app(
    state: AuthState,
    *,
    token_endpoint: str | None = None,
    registration: bool = True,
    pkce_methods: tuple[str, ...] | None = ("S256",),
) -> Starlette:
    """The authorization server. ``token_endpoint`` overrides the advertised one (to test a dead one);
    ``registration=False`` refuses dynamic client registration, as many production servers do;
    ``pkce_methods`` is what its metadata lists as ``code_challenge_methods_supported`` (None: the
    field left out, which says it supports no PKCE). ``/authorize`` still checks S256 whatever it
    lists, so a client that does not refuse such a server signs in there."""

    async def metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": state.issuer,
                "authorization_endpoint": f"{state.issuer}/authorize",
                "token_endpoint": token_endpoint or f"{state.issuer}/token",
                "registration_endpoint": f"{state.issuer}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": [
                    "authorization_code",
                    "client_credentials",
                    "refresh_token",
                    JWT_BEARER,
                ],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic",
                    "client_secret_post",
                    "private_key_jwt",
                    "none",
                ],
                "token_endpoint_auth_signing_alg_values_supported": state.signing_algorithms,
                **({} if pkce_methods is None else {"code_challenge_methods_supported": list(pkce_methods)}),
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def register(request: Request) -> Response:
        if not registration:
            return _error(403, "access_denied", "dynamic registration is disabled")
        meta = await request.json()
        uris = meta.get("redirect_uris") or []
        if not uris:
            return _error(400, "invalid_redirect_uri", "redirect_uris is required")
        method = meta.get("token_endpoint_auth_method") or "client_secret_basic"
        state.registering += 1
        waited_until = time.monotonic() + 30
        while state.registering < state.register_together and time.monotonic() < waited_until:
            await asyncio.sleep(0.02)
        client = Client(
            client_id="dyn-" + secrets.token_hex(6),
            secret=None if method == "none" else secrets.token_urlsafe(16),
            auth_method=method,
            redirect_uris=list(uris),
        )
        state.clients[client.client_id] = client
        state.registrations += 1
        info = {**meta, "client_id": client.client_id, "token_endpoint_auth_method": method}
        if client.secret:
            info["client_secret"] = client.secret
        return JSONResponse(info, status_code=201)

    async def authorize(request: Request) -> Response:
        """Auto-approves (the 'person' always says yes) after checking what a real server checks."""
        state.authorize_requests += 1
        q = request.query_params
        client = state.clients.get(q.get("client_id", ""))
        redirect_uri = q.get("redirect_uri", "")
        if client is None:
            return _error(400, "invalid_client", "unknown client_id")
        allowed = (
            _is_loopback(redirect_uri)
            if client.redirect_uris is None
            else redirect_uri in client.redirect_uris
        )
        if not allowed:  # never redirect to an unregistered URI: answer here
            return _error(400, "invalid_request", "redirect_uri is not registered")
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256":
            params = {"error": "invalid_request", "state": q.get("state", "")}
            return RedirectResponse(f"{redirect_uri}?{urlencode(params)}", status_code=302)
        refused = state.withheld(q.get("scope"))
        if refused:  # the person is never asked: this client may not have that scope
            params = {
                "error": "invalid_scope",
                "error_description": f"scope {' '.join(refused)} is not granted to this client",
                "state": q.get("state", ""),
                "iss": state.issuer,
            }
            return RedirectResponse(f"{redirect_uri}?{urlencode(params)}", status_code=302)
        code = secrets.token_urlsafe(16)
        state.codes[code] = {
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "challenge": q.get("code_challenge", ""),
            "scope": q.get("scope"),
            "resource": q.get("resource"),
        }
        params = {"code": code, "state": q.get("state", ""), "iss": state.issuer}
        return RedirectResponse(f"{redirect_uri}?{urlencode(params)}", status_code=302)

    def authenticate(request: Request, form: dict[str, str]) -> Client | None:
        """The client this request proves to be (None: bad credentials)."""
        if form.get("client_assertion_type") == JWT_ASSERTION:
            return asserted(form.get("client_assertion", ""))
        client_id, secret = credentials(request, form)
        client = state.clients.get(client_id)
        if client is None or client.public_key is not None:  # a key's client must sign
            return None
        if client.secret is None:  # a public client proves nothing; PKCE protects it
            return client
        return client if secret and secrets.compare_digest(secret, client.secret) else None

    def asserted(assertion: str) -> Client | None:
        """RFC 7523 §3: signed by the key registered for its issuer, that client as issuer and
        subject, this server as audience, not expired, and never seen before."""
        import jwt

        try:
            claimed = jwt.decode(assertion, options={"verify_signature": False}).get("iss")
            client = state.clients.get(str(claimed))
            if client is None or client.public_key is None:
                return None
            claims = jwt.decode(
                assertion,
                client.public_key,
                algorithms=state.signing_algorithms,
                audience=[state.issuer, state.issuer + "/"],
                options={"require": ["iss", "sub", "aud", "exp", "jti"]},
            )
        except jwt.PyJWTError:
            return None
        if claims["sub"] != client.client_id or claims["jti"] in state.assertion_ids:
            return None
        state.assertion_ids.add(claims["jti"])
        return client

    def granted(assertion: str, client: Client) -> str | None:
        """The person an ID-JAG speaks for: signed by the trusted identity provider, typed as an
        ID-JAG, made out to this server, to the authenticated client and to the MCP server."""
        import jwt

        if state.trusted_idp is None:
            return None
        idp, key = state.trusted_idp
        try:
            if jwt.get_unverified_header(assertion).get("typ") != ID_JAG_TYP:
                return None
            claims = jwt.decode(
                assertion,
                key,
                algorithms=["ES256"],
                audience=[state.issuer, state.issuer + "/"],
                issuer=idp,
                options={"require": ["iss", "sub", "aud", "exp", "jti", "client_id"]},
            )
        except jwt.PyJWTError:
            return None
        if claims["client_id"] != client.client_id or claims.get("resource") != state.resource:
            return None
        return str(claims["sub"])

    async def token(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        grant = form.get("grant_type", "")
        response = _token(request, form, grant)
        state.token_requests.append((grant, response.status_code))
        return response

    def _token(request: Request, form: dict[str, str], grant: str) -> Response:
        client = authenticate(request, form)
        if client is None:
            return _error(
                401, "invalid_client", "client authentication failed", **{"WWW-Authenticate": "Basic"}
            )
        if grant == JWT_BEARER:
            subject = granted(form.get("assertion", ""), client)
            if subject is None:
                return _error(
                    400, "invalid_grant", "not a grant of a trusted identity provider for this client"
                )
            state.granted_subjects.append(subject)
            return JSONResponse(state.issue(client.client_id, form.get("scope"), form.get("resource")))
        if grant == "client_credentials":
            if client.secret is None and client.public_key is None:
                return _error(400, "unauthorized_client", "public clients cannot use client_credentials")
            refused = state.withheld(form.get("scope"))
            if refused:
                return _error(
                    400, "invalid_scope", f"scope {' '.join(refused)} is not granted to this client"
                )
            return JSONResponse(state.issue(client.client_id, form.get("scope"), form.get("resource")))
        if grant == "authorization_code":
            issued = state.codes.pop(form.get("code", ""), None)  # single use, whatever happens next
            if issued is None or issued["client_id"] != client.client_id:
                return _error(400, "invalid_grant", "unknown or used code")
            if form.get("redirect_uri") != issued["redirect_uri"]:
                return _error(400, "invalid_grant", "redirect_uri differs from the authorization request")
            verifier = form.get("code_verifier", "")
            digest = hashlib.sha256(verifier.encode()).digest()
            challenge = base64.urlsafe_b64encode(digest).decode().rstrip("=")
            if not verifier or not secrets.compare_digest(challenge, issued["challenge"]):
                return _error(400, "invalid_grant", "PKCE verification failed")
            return JSONResponse(state.issue(client.client_id, issued["scope"], issued["resource"]))
        if grant == "refresh_token":
            owner = state.refresh.pop(form.get("refresh_token", ""), None)
            if owner != client.client_id:
                return _error(400, "invalid_grant", "unknown refresh token")
            return JSONResponse(state.issue(client.client_id, form.get("scope"), form.get("resource")))
        return _error(400, "unsupported_grant_type")

    return Starlette(
        routes=[
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/register", register, methods=["POST"]),
            Route("/authorize", authorize),
            Route("/token", token, methods=["POST"]),
        ]
    )


def mcp_server(state: AuthState, mcp_url: str, required_scopes: tuple[str, ...] = ()) -> MCPServer:
    """The protected MCP server: two tools, one of which says who the token belongs to.
    ``required_scopes``: every request needs them (the SDK answers 403 insufficient_scope)."""
    server = MCPServer(
        "oauth-demo",
        token_verifier=Verifier(state),
        auth=AuthSettings(
            issuer_url=state.issuer,
            resource_server_url=mcp_url,
            validate_token_resource=False,
            required_scopes=list(required_scopes) or None,
        ),
        log_level="WARNING",
    )

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def whoami() -> str:
        """The client id of the bearer token this call came with."""
        token = get_access_token()
        return token.client_id if token else ""

    @server.tool()
    def quote_token(as_rpc_error: bool = False, first: bool = False) -> str:
        """Fails quoting the header it got, as careless servers do (a tool error, or a JSON-RPC
        one); ``first``: the first token it ever accepted instead (one a refresh has replaced)."""
        token = get_access_token()
        quoted = next(iter(state.access), "") if first else token.token if token else ""
        said = f"refused: Authorization: Bearer {quoted} is not for this realm"
        if as_rpc_error:
            raise MCPError(code=-32001, message=said)
        raise ToolError(said)  # sent as the tool's error text (another exception's text is not)

    if "publish" in state.tool_scopes:

        @server.tool()
        def publish(text: str) -> str:
            """Needs a scope beyond the first sign-in's (step-up authorization): says which it had."""
            token = get_access_token()
            return f"published {text!r} with scope {' '.join(token.scopes) if token else ''}"

    return server


def _bearer_scopes(state: AuthState, headers: dict[bytes, bytes]) -> list[str] | None:
    """The scopes of the valid token a request carries (None: no valid token, the MCP app's 401)."""
    header = headers.get(b"authorization", b"").decode()
    if not header.lower().startswith("bearer "):
        return None
    found = state.access.get(header[7:].strip())
    if found is None or state.deadlines[found.token] < time.time():
        return None
    return found.scopes


def _called_tool(body: bytes) -> str | None:
    """The tool a JSON-RPC ``tools/call`` body calls (None: another message, or not JSON)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    return str(params.get("name")) if isinstance(params, dict) else None


def scope_challenge(app: Any, state: AuthState, resource_metadata: str) -> Any:
    """Per-tool scopes, the way real MCP servers ask for step-up authorization (the TypeScript SDK's
    ``scopeChallenge`` on a tool, Cloudflare's API server): a ``tools/call`` of a tool in
    ``state.tool_scopes`` whose valid token lacks that tool's scope is answered, before the MCP app
    sees it, 403 with ``WWW-Authenticate: Bearer error="insufficient_scope", scope="<that scope>"``
    (MCP authorization, "Scope challenge handling"; RFC 6750 §3.1: the scope this operation needs).
    The SDK's own ``RequireAuthMiddleware`` knows one scope list for the whole endpoint and names no
    scope in its 403, so the test server adds this in front of the MCP app."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not state.tool_scopes:
            await app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False) and message["type"] == "http.request"
        body = b"".join(chunks)
        tool = _called_tool(body)
        needed = state.tool_scopes.get(tool or "")
        scopes = _bearer_scopes(state, dict(scope["headers"]))
        if needed is not None and scopes is not None and needed not in scopes:
            state.challenges.append(str(tool))
            description = f"calling {tool} needs the scope {needed}"
            challenge = (
                f'Bearer error="insufficient_scope", scope="{needed}", '
                f'resource_metadata="{resource_metadata}", error_description="{description}"'
            )
            refusal = _error(403, "insufficient_scope", description, **{"WWW-Authenticate": challenge})
            await refusal(scope, receive, send)
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return guarded


class _Server(uvicorn.Server):
    """uvicorn without signal handlers: it runs in a background thread, where it may not install them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY on accept
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _legacy_app(as_app: Any, mcp_app: Any) -> Any:
    """One origin for both, and no protected-resource metadata (the 2025-03-26 way): a client finds
    the authorization server's metadata at the MCP server's origin."""
    as_paths = {route.path for route in as_app.routes}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/.well-known/oauth-protected-resource"):
            await Response(status_code=404)(scope, receive, send)
        elif scope["type"] == "http" and path in as_paths:
            await as_app(scope, receive, send)
        else:  # the MCP app, its lifespan (the session manager) included
            await mcp_app(scope, receive, send)

    return app


class Served:
    """ASGI apps on their own loopback sockets, served by uvicorn in one background thread (one
    event loop), so a test can read what the servers saw."""

    def __init__(
        self, apps: list[tuple[Any, socket.socket]], tls: dict[int, dict[str, Any]] | None = None
    ) -> None:
        """``tls``: by an app's index, uvicorn's ``ssl_*`` settings for it (https)."""
        tls = tls or {}
        self._servers = [
            (_Server(uvicorn.Config(app, log_level="warning", lifespan="on", **tls.get(n, {}))), sock)
            for n, (app, sock) in enumerate(apps)
        ]
        self._thread = threading.Thread(target=self._run, name="oauth-test-servers", daemon=True)

    def _run(self) -> None:
        async def serve() -> None:
            await asyncio.gather(*(server.serve(sockets=[sock]) for server, sock in self._servers))

        asyncio.run(serve())

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not all(server.started for server, _ in self._servers):
            if time.monotonic() > deadline or not self._thread.is_alive():
                self.stop()
                raise RuntimeError("OAuth test servers did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        for server, _ in self._servers:
            server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(10)
        for _, sock in self._servers:
            sock.close()


class OAuthServers:
    """Both servers in one background thread (one event loop). Use as a context manager.

    ``dead_token_endpoint=True`` advertises a token endpoint where nothing listens;
    ``registration=False`` refuses dynamic registration; ``transport="sse"`` serves the legacy SSE app.
    ``tool_scopes`` ({"publish": "write"}) adds the ``publish`` tool, whose call needs that scope
    (step-up authorization, :func:`scope_challenge`); ``withheld_scopes`` are never granted;
    ``required_scopes``: every request to the MCP server needs them (the SDK's own check).
    ``pkce_methods``: the metadata's ``code_challenge_methods_supported`` (None: left out).
    """

    def __init__(
        self,
        *,
        dead_token_endpoint: bool = False,
        registration: bool = True,
        token_ttl: int = 3600,
        transport: str = "http",
        legacy: bool = False,
        tool_scopes: dict[str, str] | None = None,
        withheld_scopes: tuple[str, ...] = (),
        required_scopes: tuple[str, ...] = (),
        pkce_methods: tuple[str, ...] | None = ("S256",),
    ) -> None:
        self._mcp_sock = _bind()
        self._as_sock = self._mcp_sock if legacy else _bind()
        as_port, mcp_port = self._as_sock.getsockname()[1], self._mcp_sock.getsockname()[1]
        self.issuer = f"http://{HOST}:{as_port}"
        self.mcp_url = f"http://{HOST}:{mcp_port}/" + ("sse" if transport == "sse" else "mcp")
        self.state = AuthState(issuer=self.issuer, token_ttl=token_ttl, resource=self.mcp_url)
        self.state.tool_scopes = dict(tool_scopes or {})
        self.state.withheld_scopes = set(withheld_scopes)
        self.state.clients[CLIENT_ID] = Client(CLIENT_ID, CLIENT_SECRET)
        dead = None
        if dead_token_endpoint:
            with socket.socket() as s:  # a port that was free a moment ago: nothing answers there
                s.bind((HOST, 0))
                dead = f"http://{HOST}:{s.getsockname()[1]}/token"
        server = mcp_server(self.state, self.mcp_url, required_scopes)
        as_app = authorization_app(
            self.state, token_endpoint=dead, registration=registration, pkce_methods=pkce_methods
        )
        mcp_app = server.sse_app() if transport == "sse" else server.streamable_http_app()
        if tool_scopes:
            path = self.mcp_url.split("/", 3)[3]
            prm = f"http://{HOST}:{mcp_port}/.well-known/oauth-protected-resource/{path}"
            mcp_app = scope_challenge(mcp_app, self.state, prm)
        apps = (
            [(_legacy_app(as_app, mcp_app), self._mcp_sock)]
            if legacy
            else [(as_app, self._as_sock), (mcp_app, self._mcp_sock)]
        )
        self._served = Served(apps)

    def trust(self, idp: Any) -> None:
        """Take the grants of ``idp`` (an ``identity_provider.IdentityProvider``), as SEP-990 needs."""
        self.state.trusted_idp = (idp.issuer, idp.public_pem)

    def add_key_client(self, client_id: str, public_key_pem: str) -> None:
        """A client that proves itself with assertions signed by the matching private key."""
        self.state.clients[client_id] = Client(
            client_id, None, auth_method="private_key_jwt", public_key=public_key_pem
        )

    @property
    def token_requests(self) -> list[tuple[str, int]]:
        return list(self.state.token_requests)

    def __enter__(self) -> OAuthServers:
        self._served.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._served.stop()


class Person:
    """Plays the person: opens the shown link; the authorization server approves at once."""

    def __init__(self, follow: bool) -> None:
        self.follow = follow
        self.links: list[str] = []
        self.pages: list[httpx2.Response] = []
        self.done = threading.Event()

    def show_link(self, url: str) -> None:
        self.links.append(url)
        if self.follow:  # a browser: follows the redirect to the loopback listener (on another thread)
            threading.Thread(target=self._browse, args=(url,), name="browser", daemon=True).start()

    def _browse(self, url: str) -> None:
        self.pages.append(httpx2.get(url, follow_redirects=True, timeout=10))
        self.done.set()

    def read_redirect(self) -> str:
        """What the person pastes: the address the browser was sent to (nothing listens there)."""
        response = httpx2.get(self.links[-1], follow_redirects=False, timeout=10)
        assert response.status_code == 302
        return response.headers["location"]


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="An OAuth-protected MCP server and its authorization server")
    pkce = parser.add_mutually_exclusive_group()
    pkce.add_argument(
        "--pkce-methods",
        metavar="M[,M...]",
        help="what the metadata lists as code_challenge_methods_supported (default: S256)",
    )
    pkce.add_argument(
        "--no-pkce-metadata",
        action="store_true",
        help="leave code_challenge_methods_supported out of the metadata (a server without PKCE)",
    )
    args = parser.parse_args()
    methods = tuple(m for m in (args.pkce_methods or "S256").split(",") if m)
    with OAuthServers(pkce_methods=None if args.no_pkce_metadata else methods) as servers:
        print(f"MCP server:           {servers.mcp_url}", flush=True)
        print(f"Authorization server: {servers.issuer}", flush=True)
        print(f"client_credentials:   client_id={CLIENT_ID} client_secret={CLIENT_SECRET}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
