"""PKCE support is checked before anyone signs in (MCP 2025-11-25, "Authorization Code Protection").

"If ``code_challenge_methods_supported`` is absent, the authorization server does not support PKCE
and MCP clients MUST refuse to proceed." mcpnb sends S256, so a list without S256 is refused too.
The SDK sends S256 whatever the metadata says; mcpnb checks the metadata before it registers a
client or shows a sign-in link. Flows without an authorization code (client credentials) use no
PKCE and are not refused. Real servers on 127.0.0.1: ``tests/servers/oauth_server.py`` with its
metadata's ``code_challenge_methods_supported`` left out or changed.

Microsoft Entra ID leaves the field out though it does S256: ``assume_pkce: true``, set knowingly
for one server, signs in there with a warning; a server that lists methods without S256 has said
it does not do S256, and stays refused.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, OAuthServers, Person  # tests/ is on sys.path
from servers.oauth_server import Client as Registered

from mcpnb.client.auth import set_authorization_ui
from mcpnb.client.config import ServerConfig
from mcpnb.client.errors import McpnbError

from .config.helpers import assert_located, config_error
from .test_auth import auth_error, call, cc_config, code_config

pytestmark = pytest.mark.usefixtures("isolated_tokens")

#: What the metadata lists (None: the field left out), and how the refusal says it.
WITHOUT_S256 = [
    pytest.param(None, "has no code_challenge_methods_supported", id="absent"),
    pytest.param(("plain",), "lists code_challenge_methods_supported plain, not S256", id="plain"),
    pytest.param((), "lists code_challenge_methods_supported (empty), not S256", id="empty"),
]


@pytest.fixture
def person(ui) -> Person:
    """Follows any link it is shown, as a browser would: a test fails if one is shown."""
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    return person


def says_why_and_what_to_do(text: str, servers: OAuthServers, said: str) -> None:
    assert f"the authorization server at {servers.issuer}" in text
    assert "does not say it supports PKCE" in text and said in text
    assert "MCP clients must refuse to sign in there" in text
    assert "nothing was registered and no sign-in link was shown" in text
    assert "Ask the server's operator to enable PKCE (S256)" in text
    way_out = (
        "if you know it supports PKCE with S256 (Microsoft Entra ID does, without saying so), "
        "set assume_pkce: true in the server's auth settings"
    )
    assert (way_out in text) == (said == "has no code_challenge_methods_supported")  # only where it helps


def nothing_happened(servers: OAuthServers, person: Person) -> bool:
    state = servers.state
    return (state.registrations, state.authorize_requests, servers.token_requests, person.links) == (
        0,
        0,
        [],
        [],
    )


@pytest.mark.parametrize(("methods", "said"), WITHOUT_S256)
def test_a_sign_in_where_pkce_is_not_supported_is_refused_before_anything(methods, said, person):
    with OAuthServers(pkce_methods=methods) as servers:
        error = auth_error(code_config(servers))
        says_why_and_what_to_do(str(error), servers, said)
        assert error.retryable is False
        assert nothing_happened(servers, person)


def test_a_client_registered_by_hand_is_refused_too(person):
    """No registration to stop at: the link is never built."""
    with OAuthServers(pkce_methods=None) as servers:
        servers.state.clients["desk"] = Registered("desk", None, auth_method="none")
        error = auth_error(code_config(servers, client_id="desk"))
        says_why_and_what_to_do(str(error), servers, "has no code_challenge_methods_supported")
        assert nothing_happened(servers, person)


def test_through_the_pool_the_connect_error_and_status_row_say_why(pool, person):
    with OAuthServers(pkce_methods=None) as servers:
        auth = {"type": "oauth", "flow": "authorization_code"}
        with pytest.raises(McpnbError) as info:
            pool.connect("nopkce", url=servers.mcp_url, config={"auth": auth})
        says_why_and_what_to_do(str(info.value), servers, "has no code_challenge_methods_supported")
        row = pool.status()["nopkce"]
        assert row.state != "connected" and row.last_error is not None
        says_why_and_what_to_do(row.last_error, servers, "has no code_challenge_methods_supported")
        assert nothing_happened(servers, person)


def test_s256_among_other_methods_signs_in(person):
    with OAuthServers(pkce_methods=("plain", "S256")) as servers:
        assert call(code_config(servers)).startswith("dyn-")
        assert "code_challenge_method=S256" in person.links[0]
        assert servers.token_requests == [("authorization_code", 200)]


def test_client_credentials_use_no_pkce_and_are_not_refused(ui):
    with OAuthServers(pkce_methods=None) as servers:
        assert call(cc_config(servers, issuer=servers.issuer)) == CLIENT_ID
        assert servers.token_requests == [("client_credentials", 200)]


# --- assume_pkce: the person's word where the metadata says nothing ---------------------------------


def pkce_assumed(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        str(w.message) for w in caught if w.category is UserWarning and "S256 is assumed" in str(w.message)
    ]


def test_assume_pkce_signs_in_where_the_metadata_says_nothing_and_warns_once(pool, person):
    """Entra ID's metadata has no code_challenge_methods_supported; with the setting the sign-in
    goes on (S256 sent, the server checks the verifier), and the person is told whose word it was:
    where they connected (it was a line on a logger nobody had a handler for) and in the log."""
    with OAuthServers(pkce_methods=None) as servers, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auth = {"type": "oauth", "flow": "authorization_code", "assumePkce": True}
        pool.connect("entra", url=servers.mcp_url, config={"auth": auth})
        assert pool.call("entra", "whoami").text.startswith("dyn-")
        assert len(person.links) == 1 and "code_challenge_method=S256" in person.links[0]
        assert servers.token_requests == [("authorization_code", 200)]
        said = pkce_assumed(caught)
        assert len(said) == 1, said  # checked before registering and before the link: said once
        assert said[0].startswith(f"server 'entra': the authorization server at {servers.issuer}")
        assert "PKCE with S256 is assumed (auth.assume_pkce is true)" in said[0]
        assert sum("S256 is assumed" in line for line in pool.logs("entra")) == 1
        pool.disconnect("entra", sign_out=True)


@pytest.mark.parametrize("methods", [("plain",), ()], ids=["plain", "empty"])
def test_assume_pkce_does_not_override_a_server_that_lists_methods_without_s256(methods, person):
    with OAuthServers(pkce_methods=methods) as servers, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        error = auth_error(code_config(servers, assume_pkce=True))
        text = str(error)
        assert f"the authorization server at {servers.issuer}" in text and "not S256" in text
        assert "assume_pkce applies only where the metadata lists no methods at all" in text
        assert "set assume_pkce: true" not in text
        assert nothing_happened(servers, person) and not pkce_assumed(caught)


def test_assume_pkce_with_s256_listed_changes_nothing(person):
    with OAuthServers() as servers, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert call(code_config(servers, assume_pkce=True)).startswith("dyn-")
        assert not pkce_assumed(caught)


@pytest.mark.parametrize(
    ("auth", "key", "said"),
    [
        (
            {"type": "oauth", "client_id": "c", "client_secret": "s", "assume_pkce": True},
            "auth.assume_pkce",
            "applies to the authorization_code flow, where a person signs in with PKCE, not "
            "client_credentials",
        ),
        (
            {"type": "oauth", "flow": "jwt_bearer", "client_id": "c", "assertion": "a", "assumePkce": False},
            "auth.assumePkce",
            "applies to the authorization_code flow, where a person signs in with PKCE, not jwt_bearer",
        ),
        (
            {"type": "bearer", "token": "abcd", "assume_pkce": True},
            "auth.assume_pkce",
            "applies to oauth auth",
        ),
        (
            {"type": "oauth", "flow": "authorization_code", "assume_pkce": "yes"},
            "auth.assume_pkce",
            "expected true or false",
        ),
    ],
    ids=["client_credentials", "jwt_bearer", "bearer", "not-a-bool"],
)
def test_assume_pkce_elsewhere_is_a_config_error(auth: dict[str, Any], key: str, said: str) -> None:
    error = config_error(ServerConfig.from_dict, "s", {"url": "http://h/mcp", "auth": auth}, source="f.json")
    assert_located(error, file="f.json", server="s", key=key)
    assert said in str(error)


def test_assume_pkce_is_read_in_either_spelling_and_off_by_default() -> None:
    def taken(**extra: Any) -> Any:
        auth = {"type": "oauth", "flow": "authorization_code", **extra}
        config = ServerConfig.from_dict("s", {"url": "https://h/mcp", "auth": auth})
        assert config.auth is not None
        return config.auth.assume_pkce

    assert (taken(), taken(assume_pkce=True), taken(assumePkce=True)) == (False, True, True)
    with pytest.raises(McpnbError, match="set twice"):
        taken(assume_pkce=True, assumePkce=True)


def test_a_corporate_proxy_setting_leaves_this_machines_authorization_server_direct(pool, monkeypatch):
    """With HTTP_PROXY set (and no NO_PROXY) the MCP requests to 127.0.0.1 went direct, but the
    sign-in's own requests (metadata, token) went to the proxy, and failed there."""
    from conftest import free_port

    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    with OAuthServers() as servers:
        auth = {
            "type": "oauth",
            "flow": "client_credentials",
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "issuer": servers.issuer,
        }
        pool.connect("secured", url=servers.mcp_url, config={"auth": auth})
        assert pool.call("secured", "whoami").text == CLIENT_ID
        assert servers.token_requests == [("client_credentials", 200)]
        pool.disconnect("secured")
