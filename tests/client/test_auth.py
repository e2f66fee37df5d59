"""OAuth against real servers on 127.0.0.1: a protected MCP server and a small authorization server.

The tests play the person where the flow needs one: they fetch the authorization link with
``httpx2`` (the authorization server auto-approves) and either let the redirect land on the
loopback listener or hand the redirected address back through the paste hook.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from conftest import HttpServer
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from servers.oauth_server import CLIENT_ID, CLIENT_SECRET, OAuthServers, Person  # tests/ is on sys.path
from servers.oauth_server import Client as Registered

from mcpnb.client.auth import (
    AuthError,
    CallbackListener,
    FileTokenStorage,
    authorization_ui,
    oauth_provider,
    parse_redirect,
    set_authorization_ui,
    token_path,
)
from mcpnb.client.auth import storage as token_storage
from mcpnb.client.config import ServerConfig
from mcpnb.client.errors import CallError, leaves

pytestmark = pytest.mark.usefixtures("isolated_tokens")


@pytest.fixture
def servers():
    with OAuthServers() as s:
        yield s


def cc_config(servers: OAuthServers, **auth: Any) -> ServerConfig:
    base = {
        "type": "oauth",
        "flow": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    merged = {k: v for k, v in {**base, **auth}.items() if v is not None}
    return ServerConfig.from_dict("secured", {"url": servers.mcp_url, "auth": merged})


def code_config(servers: OAuthServers, name: str = "browser", **auth: Any) -> ServerConfig:
    return ServerConfig.from_dict(
        name, {"url": servers.mcp_url, "auth": {"type": "oauth", "flow": "authorization_code", **auth}}
    )


async def _call(url: str, auth: httpx2.Auth, tool: str = "whoami", arguments: dict | None = None) -> str:
    async with (
        httpx2.AsyncClient(auth=auth) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool(tool, arguments or {})
    return result.content[0].text


def call(cfg: ServerConfig, auth: httpx2.Auth | None = None, **kw: Any) -> str:
    return asyncio.run(_call(cfg.url, auth or oauth_provider(cfg), **kw))


def auth_error(cfg: ServerConfig, auth: httpx2.Auth | None = None) -> AuthError:
    """The AuthError a connect raises (the SDK wraps it in exception groups)."""
    with pytest.raises(BaseException) as info:
        call(cfg, auth)
    found = [leaf for leaf in leaves(info.value) if isinstance(leaf, AuthError)]
    assert found, f"expected an AuthError, got {info.value!r}"
    return found[0]


# --- client credentials -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "mode"),
    [
        ({}, "listener"),  # browser and kernel on one machine
        ({"JUPYTERHUB_API_URL": "http://hub:8081/hub/api"}, "paste"),
        ({"BINDER_SERVICE_HOST": "10.0.0.1"}, "paste"),
        ({"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.3 22"}, "paste"),  # ssh -L forwards the notebook only
        ({"SSH_CLIENT": "10.0.0.2 50000 22"}, "paste"),
        ({"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.3 22", "VSCODE_IPC_HOOK_CLI": "/tmp/v.sock"}, "listener"),
        ({"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.3 22", "MCPNB_OAUTH_REDIRECT": "listener"}, "listener"),
    ],
)
def test_the_redirect_mode_follows_where_the_browser_is(env, mode, monkeypatch, ui):
    hints = ("JUPYTERHUB_API_URL", "BINDER_SERVICE_HOST", "BINDER_REQUEST", "COLAB_RELEASE_TAG")
    for var in (*hints, "SSH_CONNECTION", "SSH_CLIENT", "VSCODE_IPC_HOOK_CLI", "VSCODE_PID", "VSCODE_CWD"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("MCPNB_OAUTH_REDIRECT", raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    set_authorization_ui(mode="auto")
    assert authorization_ui().resolved_mode() == mode


def test_client_credentials_call_a_tool(servers, monkeypatch):
    monkeypatch.setenv("CC_SECRET", CLIENT_SECRET)
    cfg = cc_config(servers, client_secret=None, client_secret_env="CC_SECRET", scope="tools")
    assert call(cfg) == CLIENT_ID
    assert servers.token_requests == [("client_credentials", 200)]
    assert [t.scopes for t in servers.state.access.values()] == [["tools"]]  # the configured scope was asked


def test_wrong_secret_is_a_clear_error_and_not_retried(servers):
    cfg = cc_config(servers, client_secret="not-the-secret")
    provider = oauth_provider(cfg)
    error = auth_error(cfg, provider)
    text = str(error)
    assert "server 'secured'" in text and "rejected client 'cc-client'" in text
    assert "HTTP 401 invalid_client" in text and "client_secret" in text
    assert "not-the-secret" not in text and error.retryable is False
    assert servers.token_requests == [("client_credentials", 401)]
    # The same provider again (a reconnect that reuses it): refused at once, the token endpoint is not asked.
    assert "rejected client" in str(auth_error(cfg, provider))
    assert servers.token_requests == [("client_credentials", 401)]


def test_missing_client_secret_names_the_variable(servers, monkeypatch):
    monkeypatch.delenv("MISSING_SECRET", raising=False)
    cfg = cc_config(servers, client_secret=None, client_secret_env="MISSING_SECRET")
    with pytest.raises(AuthError) as info:
        oauth_provider(cfg)
    text = str(info.value)
    assert "'MISSING_SECRET' is not set" in text and "client_secret_env" in text and "secured" in text
    assert servers.token_requests == []


def test_unreachable_token_endpoint():
    with OAuthServers(dead_token_endpoint=True) as servers:
        cfg = cc_config(servers)
        error = auth_error(cfg)
        live = servers.issuer
    text = str(error)
    assert "could not reach the token endpoint at http://127.0.0.1:" in text and "/token" in text
    assert live not in text  # it names the dead endpoint the metadata advertised, not the live server
    assert "ConnectError" in text and error.retryable is True
    assert CLIENT_SECRET not in text


# --- authorization code + PKCE ------------------------------------------------------------------


def test_authorization_code_with_loopback_listener(servers, ui):
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    cfg = code_config(servers)
    assert call(cfg).startswith("dyn-")  # a dynamically registered public client
    assert person.done.wait(10)
    page = person.pages[0]
    assert page.status_code == 200 and "close this tab" in page.text
    assert page.url.host == "127.0.0.1" and page.url.path == "/callback"
    assert "code_challenge_method=S256" in person.links[0]
    assert servers.state.registrations == 1 and servers.state.authorize_requests == 1
    assert servers.token_requests == [("authorization_code", 200)]
    # The listener is gone: the one-shot port no longer accepts connections.
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(str(page.url.copy_with(query=None)), timeout=2)


def test_a_client_registered_for_one_redirect_address_signs_in_with_redirect_port(servers, ui):
    """A client registered by hand where the authorization server wants the exact redirect address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    exact = f"http://127.0.0.1:{port}/callback"
    servers.state.clients["desk"] = Registered("desk", None, auth_method="none", redirect_uris=[exact])
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    assert call(code_config(servers, client_id="desk", redirect_port=port)) == "desk"
    assert parse_qs(urlsplit(person.links[0]).query)["redirect_uri"] == [exact]
    assert servers.state.registrations == 0 and servers.token_requests == [("authorization_code", 200)]


def test_authorization_code_with_pasted_address(servers, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    assert call(code_config(servers)).startswith("dyn-")
    assert servers.token_requests == [("authorization_code", 200)]


def test_tampered_code_is_refused_clearly(servers, ui):
    person = Person(follow=False)
    tampered: list[str] = []

    def paste() -> str:
        url = person.read_redirect()
        tampered.append(url.replace("code=", "code=x"))
        return tampered[-1]

    set_authorization_ui(show_link=person.show_link, read_redirect=paste, mode="paste")
    error = auth_error(code_config(servers))
    assert "authorization code was refused (HTTP 400 invalid_grant" in str(error)
    code = parse_redirect(tampered[0]).code
    assert code not in str(error)


def test_pasting_something_else_says_what_to_paste(servers, ui):
    person, spent = Person(follow=False), []
    set_authorization_ui(
        show_link=person.show_link,
        read_redirect=lambda: "http://127.0.0.1:1/cb?state=x",
        mode="paste",
        link_done=lambda url, problem: spent.append((url, problem)),
    )
    error = auth_error(code_config(servers))
    assert "no 'code' parameter" in str(error) and "address bar" in str(error)
    assert servers.token_requests == []
    assert len(spent) == 1 and spent[0][0] == person.links[0] and "no 'code' parameter" in spent[0][1]


def test_a_prompt_that_cannot_be_shown_is_what_the_spent_link_says(servers, ui):
    """No stdin to paste into (a kernel without a frontend, say): the link's place says why."""
    person, spent = Person(follow=False), []

    def no_stdin() -> str:
        raise EOFError("stdin is not available")

    set_authorization_ui(
        show_link=person.show_link,
        read_redirect=no_stdin,
        mode="paste",
        link_done=lambda url, problem: spent.append(problem),
    )
    try:
        call(code_config(servers))
    except BaseException as exc:  # the SDK wraps it in exception groups
        assert any(isinstance(leaf, EOFError) for leaf in leaves(exc))
    else:
        raise AssertionError("the sign-in went on without a code")
    assert spent == ["EOFError: stdin is not available"] and servers.token_requests == []


def test_refused_registration_says_to_configure_a_client(ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    with OAuthServers(registration=False) as servers:
        error = auth_error(code_config(servers))
    text = str(error)
    assert "refused dynamic client registration (HTTP 403 access_denied)" in text
    assert "auth.client_id" in text and person.links == []  # nobody was sent to the browser


def test_oauth_for_a_server_that_wants_a_static_token_says_so(ui):
    """No OAuth metadata anywhere (the SDK then tries the old default /register and gets a 401):
    not an authorization server refusing to register us, but a server that takes a token."""
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    server = HttpServer("http", "--require-token", "right-token-123")
    try:
        cfg = ServerConfig.from_dict(
            "web", {"url": server.url, "auth": {"type": "oauth", "flow": "authorization_code"}}
        )
        text = str(auth_error(cfg))
    finally:
        server.stop()
    assert "publishes no OAuth metadata" in text and "auth bearer" in text
    assert "refused dynamic client registration" not in text and person.links == []


def test_file_storage_is_private_and_reused(servers, ui):
    person = Person(follow=False)
    set_authorization_ui(show_link=person.show_link, read_redirect=person.read_redirect, mode="paste")
    cfg = code_config(servers, name="kept", token_storage="file")
    first = call(cfg)

    path = token_path("kept")
    assert path.parent == Path(token_storage.token_dir()) and path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    saved = json.loads(path.read_text())
    assert saved["server_url"] == servers.mcp_url
    assert saved["tokens"]["access_token"] in servers.state.access
    assert saved["client_info"]["client_id"] == first

    # A new provider (a new kernel, say) uses the stored token: no link, no registration, no token request.
    def no_person(*_: Any) -> str:
        raise AssertionError("the stored token should have been used")

    set_authorization_ui(show_link=no_person, read_redirect=no_person)
    assert call(cfg) == first
    assert servers.state.authorize_requests == 1 and servers.state.registrations == 1
    assert servers.token_requests == [("authorization_code", 200)]

    # An expired stored token is refreshed before use, still without the person.
    saved = json.loads(path.read_text())
    saved["expires_at"] = 1.0
    path.write_text(json.dumps(saved))
    assert call(cfg) == first
    assert servers.token_requests == [("authorization_code", 200), ("refresh_token", 200)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_token_file_for_another_url_is_ignored(tmp_path):
    async def scenario() -> Any:
        from mcp.shared.auth import OAuthToken

        a = FileTokenStorage(tmp_path / "s.json", "http://127.0.0.1:1/mcp")
        await a.set_tokens(OAuthToken(access_token="tok-for-one", expires_in=60))
        b = FileTokenStorage(tmp_path / "s.json", "http://127.0.0.1:2/mcp")
        return await a.get_tokens(), await b.get_tokens()

    mine, other = asyncio.run(scenario())
    assert mine is not None and mine.access_token == "tok-for-one" and other is None


# --- the listener and the paste parser on their own ---------------------------------------------


def test_listener_ignores_other_paths_and_reports_a_refusal():
    async def scenario() -> tuple[int, int, str]:
        listener = await CallbackListener(0, state="s").start()
        async with httpx2.AsyncClient() as http:
            favicon = await http.get(f"http://127.0.0.1:{listener.port}/favicon.ico")
            denied = await http.get(listener.redirect_uri + "?error=access_denied&state=s")
        with pytest.raises(AuthError) as info:
            await listener.wait(5)
        return favicon.status_code, denied.status_code, str(info.value)

    favicon, denied, text = asyncio.run(scenario())
    assert (favicon, denied) == (404, 400)
    assert "refused: access_denied" in text


def test_listener_is_not_ended_by_a_redirect_of_another_sign_in():
    """A request with a wrong or no ``state`` gets a 400 and the listener keeps waiting for the real
    redirect; nothing it answers repeats the expected state."""
    expected = "the-expected-state-0123456789"

    async def scenario() -> tuple[list[httpx2.Response], Any]:
        listener = await CallbackListener(0, state=expected).start()
        async with httpx2.AsyncClient() as http:
            strays = [
                await http.get(listener.redirect_uri + "?code=evil"),
                await http.get(listener.redirect_uri + "?code=evil&state=guess"),
                await http.get(listener.redirect_uri + "?error=access_denied"),
                await http.get(listener.redirect_uri),
            ]
            waiting = asyncio.ensure_future(listener.wait(10))
            real = await http.get(listener.redirect_uri + f"?code=good&state={expected}")
        return [*strays, real], await waiting

    pages, result = asyncio.run(scenario())
    assert [p.status_code for p in pages] == [400, 400, 400, 400, 200]
    assert all("does not belong to the sign-in" in p.text for p in pages[:4])
    assert not any(expected in p.text for p in pages)
    assert (result.code, result.state) == ("good", expected)


def test_a_pasted_address_ends_the_listeners_wait_from_another_thread():
    """What the paste box under a link does (a click, on the kernel's thread): an address that is
    not this sign-in's is refused and the wait goes on; this sign-in's ends it; once it ended, a
    paste says so. A refusal pasted back ends the sign-in with the server's reason."""
    state = "the-state-of-this-sign-in"

    async def scenario() -> tuple[list[str], Any, str, str]:
        listener = await CallbackListener(0, state=state).start()
        said = []
        for wrong in ("", "http://127.0.0.1:1/callback?state=" + state, "?code=c&state=guess"):
            try:
                await asyncio.to_thread(listener.deliver, wrong)
            except AuthError as exc:
                said.append(str(exc))
        url = f"{listener.redirect_uri}?code=pasted&state={state}"
        await asyncio.to_thread(listener.deliver, url)
        result = await listener.wait(5)
        with pytest.raises(AuthError) as ended:
            listener.deliver(url)
        refused = await CallbackListener(0, state=state).start()
        await asyncio.to_thread(refused.deliver, f"?error=access_denied&state={state}")
        with pytest.raises(AuthError) as why:
            await refused.wait(5)
        return said, result, str(ended.value), str(why.value)

    said, result, ended, why = asyncio.run(scenario())
    assert len(said) == 3 and "no 'code'" in said[0] and "no 'code'" in said[1]
    assert "another sign-in" in said[2] and not any(state in s for s in said)
    assert (result.code, result.state) == ("pasted", state)
    assert "has ended" in ended and "refused: access_denied" in why


def test_a_stray_callback_does_not_block_the_real_login(servers, ui):
    """Something on the machine hits /callback first (no state, a guessed one): the login goes on."""
    person = Person(follow=True)
    strays: list[int] = []

    def strays_then_browse(url: str) -> None:  # off the runtime loop, where the listener answers
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        for query in ("?code=evil", "?code=evil&state=guess", ""):
            strays.append(httpx2.get(redirect + query, timeout=5).status_code)
        person._browse(url)

    def show_link(url: str) -> None:
        threading.Thread(target=strays_then_browse, args=(url,), daemon=True).start()

    set_authorization_ui(show_link=show_link, mode="listener")
    assert call(code_config(servers)).startswith("dyn-")
    assert person.done.wait(10) and person.pages[0].status_code == 200
    assert strays == [400, 400, 400]
    assert servers.token_requests == [("authorization_code", 200)]


def test_a_pasted_redirect_of_another_sign_in_is_refused_without_echoing_the_state(servers, ui):
    person = Person(follow=False)

    def paste() -> str:
        return person.read_redirect().replace("state=", "state=other")

    set_authorization_ui(show_link=person.show_link, read_redirect=paste, mode="paste")
    error = auth_error(code_config(servers))
    expected = parse_qs(urlsplit(person.links[0]).query)["state"][0]
    assert "belongs to another sign-in" in str(error)
    assert expected not in str(error)
    assert servers.token_requests == []  # the code was never exchanged


def test_parse_redirect_accepts_url_or_query():
    for text in (
        "http://127.0.0.1:5/callback?code=abc&state=s&iss=http%3A%2F%2Fa",
        "?code=abc&state=s",
        "code=abc",
    ):
        assert parse_redirect(text).code == "abc"
    assert parse_redirect("?code=abc&state=s&iss=http%3A%2F%2Fa").iss == "http://a"


# --- secrets stay out of reprs and logs ---------------------------------------------------------


def test_no_secret_in_reprs_logs_or_errors(servers, ui, caplog):
    caplog.set_level(logging.DEBUG)
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    texts: list[str] = []

    good = oauth_provider(cc_config(servers))
    call(cc_config(servers), good)
    texts += [repr(good), repr(good.context.storage)]
    texts.append(str(auth_error(cc_config(servers, client_secret="wrong-secret-value"))))
    browser = oauth_provider(code_config(servers, token_storage="file"))
    call(code_config(servers), browser)
    texts += [repr(browser), repr(browser.context.storage)]

    secrets_ = {CLIENT_SECRET, "wrong-secret-value"}
    secrets_ |= set(servers.state.access) | set(servers.state.refresh)
    secrets_ |= {c.secret for c in servers.state.clients.values() if c.secret}
    secrets_ |= {parse_redirect(str(p.url)).code for p in person.pages}
    assert len(secrets_) >= 6
    # The client side only: the "browser" and the servers (their own threads) see codes by design.
    ours = [r for r in caplog.records if r.threadName not in ("browser", "oauth-test-servers")]
    assert len(ours) > 50
    texts += [r.getMessage() for r in ours]
    texts += [logging.Formatter().formatException(r.exc_info) for r in ours if r.exc_info]
    assert any("oauth secured" in t for t in texts)  # our DEBUG lines were captured
    leaked = [(s, t) for s in secrets_ for t in texts if s in t]
    assert leaked == []


# --- through the pool ---------------------------------------------------------------------------


def test_pool_connects_with_client_credentials(servers, pool, monkeypatch):
    monkeypatch.setenv("POOL_CC_SECRET", CLIENT_SECRET)
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret_env": "POOL_CC_SECRET"}
    pool.connect("secured", url=servers.mcp_url, config={"auth": auth})
    assert pool.call("secured", "whoami").text == CLIENT_ID
    assert pool.call("secured", "echo", {"text": "hi"}).text == "hi"
    assert servers.token_requests == [("client_credentials", 200)]


def test_pool_authorization_code_with_listener(servers, pool, ui):
    """The flow runs on the pool's runtime thread; the person's link and the listener still meet."""
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    pool.connect(
        "browser", url=servers.mcp_url, config={"auth": {"type": "oauth", "flow": "authorization_code"}}
    )
    assert pool.call("browser", "whoami").text.startswith("dyn-")
    assert person.done.wait(10) and person.pages[0].status_code == 200
    assert servers.token_requests == [("authorization_code", 200)]
    pool.disconnect("browser", sign_out=True)  # tokens and registration dropped: a new sign-in
    pool.connect(
        "browser", url=servers.mcp_url, config={"auth": {"type": "oauth", "flow": "authorization_code"}}
    )
    assert len(person.links) == 2 and servers.state.registrations == 2


def test_a_sign_in_waiting_for_its_turn_is_off_its_startup_clock(pool, ui, tmp_path):
    """Two OAuth servers in one config: the second link waits until the first is approved. The person
    takes most of startup_timeout over the first; the second still connects, because waiting for
    the turn is no fault of its server (its clock ran through that wait and it failed)."""
    links: list[str] = []

    def person(url: str) -> None:  # slow to approve the first link, quicker with the second
        links.append(url)
        delay = 4.5 if len(links) == 1 else 2.0

        def approve() -> None:
            time.sleep(delay)
            httpx2.get(url, follow_redirects=True, timeout=10)

        threading.Thread(target=approve, name="person", daemon=True).start()

    set_authorization_ui(show_link=person, mode="listener", timeout=6)
    with OAuthServers() as first, OAuthServers() as second:
        auth = {"type": "oauth", "flow": "authorization_code"}
        entries = {
            name: {"url": where.mcp_url, "auth": auth, "startup_timeout": 6}
            for name, where in (("a", first), ("b", second))
        }
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": entries}))
        table = pool.connect_config(config)
        assert [(row.name, row.state) for row in table] == [("a", "connected"), ("b", "connected")], table
        assert len(links) == 2  # one link each, one after the other
        for name in ("a", "b"):
            pool.disconnect(name, sign_out=True)


def test_a_failed_token_refresh_is_in_the_server_log_not_the_cell(pool, ui, caplog):
    """The SDK warns when a refresh token is refused; in a kernel, with no handler, Python would print
    that to the running cell. It goes to the server's log, then a new sign-in runs."""
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    with OAuthServers(token_ttl=1) as servers:
        auth = {"type": "oauth", "flow": "authorization_code"}
        pool.connect("expiring", url=servers.mcp_url, config={"auth": auth, "health_check_interval": 0})
        servers.state.refresh.clear()  # the refresh token is revoked
        time.sleep(1.5)  # and the access token expires
        caplog.clear()
        assert pool.call("expiring", "whoami").text.startswith("dyn-")
        assert any("Token refresh failed" in str(e) for e in pool.logs("expiring"))
        pool.disconnect("expiring")
    assert ("refresh_token", 400) in servers.token_requests and len(person.links) == 2
    assert not [r for r in caplog.records if "Token refresh failed" in r.getMessage()]


def test_pool_client_credentials_over_sse(pool):
    with OAuthServers(transport="sse") as servers:
        auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
        pool.connect("legacy", url=servers.mcp_url, transport="sse", config={"auth": auth})
        assert pool.call("legacy", "whoami").text == CLIENT_ID
        assert servers.token_requests == [("client_credentials", 200)]
        pool.close()


def test_pool_wrong_secret_fails_once_without_retrying(servers, pool):
    from mcpnb.client.errors import McpnbError

    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": "bad-secret-value"}
    with pytest.raises(McpnbError) as info:
        pool.connect("secured", url=servers.mcp_url, config={"auth": auth})
    assert "401" in str(info.value) and "bad-secret-value" not in str(info.value)
    assert servers.token_requests == [("client_credentials", 401)]  # no retry storm


def test_a_fault_in_the_flow_is_said_as_one_not_as_the_servers_401(servers, pool, monkeypatch):
    """A bug inside the OAuth flow (injected: the helper that names each side request breaks) was
    reported as "HTTP 401 ... the server rejected the credentials", sending the person to check
    settings that were right."""
    from mcpnb.client.auth import provider
    from mcpnb.client.errors import McpnbError

    def broken(*_: Any) -> str:
        raise KeyError("oauth_metadata")

    monkeypatch.setattr(provider, "_describe", broken)
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    with pytest.raises(McpnbError) as info:
        pool.connect("secured", url=servers.mcp_url, config={"auth": auth})
    text = str(info.value)
    assert "OAuth failed inside mcpnb or the MCP SDK (KeyError: 'oauth_metadata')" in text
    assert "a fault, not your settings" in text and "rejected the credentials" not in text


@pytest.mark.parametrize("as_rpc_error", [False, True])
def test_a_server_quoting_the_oauth_token_it_got_shows_no_token(servers, pool, monkeypatch, as_rpc_error):
    """An access token is known to no config: only the OAuth provider holds it, as it changes."""
    monkeypatch.setenv("POOL_CC_SECRET", CLIENT_SECRET)
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret_env": "POOL_CC_SECRET"}
    pool.connect("secured", url=servers.mcp_url, config={"auth": auth})
    tokens = list(servers.state.access)
    assert tokens  # the one it was given
    if as_rpc_error:
        with pytest.raises(CallError) as info:
            pool.call("secured", "quote_token", {"as_rpc_error": True})
        shown = [str(info.value), repr(info.value)]
    else:
        result = pool.call("secured", "quote_token")
        assert result.is_error and "Authorization: Bearer ***" in result.text
        shown = [result.text, repr(result)]
    shown += pool.logs("secured")
    assert not [t for t in tokens for text in shown if t in text]


def test_a_token_a_refresh_replaced_stays_hidden_when_a_server_quotes_it(pool, monkeypatch):
    monkeypatch.setenv("POOL_CC_SECRET", CLIENT_SECRET)
    with OAuthServers(token_ttl=1) as servers:
        auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret_env": "POOL_CC_SECRET"}
        pool.connect("expiring", url=servers.mcp_url, config={"auth": auth, "health_check_interval": 0})
        assert pool.call("expiring", "whoami").text == CLIENT_ID
        time.sleep(1.5)  # the access token expires: the next call gets another
        assert pool.call("expiring", "whoami").text == CLIENT_ID
        first, *later = list(servers.state.access)
        assert later  # it was replaced
        result = pool.call("expiring", "quote_token", {"first": True})
        assert result.is_error and first not in result.text and "Bearer ***" in result.text
        pool.disconnect("expiring")
