"""Where credentials go, and how they are kept: said or refused before anything is sent.

- An OAuth client's own credentials (a secret, a signed assertion, a workload's token) belong to
  one authorization server. Without ``auth.issuer`` the MCP server's metadata picks it; where that
  is another origin than the MCP server's, the person is told once per connection, in the cell
  they connected from (the MCP spec's "Authorization Server Binding": credentials are bound to
  the issuer that registered them).
- Credentials over plain ``http://`` to another machine (OAuth 2.1 §1.5, RFC 6750 §5.3): a
  configured token, password, secret header or OAuth client is warned of when its settings are
  read; an authorization server the MCP server names at such an address is refused before any
  request goes there. Loopback addresses are this machine's own and untouched.
- The token file is written through a fresh, unguessable temp file (never through a link planted
  at a predictable name) into a directory only its owner can write.

Servers are real, on 127.0.0.1: ``servers/oauth_server.py`` (its authorization server on its own
port, so another origin; ``legacy=True`` serves both on one) and a tiny protected resource that
names an authorization server at an address no test ever contacts (a guard on name lookups
proves it).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import wait_until
from servers.oauth_server import CLIENT_ID, OAuthServers, Person, Served, _bind  # tests/ is on sys.path
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcpnb.client.auth import FileTokenStorage, set_authorization_ui
from mcpnb.client.auth.storage import private_directory
from mcpnb.client.config import ServerConfig
from mcpnb.client.config.auth import cleartext_to_another_host
from mcpnb.client.errors import AuthError
from tests.frontend import iopub_until_idle, is_idle, shell_reply

from .test_auth import auth_error, call, cc_config, code_config

pytestmark = pytest.mark.usefixtures("isolated_tokens")

ELSEWHERE = "auth.example.invalid"  # RFC 6761: never resolves; and the guard below stops any lookup


@pytest.fixture
def servers() -> Iterator[OAuthServers]:
    with OAuthServers() as s:
        yield s


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name lookup of a host that is not this machine, refused: what a request elsewhere
    would have started with (the test fails on it, and nothing leaves the machine)."""
    seen: list[str] = []
    real = socket.getaddrinfo

    def guarded(host: Any, *args: Any, **kw: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in ("127.0.0.1", "localhost", "::1") and not name.startswith("127."):
            seen.append(name)
            raise OSError(f"test guard: no lookups of {name}")
        return real(host, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)
    return seen


def unpinned(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        str(w.message) for w in caught if "sends its clients to the authorization server" in str(w.message)
    ]


def recorded(run: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
    return result, caught


# --- 1. an authorization server the person did not name -----------------------------------------


def test_a_secret_going_to_another_origin_is_said_with_both_origins_and_the_fix(servers):
    result, caught = recorded(lambda: call(cc_config(servers)))
    assert result == CLIENT_ID  # warned, not refused: the connect works as before
    said = unpinned(caught)
    assert len(said) == 1, said  # once, though discovery, metadata and token requests all ran
    mcp_origin = servers.mcp_url.rsplit("/", 1)[0]
    assert (
        f"the MCP server at {mcp_origin} sends its clients to the authorization server {servers.issuer}"
        in said[0]
    )
    assert mcp_origin in said[0] and servers.issuer in said[0] and "its client secret goes there" in said[0]
    assert f'"issuer": "{servers.issuer}"' in said[0] and f"--issuer {servers.issuer}" in said[0]
    assert all(w.category is UserWarning for w in caught if "authorization server" in str(w.message))
    assert "cc-secret" not in said[0]


def test_no_warning_with_the_issuer_pinned(servers):
    result, caught = recorded(lambda: call(cc_config(servers, issuer=servers.issuer)))
    assert result == CLIENT_ID and unpinned(caught) == []


def test_no_warning_where_the_authorization_server_is_the_mcp_servers_own_origin():
    with OAuthServers(legacy=True) as same:  # one origin serves both (2025-03-26 style)
        result, caught = recorded(lambda: call(cc_config(same)))
    assert result == CLIENT_ID and unpinned(caught) == []


def test_a_public_client_signing_in_is_not_warned(servers, ui):
    """Registered wherever the server points (DCR): nothing of its own goes there, and the sign-in
    link names the host the person signs in at."""
    person = Person(follow=True)
    set_authorization_ui(show_link=person.show_link, mode="listener")
    result, caught = recorded(lambda: call(code_config(servers)))
    assert result.startswith("dyn-") and unpinned(caught) == []


def test_the_warning_reaches_the_caller_of_pool_connect_and_the_servers_log(servers, pool):
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret": "cc-secret-0123456789"}
    with pytest.warns(UserWarning, match="sends its clients to the authorization server") as caught:
        pool.connect("secured", url=servers.mcp_url, config={"auth": auth, "health_check_interval": 0})
    assert len(unpinned(list(caught))) == 1
    assert pool.call("secured", "whoami").text == CLIENT_ID
    assert any("UserWarning: server 'secured': the MCP server at" in line for line in pool.logs("secured"))


def test_the_warning_shows_in_the_cell_that_connected(kernel, tmp_path, servers):
    """In a kernel the flow runs on mcpnb's runtime thread; the warning is the connecting cell's."""
    config = tmp_path / "mcp.json"
    auth = {"type": "oauth", "client_id": CLIENT_ID, "client_secret_env": "CC_SECRET"}
    config.write_text(json.dumps({"mcpServers": {"secured": {"url": servers.mcp_url, "auth": auth}}}))
    setup = "import os; os.environ['CC_SECRET'] = 'cc-secret-0123456789'\n%load_ext mcpnb"
    assert _run(kernel, setup)[0] == "ok"
    status, stderr = _run(kernel, f"%mcp connect --config {config}")
    assert status == "ok", stderr
    assert "UserWarning: server 'secured': the MCP server at" in stderr and servers.issuer in stderr
    assert "cc-secret-0123456789" not in stderr
    _run(kernel, "%mcp disconnect secured")


def _run(kernel: Any, code: str) -> tuple[str, str]:
    """Run a cell; its status and what it wrote to stderr."""
    cell = kernel.execute(code)
    msgs = iopub_until_idle(kernel, cell, timeout=120)
    assert msgs and is_idle(msgs[-1]), f"{code!r} never ended"
    stderr = "".join(
        m["content"]["text"] for m in msgs if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    )
    return shell_reply(kernel, cell, timeout=60)["status"], stderr


# --- 2. plain http to another machine ----------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.2", "localhost", "[::1]", "app.localhost"], ids=lambda h: h
)
def test_loopback_is_not_another_machine(host):
    assert not cleartext_to_another_host(f"http://{host}:8000/mcp")


@pytest.mark.parametrize(
    "url", ["http://mcp.example.invalid/mcp", "http://10.1.2.3:8000/mcp", "http://[2001:db8::1]/mcp"]
)
def test_http_elsewhere_is_cleartext_and_https_is_not(url):
    assert cleartext_to_another_host(url)
    assert not cleartext_to_another_host(url.replace("http://", "https://"))


CREDENTIALS = {
    "bearer": {"auth": {"type": "bearer", "token_env": "SAFETY_TOKEN"}},
    "basic": {"auth": {"type": "basic", "username": "ann", "password": "pw-0123456789"}},
    "header": {"headers": {"Authorization": "Bearer tok-0123456789"}},
    "api-key": {"headers": {"X-Api-Key": "key-0123456789"}},
    "oauth": {"auth": {"type": "oauth", "client_id": "c", "client_secret": "s-0123456789"}},
}


@pytest.mark.parametrize("kind", list(CREDENTIALS))
def test_credentials_for_plain_http_elsewhere_are_warned_of_when_read(kind, lookups):
    entry = {"url": "http://mcp.example.invalid:8000/mcp", **CREDENTIALS[kind]}
    with pytest.warns(UserWarning, match="plain http to another machine") as caught:
        ServerConfig.from_dict("remote", entry)
    said = str(caught[0].message)
    assert "server 'remote'" in said and "OAuth 2.1 §1.5" in said and "https://" in said
    assert "0123456789" not in said  # names where the credential is, never its value
    assert lookups == []  # read, not sent: nothing was looked up, let alone contacted


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
@pytest.mark.parametrize("kind", list(CREDENTIALS))
def test_loopback_and_https_and_no_credentials_are_not_warned_of(kind, host):
    entries = [
        {"url": f"http://{host}/mcp", **CREDENTIALS[kind]},
        {"url": "https://mcp.example.invalid/mcp", **CREDENTIALS[kind]},
        {"url": "http://mcp.example.invalid/mcp"},
    ]
    for entry in entries:
        _, caught = recorded(lambda entry=entry: ServerConfig.from_dict("s", entry))
        assert [str(w.message) for w in caught if "plain http" in str(w.message)] == []


@pytest.fixture
def points_elsewhere() -> Iterator[str]:
    """A protected MCP endpoint on 127.0.0.1 whose metadata names an authorization server at
    plain http on another machine (``ELSEWHERE``): its URL."""
    sock = _bind()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"

    async def mcp(request: Request) -> Response:
        challenge = f'Bearer resource_metadata="{url.rsplit("/", 1)[0]}/.well-known/oauth-protected-resource"'
        return JSONResponse(
            {"error": "invalid_token"}, status_code=401, headers={"WWW-Authenticate": challenge}
        )

    async def metadata(request: Request) -> Response:
        return JSONResponse({"resource": url, "authorization_servers": [f"http://{ELSEWHERE}"]})

    app = Starlette(
        routes=[
            Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
            Route("/.well-known/oauth-protected-resource", metadata),
            Route("/.well-known/oauth-protected-resource/mcp", metadata),
        ]
    )
    served = Served([(app, sock)])
    served.start()
    try:
        yield url
    finally:
        served.stop()


def test_an_authorization_server_at_plain_http_elsewhere_is_refused_before_any_request(
    points_elsewhere, lookups
):
    cfg = ServerConfig.from_dict(
        "secured",
        {"url": points_elsewhere, "auth": {"type": "oauth", "client_id": "c", "client_secret": "s-1"}},
    )
    error = auth_error(cfg)
    text = str(error)
    assert f"http://{ELSEWHERE}" in text and "plain http to another machine" in text
    assert "nothing was sent" in text and "OAuth 2.1 §1.5" in text and "s-1" not in text
    assert error.retryable is False
    assert lookups == []  # not even its metadata was asked for


# --- 3. the token file ---------------------------------------------------------------------------


def _token() -> Any:
    from mcp.shared.auth import OAuthToken

    return OAuthToken(access_token="at-0123456789", token_type="Bearer", expires_in=60)


def test_a_link_planted_at_the_old_temp_name_is_not_written_through(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("the person's own file\n")
    victim.chmod(0o644)
    path = tokens / "srv.json"
    (tokens / f".srv.json.{os.getpid()}.tmp").symlink_to(victim)  # the name HEAD wrote through

    asyncio.run(FileTokenStorage(path, "http://127.0.0.1:1/mcp").set_tokens(_token()))

    assert victim.read_text() == "the person's own file\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not path.is_symlink() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["tokens"]["access_token"] == "at-0123456789"
    left = sorted(p.name for p in tokens.iterdir())
    assert left == [f".srv.json.{os.getpid()}.tmp", "srv.json"]  # the planted link only; no temp file


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o757])
def test_a_token_directory_others_may_write_is_made_private_and_said(tmp_path, mode):
    tokens = tmp_path / "tokens"
    tokens.mkdir()
    tokens.chmod(mode)
    with pytest.warns(UserWarning, match="mcpnb made it private to you") as caught:
        asyncio.run(FileTokenStorage(tokens / "srv.json", "http://127.0.0.1:1/mcp").set_tokens(_token()))
    assert str(tokens) in str(caught[0].message)
    assert stat.S_IMODE(tokens.stat().st_mode) & 0o077 == 0
    assert (tokens / "srv.json").exists()


@pytest.mark.skipif(os.name != "posix" or os.getuid() != 0, reason="needs a directory of another user")
def test_a_token_directory_others_may_write_and_not_ours_is_refused(tmp_path):
    tokens = tmp_path / "shared"
    tokens.mkdir()
    os.chown(tokens, 65534, 65534)  # nobody's
    tokens.chmod(0o777)
    with pytest.raises(AuthError, match="may be written by anyone and is not yours") as info:
        asyncio.run(FileTokenStorage(tokens / "srv.json", "http://127.0.0.1:1/mcp").set_tokens(_token()))
    assert "MCPNB_TOKEN_DIR" in str(info.value)
    assert list(tokens.iterdir()) == []  # nothing written there
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o777  # not someone else's to change


def test_a_private_directory_is_left_as_it_is(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.mkdir(mode=0o750)
    tokens.chmod(0o750)
    _, caught = recorded(lambda: private_directory(tokens))
    assert caught == [] and stat.S_IMODE(tokens.stat().st_mode) == 0o750


def test_a_connect_keeps_its_tokens_privately_through_the_flow(servers, tmp_path, monkeypatch):
    tokens = tmp_path / "flow-tokens"
    tokens.mkdir()
    tokens.chmod(0o777)
    monkeypatch.setenv("MCPNB_TOKEN_DIR", str(tokens))
    result, caught = recorded(lambda: call(cc_config(servers, issuer=servers.issuer, token_storage="file")))
    assert result == CLIENT_ID
    assert any("mcpnb made it private to you" in str(w.message) for w in caught)
    assert stat.S_IMODE(tokens.stat().st_mode) & 0o077 == 0
    assert wait_until(lambda: (tokens / "secured.json").exists())
    assert stat.S_IMODE((tokens / "secured.json").stat().st_mode) == 0o600


def test_a_token_directory_that_cannot_be_written_keeps_the_sign_in_for_the_session(
    servers, tmp_path, monkeypatch
):
    """A read-only home (a JupyterHub image, a locked-down container): the sign-in succeeded, then
    keeping its tokens failed, and the connect with it. The tokens are held for the session
    instead, and the person is told once where they could not be kept and how to keep them."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a folder under a file cannot be made, even by root
    monkeypatch.setenv("MCPNB_TOKEN_DIR", f"{blocked / 'tokens'}\r")  # a spawner's CRLF env file
    result, caught = recorded(lambda: call(cc_config(servers, issuer=servers.issuer, token_storage="file")))
    assert result == CLIENT_ID
    said = [str(w.message) for w in caught if "could not keep" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert str(blocked / "tokens") in said[0] and "MCPNB_TOKEN_DIR" in said[0] and "\r" not in said[0]
    assert "Not a directory" in said[0]


def test_tokens_held_for_the_session_are_read_back_and_written_once_the_folder_is_there(
    tmp_path, monkeypatch
):
    from mcp.shared.auth import OAuthToken

    blocked = tmp_path / "later"
    blocked.write_text("")
    store = FileTokenStorage(blocked / "tokens" / "s.json", "http://127.0.0.1:1/mcp")
    _, caught = recorded(
        lambda: asyncio.run(store.set_tokens(OAuthToken(access_token="abc", token_type="Bearer")))
    )
    assert [w for w in caught if "could not keep" in str(w.message)]
    assert asyncio.run(store.get_tokens()).access_token == "abc"  # held, though not on disk
    assert "abc" not in repr(store)
    blocked.unlink()  # the folder can be made now: the next change is kept on disk, whole
    asyncio.run(store.set_tokens(OAuthToken(access_token="def", token_type="Bearer")))
    kept = json.loads((blocked / "tokens" / "s.json").read_text())
    assert kept["tokens"]["access_token"] == "def"
    assert FileTokenStorage(blocked / "tokens" / "s.json", "http://127.0.0.1:1/mcp").expires_at is None


def test_tokens_held_for_the_session_outlive_the_storage_and_a_log_out_drops_them(tmp_path, monkeypatch):
    """A reconnect builds its storage again: what was held is still there, until forgotten."""
    from mcp.shared.auth import OAuthToken

    from mcpnb.client.auth.storage import forget_tokens, token_path

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("MCPNB_TOKEN_DIR", str(blocked / "tokens"))
    url = "http://127.0.0.1:1/mcp"
    recorded(
        lambda: asyncio.run(FileTokenStorage(token_path("s"), url).set_tokens(OAuthToken(access_token="abc")))
    )
    assert asyncio.run(FileTokenStorage(token_path("s"), url).get_tokens()).access_token == "abc"
    assert asyncio.run(FileTokenStorage(token_path("s"), "http://127.0.0.1:2/mcp").get_tokens()) is None
    forget_tokens("s")
    assert asyncio.run(FileTokenStorage(token_path("s"), url).get_tokens()) is None


_SIGN_OUT = """
import asyncio, json, os, sys, warnings
from mcp.shared.auth import OAuthToken
from mcpnb.client.auth.storage import FileTokenStorage, forget_tokens, token_path
url = "http://127.0.0.1:1/mcp"
read = lambda: asyncio.run(FileTokenStorage(token_path("s"), url).get_tokens())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    asyncio.run(FileTokenStorage(token_path("s"), url).set_tokens(OAuthToken(access_token="NEW")))
    after_set = read().access_token
    forget_tokens("s")
    after_forget = read()
    forget_tokens("s")  # again: said once
print(json.dumps({"after_set": after_set, "after_forget": after_forget and after_forget.access_token,
                  "said": [str(w.message) for w in caught]}))
"""


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_a_sign_out_that_cannot_remove_the_token_file_does_not_read_it_again(tmp_path):
    """A folder that cannot be written: the new tokens are held, and a sign-out that cannot remove
    the old file must not fall back to its old tokens (it did: dropped what was held, then read
    the file), and says so."""
    import shutil
    import subprocess
    import sys

    from mcp.shared.auth import OAuthToken

    tokens = tmp_path / "tokens"
    tokens.mkdir(mode=0o700)
    old = FileTokenStorage(tokens / "s.json", "http://127.0.0.1:1/mcp")
    asyncio.run(old.set_tokens(OAuthToken(access_token="OLD")))
    tokens.chmod(0o500)  # read and enter, not write
    command = [sys.executable, "-c", _SIGN_OUT]
    if os.geteuid() == 0:  # root may write anywhere: drop that right, as a person has it not
        setpriv = shutil.which("setpriv")
        assert setpriv, "running as root needs setpriv (util-linux) to drop the right to write anywhere"
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    try:
        env = {**os.environ, "MCPNB_TOKEN_DIR": str(tokens)}
        out = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    finally:
        tokens.chmod(0o700)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["after_set"] == "NEW" and found["after_forget"] is None, found
    assert (
        len([said for said in found["said"] if "could not remove" in said and "delete it yourself" in said])
        == 1
    )
