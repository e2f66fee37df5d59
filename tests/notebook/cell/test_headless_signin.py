"""An OAuth sign-in in a notebook run headless (nbclient, as ``jupyter nbconvert --execute`` and
papermill run it): nobody opens the link, nobody pastes an address.

The sign-in that needs a person fails its cell at once and says why and what to do instead; it does
not wait for a browser until the cell's timeout (listener mode), nor fail as the server's 401 with
the real reason lost (paste mode). A sign-in kept from an interactive session still works headless,
and the kernel and its other connections go on. A real kernel, the real OAuth test servers.
"""

from __future__ import annotations

import json

import pytest
from client.test_auth import call
from servers.oauth_server import OAuthServers, Person  # tests/ is on sys.path

from mcpnb.client.auth import oauth_provider, restore_authorization_ui, set_authorization_ui, token_path
from mcpnb.client.config import ServerConfig
from notebook.cell.test_headless import _notebook, _run, _text


def _sign_in_interactively(servers: OAuthServers, name: str) -> str:
    """What ``%mcp connect NAME URL --oauth --keep-sign-in`` in an interactive session keeps: the
    person approves once; the tokens and the registration go to NAME's token file."""
    person = Person(follow=False)
    before = set_authorization_ui(
        show_link=person.show_link, read_redirect=person.read_redirect, mode="paste"
    )
    try:
        cfg = ServerConfig.from_dict(
            name,
            {
                "url": servers.mcp_url,
                "auth": {"type": "oauth", "flow": "authorization_code", "token_storage": "file"},
            },
        )
        return call(cfg, oauth_provider(cfg))
    finally:
        restore_authorization_ui(before)


@pytest.mark.timeout(240)  # the old code waited out the cell's timeout (60 s) for a browser
@pytest.mark.parametrize("mode", ["listener", "paste"])
def test_a_sign_in_nobody_can_do_fails_at_once_and_says_what_to_do(mode, tmp_path, monkeypatch):
    monkeypatch.setenv("MCPNB_TOKEN_DIR", str(tmp_path / "tokens"))  # the kernel inherits both
    monkeypatch.delenv("MCPNB_OAUTH_REDIRECT", raising=False)
    with OAuthServers() as servers:
        kept = _sign_in_interactively(servers, "kept")
        monkeypatch.setenv("MCPNB_OAUTH_REDIRECT", mode)
        path = token_path("kept")
        saved = json.loads(path.read_text())
        saved["expires_at"] = 1.0  # expired: the headless run must refresh it, still without a person
        path.write_text(json.dumps(saved))
        signed_in = servers.state.authorize_requests
        registered = servers.state.registrations

        url = servers.mcp_url
        nb = _run(
            _notebook(
                "%load_ext mcpnb",
                f"%mcp connect kept {url} --oauth --keep-sign-in\n"
                "r = %mcp call kept.whoami\nprint('KEPT', r.text)",
                (f"%mcp connect sec {url} --oauth", "raises-exception"),
                "r = %mcp call kept.whoami\nprint('STILL', r.text)",
            )
        )
        said = [_text(cell) for cell in nb.cells]

        assert f"KEPT {kept}" in said[1], said[1]
        assert ("refresh_token", 200) in servers.token_requests

        failed = said[2]
        # the connect's error, with the sign-in's own words: not the cell's timeout, not the 401
        assert failed.startswith("ConnectError: could not connect to 'sec': server 'sec': "), failed
        assert "this OAuth sign-in needs a person at a browser" in failed, failed
        assert "nobody can sign in during this run" in failed, failed
        assert "nbconvert" in failed and "papermill" in failed, failed
        assert "--keep-sign-in" in failed and "--bearer-env" in failed, failed
        assert "client_credentials" in failed, failed
        # nothing of the sign-in's own: no link shown, nothing secret, not the server's 401
        assert "/authorize" not in failed and "state=" not in failed and "code=" not in failed
        assert "401" not in failed and "getpass" not in failed, failed
        assert "Authorize mcpnb" not in failed and "Interrupted" not in failed, failed
        assert servers.state.authorize_requests == signed_in  # nobody was sent to sign in
        assert servers.state.registrations == registered + 1  # registered once: not tried again

        assert f"STILL {kept}" in said[3], said[3]  # the kernel and the kept connection go on
