"""Auth: valid and invalid shapes, and secrets resolved from the environment at the last moment."""

from __future__ import annotations

from typing import Any

import pytest

from mcpnb.client.config import (
    AuthConfig,
    ServerConfig,
)
from mcpnb.client.errors import ConfigError

from .helpers import PASSWORD, TOKEN, assert_located, config_error


@pytest.mark.parametrize(
    ("auth", "key"),
    [
        ({"type": "bearer"}, "auth"),
        ({"type": "bearer", "token": "abcd", "token_env": "T"}, "auth.token_env"),
        ({"type": "bearer", "token": "abcd", "username": "u"}, "auth.username"),
        ({"type": "basic", "password": "p"}, "auth"),
        ({"type": "basic", "username": "u"}, "auth"),
        ({"type": "oauth"}, "auth"),
        ({"type": "oauth", "client_id": "c"}, "auth"),
        ({"token": "abcd"}, "auth.type"),
        ({"type": "jwt"}, "auth.type"),
        ({"type": "oauth", "flow": "implicit"}, "auth.flow"),
        (
            {
                "type": "oauth",
                "client_id": "c",
                "client_secret": "s",
                "client_metadata_url": "https://h/c.json",
            },
            "auth.client_metadata_url",
        ),
        (
            {"type": "oauth", "flow": "authorization_code", "clientMetadataUrl": "http://h/c.json"},
            "auth.clientMetadataUrl",
        ),
        (
            {"type": "oauth", "flow": "authorization_code", "client_metadata_url": "https://h/"},
            "auth.client_metadata_url",
        ),
        (
            {"type": "oauth", "client_id": "c", "client_secret": "s", "redirect_port": 8765},
            "auth.redirect_port",
        ),
        ({"type": "oauth", "flow": "authorization_code", "redirectPort": 80}, "auth.redirectPort"),
        ({"type": "oauth", "flow": "authorization_code", "redirect_port": "8765"}, "auth.redirect_port"),
    ],
)
def test_auth_validation(auth: dict[str, Any], key: str) -> None:
    err = config_error(ServerConfig.from_dict, "s", {"url": "http://h/mcp", "auth": auth}, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)


def test_valid_auth_shapes() -> None:
    ok = [
        {"type": "bearer", "token_env": "T"},
        {"type": "basic", "username": "u", "passwordEnv": "P"},
        {"type": "oauth", "clientId": "c", "clientSecretEnv": "S", "scope": "read", "tokenStorage": "file"},
        {"type": "oauth", "flow": "authorization_code", "redirectPort": 8765},
    ]
    kinds = [ServerConfig.from_dict("s", {"url": "http://h/mcp", "auth": a}).auth for a in ok]
    assert [a.type for a in kinds if a] == ["bearer", "basic", "oauth", "oauth"]
    assert kinds[2] is not None and (kinds[2].client_secret_env, kinds[2].token_storage) == ("S", "file")
    assert kinds[3] is not None and kinds[3].redirect_port == 8765


def test_a_client_metadata_document_url_is_taken_and_checked() -> None:
    """A URL-based client id (CIMD): the authorization server fetches it, so https and a path."""
    url = "https://example.com/mcpnb/client.json"
    auth = {"type": "oauth", "flow": "authorization_code", "clientMetadataUrl": url}
    taken = ServerConfig.from_dict("s", {"url": "http://h/mcp", "auth": auth}).auth
    assert taken is not None and taken.client_metadata_url == url and url in repr(taken)
    bad = {**auth, "clientMetadataUrl": "http://example.com/c.json"}
    err = config_error(ServerConfig.from_dict, "s", {"url": "http://h/mcp", "auth": bad}, source="f.json")
    assert "https:// address with a path" in str(err)


def test_authorization_header_and_auth_together() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {
            "url": "http://h",
            "headers": {"authorization": "Bearer x"},
            "auth": {"type": "bearer", "token": "abcd"},
        },
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="headers.authorization")


def test_resolve_token_reads_the_environment_late() -> None:
    cfg = ServerConfig.from_dict(
        "gh", {"url": "https://h/mcp", "auth": {"type": "bearer", "token_env": "GH_TOKEN"}}
    )
    assert cfg.auth is not None
    assert cfg.auth.resolve_token({"GH_TOKEN": TOKEN}) == TOKEN
    err = config_error(cfg.auth.resolve_token, {"GH_TOKN": "x"})
    assert err.server == "gh" and "'GH_TOKEN'" in str(err) and err.suggestion == "GH_TOKN"
    err = config_error(cfg.auth.resolve_token, {"GH_TOKEN": ""})
    assert "empty" in str(err)


def test_resolve_password_and_client_secret() -> None:
    basic = AuthConfig(type="basic", username="u", password_env="PW")
    assert basic.resolve_password({"PW": PASSWORD}) == PASSWORD
    oauth = AuthConfig(type="oauth", client_id="c", client_secret="shh-secret")
    assert oauth.resolve_client_secret({}) == "shh-secret"
    assert AuthConfig(type="oauth", flow="authorization_code").resolve_client_secret({}) is None
    with pytest.raises(ConfigError):
        oauth.resolve_token({})


@pytest.mark.parametrize(
    ("auth", "said"),
    [
        ({"type": "bearer"}, "bearer auth needs 'token' or 'token_env'"),
        (
            {"type": "bearer", "token": "abcd", "token_env": "T"},
            "give one of token, token_env, not 'token' and",
        ),
        ({"type": "basic", "username": "u"}, "basic auth needs 'password' or 'password_env'"),
        (
            {"type": "basic", "username": "u", "password": "p", "password_env": "P"},
            "give one of password, password_env, not 'password' and 'password_env'",
        ),
    ],
)
def test_one_of_two_keys_reads_as_everywhere_else(auth, said):
    """The bearer and basic checks say it as the other flows do (one helper for all of them)."""
    with pytest.raises(ConfigError, match=said):
        ServerConfig.from_dict("s", {"url": "https://h/mcp", "auth": auth})


@pytest.mark.parametrize(("value", "state"), [("", "is empty"), ("  \t", "holds only spaces")])
def test_a_token_variable_set_to_nothing_says_so_and_suggests_no_other(value: str, state: str) -> None:
    """An administrator's spawner that sets the variable to nothing: the message names it, and does
    not ask whether it meant itself (``did you mean 'DOCS_TOKEN'?``)."""
    auth = AuthConfig(type="bearer", token_env="DOCS_TOKEN", server_name="docs", source="f.json")
    err = config_error(auth.resolve_token, {"DOCS_TOKEN": value, "DOCS_TOKENS": TOKEN})
    assert_located(err, file="f.json", server="docs", key="auth.token_env")
    assert f"'DOCS_TOKEN' {state}" in str(err) and "did you mean" not in str(err)
    unset = config_error(auth.resolve_token, {"DOCS_TOKENS": TOKEN})
    assert "is not set" in str(unset) and unset.suggestion == "DOCS_TOKENS"


def test_secrets_lose_the_line_endings_a_windows_file_leaves() -> None:
    auth = AuthConfig(type="basic", username="u", password_env="PW")
    assert auth.resolve_password({"PW": f"{PASSWORD}\r\n"}) == PASSWORD
    literal = ServerConfig.from_dict(
        "s",
        {"url": "https://h/mcp", "auth": {"type": "bearer", "token": "${T}"}},
        environ={"T": f"{TOKEN}\r"},
    )
    assert literal.auth is not None and literal.auth.resolve_token({}) == TOKEN
