"""OAuth's own requests (discovery, token) with the server's ``tls``: a company's authorization
server sits behind the same private CA as its MCP server, and may ask for the same client
certificate (RFC 8705). Real servers on 127.0.0.1 over https: the OAuth-protected MCP server and
authorization server of ``tests/servers/oauth_server.py``, each with a certificate from a private CA
made here (``mtls_pki``), served by uvicorn with ``ssl``.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from mcpnb.client.errors import McpnbError
from tests.client.mtls_pki import PASSPHRASE, MtlsGateway, Pki, make_pki
from tests.servers.oauth_server import (
    CLIENT_ID,
    CLIENT_SECRET,
    HOST,
    AuthState,
    Client,
    Served,
    _bind,
    authorization_app,
    mcp_server,
)

if TYPE_CHECKING:
    from mcpnb import Pool

pytestmark = pytest.mark.usefixtures("isolated_tokens")

QUIET = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3, "startup_timeout": 15}


def cc(servers: HttpsOAuth) -> dict[str, str]:
    """client_credentials, pinned to the servers' authorization server."""
    return {
        "type": "oauth",
        "flow": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "issuer": servers.issuer,
    }


def cc_unpinned() -> dict[str, str]:
    """client_credentials with no auth.issuer: the MCP server's metadata names the server."""
    return {
        "type": "oauth",
        "flow": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }


def _https(pki: Pki, wants_certificate: bool) -> dict[str, Any]:
    """uvicorn's settings for https with a certificate from ``pki`` and, ``wants_certificate``,
    asking every client for one its CA signed."""
    return {
        "ssl_certfile": str(pki.server_cert),
        "ssl_keyfile": str(pki.server_key),
        "ssl_ca_certs": str(pki.ca) if wants_certificate else None,
        "ssl_cert_reqs": ssl.CERT_REQUIRED if wants_certificate else ssl.CERT_NONE,
    }


class HttpsOAuth:
    """The MCP server (certificate from ``mcp_pki``'s CA) and its authorization server (from
    ``as_pki``'s), both https. ``as_wants_certificate``: the authorization server asks for a client
    certificate its CA signed, itself ("uvicorn": a refused client only sees the connection close)
    or through a gateway in front of it ("gateway": the TLS alert says why, as nginx's does). Use
    as a context manager; the pool is closed before the servers stop."""

    def __init__(
        self, pool: Pool, mcp_pki: Pki, as_pki: Pki, *, as_wants_certificate: str | None = None
    ) -> None:
        self._pool = pool
        mcp_sock, as_sock = _bind(), _bind()
        self._gateway = None
        if as_wants_certificate == "gateway":
            self._gateway = MtlsGateway(as_pki, f"{HOST}:{as_sock.getsockname()[1]}")
            self.issuer = self._gateway.url("")
        else:
            self.issuer = f"https://{HOST}:{as_sock.getsockname()[1]}"
        self.mcp_url = f"https://{HOST}:{mcp_sock.getsockname()[1]}/mcp"
        self.state = AuthState(issuer=self.issuer, resource=self.mcp_url)
        self.state.clients[CLIENT_ID] = Client(CLIENT_ID, CLIENT_SECRET)
        mcp_app = mcp_server(self.state, self.mcp_url).streamable_http_app()
        as_app = authorization_app(self.state)
        tls = {0: _https(mcp_pki, False)}
        if self._gateway is None:  # the gateway speaks https for it
            tls[1] = _https(as_pki, as_wants_certificate == "uvicorn")
        self._served = Served([(mcp_app, mcp_sock), (as_app, as_sock)], tls=tls)

    def __enter__(self) -> HttpsOAuth:
        self._served.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.close()  # its open streams would hold uvicorn's graceful shutdown up
        self._served.stop()
        if self._gateway is not None:
            self._gateway.stop()


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def other_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """Another private CA: the authorization server's, where the MCP server's is ``pki``'s."""
    return make_pki(tmp_path_factory.mktemp("other_pki"))


def test_the_authorization_server_behind_the_private_ca_of_tls_ca_signs_in(pool, pki) -> None:
    """It failed with a certificate error at the authorization server's metadata, though the person
    had given the CA in tls.ca: the flow's own requests trusted only the system's CAs."""
    with HttpsOAuth(pool, pki, pki) as servers:
        pool.connect(
            "corp", url=servers.mcp_url, config={**QUIET, "auth": cc(servers), "tls": {"ca": str(pki.ca)}}
        )
        assert pool.call("corp", "whoami").text == CLIENT_ID
        assert servers.state.token_requests == [("client_credentials", 200)]


def test_an_untrusted_authorization_server_is_named_with_tls_ca_and_not_retried(
    pool, pki, other_pki, monkeypatch
) -> None:
    """The MCP server is trusted (the environment's SSL_CERT_FILE, as a public CA would be), its
    authorization server is behind a private CA nobody gave. It said "could not reach … check that
    the authorization server is running", and retried as if it might come up."""
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))
    with HttpsOAuth(pool, pki, pki) as trusted, HttpsOAuth(pool, pki, other_pki) as servers:
        pool.connect("other", url=trusted.mcp_url, config={**QUIET, "auth": cc(trusted)})
        with pytest.raises(McpnbError) as caught:
            pool.connect("corp", url=servers.mcp_url, config={**QUIET, "auth": cc(servers)})
        said = str(caught.value)
        assert f"{servers.issuer}/.well-known/oauth-authorization-server" in said, said
        assert "does not trust" in said and "tls.ca" in said and "--ca" in said, said
        assert "is running" not in said, said
        row = pool.status()["corp"]
        assert row.state == "failed" and row.retries == 0, row
        assert not [line for line in pool.logs("corp") if "reconnecting" in line or "attempt" in line]
        assert servers.state.token_requests == []
        # the other connection, whose authorization server is trusted, goes on
        assert pool.call("other", "whoami").text == CLIENT_ID
        assert pool.status()["other"].state == "connected"
        assert trusted.state.token_requests == [("client_credentials", 200)]


def test_a_tls_ca_that_does_not_vouch_for_the_authorization_server_says_so(pool, pki, other_pki) -> None:
    with HttpsOAuth(pool, pki, other_pki) as servers:
        with pytest.raises(McpnbError) as caught:
            pool.connect(
                "corp", url=servers.mcp_url, config={**QUIET, "auth": cc(servers), "tls": {"ca": str(pki.ca)}}
            )
        said = str(caught.value)
        assert servers.issuer in said and f"tls.ca ({pki.ca})" in said and "does not vouch" in said, said
        assert pool.status()["corp"].retries == 0


def test_an_authorization_server_certificate_the_strict_check_refuses_is_said_so(
    pool, pki, tmp_path, monkeypatch
) -> None:
    """Its CA in tls.ca, an authorization server's certificate without the key identifiers RFC 5280
    asks for: accepted where Python does not check strictly (3.11, 3.12); on 3.13 and later it was
    said as one tls.ca "does not vouch for: add the CA that signed it to that bundle" (it is there)."""
    import httpx2

    loose = make_pki(tmp_path, rfc5280=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))  # the MCP server's CA, as a public one would be
    config = {**QUIET, "auth": None, "tls": {"ca": str(loose.ca)}}
    with HttpsOAuth(pool, pki, loose) as servers:
        config["auth"] = cc(servers)
        if not httpx2.create_ssl_context().verify_flags & ssl.VERIFY_X509_STRICT:
            pool.connect("corp", url=servers.mcp_url, config=config)
            assert pool.call("corp", "whoami").text == CLIENT_ID
            return
        with pytest.raises(McpnbError) as caught:
            pool.connect("corp", url=servers.mcp_url, config=config)
        said = str(caught.value)
        assert servers.issuer in said and "Missing Authority Key Identifier" in said, said
        assert "strict check" in said and "issued again" in said, said
        assert "vouch" not in said and "add the CA" not in said, said
        assert pool.status()["corp"].retries == 0


@pytest.mark.parametrize("asks", ["uvicorn", "gateway"])
def test_an_authorization_server_that_asks_for_the_client_certificate_gets_it(
    pool, pki, monkeypatch, asks
) -> None:
    """Mutual TLS at the authorization server (RFC 8705): the certificate in tls.cert, its key
    encrypted with the passphrase in tls.password_env, is presented there too; the passphrase is
    in no text."""
    monkeypatch.setenv("MCPNB_TEST_AS_KEY_PASS", PASSPHRASE)
    tls = {
        "cert": str(pki.client_cert),
        "key": str(pki.client_key_encrypted),
        "password_env": "MCPNB_TEST_AS_KEY_PASS",
        "ca": str(pki.ca),
    }
    with HttpsOAuth(pool, pki, pki, as_wants_certificate=asks) as servers:
        pool.connect("mtls", url=servers.mcp_url, config={**QUIET, "auth": cc(servers), "tls": tls})
        assert pool.call("mtls", "whoami").text == CLIENT_ID
        assert servers.state.token_requests == [("client_credentials", 200)]
        shown = [repr(pool.status()), *pool.logs("mtls"), repr(pool.connection("mtls").config)]
        assert not [text for text in shown if PASSPHRASE in text]


def _client_certificate(pki: Pki, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The ``tls`` of a person with a client certificate (its key encrypted) and ``pki``'s CA."""
    monkeypatch.setenv("MCPNB_TEST_AS_KEY_PASS", PASSPHRASE)
    return {
        "cert": str(pki.client_cert),
        "key": str(pki.client_key_encrypted),
        "password_env": "MCPNB_TEST_AS_KEY_PASS",
        "ca": str(pki.ca),
    }


@pytest.mark.parametrize("asks", ["uvicorn", "gateway"])
def test_an_authorization_server_no_setting_names_is_not_shown_the_client_certificate(
    pool, pki, monkeypatch, asks
) -> None:
    """No auth.issuer: the authorization server (another origin) is named by the MCP server's
    metadata alone, and it asks for a client certificate. It got the person's certificate (their
    identity, in clear under TLS 1.2), wherever a hostile MCP server pointed. Now the MCP server's
    own origin gets it (the connection is made with it) and that server does not: the error says
    why and how to pin it, and is not retried."""
    tls = _client_certificate(pki, monkeypatch)
    auth = cc_unpinned()
    with HttpsOAuth(pool, pki, pki, as_wants_certificate=asks) as servers:
        with pytest.raises(McpnbError) as caught:
            pool.connect("mtls", url=servers.mcp_url, config={**QUIET, "auth": auth, "tls": tls})
        said = str(caught.value)
        assert servers.issuer in said and "client certificate" in said, said
        assert "was not sent there" in said and "none is pinned" in said, said
        assert f'"issuer": "{servers.issuer}"' in said and f"--issuer {servers.issuer}" in said, said
        assert "--cert" not in said, said  # a certificate is configured: giving one is not the fix
        assert PASSPHRASE not in said
        row = pool.status()["mtls"]
        assert row.state == "failed" and row.retries == 0, row
        assert servers.state.token_requests == []


@pytest.fixture(autouse=True)
def _no_leftover_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SSL_CERT_FILE from the machine would decide what the tests' clients trust."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    yield


def test_an_authorization_server_that_gets_no_client_certificate_says_so_and_is_not_retried(
    pool, pki
) -> None:
    """The gateway in front of the authorization server ends the handshake with "certificate
    required": said as the MCP server's own would be, naming the endpoint, not as a server that
    may come up (it was "could not reach …", and retried)."""
    with HttpsOAuth(pool, pki, pki, as_wants_certificate="gateway") as servers:
        with pytest.raises(McpnbError) as caught:
            pool.connect(
                "bare", url=servers.mcp_url, config={**QUIET, "auth": cc(servers), "tls": {"ca": str(pki.ca)}}
            )
        said = str(caught.value)
        assert servers.issuer in said and "asks for a client certificate (mutual TLS) and got none" in said, (
            said
        )
        assert "--cert" in said and '"cert"' in said, said
        row = pool.status()["bare"]
        assert row.state == "failed" and row.retries == 0, row
        assert servers.state.token_requests == []


@pytest.mark.parametrize("certificate", [False, True], ids=["ca", "mutual-tls"])
def test_an_identity_provider_behind_the_private_ca_of_tls_ca_exchanges_the_id_token(
    pool, pki, monkeypatch, certificate
) -> None:
    """Enterprise-managed authorization (SEP-990): the company's identity provider sits behind the
    same private CA; its metadata and token exchange trust tls.ca too. ``certificate``: it, and
    the authorization server, ask for the client certificate, and get it: both are named in the
    config (auth.idp_issuer, auth.issuer), not by the MCP server's metadata."""
    from tests.servers.identity_provider import IdentityProvider, assertion_auth

    tls = _client_certificate(pki, monkeypatch) if certificate else {"ca": str(pki.ca)}
    with (
        IdentityProvider(tls=_https(pki, certificate)) as idp,
        HttpsOAuth(pool, pki, pki, as_wants_certificate="uvicorn" if certificate else None) as servers,
    ):
        servers.state.trusted_idp = (idp.issuer, idp.public_pem)
        monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token("ada@example.com"))
        auth = {**assertion_auth(servers.issuer, idp), "id_token_env": "CORP_ID_TOKEN"}
        pool.connect("corp", url=servers.mcp_url, config={**QUIET, "auth": auth, "tls": tls})
        assert pool.call("corp", "whoami").text == CLIENT_ID
        assert idp.issuer.startswith("https://") and [e["status"] for e in idp.exchanges] == [200]
