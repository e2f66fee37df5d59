"""Workload identity (SEP-1933, ``flow: jwt_bearer``): the settings, and what a person is told.

The flow itself runs against a server we did not write: the conformance suite's
``auth/wif-jwt-bearer`` (tests/conformance), with a valid token, and with one made out to another
audience, where the refusal must be said once and not retried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpnb.client.auth import oauth_provider
from mcpnb.client.config import ServerConfig
from mcpnb.client.config.layers import load_file
from mcpnb.client.errors import AuthError, ConfigError

URL = "http://127.0.0.1:9/mcp"
TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJl"


def workload(**auth: object) -> ServerConfig:
    entry = {"type": "oauth", "flow": "jwt_bearer", "client_id": "ci-job", **auth}
    return ServerConfig.from_dict(
        "wl", {"url": URL, "auth": {k: v for k, v in entry.items() if v is not None}}
    )


def test_the_token_file_is_found_beside_the_config_and_kept_out_of_everything_shown(tmp_path: Path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "token").write_text(TOKEN + "\n")
    entry = {"type": "oauth", "flow": "jwt_bearer", "clientId": "ci-job", "assertionFile": "run/token"}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"wl": {"url": URL, "auth": entry}}}))
    config = load_file(tmp_path / ".mcp.json")["wl"]
    auth = config.auth
    assert auth is not None and auth.assertion_file == str(tmp_path / "run" / "token")
    assert auth.resolve_assertion() == TOKEN and auth.resolve_client_secret() is None
    assert TOKEN in auth.secrets()  # so every message and log line scrubs it
    provider = oauth_provider(config)
    assert "WorkloadIdentity" in repr(provider) and TOKEN not in repr(provider)


def test_a_token_in_a_variable_is_read_when_the_exchange_needs_it(monkeypatch):
    monkeypatch.setenv("CI_OIDC_TOKEN", TOKEN)
    config = workload(assertion_env="CI_OIDC_TOKEN")
    assert config.auth is not None and config.auth.resolve_assertion() == TOKEN
    monkeypatch.setenv("CI_OIDC_TOKEN", "rotated")
    assert config.auth.resolve_assertion() == "rotated"


def test_a_missing_token_is_said_before_any_request(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    with pytest.raises(AuthError, match=r"OAuth jwt_bearer: environment variable 'NO_SUCH_TOKEN' is not set"):
        oauth_provider(workload(assertion_env="NO_SUCH_TOKEN"))
    gone = tmp_path / "gone"
    with pytest.raises(AuthError, match=r"cannot read the workload token file .*gone"):
        oauth_provider(workload(assertion_file=str(gone)))


@pytest.mark.parametrize(
    ("auth", "key", "said"),
    [
        ({}, "auth", "the jwt_bearer flow needs 'assertion_file' or 'assertion_env' or 'assertion'"),
        ({"assertion": TOKEN, "assertion_env": "T"}, "auth.assertion", "give one of"),
        ({"assertion": TOKEN, "client_id": None}, "auth", "the jwt_bearer flow needs 'client_id'"),
        (
            {"assertion": TOKEN, "client_secret": "s"},
            "auth.client_secret",
            "the workload's token is the proof",
        ),
        ({"assertion": TOKEN, "private_key_file": "k.pem"}, "auth.private_key_file", "does not apply"),
        ({"assertion": TOKEN, "redirect_port": 8765}, "auth.redirect_port", "where a person signs in"),
        (
            {"flow": "client_credentials", "client_secret": "s", "assertion": TOKEN},
            "auth.assertion",
            "jwt_bearer flow",
        ),
        ({"flow": "jwt_bearr", "assertion": TOKEN}, "auth.flow", "jwt_bearer"),
    ],
)
def test_settings_that_do_not_fit_name_their_key(auth, key, said):
    with pytest.raises(ConfigError) as info:
        workload(**auth)
    assert info.value.key == key and said in str(info.value), (info.value.key, str(info.value))
