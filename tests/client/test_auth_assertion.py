"""Enterprise-managed authorization (SEP-990, ``flow: identity_assertion``): the person's ID token,
exchanged at the company's identity provider for a grant the MCP server's authorization server takes.

Against ``servers/identity_provider.py`` (it signs ID tokens and exchanges them, with a policy) and
``servers/oauth_server.py`` (it takes the grants of the identity provider it trusts). The conformance
suite's ``auth/cross-app-access-complete-flow`` runs the same flow against servers we did not write
(``tests/conformance``).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from servers.identity_provider import (
    IDP_CLIENT_ID,
    IDP_CLIENT_SECRET,
    IdentityProvider,
    assertion_auth,
    unused_port,
)
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, JWT_BEARER, OAuthServers, Person

from mcpnb.client.auth import oauth_provider, set_authorization_ui
from mcpnb.client.config import ServerConfig
from mcpnb.client.config.layers import load_file
from mcpnb.client.errors import ConfigError, McpnbError

from .test_auth import auth_error, call

pytestmark = pytest.mark.usefixtures("isolated_tokens")


@pytest.fixture
def idp():
    with IdentityProvider() as provider:
        yield provider


@pytest.fixture
def servers(idp):
    with OAuthServers() as s:
        s.trust(idp)
        yield s


def ia_config(servers: OAuthServers, idp: IdentityProvider, name: str = "corp", **auth: Any) -> ServerConfig:
    entry = {**assertion_auth(servers.issuer, idp), "id_token_env": "CORP_ID_TOKEN", **auth}
    return ServerConfig.from_dict(
        name, {"url": servers.mcp_url, "auth": {k: v for k, v in entry.items() if v}}
    )


# --- the flow -----------------------------------------------------------------------------------


@pytest.mark.parametrize("find", ["idp_issuer", "idp_token_endpoint"])
def test_an_id_token_becomes_access_to_the_server(servers, idp, monkeypatch, find):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token("ada@example.com"))
    where = {"idp_issuer": None, "idp_token_endpoint": idp.token_endpoint} if find != "idp_issuer" else {}
    assert call(ia_config(servers, idp, **where)) == CLIENT_ID
    (exchange,) = idp.exchanges  # the grant was asked for this server and this authorization server
    assert exchange["status"] == 200 and exchange["audience"] == servers.issuer
    assert exchange["resource"] == servers.mcp_url and "client_secret" not in exchange  # sent as Basic
    assert servers.token_requests == [(JWT_BEARER, 200)] and servers.state.granted_subjects == [
        "ada@example.com"
    ]
    assert servers.state.registrations == 0 and servers.state.authorize_requests == 0  # nobody signed in


def test_an_id_token_file_beside_the_config_is_read_at_each_exchange(servers, idp, tmp_path: Path):
    """The tool that renews the ID token rewrites its file: the next exchange reads the new one."""
    (tmp_path / "tokens").mkdir(exist_ok=True)
    token_file = tmp_path / "tokens" / "id.jwt"
    token_file.write_text(idp.id_token(ttl=-10) + "\n")  # expired, as one is after an hour
    auth = ia_config(servers, idp).auth
    assert auth is not None
    entry = {**auth.redacted(), "client_secret": CLIENT_SECRET, "idp_client_secret": IDP_CLIENT_SECRET}
    entry.pop("id_token_env")
    entry["id_token_file"] = "tokens/id.jwt"  # relative to the config file
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"corp": {"url": servers.mcp_url, "auth": entry}}}))
    cfg = load_file(config)["corp"]
    provider = oauth_provider(cfg)

    text = str(auth_error(cfg, provider))
    assert "refused the ID token (HTTP 400 invalid_grant" in text and "may have expired" in text
    assert f"put a fresh one in the file auth.id_token_file names ({token_file})" in text
    assert servers.token_requests == []  # nothing went on to the authorization server

    token_file.write_text(idp.id_token())
    assert call(cfg, provider) == CLIENT_ID  # the same provider: the fresh token was read
    assert [e["status"] for e in idp.exchanges] == [400, 200]


# --- no ID token at hand: the person signs in at the identity provider ---------------------------


def signing_in(servers: OAuthServers, idp: IdentityProvider, **auth: Any) -> ServerConfig:
    return ia_config(servers, idp, id_token_env=None, **auth)


@pytest.mark.parametrize("mode", ["listener", "paste"])
def test_without_an_id_token_the_person_signs_in_at_the_identity_provider(servers, idp, ui, mode):
    person = Person(follow=mode == "listener")
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode=mode)
    assert call(signing_in(servers, idp)) == CLIENT_ID
    (link,) = person.links
    assert link.startswith(idp.issuer + "/authorize?")  # the identity provider's page, not the server's
    (asked,) = idp.sign_ins
    assert asked["scope"] == "openid" and asked["code_challenge_method"] == "S256" and asked["nonce"]
    assert asked["client_id"] == IDP_CLIENT_ID and asked["redirect_uri"].startswith("http://127.0.0.1:")
    assert servers.state.granted_subjects == [idp.person]  # the grant speaks for who signed in
    assert servers.state.authorize_requests == 0 and servers.state.registrations == 0


def test_the_sign_in_is_kept_for_the_connection(servers, idp, ui):
    """The server forgets its tokens (a 401 next): the grant is asked for again with the ID token of
    the sign-in, and the person is not sent to sign in twice."""
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    cfg = signing_in(servers, idp)
    provider = oauth_provider(cfg)
    assert call(cfg, provider) == CLIENT_ID
    servers.state.access.clear()
    assert call(cfg, provider) == CLIENT_ID
    assert len(person.links) == 1 and [e["status"] for e in idp.exchanges] == [200, 200]


def test_an_expired_sign_in_says_to_sign_in_again_and_does(servers, idp, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    idp.id_token_ttl = -10  # its ID token has already expired when it is exchanged
    cfg = signing_in(servers, idp)
    provider = oauth_provider(cfg)
    text = str(auth_error(cfg, provider))
    assert "refused the ID token of your sign-in (HTTP 400 invalid_grant" in text
    assert "connect again to sign in anew" in text and servers.token_requests == []
    idp.id_token_ttl = 3600
    assert call(cfg, provider) == CLIENT_ID
    assert len(person.links) == 2


def test_an_id_token_of_another_sign_in_is_not_used(servers, idp, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    idp.replays = True
    text = str(auth_error(signing_in(servers, idp)))
    assert "does not belong to it (its nonce differs); sign in again" in text
    assert idp.exchanges == [] and servers.token_requests == []


def test_a_slow_sign_in_is_not_on_the_servers_startup_clock(servers, idp, pool, ui):
    """The person takes longer than startup_timeout to sign in at the identity provider."""
    import time

    person = Person(follow=False)

    def slowly() -> str:
        time.sleep(2.5)
        return person.read_redirect()

    set_authorization_ui(show_link=person.show_link, read_redirect=slowly, mode="paste")
    cfg = signing_in(servers, idp)
    pool.connect("corp", url=servers.mcp_url, config=cfg, startup_timeout=1)
    assert pool.call("corp", "whoami").text == CLIENT_ID and len(person.links) == 1


# --- what goes wrong, said so a person can act on it --------------------------------------------


def test_a_client_the_identity_provider_rejects_is_not_asked_again(servers, idp, monkeypatch):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    cfg = ia_config(servers, idp, idp_client_secret="not-the-idp-secret")
    provider = oauth_provider(cfg)
    text = str(auth_error(cfg, provider))
    assert f"the identity provider rejected client {IDP_CLIENT_ID!r} (HTTP 401 invalid_client" in text
    assert "check auth.idp_client_id and auth.idp_client_secret" in text and "not-the-idp-secret" not in text
    assert "rejected client" in str(auth_error(cfg, provider))
    assert len(idp.exchanges) == 1 and servers.token_requests == []


def test_a_person_the_policy_keeps_out_is_told_who_decides(servers, idp, monkeypatch):
    idp.denied.add("mallory@example.com")
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token("mallory@example.com"))
    text = str(auth_error(ia_config(servers, idp)))
    assert "will not grant you access to this server (HTTP 400 access_denied" in text
    assert "administrator's decision" in text and servers.token_requests == []


def test_a_wrong_client_secret_at_the_authorization_server(servers, idp, monkeypatch):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    text = str(auth_error(ia_config(servers, idp, client_secret="not-the-secret")))
    assert f"rejected client {CLIENT_ID!r} (HTTP 401 invalid_client" in text
    assert "check auth.client_id and auth.client_secret" in text and "not-the-secret" not in text
    assert servers.token_requests == [(JWT_BEARER, 401)]


def test_an_authorization_server_that_does_not_trust_the_identity_provider(idp, monkeypatch):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    with IdentityProvider() as other, OAuthServers() as servers:
        servers.trust(other)  # grants of another company's identity provider only
        text = str(auth_error(ia_config(servers, idp)))
    assert "refused the identity provider's grant (HTTP 400 invalid_grant" in text
    assert "check auth.issuer and auth.client_id with its administrator" in text


def test_the_grant_goes_to_the_issuer_whatever_the_server_names(idp, monkeypatch):
    """The MCP server's metadata names its own authorization server; the configured one gets the
    grant and the secret (and refuses a grant made out to another server), the named one nothing."""
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    with OAuthServers() as other, OAuthServers() as trusted:
        trusted.trust(idp)
        cfg = ia_config(other, idp, issuer=trusted.issuer)
        with pytest.raises(BaseException):  # noqa: B017 (the SDK wraps what fails in groups)
            call(cfg)
        assert other.token_requests == [] and other.state.registrations == 0
        assert trusted.token_requests[0] == (JWT_BEARER, 400)  # its grant names another resource
        assert idp.exchanges[0]["audience"] == trusted.issuer


def test_identity_provider_metadata_that_names_another_issuer(servers, idp, monkeypatch):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    elsewhere = idp.issuer.replace("127.0.0.1", "localhost")  # the same server, another issuer name
    text = str(auth_error(ia_config(servers, idp, idp_issuer=elsewhere)))
    assert f"names issuer {idp.issuer!r}, not auth.idp_issuer {elsewhere}" in text
    assert "nothing was sent there" in text and idp.exchanges == []


def test_an_unreachable_identity_provider_may_be_retried(servers, idp, monkeypatch):
    monkeypatch.setenv("CORP_ID_TOKEN", idp.id_token())
    dead = f"http://127.0.0.1:{unused_port()}/token"
    error = auth_error(ia_config(servers, idp, idp_issuer=None, idp_token_endpoint=dead))
    assert f"could not reach the identity provider at {dead} (ConnectError" in str(error)
    assert error.retryable is True


def test_a_missing_id_token_is_said_before_any_request(servers, idp, monkeypatch):
    monkeypatch.delenv("CORP_ID_TOKEN", raising=False)
    with pytest.raises(McpnbError) as info:
        oauth_provider(ia_config(servers, idp))
    assert "'CORP_ID_TOKEN' is not set (it should hold the id_token)" in str(info.value)
    assert idp.exchanges == [] and servers.token_requests == []


# --- through the pool, and what is never shown --------------------------------------------------


def test_through_the_pool_with_nothing_secret_shown(servers, idp, pool, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    id_token = idp.id_token()
    monkeypatch.setenv("CORP_ID_TOKEN", id_token)
    monkeypatch.setenv("CORP_IDP_SECRET", IDP_CLIENT_SECRET)
    cfg = ia_config(servers, idp, idp_client_secret=None, idp_client_secret_env="CORP_IDP_SECRET")
    pool.connect("corp", url=servers.mcp_url, config=cfg)
    assert pool.call("corp", "whoami").text == CLIENT_ID
    assert pool.status()["corp"].state == "connected"

    secrets = {id_token, IDP_CLIENT_SECRET, CLIENT_SECRET, *idp.grants, *servers.state.access}
    assert len(secrets) >= 5
    provider = oauth_provider(cfg)
    texts = [repr(pool.connection("corp").config), str(pool.status()), *map(str, pool.logs("corp"))]
    texts += [repr(provider), repr(cfg.auth), json.dumps(cfg.auth.redacted() if cfg.auth else {})]
    ours = [r for r in caplog.records if r.threadName != "oauth-test-servers"]
    texts += [r.getMessage() for r in ours]
    leaked = [(s[:12], t[:80]) for s in secrets for t in texts if s in t]
    assert leaked == []
    assert "identity_assertion" in repr(provider)


# --- the settings -------------------------------------------------------------------------------

SETTINGS = {
    "type": "oauth",
    "flow": "identity_assertion",
    "client_id": "c",
    "client_secret": "s",
    "issuer": "https://as.example.com",
    "idp_issuer": "https://idp.example.com",
    "idp_client_id": "i",
    "id_token_env": "T",
}


@pytest.mark.parametrize(
    ("drop", "said"),
    [
        ("issuer", "needs 'issuer'"),
        ("idp_client_id", "needs 'idp_client_id'"),
        ("client_secret", "needs 'client_secret' or 'client_secret_env'"),
        ("idp_issuer", "needs 'idp_issuer' or 'idp_token_endpoint'"),
    ],
)
def test_what_the_flow_needs_is_named(drop, said):
    """(No ID token is no mistake: the person signs in at the identity provider.)"""
    base = dict(SETTINGS)
    base.pop(drop)
    with pytest.raises(ConfigError, match=said):
        ServerConfig.from_dict("corp", {"url": "http://127.0.0.1:9/mcp", "auth": base})


@pytest.mark.parametrize(
    ("auth", "key", "said"),
    [
        ({"flow": "client_credentials", "id_token_env": "T"}, "auth.id_token_env", "identity_assertion flow"),
        ({"idToken": "a.b.c"}, "auth.idToken", "give one of id_token_file, id_token_env, id_token"),
        ({"idp_token_endpoint": "https://idp.example.com/token"}, "auth.idp_token_endpoint", "give one of"),
        ({"idp_issuer": "idp.example.com"}, "auth.idp_issuer", "not an identity provider's issuer"),
        ({"private_key_file": "k.pem"}, "auth.private_key_file", "does not apply to the identity_assertion"),
        ({"redirect_port": 8765}, "auth.redirect_port", "applies where the person signs in"),
        (
            {"id_token_env": None, "idp_issuer": None, "idp_token_endpoint": "https://idp.example.com/t"},
            "auth",
            "give auth.idp_issuer, where its sign-in page is found",
        ),
    ],
)
def test_settings_that_do_not_fit_name_their_key(auth, key, said):
    base = {**SETTINGS, **auth}
    if base["flow"] == "client_credentials":
        for extra in ("idp_issuer", "idp_client_id", "issuer"):
            base.pop(extra)
    base = {k: v for k, v in base.items() if v is not None}
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("corp", {"url": "http://127.0.0.1:9/mcp", "auth": base})
    assert info.value.key == key and said in info.value.message
