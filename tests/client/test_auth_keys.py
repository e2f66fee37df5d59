"""``private_key_jwt``: client_credentials where the client signs an assertion with its private key.

Against the small authorization server of ``servers/oauth_server.py``, which verifies each assertion
with the client's registered public key (signature, issuer, subject, audience, expiry, no replayed
``jti``). The conformance suite's ``auth/client-credentials-jwt`` scenario checks the same flow
against an authorization server we did not write (``tests/conformance``).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from servers.oauth_server import OAuthServers  # tests/ is on sys.path

from mcpnb.client.auth import AuthError, oauth_provider
from mcpnb.client.auth.keys import load_signing_key
from mcpnb.client.config import ServerConfig
from mcpnb.client.errors import ConfigError, McpnbError

from .test_auth import auth_error, call

pytestmark = pytest.mark.usefixtures("isolated_tokens")

KEY_CLIENT = "key-client"


def private_pem(key: Any, password: bytes | None = None) -> str:
    crypt = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, crypt).decode()


def public_pem(key: Any) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@pytest.fixture
def servers(rsa_key):
    with OAuthServers() as s:
        s.add_key_client(KEY_CLIENT, public_pem(rsa_key))
        yield s


def key_config(servers: OAuthServers, key_file: Path, **auth: Any) -> ServerConfig:
    entry = {
        "type": "oauth",
        "flow": "client_credentials",
        "client_id": KEY_CLIENT,
        "private_key_file": str(key_file),
        **auth,
    }
    return ServerConfig.from_dict("machine", {"url": servers.mcp_url, "auth": entry})


def write_key(tmp_path: Path, pem: str, name: str = "client.pem") -> Path:
    path = tmp_path / name
    path.write_text(pem)
    return path


# --- the key and its algorithm ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "kind", "algorithm"),
    [
        (lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048), "RSA", "RS256"),
        (lambda: ec.generate_private_key(ec.SECP256R1()), "P-256", "ES256"),
        (lambda: ec.generate_private_key(ec.SECP384R1()), "P-384", "ES384"),
        (lambda: ed25519.Ed25519PrivateKey.generate(), "Ed25519", "EdDSA"),
    ],
)
def test_the_key_says_how_it_signs(make, kind, algorithm):
    key = make()
    signing = load_signing_key(private_pem(key), key_id="k1")
    assert (signing.kind, signing.algorithm) == (kind, algorithm)
    token = signing.assertion("me", "https://as.example")
    assert jwt.get_unverified_header(token) == {"alg": algorithm, "typ": "JWT", "kid": "k1"}
    claims = jwt.decode(token, public_pem(key), algorithms=[algorithm], audience="https://as.example")
    assert claims["iss"] == claims["sub"] == "me" and claims["exp"] > claims["iat"]
    assert signing.assertion("me", "https://as.example") != token  # a fresh jti: no replays
    assert "PRIVATE" not in repr(signing) and kind in repr(signing)


def test_an_rsa_key_may_sign_ps256_but_not_es256(rsa_key):
    assert load_signing_key(private_pem(rsa_key), "PS256").algorithm == "PS256"
    with pytest.raises(ConfigError) as info:
        load_signing_key(private_pem(rsa_key), "ES256")
    assert "a RSA key signs RS256" in str(info.value) and "leave signing_algorithm out" in str(info.value)


@pytest.mark.parametrize(
    ("pem", "said"),
    [
        ("not a key at all", "is not a PEM private key"),
        ("PUBLIC", "holds a public key"),
        ("ENCRYPTED", "encrypted with a passphrase"),
        ("SECP256K1", "cannot sign with"),
    ],
)
def test_a_key_that_cannot_sign_says_why_without_quoting_it(rsa_key, pem, said):
    pem = {
        "PUBLIC": public_pem(rsa_key),
        "ENCRYPTED": private_pem(rsa_key, b"passphrase"),
        "SECP256K1": private_pem(ec.generate_private_key(ec.SECP256K1())),
    }.get(pem, pem)
    with pytest.raises(ConfigError) as info:
        load_signing_key(pem, where="auth.private_key_file")
    text = str(info.value)
    assert said in text and "auth.private_key_file" in text
    body = [line for line in pem.splitlines() if line and "-----" not in line]
    assert not any(line in text for line in body)


# --- the config ---------------------------------------------------------------------------------


def test_the_key_file_is_read_beside_the_config_that_names_it(tmp_path, rsa_key):
    folder = tmp_path / "project"
    folder.mkdir()
    write_key(folder, private_pem(rsa_key), "machine.pem")
    entry = {
        "url": "http://127.0.0.1:9/mcp",
        "auth": {
            "type": "oauth",
            "clientId": KEY_CLIENT,
            "privateKeyFile": "machine.pem",
            "signingAlgorithm": "PS256",
            "keyId": "k1",
        },
    }
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"machine": entry}}))
    from mcpnb.client.config import load_config

    auth = load_config(folder / ".mcp.json")["machine"].auth
    assert auth is not None and auth.private_key_file == str(folder / "machine.pem")
    assert (auth.signing_algorithm, auth.key_id, auth.flow) == ("PS256", "k1", "client_credentials")
    assert auth.resolve_client_secret() is None and auth.resolve_private_key() == private_pem(rsa_key)


@pytest.mark.parametrize(
    ("auth", "key", "said"),
    [
        ({"client_secret": "s", "private_key_file": "k.pem"}, "auth.private_key_file", "not 'client_secret'"),
        ({"private_key_env": "K", "private_key_file": "k.pem"}, "auth.private_key", "give one of"),
        ({"client_secret": "s", "signing_algorithm": "RS256"}, "auth.signing_algorithm", "private_key_jwt"),
        ({"private_key_file": "k.pem", "signing_algorithm": "ES265"}, "auth.signing_algorithm", "ES256"),
        ({"flow": "authorization_code", "private_key_file": "k.pem"}, "auth.private_key_file", "client_cred"),
        ({}, "auth", "private_key_file"),
    ],
)
def test_key_settings_that_do_not_fit_are_named(auth, key, said):
    entry = {"type": "oauth", "client_id": "c", **auth}
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("machine", {"url": "http://127.0.0.1:9/mcp", "auth": entry})
    assert info.value.key is not None and info.value.key.startswith(key), info.value
    assert said in str(info.value)


def test_an_inline_key_is_redacted_wherever_the_config_shows(rsa_key):
    pem = private_pem(rsa_key)
    cfg = ServerConfig.from_dict(
        "machine",
        {"url": "http://127.0.0.1:9/mcp", "auth": {"type": "oauth", "client_id": "c", "private_key": pem}},
    )
    shown = [repr(cfg), repr(cfg.auth), json.dumps(cfg.redacted())]
    body = [line for line in pem.splitlines() if "-----" not in line]
    assert not [line for line in body for text in shown if line in text]
    assert "private_key='***'" in repr(cfg.auth)
    assert pem.strip() in cfg.secrets()  # what log lines and errors are scrubbed of


# --- against an authorization server ------------------------------------------------------------


def test_a_key_file_signs_in_and_calls_a_tool(servers, tmp_path, rsa_key):
    cfg = key_config(servers, write_key(tmp_path, private_pem(rsa_key)), scope="tools")
    assert call(cfg) == KEY_CLIENT
    assert servers.token_requests == [("client_credentials", 200)]
    assert len(servers.state.assertion_ids) == 1
    assert [t.scopes for t in servers.state.access.values()] == [["tools"]]


def test_the_wrong_key_is_refused_once_with_what_to_check(servers, tmp_path):
    other = ec.generate_private_key(ec.SECP256R1())
    cfg = key_config(servers, write_key(tmp_path, private_pem(other)))
    provider = oauth_provider(cfg)
    error = auth_error(cfg, provider)
    text = str(error)
    assert "rejected client 'key-client'" in text and "HTTP 401 invalid_client" in text
    assert "public half of the private key (a P-256 key, signing ES256)" in text
    assert error.retryable is False
    assert "rejected client" in str(auth_error(cfg, provider))  # again: refused at once, not re-asked
    assert servers.token_requests == [("client_credentials", 401)]


def test_an_algorithm_the_server_does_not_take_is_said_before_asking(servers, tmp_path, rsa_key):
    servers.state.signing_algorithms = ["ES256"]
    error = auth_error(key_config(servers, write_key(tmp_path, private_pem(rsa_key))))
    text = str(error)
    assert "signed with ES256" in text and "this RSA key signs RS256" in text
    assert servers.token_requests == []


def test_a_missing_key_file_is_a_clear_error_before_any_request(servers, tmp_path):
    with pytest.raises(AuthError) as info:
        oauth_provider(key_config(servers, tmp_path / "nowhere.pem"))
    text = str(info.value)
    assert "cannot read the private key file" in text and "nowhere.pem" in text
    assert "No such file" in text and servers.token_requests == []


def test_pool_connects_with_a_key_from_the_environment_and_never_shows_it(
    servers, pool, rsa_key, monkeypatch, caplog
):
    caplog.set_level(logging.DEBUG)
    pem = private_pem(rsa_key)
    monkeypatch.setenv("MACHINE_KEY", pem)
    auth = {"type": "oauth", "client_id": KEY_CLIENT, "private_key_env": "MACHINE_KEY"}
    pool.connect("machine", url=servers.mcp_url, config={"auth": auth})
    assert pool.call("machine", "whoami").text == KEY_CLIENT
    texts = [repr(pool.connection("machine").config), str(pool.status()), *map(str, pool.logs("machine"))]
    texts += [r.getMessage() for r in caplog.records]
    body = [line for line in pem.splitlines() if "-----" not in line]
    assert not [line for line in body for text in texts if line in text]
    monkeypatch.setenv("MACHINE_KEY", "garbage")  # a reconnect reads the variable again
    with pytest.raises(McpnbError) as info:
        pool.connect("machine", url=servers.mcp_url, config={"auth": auth})
    assert "is not a PEM private key" in str(info.value) and "garbage" not in str(info.value)
