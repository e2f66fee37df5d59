"""The OAuth flow's own requests (metadata, registration, token): sent on a short-lived client of
their own, not the caller's, and what a failure to reach them says.

That client trusts what the server's ``tls`` names (:meth:`SideRequests.use_tls`): a company's
authorization server sits behind the same private CA as its MCP server. It presents the client
certificate, which may be asked for there too (RFC 8705), only where a setting names the server:
the MCP server's own origin and ``auth.issuer``'s. The certificate is the person's identity, and
an MCP server's metadata alone may point anywhere.
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx2

from mcpnb.client.errors import (
    AuthError,
    client_certificate_refused,
    closed_unanswered,
    describe,
    not_strict_enough,
    tls_verify_failed,
)

if TYPE_CHECKING:
    from mcpnb.client.config.tls import TlsConfig

#: Budget for each metadata/registration/token request (the person's wait is not counted).
SIDE_REQUEST_TIMEOUT = 30.0


class SideRequests:
    """Mixed into the providers (through ``provider._Friendly``): the client the flow's own requests
    go out on, and where the client certificate goes."""

    _tls: TlsConfig | None = None  # the server's tls settings, for the flow's own requests (use_tls)
    _server_origin = ""  # the MCP server's origin (its url's), where the client certificate may go
    _chosen_server: str | None = None  # the authorization server the MCP server's metadata chose
    _issuer_pin: str | None  # auth.issuer: the one authorization server this client trusts
    _error: Callable[..., AuthError]  # the provider's error, its secrets scrubbed

    def use_tls(self, tls: TlsConfig | None, server_url: str) -> None:
        """Send the flow's own requests (metadata, registration, token) with the server's ``tls``: its
        CA trusted, and its client certificate presented where a setting names the server
        (:meth:`_presents_certificate`). A company's authorization server sits behind the same
        private CA as its MCP server (and, with certificate-bound tokens, RFC 8705, asks for the same
        certificate); without this a sign-in the person had configured ``tls.ca`` for failed with a
        certificate error. ``server_url``: the MCP server's, which decides whether ``tls`` can be
        given at all, for the hint after a certificate error, and is one place the certificate goes."""
        self._tls = tls
        self._server_origin = origin(server_url) if server_url else ""

    def _side_verify(self, *, client_certificate: bool = True) -> ssl.SSLContext | bool:
        """What the flow's own client verifies with: the server's ``tls`` context, built afresh from
        its files for each flow (a renewed certificate is read, as at each connect), else httpx's
        default trust. ``client_certificate=False``: its CA alone. A file gone wrong since the
        connect raises its ``ConfigError``."""
        if self._tls is None:
            return True
        return self._tls.context(client_certificate=client_certificate)

    def _has_certificate(self) -> bool:
        """Whether ``tls`` names a client certificate: only then is there one to withhold."""
        return self._tls is not None and bool(self._tls.cert)

    def _presents_certificate(self, url: str) -> bool:
        """Whether a side request to ``url`` presents the client certificate: only at the MCP
        server's own origin and at ``auth.issuer``'s, where the person named the server. Elsewhere
        (an authorization server only the MCP server's metadata names) it would show the person's
        identity to whoever that metadata points at, and under TLS 1.2 in clear on the wire."""
        if not self._has_certificate():
            return False
        allowed = {self._server_origin, *([origin(self._issuer_pin)] if self._issuer_pin else [])}
        return origin(url) in allowed

    def _side_client(self, sides: dict[bool, httpx2.AsyncClient], url: str) -> httpx2.AsyncClient:
        """The flow's client for ``url``: one presenting the client certificate, one not, each made
        when first needed and closed with the flow."""
        certificate = self._presents_certificate(url)
        if certificate not in sides:
            from mcpnb.client.transports import direct_to_this_machine

            sides[certificate] = httpx2.AsyncClient(
                timeout=SIDE_REQUEST_TIMEOUT,
                mounts=direct_to_this_machine(),
                verify=self._side_verify(client_certificate=certificate),
            )
        return sides[certificate]

    def _withheld_words(self, url: str, refused: str | None) -> str:
        """Why an authorization server that asks for the client certificate did not get it, and how
        to give it (``refused``: what :func:`client_certificate_refused` found; None: the
        connection only closed). Said as the MCP server's own refusal would be, without its advice
        to configure a certificate: one is configured."""
        where = origin(url)
        if refused == "handshake":
            said = (
                f"TLS: the server at {where} refused the handshake (alert handshake failure): most often "
                "it asks for a client certificate (mutual TLS)"
            )
        elif refused is None:
            said = (
                f"TLS: the server at {where} closed the connection without an answer: it may ask for a "
                "client certificate (mutual TLS)"
            )
        else:
            said = f"TLS: the server at {where} asks for a client certificate (mutual TLS)"
        said += (
            f", and the one in tls.cert was not sent there: it goes only to the MCP server "
            f"({self._server_origin}) and to the authorization server auth.issuer names"
        )
        if self._issuer_pin is not None:
            return f"{said} ({origin(self._issuer_pin)}), and {where} is neither"
        chosen = self._chosen_server or where
        return (
            f"{said}, and none is pinned: {where} was named by the MCP server's metadata alone. "
            f"{pin_advice(chosen)}"
        )

    def _tls_hint(self) -> str:
        """Where a CA for the flow's own requests is given, said after a certificate they did not
        trust (the environment's way is said by :func:`describe`): ``tls.ca`` applies to an
        https:// MCP server only."""
        ca = self._tls.ca if self._tls is not None else None
        if ca:
            return (
                f"; this server's tls.ca ({ca}) is trusted for its OAuth requests too and does not vouch "
                "for it: add the CA that signed it to that bundle"
            )
        if not self._server_origin.startswith("https://"):  # tls is given for https servers only
            return ""
        return (
            ", or give that CA in this server's tls.ca (in a notebook: %mcp connect … --ca ca.pem): it "
            "is trusted for the server's OAuth requests too"
        )

    async def _reach(
        self,
        sending: Awaitable[httpx2.Response],
        what: str,
        check: str,
        *,
        tls_hint: str = "",
        withheld: str | None = None,
    ) -> httpx2.Response:
        """The response ``sending`` gets, or a retryable AuthError: ``what`` did not answer or could
        not be reached, and ``check`` (what to look at). A certificate not trusted, or a client
        certificate refused, is said as the MCP server's own would be (:func:`describe`), with
        ``tls_hint`` after it, and not retried: no wait fixes it. ``withheld``: the url sent to
        without the configured client certificate (:meth:`_presents_certificate`); its asking for
        one is said as that, with how to pin the server."""
        try:
            return await sending
        except httpx2.TimeoutException:
            raise self._error(
                f"{what} did not answer within {SIDE_REQUEST_TIMEOUT:g} s; {check}", retryable=True
            ) from None
        except (httpx2.TransportError, ssl.SSLError) as exc:  # TLS 1.3's alert on the first read: raw
            refused = client_certificate_refused(exc)
            closed = closed_unanswered(exc, type(exc).__name__, str(exc))  # uvicorn's way to refuse
            if withheld is not None and (refused in ("none", "handshake") or closed):
                said = self._withheld_words(withheld, refused)
                raise self._error(f"could not reach {what}: {said}") from None
            if refused is not None:
                raise self._error(f"could not reach {what}: {describe(exc)}") from None
            if tls_verify_failed(exc):
                said = describe(exc)  # (a CA to trust does not mend a certificate a strict check refuses)
                hint = "" if not_strict_enough(said) else tls_hint
                raise self._error(f"could not reach {what}: {said}{hint}") from None
            reason = type(exc).__name__ + (f": {exc}" if str(exc) else "")
            raise self._error(f"could not reach {what} ({reason}); {check}", retryable=True) from None


def pin_advice(chosen: str) -> str:
    """How to pin the authorization server ``chosen`` (auth.issuer), said wherever something was or
    would be given to it on the MCP server's word alone."""
    return (
        f'If {chosen} is the right one, pin it: "issuer": "{chosen}" in its auth (in a notebook: '
        f"--issuer {chosen}); a server that points elsewhere then gets nothing"
    )


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, the default port left out: what decides whether two
    addresses are one server (RFC 6454)."""
    parts = urlsplit(str(url))
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")
