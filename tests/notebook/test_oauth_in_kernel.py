"""Signing in with OAuth (authorization code) from a notebook cell, in a real kernel.

The sign-in runs on mcpnb's runtime thread while the cell waits in ``%mcp connect --config``: the link
must reach the cell's output from there, and in paste mode the prompt must reach the frontend as a
password-style ``input_request`` from a worker thread. The test is the person: it reads the link in
the output, opens it (the authorization server approves at once), and either lets the browser
follow the redirect to mcpnb's loopback listener or pastes the address it was sent to. Once spent,
the link is replaced in place, so a saved notebook keeps no link that leads nowhere.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest

from tests.frontend import Frontend, input_request
from tests.servers.oauth_server import OAuthServers

LINK = re.compile(r'href="([^"]+)"')


def _sign_in_link(fe: Frontend, cell: str) -> str:
    return fe.wait_for(lambda: next(iter(_links(fe, cell)), None), timeout=30, what="the sign-in link")


@pytest.mark.parametrize("mode", ["listener", "paste"])
def test_a_person_signs_in_from_a_cell(kernel: Any, tmp_path: Any, mode: str) -> None:
    fe = Frontend(kernel)
    with OAuthServers() as servers:
        config = tmp_path / "mcp.json"
        auth = {"type": "oauth", "flow": "authorization_code"}
        config.write_text(json.dumps({"mcpServers": {"secure": {"url": servers.mcp_url, "auth": auth}}}))
        setup = f"import os; os.environ['MCPNB_OAUTH_REDIRECT'] = {mode!r}\n%load_ext mcpnb"
        assert fe.reply(fe.execute(setup))["status"] == "ok"

        cell = fe.execute(f"%mcp connect --config {config}", allow_stdin=True)
        link = _sign_in_link(fe, cell)
        assert link.startswith(f"{servers.issuer}/authorize?") and "code_challenge=" in link
        approved = httpx2.get(link, follow_redirects=False)  # the person approves
        redirect = approved.headers["location"]
        assert approved.status_code == 302 and redirect.startswith("http://127.0.0.1:")
        if mode == "listener":
            page = httpx2.get(redirect)  # the browser follows it home, to mcpnb's listener
            assert page.status_code == 200 and "You can close this tab" in page.text
        else:
            prompt = input_request(kernel, cell, between=fe.pump)
            assert prompt["password"] is True and "paste the address" in prompt["prompt"]
            kernel.input(redirect)  # the browser could not load it: the person pastes its address

        assert fe.reply(cell)["status"] == "ok"
        signin = [data for key, data in fe.by_display_id.items() if key.startswith("mcpnb-signin-")]
        host = link.split("/")[2]
        assert [d["text/plain"] for d in signin] == [f"Approved at {host}."]  # the spent link is gone
        table = fe.results[cell]["text/plain"]
        assert re.search(r"^secure\s+http\s+connected\b", table, re.M), table
        code = redirect.split("code=")[1].split("&")[0]
        assert code not in json.dumps(fe.displays.get(cell, [])) + table  # never echoed

        call = fe.execute("r = %mcp call secure.whoami\nprint(r.text)")
        assert fe.reply(call)["status"] == "ok"
        assert fe.stdout[call].strip().startswith("dyn-")  # the client it registered, signed in
        fe.reply(fe.execute("%mcp disconnect secure"))  # so the servers need not wait for its stream


def test_two_sign_ins_in_one_cell_come_one_at_a_time(kernel: Any, tmp_path: Any) -> None:
    """Two OAuth servers in one ``--config``, paste mode: two links and two identical prompts at once
    would leave the person guessing which address goes where (both sign-ins failed that way). Each
    link shows once the one before is spent, and its prompt follows it."""
    fe = Frontend(kernel)
    with OAuthServers() as first, OAuthServers() as second:
        auth = {"type": "oauth", "flow": "authorization_code"}
        entries = {"a": {"url": first.mcp_url, "auth": auth}, "b": {"url": second.mcp_url, "auth": auth}}
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": entries}))
        setup = "import os; os.environ['MCPNB_OAUTH_REDIRECT'] = 'paste'\n%load_ext mcpnb"
        assert fe.reply(fe.execute(setup))["status"] == "ok"

        cell = fe.execute(f"%mcp connect --config {config}", allow_stdin=True)
        for turn in (1, 2):
            links = fe.wait_for(
                lambda n=turn: (found := _links(fe, cell)) and len(found) >= n and found,
                timeout=30,
                what=f"sign-in link {turn}",
            )
            assert len(links) == turn  # never two at once
            input_request(kernel, cell, between=fe.pump)
            approved = httpx2.get(links[-1], follow_redirects=False)
            kernel.input(approved.headers["location"])

        assert fe.reply(cell)["status"] == "ok"
        table = fe.results[cell]["text/plain"]
        assert re.search(r"^a\s+http\s+connected\b", table, re.M), table
        assert re.search(r"^b\s+http\s+connected\b", table, re.M), table
        fe.reply(fe.execute("%mcp disconnect --all"))


def test_a_person_signs_in_at_the_company_identity_provider_from_a_cell(kernel: Any, tmp_path: Any) -> None:
    """Enterprise-managed authorization (SEP-990) with no ID token at hand: the link the cell shows
    is the identity provider's sign-in page; once approved, the exchange and the grant happen
    without the person, and the call runs as the person who signed in."""
    from tests.servers.identity_provider import IDP_CLIENT_SECRET, IdentityProvider, assertion_auth

    fe = Frontend(kernel)
    with IdentityProvider() as idp, OAuthServers() as servers:
        servers.trust(idp)
        auth = assertion_auth(servers.issuer, idp)  # no ID token: the person signs in
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"corp": {"url": servers.mcp_url, "auth": auth}}}))
        setup = "import os; os.environ['MCPNB_OAUTH_REDIRECT'] = 'listener'\n%load_ext mcpnb"
        assert fe.reply(fe.execute(setup))["status"] == "ok"

        cell = fe.execute(f"%mcp connect --config {config}")
        link = _sign_in_link(fe, cell)
        assert link.startswith(f"{idp.issuer}/authorize?") and "scope=openid" in link
        page = httpx2.get(link, follow_redirects=True)  # approve; the browser follows it home
        assert page.status_code == 200 and "You can close this tab" in page.text
        assert fe.reply(cell)["status"] == "ok"
        table = fe.results[cell]["text/plain"]
        assert re.search(r"^corp\s+http\s+connected\b", table, re.M), table
        assert servers.state.granted_subjects == [idp.person]
        shown = json.dumps(fe.displays.get(cell, [])) + table
        assert not [grant for grant in idp.grants if grant in shown] and IDP_CLIENT_SECRET not in shown
        fe.reply(fe.execute("%mcp disconnect corp"))


def _links(fe: Frontend, cell: str) -> list[str]:
    found = (LINK.search(d.get("text/html", "")) for d in fe.displays.get(cell, []))
    return [m.group(1).replace("&amp;", "&") for m in found if m]
