"""Step-up authorization (MCP authorization 2025-11-25, "Scope challenge handling"): a call the
token's scope does not cover is answered 403 ``WWW-Authenticate: Bearer error="insufficient_scope",
scope="..."``; the client authorizes again asking for that scope too, and sends the call again.

Against the SDK's ``MCPServer`` behind the per-tool scope check of ``servers.oauth_server`` (a 403
naming the scope, as the TypeScript SDK's ``scopeChallenge`` and production MCP servers answer) and
the small authorization server there; :class:`Person` approves where a person signs in.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, OAuthServers, Person  # tests/ is on sys.path

from mcpnb.client.auth import set_authorization_ui
from mcpnb.client.auth.redirect import default_show_link
from mcpnb.client.errors import AuthError

pytestmark = pytest.mark.usefixtures("isolated_tokens", "ui")

SIGN_IN = {"type": "oauth", "flow": "authorization_code", "scope": "read"}
MACHINE = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "scope": "read"}


def scopes_asked(link: str) -> list[str]:
    """The scopes a sign-in link asks the authorization server for."""
    return parse_qs(urlsplit(link).query).get("scope", [""])[0].split()


def test_a_scope_challenge_signs_in_again_for_the_wider_scope_and_says_why(pool, capsys):
    person = Person(follow=True)

    def show(url: str) -> None:  # what mcpnb shows, then the person's browser follows the link
        default_show_link(url)
        person.show_link(url)

    set_authorization_ui(show_link=show, mode="listener")
    with OAuthServers(tool_scopes={"publish": "write"}) as servers:
        pool.connect("notes", url=servers.mcp_url, config={"auth": SIGN_IN})
        assert pool.call("notes", "echo", {"text": "hi"}).text == "hi"
        first = capsys.readouterr().out
        assert "again" not in first and "permission" not in first
        # the configured scope (auth.scope) no longer hides the challenge's: read + write is asked
        assert (
            pool.call("notes", "publish", {"text": "draft"}).text == "published 'draft' with scope read write"
        )
        assert [scopes_asked(link) for link in person.links] == [["read"], ["read", "write"]]
        assert servers.state.challenges == ["publish"]
        shown = capsys.readouterr().out
        assert "again (it asks for more permission: the server needs the scope write for a call)" in shown
        assert pool.call("notes", "publish", {"text": "more"}).text.endswith("read write")  # no new sign-in
        assert pool.call("notes", "echo", {"text": "still"}).text == "still"
        assert len(person.links) == 2 and servers.token_requests == [("authorization_code", 200)] * 2
        pool.disconnect("notes", sign_out=True)


def test_a_scope_the_authorization_server_refuses_is_a_clear_error_and_the_session_goes_on(pool):
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    with OAuthServers(tool_scopes={"publish": "write"}, withheld_scopes=("write",)) as servers:
        pool.connect("notes", url=servers.mcp_url, config={"auth": SIGN_IN})
        with pytest.raises(AuthError) as info:
            pool.call("notes", "publish", {"text": "draft"})
        text = str(info.value)
        assert text.startswith("server 'notes': publish() the server answered 403 insufficient_scope")
        assert "needs the scope write, and this client's token has the scope read" in text
        assert "refused: invalid_scope (scope write is not granted to this client)" in text
        assert "auth.scope (now 'read')" in text and "rejected the credentials" not in text
        # one step-up, not a loop; the session and its other calls are fine
        assert len(person.links) == 2 and servers.state.authorize_requests == 2
        assert pool.call("notes", "echo", {"text": "hi"}).text == "hi"
        assert pool.status()[0].state == "connected"
        pool.disconnect("notes", sign_out=True)


def test_a_machine_client_steps_up_without_a_person(pool):
    """client_credentials: a new token for the wider scope, asked of the token endpoint."""
    with OAuthServers(tool_scopes={"publish": "write"}) as servers:
        pool.connect("batch", url=servers.mcp_url, config={"auth": {**MACHINE, "issuer": servers.issuer}})
        assert pool.call("batch", "publish", {"text": "x"}).text == "published 'x' with scope read write"
        assert servers.token_requests == [("client_credentials", 200)] * 2
        assert pool.call("batch", "whoami").text == CLIENT_ID


def test_a_machine_client_refused_the_scope_is_told_what_to_configure(pool):
    with OAuthServers(tool_scopes={"publish": "write"}, withheld_scopes=("write",)) as servers:
        pool.connect("batch", url=servers.mcp_url, config={"auth": {**MACHINE, "issuer": servers.issuer}})
        with pytest.raises(AuthError) as info:
            pool.call("batch", "publish", {"text": "x"})
        text = str(info.value)
        assert (
            "publish() the server answered 403 insufficient_scope: this request needs the scope write" in text
        )
        assert "HTTP 400 invalid_scope: scope write is not granted to this client" in text
        assert "administrator must allow it, and auth.scope (now 'read')" in text
        assert "rejected the credentials" not in text and CLIENT_SECRET not in text
        assert servers.token_requests == [("client_credentials", 200), ("client_credentials", 400)]
        assert pool.call("batch", "whoami").text == CLIENT_ID  # the session goes on
        with pytest.raises(AuthError, match="needs the scope write"):  # each call tries once, no loop
            pool.call("batch", "publish", {"text": "x"})
        assert len(servers.token_requests) == 3
