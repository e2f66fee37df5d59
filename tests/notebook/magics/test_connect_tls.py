"""``%mcp connect`` flags for mutual TLS: ``--cert``, ``--key``, ``--key-password-env``, ``--ca``,
against a real HTTPS server on 127.0.0.1 that asks for a client certificate."""

from __future__ import annotations

import sys

import pytest
from conftest import DEMO
from IPython.core.error import UsageError

from tests.client.mtls_pki import PASSPHRASE, MtlsServer, Pki, make_pki

from .conftest import line


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def test_connect_with_a_client_certificate(ip, mcp, pki, monkeypatch, tmp_path) -> None:
    server = MtlsServer(pki, "http")
    try:
        monkeypatch.setenv("MCPNB_TEST_KEY_PASS", PASSPHRASE)
        monkeypatch.chdir(pki.folder)  # relative paths, kept absolute for a later reconnect
        table = line(
            ip,
            f"connect corp {server.url} --cert client.pem --key client-key-enc.pem "
            "--key-password-env MCPNB_TEST_KEY_PASS --ca ca.pem",
        )
        assert table["corp"].state == "connected"
        tls = mcp.pool.connection("corp").config.tls
        assert (tls.cert, tls.key, tls.ca) == (
            str(pki.client_cert),
            str(pki.client_key_encrypted),
            str(pki.ca),
        )
        assert tls.password_env == "MCPNB_TEST_KEY_PASS"
        monkeypatch.chdir(tmp_path)
        assert line(ip, "reconnect corp")["corp"].state == "connected"
    finally:
        server.stop()


def test_tls_flags_that_cannot_apply_are_refused(ip, mcp) -> None:
    with pytest.raises(UsageError, match="--key belongs to a client certificate: give its file with --cert"):
        line(ip, "connect corp https://127.0.0.1:1/mcp --key k.pem")
    with pytest.raises(UsageError, match="--key-password-env belongs to a client certificate"):
        line(ip, "connect corp https://127.0.0.1:1/mcp --key-password-env PASS")
    with pytest.raises(UsageError, match="--cert is for HTTP/SSE servers"):
        line(ip, f"connect demo --cert c.pem -- {sys.executable} {DEMO} stdio")
    with pytest.raises(UsageError, match=r'--ca does not combine with --config: .*"tls": \{"ca"'):
        line(ip, "connect --config --ca ca.pem")
