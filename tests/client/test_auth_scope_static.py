"""A static token too narrow for a call: the server answers 403 ``WWW-Authenticate: Bearer
error="insufficient_scope", scope="write"`` (MCP authorization, "Scope challenge handling"). mcpnb
cannot sign in again for a token it was handed, so the error names the scope the call needs, the
setting that holds the token, and the ways to get one; only that call failed.

Against the SDK's ``MCPServer`` behind the per-tool scope check of ``servers.oauth_server``, with a
real token its authorization server issued for the scope ``read`` (client credentials, asked of its
token endpoint directly, as a person would get one with curl).
"""

from __future__ import annotations

import httpx2
import pytest
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, OAuthServers  # tests/ is on sys.path

from mcpnb.client.errors import AuthError, ConnectError

pytestmark = pytest.mark.usefixtures("isolated_tokens")


def read_token(servers: OAuthServers) -> str:
    """An access token with the scope ``read`` only, from the authorization server's token endpoint."""
    answer = httpx2.post(
        f"{servers.issuer}/token",
        data={"grant_type": "client_credentials", "scope": "read", "resource": servers.mcp_url},
        auth=httpx2.BasicAuth(CLIENT_ID, CLIENT_SECRET),
    )
    answer.raise_for_status()
    assert answer.json()["scope"] == "read"
    return str(answer.json()["access_token"])


def refused_publish(pool, name: str) -> AuthError:
    """Call ``publish`` (it needs the scope write) and return the error it raised."""
    with pytest.raises(AuthError) as info:
        pool.call(name, "publish", {"text": "draft"})
    return info.value


def assert_the_session_goes_on(pool, name: str) -> None:
    assert pool.call(name, "echo", {"text": "still here"}).text == "still here"
    assert [s.state for s in pool.status() if s.name == name] == ["connected"]


def test_a_header_token_without_the_scope_names_the_scope_and_the_header(pool):
    with OAuthServers(tool_scopes={"publish": "write"}) as servers:
        token = read_token(servers)
        pool.connect("notes", url=servers.mcp_url, headers={"Authorization": f"Bearer {token}"})
        assert pool.call("notes", "echo", {"text": "hi"}).text == "hi"
        error = refused_publish(pool, "notes")
        text = str(error)
        assert error.status == 403 and servers.state.challenges == ["publish"]
        assert text.startswith("server 'notes': HTTP 403 Forbidden from ")
        assert (
            "this call needs the scope write, which the Authorization header (headers) does not have" in text
        )
        assert "Get a token with that scope, then connect anew with it" in text
        assert "--oauth" in text and "The session goes on: other calls work" in text
        assert "rejected the credentials" not in text and "check its auth settings" not in text
        # a model cannot get a token: it is told to use another tool or ask the user
        assert "needs the scope write" in error.for_model and "use another tool, or tell the user" in (
            error.for_model
        )
        assert token not in text and token not in error.for_model
        assert_the_session_goes_on(pool, "notes")
        assert servers.token_requests == [("client_credentials", 200)]  # mcpnb asked for no token


def test_a_token_from_a_variable_without_the_scope_says_to_put_a_wider_one_there(pool, monkeypatch):
    with OAuthServers(tool_scopes={"publish": "write"}) as servers:
        token = read_token(servers)
        monkeypatch.setenv("NOTES_TOKEN", token)
        auth = {"type": "bearer", "token_env": "NOTES_TOKEN"}
        pool.connect("notes", url=servers.mcp_url, config={"auth": auth})
        text = str(refused_publish(pool, "notes"))
        assert (
            "this call needs the scope write, which the bearer token in the variable NOTES_TOKEN "
            "(auth.token_env) does not have" in text
        )
        assert "put it there and reconnect (pool.reconnect('notes'), or %mcp reconnect notes)" in text
        assert token not in text
        assert_the_session_goes_on(pool, "notes")


def test_a_challenge_that_names_no_scope_asks_for_more_scope():
    """RFC 6750 lets ``scope`` be left out of an insufficient_scope challenge."""
    error = AuthError.from_status(
        "notes",
        403,
        "http://127.0.0.1:1/mcp",
        credentials="the Authorization header (headers)",
        scope="",
    )
    assert "this call needs more scope than the Authorization header (headers) has" in str(error)
    assert "Get a token with the scope it needs" in str(error)
    assert "it needs more scope" in error.for_model


def test_a_token_without_the_scope_the_whole_server_needs_says_so_at_connect(pool):
    """The SDK's own check (``required_scopes``) answers the connect 403 insufficient_scope, naming
    no scope in its challenge: the token is good but too narrow, which is no "rejected credentials"
    (a rotated token's advice) and no call whose session goes on."""
    with OAuthServers(required_scopes=("write",)) as servers:
        token = read_token(servers)
        with pytest.raises(ConnectError) as info:
            pool.connect("notes", url=servers.mcp_url, headers={"Authorization": f"Bearer {token}"})
        text = str(info.value)
        assert "HTTP 403 Forbidden" in text
        assert (
            "the server answered insufficient_scope: connecting needs more scope than the "
            "Authorization header (headers) has" in text
        )
        assert "Get a token with the scope it needs, then connect anew with it" in text and "--oauth" in text
        assert "rejected the credentials" not in text and "this call" not in text
        assert "The session goes on" not in text and token not in text
