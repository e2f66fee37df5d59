"""PKCE support is checked before anyone signs in (MCP 2025-11-25, "Authorization Code Protection").

"If ``code_challenge_methods_supported`` is absent, the authorization server does not support PKCE
and MCP clients MUST refuse to proceed." mcpnb sends S256, so a list without S256 is refused too.
The SDK sends S256 whatever the metadata says; mcpnb checks the metadata before it registers a
client or shows a sign-in link. Flows without an authorization code (client credentials) use no
PKCE and are not refused. Real servers on 127.0.0.1: ``tests/servers/oauth_server.py`` with its
metadata's ``code_challenge_methods_supported`` left out or changed.
"""

from __future__ import annotations

import pytest
from servers.oauth_server import CLIENT_ID, OAuthServers, Person  # tests/ is on sys.path
from servers.oauth_server import Client as Registered

from mcpnb.client.auth import set_authorization_ui
from mcpnb.client.errors import McpnbError

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
