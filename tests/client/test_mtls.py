"""Mutual TLS: a client certificate (``tls``: cert, key, password_env, ca) for a server that asks for
one. Real HTTPS servers on 127.0.0.1 with a CA, server and client certificates made here
(``mtls_pki``): uvicorn asking for a client certificate (both HTTP transports), and a gateway in
front of the demo server that ends a refused handshake with its TLS alert, as nginx and Envoy do.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator

import pytest
from conftest import HttpServer

from mcpnb.client.config import ServerConfig
from mcpnb.client.errors import ConfigError, ConnectError
from tests.client.mtls_pki import PASSPHRASE, MtlsGateway, MtlsServer, Pki, make_pki

QUIET = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3, "startup_timeout": 15}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(params=["http", "sse"])
def mtls_server(request: pytest.FixtureRequest, pki: Pki) -> Iterator[MtlsServer]:
    server = MtlsServer(pki, request.param)
    yield server
    server.stop()


@pytest.fixture
def gateway(pki: Pki) -> Iterator[str]:
    """https://…/mcp: the demo server behind a gateway that asks for a client certificate."""
    demo = HttpServer("http")
    front = MtlsGateway(pki, demo.url.split("/")[2])
    yield front.url("/mcp")
    front.stop()
    demo.stop()


def _tls(pki: Pki, **more: str) -> dict[str, str]:
    return {"ca": str(pki.ca), **{k: str(v) for k, v in more.items()}}


# ---------------------------------------------------------------- real servers
def test_a_client_certificate_is_presented_over_both_http_transports(pool, pki, mtls_server) -> None:
    pool.connect(
        "m", url=mtls_server.url, config={**QUIET, "tls": _tls(pki, cert=pki.client_cert, key=pki.client_key)}
    )
    assert pool.call("m", "echo", {"text": "mutual"}).text == "mutual"
    # the key in the certificate's file, and an encrypted key whose passphrase a variable holds
    pool.connect("both", url=mtls_server.url, config={**QUIET, "tls": _tls(pki, cert=pki.client_both)})
    assert pool.call("both", "echo", {"text": "one file"}).text == "one file"


def test_an_encrypted_key_opens_with_the_passphrase_in_a_variable_never_shown(
    pool, pki, mtls_server, monkeypatch
) -> None:
    monkeypatch.setenv("MCPNB_TEST_KEY_PASS", PASSPHRASE)
    tls = _tls(pki, cert=pki.client_cert, key=pki.client_key_encrypted, password_env="MCPNB_TEST_KEY_PASS")
    pool.connect("enc", url=mtls_server.url, config={**QUIET, "tls": tls})
    assert pool.call("enc", "echo", {"text": "unlocked"}).text == "unlocked"
    config = pool.connection("enc").config
    shown = [repr(config), str(config.redacted()), config.target, repr(pool.status()), *pool.logs("enc")]
    assert not [text for text in shown if PASSPHRASE in text]
    assert PASSPHRASE in config.secrets()  # scrubbed from any text the server sends back


def test_without_a_client_certificate_uvicorn_closing_says_mutual_tls_may_be_why(
    pool, pki, mtls_server
) -> None:
    """uvicorn (asyncio) sends no TLS alert when it refuses: the connection just closes after the
    handshake. Said as it is, with mutual TLS as what to try."""
    with pytest.raises(ConnectError) as caught:
        pool.connect("bare", url=mtls_server.url, config={**QUIET, "max_retries": 0, "tls": _tls(pki)})
    said = str(caught.value)
    assert "client certificate (mutual TLS)" in said and '"tls"' in said, said


def test_a_server_that_requires_a_certificate_and_got_none_says_so_and_is_not_retried(
    pool, pki, gateway
) -> None:
    with pytest.raises(ConnectError) as caught:
        pool.connect("none", url=gateway, config={**QUIET, "tls": _tls(pki)})
    said = str(caught.value)
    assert "asks for a client certificate (mutual TLS) and got none" in said, said
    assert "--cert" in said and '"cert"' in said
    row = pool.status()["none"]
    assert row.state == "failed" and row.retries == 0, row
    assert not [entry for entry in pool.logs("none") if "reconnecting" in entry or "attempt" in entry]


def test_a_certificate_from_a_ca_the_server_does_not_trust_is_said(pool, pki, gateway) -> None:
    tls = _tls(pki, cert=pki.stranger_cert, key=pki.stranger_key)
    with pytest.raises(ConnectError) as caught:
        pool.connect("stranger", url=gateway, config={**QUIET, "tls": tls})
    said = str(caught.value)
    assert "refused the client certificate" in said and "not signed by a CA the server trusts" in said, said
    assert pool.status()["stranger"].retries == 0


def test_through_the_gateway_with_the_certificate(pool, pki, gateway) -> None:
    tls = _tls(pki, cert=pki.client_cert, key=pki.client_key)
    pool.connect("ok", url=gateway, config={**QUIET, "tls": tls})
    assert pool.call("ok", "echo", {"text": "through"}).text == "through"


def test_a_403_to_an_accepted_certificate_names_the_certificate_not_missing_credentials(pool, pki) -> None:
    """The handshake took the certificate; the application behind refused this identity. It said
    "refused before it sent any credentials … give them in its auth settings (token …)"."""
    import http.server
    import threading

    from mcpnb.client.errors import AuthError
    from tests.client.test_refused_pages import _Firewall

    app = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Firewall)
    threading.Thread(target=app.serve_forever, daemon=True).start()
    front = MtlsGateway(pki, f"127.0.0.1:{app.server_address[1]}")
    try:
        tls = _tls(pki, cert=pki.client_cert, key=pki.client_key)
        with pytest.raises((ConnectError, AuthError)) as info:
            pool.connect("who", url=front.url("/mcp"), config={**QUIET, "tls": tls, "max_retries": 0})
        said = str(info.value)
        assert "HTTP 403" in said and "the client certificate (tls.cert)" in said, said
        assert "before it sent any credentials" not in said, said
    finally:
        front.stop()
        app.shutdown()
        app.server_close()


def test_relative_paths_given_in_code_stay_the_files_meant_after_a_cd(
    pool, pki, gateway, monkeypatch, tmp_path
) -> None:
    """Paths given from code (no file to be beside) are the working directory's when given: the
    files are read again at each reconnect, and a notebook's ``%cd`` must not change which."""
    monkeypatch.chdir(pki.folder)
    here = os.getcwd()
    tls = {"cert": "client.pem", "key": "client-key.pem", "ca": "ca.pem"}
    pool.connect("rel", url=gateway, config={**QUIET, "tls": tls})
    assert pool.connection("rel").config.tls.cert == os.path.join(here, "client.pem")
    monkeypatch.chdir(tmp_path)  # %cd elsewhere
    pool.reconnect("rel")
    assert pool.call("rel", "echo", {"text": "same files"}).text == "same files"
    said = _context_error({"cert": "nowhere.pem"})  # the error names the file it looked for
    assert repr(os.path.join(os.getcwd(), "nowhere.pem")) in said, said


def test_ca_trusts_this_servers_ca_beside_the_system(pool, pki, mtls_server, monkeypatch) -> None:
    """Without ``ca`` the private CA is not trusted (the certificate words); with it, the server is."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    tls = {"cert": str(pki.client_cert), "key": str(pki.client_key)}
    with pytest.raises(ConnectError, match="TLS certificate problem"):
        pool.connect("noca", url=mtls_server.url, config={**QUIET, "tls": tls})
    pool.connect("ca", url=mtls_server.url, config={**QUIET, "tls": {**tls, "ca": str(pki.ca)}})
    assert pool.call("ca", "echo", {"text": "trusted"}).text == "trusted"


# ---------------------------------------------------------------- Python 3.13's strict check
@pytest.fixture(scope="module")
def loose_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A private CA whose certificates lack the key identifiers RFC 5280 asks for."""
    return make_pki(tmp_path_factory.mktemp("loose_pki"), rfc5280=False)


def _strict_by_default() -> bool:
    import httpx2

    return bool(httpx2.create_ssl_context().verify_flags & ssl.VERIFY_X509_STRICT)


def _strict_words(said: str) -> None:
    assert "Missing Authority Key Identifier" in said and "strict check" in said, said
    assert "issued again" in said and "Python 3.13" in said, said
    # its CA is trusted already: pointing at SSL_CERT_FILE or another bundle sends the person nowhere
    assert "trust that CA" not in said and "SSL_CERT_FILE" not in said and "vouch" not in said, said


def test_a_certificate_the_strict_check_refuses_is_not_said_as_an_untrusted_ca(loose_pki) -> None:
    """Python 3.13 checks certificates strictly (``VERIFY_X509_STRICT``): its CA trusted, a
    certificate without an Authority Key Identifier was said as one "mcpnb does not trust", with
    "trust that CA: set SSL_CERT_FILE" (done already). The flag is set here as 3.13 sets it, so
    every Python shows it."""
    import httpx2

    from mcpnb.client.errors import describe

    server = MtlsServer(loose_pki)
    try:
        config = ServerConfig.build("corp", url=server.url, tls=_tls(loose_pki))
        assert config.tls is not None
        context = config.tls.context()
        context.verify_flags |= ssl.VERIFY_X509_STRICT
        with httpx2.Client(verify=context) as client, pytest.raises(httpx2.ConnectError) as caught:
            client.get(server.url)
    finally:
        server.stop()
    _strict_words(describe(caught.value))


def test_a_private_cas_certificate_without_key_identifiers_on_this_python(pool, loose_pki) -> None:
    """What a person with such a CA sees: connected where Python does not check strictly (3.11,
    3.12), and on 3.13 and later why not, once (no wait mends a certificate)."""
    server = MtlsServer(loose_pki)
    tls = _tls(loose_pki, cert=loose_pki.client_cert, key=loose_pki.client_key)
    try:
        if not _strict_by_default():
            pool.connect("loose", url=server.url, config={**QUIET, "tls": tls})
            assert pool.call("loose", "echo", {"text": "accepted"}).text == "accepted"
            return
        with pytest.raises(ConnectError) as caught:
            pool.connect("loose", url=server.url, config={**QUIET, "tls": tls})
        assert pool.status()["loose"].retries == 0
    finally:
        server.stop()
    _strict_words(str(caught.value))


# ---------------------------------------------------------------- the files, in words
def _context_error(tls: dict[str, str]) -> str:
    config = ServerConfig.build("corp", url="https://127.0.0.1:1/mcp", tls=tls)
    assert config.tls is not None
    with pytest.raises(ConfigError) as caught:
        config.tls.context()
    return str(caught.value)


def test_a_missing_or_wrong_file_is_named_with_its_setting(pki, tmp_path) -> None:
    missing = tmp_path / "nowhere.pem"
    said = _context_error({"cert": str(missing)})
    assert "tls.cert" in said and str(missing) in said and "No such file" in said, said
    said = _context_error({"cert": str(pki.client_cert), "key": str(missing)})
    assert "tls.key" in said and "No such file" in said, said
    said = _context_error({"cert": str(pki.client_cert)})  # the key is not in that file
    assert "not its private key" in said and "tls.key" in said, said
    said = _context_error({"cert": str(pki.client_key)})  # a key where the certificate goes
    assert "holds no PEM certificate" in said, said
    said = _context_error({"ca": str(missing)})
    assert "tls.ca" in said and "No such file" in said, said
    unreadable = tmp_path / "locked.pem"
    unreadable.write_bytes(pki.client_cert.read_bytes())
    unreadable.chmod(0)
    if not os.access(unreadable, os.R_OK):  # root reads it anyway
        said = _context_error({"cert": str(unreadable), "key": str(pki.client_key)})
        assert "tls.cert" in said and "Permission denied" in said, said


def test_a_key_that_is_not_the_certificates_is_said(pki) -> None:
    said = _context_error({"cert": str(pki.client_cert), "key": str(pki.other_key)})
    assert "does not belong to the certificate" in said and "tls.key" in said, said


def test_a_pkcs12_exports_latin_1_bag_attributes_do_not_reject_its_files(
    pool, pki, gateway, tmp_path
) -> None:
    """``openssl pkcs12 -out`` writes "Bag Attributes" before each block, naming its owner as the
    keystore did (Latin-1 here): OpenSSL loads such files, so mcpnb's checks must read them too."""
    bag = "Bag Attributes\n    friendlyName: Jürgen Müller\n".encode("latin-1")
    both = tmp_path / "export.pem"
    both.write_bytes(bag + pki.client_cert.read_bytes() + bag + pki.client_key.read_bytes())
    ca = tmp_path / "ca-export.pem"
    ca.write_bytes(bag + pki.ca.read_bytes())
    config = ServerConfig.build("corp", url=gateway, tls={"cert": str(both), "ca": str(ca)})
    assert config.tls is not None
    config.tls.context()
    pool.connect("bag", url=gateway, config={**QUIET, "tls": {"cert": str(both), "ca": str(ca)}})
    assert pool.call("bag", "echo", {"text": "latin-1"}).text == "latin-1"


def test_an_encrypted_key_needs_password_env_and_the_right_passphrase(pki, monkeypatch) -> None:
    enc = {"cert": str(pki.client_cert), "key": str(pki.client_key_encrypted)}
    said = _context_error(enc)
    assert "is encrypted" in said and "tls.password_env" in said, said
    monkeypatch.delenv("MCPNB_TEST_KEY_PASS", raising=False)
    said = _context_error({**enc, "password_env": "MCPNB_TEST_KEY_PASS"})
    assert "'MCPNB_TEST_KEY_PASS' is not set" in said, said
    monkeypatch.setenv("MCPNB_TEST_KEY_PASS", "wrong-horse-battery")
    said = _context_error({**enc, "password_env": "MCPNB_TEST_KEY_PASS"})
    assert "cannot decrypt" in said and "MCPNB_TEST_KEY_PASS" in said, said
    assert "wrong-horse-battery" not in said


def test_a_wrong_file_fails_the_connect_at_once_in_its_words(pool, pki, tmp_path) -> None:
    with pytest.raises(ConnectError) as caught:
        pool.connect(
            "corp", url="https://127.0.0.1:9/mcp", config={**QUIET, "tls": {"cert": str(tmp_path / "no.pem")}}
        )
    assert "tls.cert" in str(caught.value) and "cannot read the client certificate file" in str(caught.value)
    assert pool.status()["corp"].retries == 0


# ---------------------------------------------------------------- the settings
def test_tls_settings_are_checked_with_did_you_mean(tmp_path) -> None:
    url = "https://mcp.corp.test/mcp"
    with pytest.raises(ConfigError, match=r"tls\.pasword_env.*did you mean 'password_env'"):
        ServerConfig.build("s", url=url, tls={"cert": "c.pem", "pasword_env": "X"})
    with pytest.raises(ConfigError, match="never written in the config") as caught:
        ServerConfig.build("s", url=url, tls={"cert": "c.pem", "password": "hunter2-secret"})
    assert "hunter2-secret" not in str(caught.value)
    with pytest.raises(ConfigError, match=r"tls\.key.*name its file in tls\.cert"):
        ServerConfig.build("s", url=url, tls={"key": "k.pem"})
    with pytest.raises(ConfigError, match="applies to https://"):
        ServerConfig.build("s", url="http://mcp.corp.test/mcp", tls={"cert": "c.pem"})
    with pytest.raises(ConfigError, match="applies only to http and sse servers"):
        ServerConfig.build("s", command="server", tls={"cert": "c.pem"})


def test_tls_in_a_file_reads_paths_beside_it_and_camel_case(tmp_path, monkeypatch) -> None:
    import json

    from mcpnb.client.config import load_file

    monkeypatch.setenv("CERTS", str(tmp_path / "certs"))
    file = tmp_path / ".mcp.json"
    entry = {"url": "https://mcp.corp.test/mcp", "tls": {"cert": "me.pem", "key": "${CERTS}/me-key.pem"}}
    entry["tls"]["passwordEnv"] = "ME_PASS"
    file.write_text(json.dumps({"mcpServers": {"corp": entry}}))
    config = load_file(file)["corp"]
    assert config.tls is not None
    assert config.tls.cert == str(tmp_path / "me.pem")
    assert config.tls.key == str(tmp_path / "certs" / "me-key.pem")
    assert config.tls.password_env == "ME_PASS"
    assert config.redacted()["tls"] == {
        "cert": str(tmp_path / "me.pem"),
        "key": str(tmp_path / "certs" / "me-key.pem"),
        "password_env": "ME_PASS",
    }
    assert config.replace(max_retries=1).tls == config.tls
