"""A sign-in where nobody can follow the link: the authorization UI says so
(``nobody_can_sign_in``), and the sign-in fails at once with its words, before a link shows or a
listener waits; a kept sign-in goes on without the person. Real servers on 127.0.0.1
(``tests/servers/oauth_server``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from servers.oauth_server import OAuthServers, Person  # tests/ is on sys.path

from mcpnb.client.auth import (
    AuthorizationUI,
    authorization_ui,
    oauth_provider,
    restore_authorization_ui,
    set_authorization_ui,
    token_path,
)

from .test_auth import auth_error, call, code_config

pytestmark = pytest.mark.usefixtures("isolated_tokens", "ui")

WHY = "nobody is at this terminal (a test says so)"


@dataclass(frozen=True)
class NobodyUI(AuthorizationUI):
    """A UI that knows nobody is there (the notebook's does, in a headless run)."""

    why: str | None = WHY

    def nobody_can_sign_in(self) -> str | None:
        return self.why


@pytest.fixture
def servers():
    with OAuthServers() as s:
        yield s


def _never(*_: Any) -> str:
    raise AssertionError("nobody is there: no link may be shown, no address read")


@pytest.mark.parametrize("mode", ["listener", "paste"])
def test_a_sign_in_nobody_can_do_fails_at_once_with_the_uis_words(servers, mode, monkeypatch):
    monkeypatch.delenv("MCPNB_OAUTH_REDIRECT", raising=False)
    restore_authorization_ui(NobodyUI(show_link=_never, read_redirect=_never, mode=mode, timeout=600))
    cfg = code_config(servers, name="nobody")
    provider = oauth_provider(cfg)
    error = auth_error(cfg, provider)
    text = str(error)
    assert text.startswith("server 'nobody': this OAuth sign-in needs a person at a browser, and "), text
    assert text.endswith(WHY) and error.retryable is False, text
    assert servers.state.authorize_requests == 0 and servers.state.registrations == 1
    assert "401" not in text and "state=" not in text
    # the next connect fails the same way at once; its sign-in's turn was given up
    assert str(auth_error(cfg, oauth_provider(cfg))) == text


def test_a_kept_sign_in_goes_on_where_nobody_is_there(servers, monkeypatch):
    monkeypatch.delenv("MCPNB_OAUTH_REDIRECT", raising=False)
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    cfg = code_config(servers, name="kept", token_storage="file")
    first = call(cfg)

    restore_authorization_ui(NobodyUI(show_link=_never, read_redirect=_never))
    path = token_path("kept")
    saved = json.loads(path.read_text())
    saved["expires_at"] = 1.0  # expired: refreshed, which needs nobody
    path.write_text(json.dumps(saved))
    assert call(cfg) == first
    assert servers.token_requests == [("authorization_code", 200), ("refresh_token", 200)]
    assert servers.state.authorize_requests == 1

    servers.state.refresh.clear()  # the kept sign-in revoked: now a person is needed, and is not there
    saved = json.loads(path.read_text())
    saved["expires_at"] = 1.0
    path.write_text(json.dumps(saved))
    assert str(auth_error(cfg)).endswith(WHY)
    assert servers.state.authorize_requests == 1


def test_a_person_who_is_there_signs_in_as_before(servers, monkeypatch):
    monkeypatch.delenv("MCPNB_OAUTH_REDIRECT", raising=False)
    person = Person(follow=True)  # a browser: follows the redirect to the listener
    restore_authorization_ui(NobodyUI(show_link=person.show_link, mode="listener", why=None))
    assert call(code_config(servers)) and len(person.links) == 1 and person.done.is_set()


def test_the_default_ui_outside_a_notebook_asks_nothing():
    """A script or a terminal with the default UI: the link is printed, someone may read it."""
    from mcpnb.client.auth.signin import nobody_to_sign_in

    assert nobody_to_sign_in(authorization_ui()) is None
