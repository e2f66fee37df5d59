"""ServerConfig -> an ``httpx2.Auth`` that runs the SDK's OAuth flows with notebook-sized errors.

The SDK's providers do the protocol (discovery, registration, PKCE, refresh). What they do not do
is say what went wrong in words a person can act on: a wrong secret surfaces as a raw token
response body inside nested exception groups, an unreachable authorization server as a bare
``ConnectError``. So our providers send the flow's *own* requests (metadata, registration, token)
themselves, on a short-lived client (:mod:`.sides`: the TLS it trusts, where the client
certificate goes), and turn each failure into an :class:`AuthError` naming the setting to fix. The
request being authenticated still goes through the caller's client. Where the tokens are kept in a
file several processes share, each provider keeps in step with the others (:mod:`.shared`).

A client the token endpoint rejected stays rejected for the provider's lifetime: every later
request fails at once instead of asking the token endpoint again (no retry storm).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import warnings
from collections.abc import AsyncGenerator, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.utils import extract_field_from_www_auth, issuers_match, union_scopes
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE as JWT_BEARER
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl

from mcpnb.client.auth.keys import SigningKey
from mcpnb.client.auth.notice import tell_person
from mcpnb.client.auth.redirect import HOST, authorization_ui
from mcpnb.client.auth.shared import SharedTokenFile
from mcpnb.client.auth.sides import SIDE_REQUEST_TIMEOUT, SideRequests, origin, pin_advice
from mcpnb.client.auth.signin import BrowserSignIn, free_port
from mcpnb.client.config.auth import TLS_RULE, cleartext_to_another_host
from mcpnb.client.errors import AuthError, describe
from mcpnb.client.redact import scrub
from mcpnb.client.timeouts import connect_clock_paused

logger = logging.getLogger("mcpnb.client.auth")

#: What a flow raises only through a bug in its code (ours or the SDK's), never because of a setting
#: or a server's answer: the connect would otherwise report the server's 401 instead.
_FAULTS = (AttributeError, TypeError, LookupError, NameError, AssertionError)

#: Why a step-up authorization did not get a request the scope its server asked for, by (server
#: name, url): the request itself only ends in the server's 403, which names no setting.
_scope_refusals: dict[tuple[str, str], AuthError] = {}


def take_scope_refusal(server: str, url: str) -> AuthError | None:
    """Why the last 403 insufficient_scope of ``server`` at ``url`` stayed one (None: no step-up
    failed): what the scope challenge asked, what was tried, the setting to change. Said once."""
    return _scope_refusals.pop((server, url), None)


def scope_challenge(response: httpx2.Response) -> str | None:
    """The scope a 403 ``insufficient_scope`` asks for (RFC 6750 §3.1, MCP "Scope challenge
    handling"), "" when it names none; None for any other response."""
    if response.status_code != 403 or extract_field_from_www_auth(response, "error") != "insufficient_scope":
        return None
    return extract_field_from_www_auth(response, "scope") or ""


#: How many of the tokens a provider has held (access, refresh, client secret) are scrubbed:
#: the current ones and those a few refreshes replaced.
TOKENS_HELD = 12


class _Friendly(SideRequests, SharedTokenFile):
    """Mixed into the SDK providers: send the flow's own requests (on :class:`.sides.SideRequests`'
    client), translate failures, hide secrets; and keep in step with a token file other processes
    share (:class:`.shared.SharedTokenFile`, between this and the SDK's flow)."""

    context: Any  # OAuthContext, set by the SDK base class (None for the identity assertion one)
    _flow_name: str  # auth.flow, for the repr

    def _setup(
        self,
        server: str,
        client_id: str | None,
        client_secret: str | None,
        scope: str | None,
        issuer: str | None,
    ) -> None:
        self._server = server
        self._client_id = client_id
        self._client_secret = client_secret
        self._scope = scope
        self._issuer_pin = issuer  # auth.issuer: the one authorization server this client trusts
        self._rejected: AuthError | None = None
        self._found_metadata = False  # any OAuth discovery document answered (well-known addresses)
        self._told: set[str] = set()  # what this connection's person was warned of already
        self._step_up: str | None = None  # the scope a 403 insufficient_scope asked for, during its flow
        self._remembered: Any = None  # the tokens last given to the log filter (_remember_tokens)
        self._tokens_held: dict[str, None] = {}  # the tokens this provider held, oldest first

    def __repr__(self) -> str:
        flow = self._flow_name
        return f"{type(self).__name__}(server={self._server!r}, flow={flow!r}, client_id={self._client_id!r})"

    def _secret_values(self) -> list[str | None]:
        values: list[str | None] = [self._client_secret]
        tokens = getattr(self.context, "current_tokens", None)
        if tokens is not None:
            values += [tokens.access_token, tokens.refresh_token]
        info = getattr(self.context, "client_info", None)
        if info is not None:
            values.append(info.client_secret)
        return values

    def _remember_tokens(self) -> None:
        """Have the tokens this request carries scrubbed wherever their connection's words go (its
        ``safe``, the HTTP client's and the SDK's logs): no config holds an access token, and a
        server that quotes the header it got in an error showed it. Again only when it changed."""
        tokens = getattr(self.context, "current_tokens", None)
        if tokens is not None and tokens is not self._remembered:
            from mcpnb.client.logfilter import remember_secrets

            self._remembered = tokens
            # the tokens a refresh replaced too (a server may still quote an old one), the newest
            # TOKENS_HELD of them: a kernel that refreshes hourly for a week holds no hundreds
            for value in (v for v in self._secret_values() if v):
                self._tokens_held.pop(value, None)
                self._tokens_held[value] = None
            while len(self._tokens_held) > TOKENS_HELD:
                del self._tokens_held[next(iter(self._tokens_held))]
            remember_secrets(self, self._tokens_held)

    def _error(self, message: str, *, retryable: bool = False) -> AuthError:
        return AuthError(scrub(message, self._secret_values()), server=self._server, retryable=retryable)

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        # The SDK does not keep expiry across providers; without it a stale stored token is sent
        # first and only replaced after the server's 401. With it, the SDK refreshes up front.
        storage = self.context.storage
        expires_at = getattr(storage, "expires_at", None)
        if self.context.current_tokens is not None and expires_at:
            self.context.token_expiry_time = expires_at
        stored = getattr(storage, "stored_metadata", None)
        if self.context.oauth_metadata is None and stored is not None:
            self.context.oauth_metadata = stored()
        held = self.context.oauth_metadata
        if self._issuer_pin is not None and not (held and issuers_match(str(held.issuer), self._issuer_pin)):
            # Tokens from another authorization server (or from one not known) are not refreshed or
            # sent: a refresh would carry the client's credentials to that server's token endpoint.
            self.context.oauth_metadata = None
            self.context.clear_tokens()

    def _select_authorization_server(self, advertised: list[str]) -> str:
        """With auth.issuer, that one of the servers the MCP server lists, or stop before anything
        (a registration, a sign-in link, a secret) goes to a server the person did not name.
        Without it, the one the SDK picks, said to the person where it is not the MCP server's
        own origin and this client's credentials would go there (:meth:`_unpinned`)."""
        pin = self._issuer_pin
        if pin is None:
            chosen: str = super()._select_authorization_server(advertised)  # type: ignore[misc]
            self._chosen_server = chosen
            self._check_cleartext(chosen, "authorization server")
            self._unpinned(chosen)
            return chosen
        for server in advertised:
            if issuers_match(server, pin):
                self._check_cleartext(server, "authorization server")
                return server
        raise self._error(
            f"the MCP server sends its clients to the authorization server {' or '.join(advertised)}, and "
            f"the issuer you gave (auth.issuer, or --issuer) is {pin}: nothing was sent there (no secret, "
            "no sign-in). If that server is the right one, give it as the issuer; if not, check that the "
            "url is the server you meant"
        )

    def _sends(self) -> str | None:
        """What of this client's own goes to the authorization server, which belongs to the one it
        was registered at (None: a public client, registered wherever the server points). Never the
        client certificate: it is not presented to an authorization server no setting names."""
        return "its client secret" if self._client_secret else None

    def _unpinned(self, chosen: str) -> None:
        """No auth.issuer, and the MCP server names an authorization server at another origin: its
        metadata alone decides who receives this client's credentials. Said to the person once per
        connection (not refused: the MCP spec finds the authorization server this way, most are at
        another origin than the MCP server, and the SDK only deprecates an absent issuer so far)."""
        sends = self._sends()
        ours, theirs = origin(self.context.server_url), origin(chosen)
        if sends is None or ours == theirs:
            return
        self._tell(
            f"server {self._server!r}: the MCP server at {ours} sends its clients to the authorization "
            f"server {theirs}, and {sends} goes there: no auth.issuer says that is where this client "
            f"belongs, so whoever answers at {ours} decides. {pin_advice(chosen)}"
        )

    def _check_cleartext(self, url: str, what: str) -> None:
        """Stop before an OAuth request goes over plain http to another machine (OAuth 2.1 §1.5);
        where the person chose such an address themselves (the MCP url, auth.issuer), warn instead."""
        if not cleartext_to_another_host(url):
            return
        named = (self.context.server_url, self._issuer_pin)
        where = origin(url)
        if any(u and cleartext_to_another_host(u) for u in named):
            self._tell(
                f"server {self._server!r}: the {what} {where} is plain http to another machine: anyone on "
                f"the network between can read what this client sends and gets there ({TLS_RULE})"
            )
            return
        raise self._error(
            f"the {what} {where} is plain http to another machine, and the MCP server sent this client "
            f"there: nothing was sent ({TLS_RULE}). Ask the server's operator for its https:// address, "
            "and pin it with auth.issuer (--issuer)"
        )

    def _tell(self, text: str) -> None:
        if text not in self._told:
            self._told.add(text)
            tell_person(scrub(text, self._secret_values()))

    def _expected_issuer(self) -> str:
        """The issuer discovered metadata must name: auth.issuer where the MCP server publishes no
        resource metadata (the legacy path), so metadata at its origin names that issuer or stops."""
        expected: str = super()._expected_issuer()  # type: ignore[misc]
        pin = self._issuer_pin
        return expected if pin is None or issuers_match(expected, pin) else pin

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)  # type: ignore[misc]
        store = getattr(self.context.storage, "store_metadata", None)
        if store is not None and self.context.oauth_metadata is not None:
            store(self.context.oauth_metadata)

    async def _perform_authorization(self) -> httpx2.Request:
        # The SDK replaces the requested scope with what discovery advertises (or nothing);
        # a scope the person configured is a deliberate choice and wins. A step-up keeps what the
        # SDK asks then (what was asked before plus what the server's challenge names): the
        # configured scope alone would get the same token again, and the same 403.
        if self._scope:
            stepped_up = self.context.client_metadata.scope if self._step_up is not None else None
            self.context.client_metadata.scope = union_scopes(self._scope, stepped_up)
        return await super()._perform_authorization()  # type: ignore[misc]

    def _stepping_up(self, scope: str) -> None:
        """A request was answered 403 insufficient_scope: the SDK authorizes again for ``scope``."""
        self._step_up = scope
        logger.debug("oauth %s: the server asks for the scope %r: authorizing again", self._server, scope)

    def _refuse_scope(self, scope: str, why: str) -> None:
        """The step-up for ``scope`` did not work (``why``): kept for the request's own error, which
        the request gets as the server's 403 (an error raised here would end the whole session)."""
        asked = f"the scope {scope}" if scope else "more scope (its challenge names none)"
        granted = getattr(self.context.current_tokens, "scope", None)
        has = f"the scope {granted}" if granted else "no scope"
        setting = f"auth.scope (now {self._scope!r})" if self._scope else "auth.scope"
        self._scope_failed(
            f"the server answered 403 insufficient_scope: this request needs {asked}, and this client's "
            f"token has {has}. {why}. If this client should have it, the "
            f"authorization server's administrator must allow it, and {setting} can ask for it up "
            "front; the session goes on, and calls that need no more scope work"
        )

    def _scope_failed(self, message: str) -> None:
        _scope_refusals[(self._server, str(self.context.server_url))] = self._error(message)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._rejected is not None:  # a fresh copy: re-raising one object would grow its traceback
            raise copy.copy(self._rejected).with_traceback(None)
        # the SDK's flow, kept in step with a token file other processes share (SharedTokenFile)
        flow = super().async_auth_flow(request)  # type: ignore[misc]
        sides: dict[bool, httpx2.AsyncClient] = {}  # with the client certificate, without (_side_client)
        asked: str | None = None  # the scope this request's 403 insufficient_scope asked for
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is request:
                    self._remember_tokens()
                    response = yield outgoing
                    again = scope_challenge(response)
                    if again is not None and asked is not None:  # the step-up's token is short too
                        self._refuse_scope(
                            asked,
                            "Authorizing again for it gave a token without it: the authorization "
                            "server does not grant it to this client",
                        )
                    elif again is not None:
                        asked = again
                        self._stepping_up(asked)
                else:
                    response = await self._send_side(sides, outgoing)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except AuthError as exc:
            if asked is None:
                raise
            # the request ends with the server's 403 and these words; the session is not lost
            said = str(exc).removeprefix(f"server {self._server!r}: ")
            self._refuse_scope(asked, f"Authorizing again for it failed: {said}")
            return
        except OAuthFlowError as exc:  # the SDK's own checks (issuer, state, resource mismatch...)
            pin = self._issuer_pin
            if pin is not None and "issuer" in str(exc):
                raise self._error(
                    f"the authorization server's metadata does not name the issuer you gave (auth.issuer, "
                    f"or --issuer) {pin} ({exc}): nothing was sent there. Give the issuer that server "
                    "publishes if it is the right one"
                ) from None
            raise self._error(f"OAuth failed: {exc}") from None
        except _FAULTS as exc:  # a bug: said as such, not hidden behind the 401 that started the flow
            raise self._error(
                f"OAuth failed inside mcpnb or the MCP SDK ({describe(exc)}): a fault, not your "
                "settings; --verbose shows where, please report it"
            ) from exc
        finally:
            self._step_up = None
            await flow.aclose()
            for side in sides.values():
                await side.aclose()
            self._flow_ended()

    def _flow_ended(self) -> None:
        """A flow ended, however it ended (the authorization code flow gives up its turn here)."""

    def _before_registration(self) -> None:
        """Dynamic registration is about to be asked for: a flow that cannot go on at this
        authorization server refuses here, before it holds a client it would never use."""

    async def _send_side(
        self, sides: dict[bool, httpx2.AsyncClient], outgoing: httpx2.Request
    ) -> httpx2.Response:
        grant = _grant_type(outgoing)
        what = _describe(outgoing, grant, getattr(self.context, "oauth_metadata", None))
        where = str(outgoing.url.copy_with(query=None, fragment=None))
        if what == "registration endpoint":
            self._before_registration()
        if grant is not None or what == "registration endpoint":  # secrets, codes, tokens: not in clear
            self._check_cleartext(where, what)
        side = self._side_client(sides, where)
        response = await self._reach(
            side.send(outgoing),
            f"the {what} at {where}",
            "check that the authorization server is running and that the MCP server's OAuth metadata "
            "points at it",
            tls_hint=self._tls_hint(),
            withheld=where if self._has_certificate() and not self._presents_certificate(where) else None,
        )
        logger.debug("oauth %s: %s %s -> HTTP %d", self._server, outgoing.method, where, response.status_code)
        if "/.well-known/" in outgoing.url.path and response.status_code < 400:
            self._found_metadata = True
        if response.status_code >= 400 and grant in ("client_credentials", "authorization_code", JWT_BEARER):
            raise self._token_failure(response, grant)
        if response.status_code >= 400 and what == "registration endpoint" and not self._found_metadata:
            raise self._error(
                "the server publishes no OAuth metadata (nothing at its /.well-known/"
                "oauth-protected-resource or oauth-authorization-server addresses), so it does not sign "
                "people in with OAuth; it wants a token: auth bearer (token or token_env) or an "
                "Authorization header"
            )
        if response.status_code >= 400 and what == "registration endpoint":
            error, _ = _oauth_error(response)
            raise self._error(
                f"the authorization server refused dynamic client registration (HTTP {response.status_code}"
                f"{' ' + error if error else ''}); register a client by hand and set auth.client_id "
                "(and client_secret or client_secret_env)"
            )
        return response

    def _token_failure(self, response: httpx2.Response, grant: str) -> AuthError:
        status = response.status_code
        error, detail = refusal(response)
        configured = self._client_id is not None
        if status == 401 or error == "invalid_client":
            if configured:
                fix = self._credentials_hint()
                who = f"client {self._client_id!r}"
            else:  # a dynamically registered client the server has forgotten: start over next time
                fix = "the stored registration was dropped; connect again to register anew"
                who = "the registered client"
                self.context.client_info = None
                self._forget_client_info()
            failure = self._error(f"the authorization server rejected {who} ({detail}); {fix}")
            self._rejected = failure
            return failure
        if error == "invalid_scope":
            return self._error(f"the authorization server refused the scope ({detail}); check auth.scope")
        if error == "unauthorized_client":
            return self._error(f"this client may not use the {grant} grant ({detail}); check auth.flow")
        if error == "invalid_grant" and grant == JWT_BEARER:
            return self._error(self._refused_grant(detail))
        if error == "invalid_grant" and grant == "authorization_code":
            return self._error(
                f"the authorization code was refused ({detail}); connect again to authorize anew"
            )
        return self._error(f"the token request failed ({detail})", retryable=status >= 500)

    def _refused_grant(self, detail: str) -> str:
        """What to say when the authorization server refuses a jwt-bearer grant."""
        return (
            f"the authorization server refused the identity provider's grant ({detail}); it may not "
            "trust that identity provider, or take its grants for this client (check auth.issuer "
            "and auth.client_id with its administrator)"
        )

    def _credentials_hint(self) -> str:
        """What to check when the authorization server does not believe the client is who it says."""
        return "check auth.client_id and auth.client_secret (or the variable named by client_secret_env)"

    def _forget_client_info(self) -> None:
        clear = getattr(self.context.storage, "clear", None)
        if clear is not None:
            clear()


@contextlib.contextmanager
def _no_issuer_warning(issuer: str | None) -> Iterator[None]:
    """Building a client_credentials provider without an issuer makes the SDK warn, on every connect,
    of a deprecated argument. What that risks is said instead where it happens, naming both servers
    and the setting to pin (:meth:`_Friendly._unpinned`): once discovery shows the credentials would
    go to another origin than the MCP server's."""
    with warnings.catch_warnings():
        if issuer is None:
            warnings.simplefilter("ignore")
            logger.debug("oauth: no auth.issuer; the MCP server's metadata names the authorization server")
        yield


class ClientCredentials(_Friendly, ClientCredentialsOAuthProvider):
    """Machine-to-machine OAuth (client_credentials) with a configured client id and secret."""

    _flow_name = "client_credentials"

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: Any,
        *,
        client_id: str,
        client_secret: str,
        scope: str | None = None,
        issuer: str | None = None,
        token_endpoint_auth_method: str = "client_secret_basic",
    ) -> None:
        with _no_issuer_warning(issuer):
            super().__init__(
                server_url,
                storage,
                client_id,
                client_secret,
                token_endpoint_auth_method=token_endpoint_auth_method,  # type: ignore[arg-type]
                scope=scope,
                issuer=issuer,
            )
        self._setup(server, client_id, client_secret, scope, issuer)


class PrivateKeyJWT(_Friendly, PrivateKeyJWTOAuthProvider):
    """Machine-to-machine OAuth (client_credentials) where the client signs an assertion with its
    private key (``private_key_jwt``, RFC 7523) instead of sending a secret (SEP-1046)."""

    _flow_name = "client_credentials"

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: Any,
        *,
        client_id: str,
        key: SigningKey,
        pem: str,
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        async def assertion(audience: str) -> str:
            self._check_algorithm()
            return key.assertion(client_id, audience)

        with _no_issuer_warning(issuer):
            super().__init__(server_url, storage, client_id, assertion, scope=scope, issuer=issuer)
        self._setup(server, client_id, pem, scope, issuer)
        self._key = key

    def _sends(self) -> str | None:
        return "a client assertion signed with its private key"

    def _check_algorithm(self) -> None:
        """A server that lists the algorithms it takes is told no other: say so before it refuses."""
        metadata = self.context.oauth_metadata
        taken = getattr(metadata, "token_endpoint_auth_signing_alg_values_supported", None)
        if taken and self._key.algorithm not in taken:
            raise self._error(
                f"the authorization server takes client assertions signed with {', '.join(taken)}, and "
                f"this {self._key.kind} key signs {self._key.algorithm}; set auth.signing_algorithm to "
                "one of those the key can make, or register a key of another kind"
            )

    def _credentials_hint(self) -> str:
        return (
            f"check auth.client_id, and that the authorization server holds the public half of the "
            f"private key (a {self._key.kind} key, signing {self._key.algorithm})"
        )


class AuthorizationCode(_Friendly, OAuthClientProvider):
    """Authorization code + PKCE, the person approving in a browser.

    The redirect URI is ``http://127.0.0.1:<port>/callback`` whatever the mode (listener or paste),
    so one registration serves both. The port is fixed when the provider is built: ``redirect_port``
    (a client registered by hand for that exact address), else the one a stored registration already
    uses, else a free one. ``assume_pkce``: an authorization server whose metadata leaves out
    ``code_challenge_methods_supported`` is taken to support S256 (the person says so: Microsoft
    Entra ID does, without saying so), with a warning; one that lists methods without S256 is
    still refused.
    """

    _flow_name = "authorization_code"

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: Any,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        scope: str | None = None,
        issuer: str | None = None,
        redirect_port: int | None = None,
        client_metadata_url: str | None = None,
        assume_pkce: bool = False,
    ) -> None:
        self._assume_pkce = assume_pkce
        port = redirect_port or _stored_loopback_port(storage) or free_port()
        self.redirect_uri = f"http://{HOST}:{port}/callback"
        method = "client_secret_basic" if client_secret else "none"
        metadata = OAuthClientMetadata(
            redirect_uris=[AnyUrl(self.redirect_uri)],
            token_endpoint_auth_method=method,
            grant_types=["authorization_code", "refresh_token"],
            client_name="mcpnb",
            scope=scope,
        )
        self._sign_in = BrowserSignIn(server, self.redirect_uri)
        super().__init__(
            server_url,
            metadata,
            storage,
            self._sign_in.show_link,
            self._sign_in.receive_code,
            client_metadata_url=client_metadata_url,
        )
        self._setup(server, client_id, client_secret, scope, issuer)
        self._fixed_client_info = (
            OAuthClientInformationFull(
                client_id=client_id,
                client_secret=client_secret,
                redirect_uris=[AnyUrl(self.redirect_uri)],
                token_endpoint_auth_method=method,
                grant_types=["authorization_code", "refresh_token"],
            )
            if client_id
            else None
        )

    async def _initialize(self) -> None:
        await super()._initialize()
        if self._fixed_client_info is not None:
            self.context.client_info = self._fixed_client_info
            return
        info = self.context.client_info
        if info is not None and self.redirect_uri not in [str(u) for u in info.redirect_uris or []]:
            self.context.client_info = None  # registered for another redirect URI: register again

    def _before_registration(self) -> None:
        self._check_pkce()

    async def _perform_authorization(self) -> httpx2.Request:
        self._check_pkce()  # a pre-registered or URL-based client id registers nothing: refused here
        return await super()._perform_authorization()

    def _check_pkce(self) -> None:
        """Stop before anyone is sent to sign in where the authorization server's metadata does not
        say it supports PKCE with S256, the only method this client uses. MCP authorization
        (2025-11-25, "Authorization Code Protection"): without ``code_challenge_methods_supported``
        the server does not support PKCE and clients MUST refuse to proceed; the SDK sends S256
        whatever the metadata says, so a server that ignores it would take a code anyone who sees
        the redirect could redeem. No metadata at all (a 2025-03-26 server, its default endpoints
        at its own origin) gives nothing to check, and goes on as the SDK does. ``assume_pkce``
        lets a sign-in go on where the field is absent only: a server that lists its methods
        without S256 has said it does not do S256."""
        metadata = self.context.oauth_metadata
        if metadata is None:
            return
        methods = metadata.code_challenge_methods_supported
        if methods is not None and "S256" in methods:
            return
        if methods is None and self._assume_pkce:
            self._warn_pkce_assumed(str(metadata.issuer))
            return
        said = (
            "has no code_challenge_methods_supported"
            if methods is None
            else f"lists code_challenge_methods_supported {', '.join(methods) or '(empty)'}, not S256"
        )
        if methods is None:
            way_out = (
                "; if you know it supports PKCE with S256 (Microsoft Entra ID does, without saying so), "
                "set assume_pkce: true in the server's auth settings"
            )
        elif self._assume_pkce:  # said why the setting given did not help
            way_out = " (assume_pkce applies only where the metadata lists no methods at all)"
        else:
            way_out = ""
        raise self._error(
            f"the authorization server at {metadata.issuer} does not say it supports PKCE with S256 (its "
            f"metadata {said}); MCP clients must refuse to sign in there, so nothing was registered "
            "and no sign-in link was shown. Ask the server's operator to enable PKCE (S256) and "
            f"publish it in the authorization server's metadata{way_out}"
        )

    def _warn_pkce_assumed(self, issuer: str) -> None:
        """Where the person connected (a line in a log of a connection that works is read by
        nobody), once: the sign-in goes on on their word, not the server's."""
        self._tell(
            f"server {self._server!r}: the authorization server at {issuer} does not list "
            "code_challenge_methods_supported; PKCE with S256 is assumed (auth.assume_pkce is true)"
        )

    async def _sign_in_turn(self, storage: Any) -> Any:
        take = getattr(storage, "sign_in_turn", None)
        if take is None:
            return None
        patience = authorization_ui().timeout + SIDE_REQUEST_TIMEOUT  # the other's wait, and its token

        def slow() -> None:
            self._tell(
                f"server {self._server!r}: another kernel or process of yours is signing in to this "
                f"server (its sign-in is kept in {storage.path}): this kernel waits for it, up to "
                f"{patience:g} s, and uses that sign-in instead of showing a second link; finish it "
                "there (if it fails, the link shows here)"
            )

        with connect_clock_paused():  # waiting for a person elsewhere is not this server being slow
            return await take(patience, slow=slow)

    def _adopt_client(self, info: OAuthClientInformationFull) -> bool:
        """Go on as ``info``'s client, with its redirect address (a sign-in later must bring the
        person back to an address that client registered), as a provider built after it would
        (:func:`_stored_loopback_port`). A client configured here (``auth.client_id``) is kept."""
        if self._fixed_client_info is not None:
            return False
        for uri in info.redirect_uris or []:
            parts = urlsplit(str(uri))
            if parts.hostname == HOST and parts.port:
                self.redirect_uri = self._sign_in.redirect_uri = f"http://{HOST}:{parts.port}/callback"
                self.context.client_metadata.redirect_uris = [AnyUrl(self.redirect_uri)]
                return True
        return False

    def _after_sign_out(self) -> None:
        self._sign_in.purpose = "you signed out in another kernel or process"

    def _stepping_up(self, scope: str) -> None:
        super()._stepping_up(scope)
        more = f"the scope {scope}" if scope else "more scope"
        self._sign_in.purpose = f"it asks for more permission: the server needs {more} for a call"

    def _flow_ended(self) -> None:
        self._sign_in.purpose = None
        self._sign_in.release()

    def _secret_values(self) -> list[str | None]:
        return [*super()._secret_values(), self._sign_in.state]


def _grant_type(request: httpx2.Request) -> str | None:
    if request.method != "POST" or "form-urlencoded" not in request.headers.get("content-type", ""):
        return None
    try:
        return parse_qs(request.content.decode())["grant_type"][0]
    except (KeyError, IndexError, UnicodeDecodeError):
        return None


def _describe(request: httpx2.Request, grant: str | None, metadata: Any) -> str:
    if grant is not None:
        return "token endpoint"
    registration = getattr(metadata, "registration_endpoint", None)
    if request.method == "POST" and (
        (registration and str(request.url) == str(registration)) or request.url.path.endswith("/register")
    ):
        return "registration endpoint"
    return "OAuth metadata endpoint"


def refusal(response: httpx2.Response) -> tuple[str, str]:
    """A refused OAuth request's ``error``, and ``HTTP 400 invalid_grant: <description>`` to show."""
    error, description = _oauth_error(response)
    return error, f"HTTP {response.status_code}" + (f" {error}" if error else "") + (
        f": {description}" if description else ""
    )


def _oauth_error(response: httpx2.Response) -> tuple[str, str]:
    """RFC 6749 §5.2 ``error`` and ``error_description``, empty when the body is not that shape."""
    try:
        body = response.json()
    except ValueError:
        return "", ""
    if not isinstance(body, dict):
        return "", ""
    return str(body.get("error") or "")[:100], str(body.get("error_description") or "")[:200]


def _stored_loopback_port(storage: Any) -> int | None:
    stored = getattr(storage, "stored_client_info", None)
    info = stored() if stored is not None else None
    for uri in (info.redirect_uris or []) if info is not None else []:
        parts = urlsplit(str(uri))
        if parts.hostname == HOST and parts.port:
            return parts.port
    return None
