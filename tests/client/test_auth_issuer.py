"""``auth.issuer``: the one authorization server an OAuth client's credentials belong to.

Without it, the MCP server's metadata decides where a client secret, a signed assertion or a
person's sign-in goes; a server (or whoever answers at its address) that names another
authorization server would get them. Each test runs a "wrong" pair of servers from
``servers/oauth_server.py`` (an MCP server naming its own authorization server) next to the
authorization server the config trusts, and checks what the wrong one received. The issuer checks
on discovered metadata are the SDK's (``mcp.client.auth``), a peer we did not write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, OAuthServers, Person  # tests/ is on sys.path

from mcpnb.client.auth import oauth_provider, set_authorization_ui, token_path
from mcpnb.client.config import ServerConfig
from mcpnb.client.config.layers import load_file
from mcpnb.client.errors import ConfigError, McpnbError

from .test_auth import auth_error, call, cc_config, code_config
from .test_auth_keys import KEY_CLIENT, key_config, private_pem, public_pem, write_key

pytestmark = pytest.mark.usefixtures("isolated_tokens")


@pytest.fixture
def trusted():
    """The authorization server the config names (its MCP server is not used)."""
    with OAuthServers() as s:
        yield s


@pytest.fixture
def other():
    """An MCP server whose metadata names another authorization server than the trusted one."""
    with OAuthServers() as s:
        yield s


def nothing_reached(servers: OAuthServers) -> bool:
    state = servers.state
    return state.token_requests == [] and state.registrations == 0 and state.authorize_requests == 0


def says_where_it_was_sent(text: str, servers: OAuthServers, issuer: str) -> None:
    assert "server 'secured'" in text or "server 'browser'" in text or "server 'machine'" in text
    assert servers.issuer in text and f"the issuer you gave (auth.issuer, or --issuer) is {issuer}" in text
    assert "nothing was sent there" in text and "give it as the issuer" in text
    assert CLIENT_SECRET not in text


# --- the right issuer ---------------------------------------------------------------------------


@pytest.mark.parametrize("slash", ["", "/"])  # a root issuer names the same server with or without "/"
def test_client_credentials_with_its_issuer_calls_a_tool(trusted, slash):
    assert call(cc_config(trusted, issuer=trusted.issuer + slash)) == CLIENT_ID
    assert trusted.token_requests == [("client_credentials", 200)]


def test_a_person_signs_in_at_the_issuer(trusted, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    assert call(code_config(trusted, issuer=trusted.issuer)).startswith("dyn-")
    assert person.links[0].startswith(trusted.issuer + "/authorize?")
    assert trusted.token_requests == [("authorization_code", 200)]


def test_private_key_jwt_with_its_issuer(trusted, rsa_key, tmp_path):
    trusted.add_key_client(KEY_CLIENT, public_pem(rsa_key))
    key = write_key(tmp_path, private_pem(rsa_key))
    assert call(key_config(trusted, key, issuer=trusted.issuer)) == KEY_CLIENT


# --- a server that points elsewhere gets nothing ------------------------------------------------


def test_without_an_issuer_the_secret_goes_where_the_server_says(other):
    """Why the setting exists: the other authorization server receives the client's secret."""
    auth_error(cc_config(other, client_id="ours", client_secret="our-secret-value"))
    assert other.token_requests == [("client_credentials", 401)]  # it saw "ours" and its secret


def test_a_client_secret_is_not_sent_to_another_authorization_server(trusted, other):
    cfg = cc_config(other, issuer=trusted.issuer)
    error = auth_error(cfg)
    says_where_it_was_sent(str(error), other, trusted.issuer)
    assert error.retryable is False
    assert nothing_reached(other) and nothing_reached(trusted)


def test_a_signed_assertion_is_not_sent_to_another_authorization_server(trusted, other, rsa_key, tmp_path):
    other.add_key_client(KEY_CLIENT, public_pem(rsa_key))  # it would even accept the assertion
    key = write_key(tmp_path, private_pem(rsa_key))
    error = auth_error(key_config(other, key, issuer=trusted.issuer))
    says_where_it_was_sent(str(error), other, trusted.issuer)
    assert nothing_reached(other) and other.state.assertion_ids == set()


def test_a_person_is_not_sent_to_sign_in_at_another_authorization_server(trusted, other, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    error = auth_error(code_config(other, issuer=trusted.issuer, client_id="desk", client_secret="desk-pw"))
    says_where_it_was_sent(str(error), other, trusted.issuer)
    assert person.links == []  # no link shown, no registration, no token request
    assert nothing_reached(other)


@pytest.mark.parametrize("flow", ["client_credentials", "authorization_code"])
def test_a_legacy_server_whose_own_authorization_server_is_not_the_issuer(trusted, flow, ui):
    """No protected-resource metadata (2025-03-26): the authorization server is the MCP server's
    origin, and its metadata names that origin, not the configured issuer: no secret is sent, no
    client registered, no person sent to sign in there."""
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")

    def config(servers: OAuthServers, **auth: str) -> ServerConfig:
        return cc_config(servers, **auth) if flow == "client_credentials" else code_config(servers, **auth)

    with OAuthServers(legacy=True) as legacy:
        assert call(config(legacy, issuer=legacy.issuer))  # a working server, with its own issuer
        before = (list(legacy.token_requests), legacy.state.registrations, list(person.links))
        text = str(auth_error(config(legacy, issuer=trusted.issuer)))
        after = (list(legacy.token_requests), legacy.state.registrations, list(person.links))
    assert (
        f"does not name the issuer you gave (auth.issuer, or --issuer) {trusted.issuer}" in text
        and "nothing was sent there" in text
    )
    assert legacy.issuer in text  # the issuer its metadata does name
    assert after == before and len(before[0]) == 1


def test_tokens_kept_from_another_authorization_server_are_not_refreshed_there(trusted, other, ui):
    """A token file from an earlier sign-in at the other server, its token expired: with the issuer
    set, mcpnb neither sends its refresh token there nor uses the token."""
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    call(code_config(other, name="kept", token_storage="file"))
    path = token_path("kept")
    saved = json.loads(path.read_text())
    saved["expires_at"] = 1.0
    path.write_text(json.dumps(saved))
    assert other.token_requests == [("authorization_code", 200)]

    auth_error(code_config(other, name="kept", token_storage="file", issuer=trusted.issuer))
    assert other.token_requests == [("authorization_code", 200)]  # no refresh_token request
    assert len(person.links) == 1

    # With its own issuer named, the kept token is refreshed as before, without the person.
    assert call(code_config(other, name="kept", token_storage="file", issuer=other.issuer)).startswith("dyn-")
    assert other.token_requests == [("authorization_code", 200), ("refresh_token", 200)]
    assert len(person.links) == 1


def test_through_the_pool_the_other_connections_keep_working(trusted, other, pool):
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    pool.connect("good", url=trusted.mcp_url, config={"auth": {**auth, "issuer": trusted.issuer}})
    with pytest.raises(McpnbError) as info:
        pool.connect("secured", url=other.mcp_url, config={"auth": {**auth, "issuer": trusted.issuer}})
    says_where_it_was_sent(str(info.value), other, trusted.issuer)
    assert nothing_reached(other)
    assert pool.call("good", "whoami").text == CLIENT_ID
    assert pool.status()["good"].state == "connected"


# --- the setting itself -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("issuer", "suggestion"),
    [
        ("login.example.com", "https://login.example.com"),
        ("ftp://login.example.com", None),
        ("https://login.example.com?tenant=a", None),
        ("https://login.example.com#x", None),
        ("https://", None),
    ],
)
def test_an_issuer_that_is_not_an_http_address_is_a_config_error(issuer, suggestion):
    auth = {"type": "oauth", "client_id": "c", "client_secret": "s", "issuer": issuer}
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("secured", {"url": "http://127.0.0.1:9/mcp", "auth": auth})
    assert info.value.key == "auth.issuer" and "issuer" in info.value.message
    assert info.value.suggestion == suggestion


def test_an_issuer_on_a_bearer_token_says_it_is_for_oauth():
    auth = {"type": "bearer", "token": "t", "issuer": "https://login.example.com"}
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("secured", {"url": "http://127.0.0.1:9/mcp", "auth": auth})
    assert info.value.key == "auth.issuer" and "applies to oauth auth" in info.value.message


def test_an_issuer_from_the_environment_and_shown_in_the_config(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("LOGIN_HOST", "login.example.com")
    config = tmp_path / ".mcp.json"
    auth = {"type": "oauth", "client_id": "c", "client_secret_env": "S", "issuer": "https://${LOGIN_HOST}"}
    entry = {"url": "http://127.0.0.1:9/mcp", "auth": auth}
    config.write_text(json.dumps({"mcpServers": {"secured": entry}}))
    cfg = load_file(config)["secured"]
    assert cfg.auth is not None and cfg.auth.issuer == "https://login.example.com"
    assert cfg.auth.redacted()["issuer"] == "https://login.example.com"  # not a secret
    assert "issuer='https://login.example.com'" in repr(cfg.auth)


def test_a_changed_issuer_starts_from_fresh_tokens(trusted):
    """Tokens kept in memory are keyed by the settings that make them interchangeable."""
    first = oauth_provider(cc_config(trusted, issuer=trusted.issuer))
    again = oauth_provider(cc_config(trusted, issuer=trusted.issuer))
    changed = oauth_provider(cc_config(trusted, issuer=trusted.issuer + "/"))
    assert first.context.storage is again.context.storage
    assert changed.context.storage is not first.context.storage
