"""What a 401 tells the person to do: name the settings that were sent, and the way that works.

Against real servers on 127.0.0.1: the demo server with ``--require-token`` (a static bearer token;
restarted on its port with another one, as a rotated token is), and the OAuth-protected MCP
server of ``servers/oauth_server.py`` (the SDK's ``MCPServer`` with its token verifier: its 401
names its protected-resource metadata).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import HttpServer, wait_until
from servers.oauth_server import OAuthServers  # tests/ is on sys.path

from mcpnb.client.errors import ConnectError, McpnbError

OLD, NEW = "tok-old-0123456789", "tok-new-9876543210"
QUICK = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3}


@pytest.fixture
def demo() -> Iterator[list[HttpServer]]:
    """The demo server wanting ``OLD``; the test may replace it (same port) with one wanting ``NEW``."""
    servers = [HttpServer("http", "--require-token", OLD)]
    yield servers
    for server in servers:
        server.stop()


def _rotate(demo: list[HttpServer]) -> None:
    """The server restarts and wants another token: what a rotation looks like from here."""
    port = int(demo[-1].url.split(":")[2].split("/")[0])
    demo[-1].stop()
    demo.append(HttpServer("http", "--require-token", NEW, port=port))


def test_a_refused_password_names_the_username_and_password_settings(pool, demo, monkeypatch):
    monkeypatch.setenv("HINTS_PASSWORD", "pw-0123456789")
    auth = {"type": "basic", "username": "ann", "password_env": "HINTS_PASSWORD"}
    with pytest.raises(ConnectError) as info:
        pool.connect("b", url=demo[0].url, config={"auth": auth})
    text = str(info.value)
    assert "HTTP 401 Unauthorized" in text
    assert (
        "rejected the credentials, the username 'ann' (auth.username) and the password in the variable"
        in text
    )
    assert "HINTS_PASSWORD (auth.password_env)" in text
    assert "token_env" not in text.split("rejected", 1)[1].split(";")[0]  # not a token's settings
    assert "pw-0123456789" not in text


def test_a_static_token_sent_to_an_oauth_server_is_told_to_sign_in(pool):
    with OAuthServers() as servers, pytest.raises(ConnectError) as info:
        pool.connect("oa", url=servers.mcp_url, headers={"Authorization": "Bearer not-its-kind-0123"})
    text = str(info.value)
    assert "the server rejected the credentials, the Authorization header (headers)" in text
    assert "signs clients in with OAuth" in text and f"%mcp connect oa {servers.mcp_url} --oauth" in text
    assert "not-its-kind-0123" not in text


def _after_rotation(pool: Any, name: str) -> str:
    """The person's next call once the server wants another token: what they are told."""
    with pytest.raises(McpnbError):
        pool.call(name, "echo", {"text": "hi"})
    assert wait_until(lambda: pool.status()[name].state == "failed", timeout=30)
    with pytest.raises(McpnbError) as info:
        pool.call(name, "echo", {"text": "hi"})
    return str(info.value)


def test_a_rotated_token_in_a_variable_is_updated_then_reconnected(pool, demo, monkeypatch):
    monkeypatch.setenv("HINTS_TOKEN", OLD)
    pool.connect(
        "t", url=demo[0].url, config={"auth": {"type": "bearer", "token_env": "HINTS_TOKEN"}, **QUICK}
    )
    assert pool.call("t", "echo", {"text": "hi"}).text == "hi"
    _rotate(demo)
    text = _after_rotation(pool, "t")
    assert (
        "HTTP 401 Unauthorized" in text
        and "rejected the credentials, the bearer token in the variable HINTS_TOKEN" in text
    )
    assert "set it to the new value, then reconnect (pool.reconnect('t')" in text
    # told no, not worn out: reconnecting stopped at the 401 (or a revival hit it again)
    assert "gave up reconnecting" not in text
    assert "stopped reconnecting" in text or "still failing" in text
    assert text.count("pool.reconnect") == 1  # no second, unconditional "reconnect it" after the advice
    assert OLD not in text
    monkeypatch.setenv("HINTS_TOKEN", NEW)  # what the advice says, and it works
    pool.reconnect("t")
    assert pool.call("t", "echo", {"text": "again"}).text == "again"


def test_a_rotated_token_written_in_the_settings_is_not_resent_by_a_bare_reconnect(pool, demo):
    pool.connect("h", url=demo[0].url, headers={"Authorization": f"Bearer {OLD}"}, config=QUICK)
    _rotate(demo)
    text = _after_rotation(pool, "h")
    assert "the server rejected the credentials, the Authorization header (headers)" in text
    assert "a reconnect sends the same value again: connect anew with the new value" in text
    assert "reconnect it with pool.reconnect" not in text
    assert OLD not in text


def test_a_401_to_a_call_on_a_live_session_names_what_was_sent_too(pool, demo, monkeypatch):
    # 2026-07-28 has no session to renew: the person's next call meets the 401 (a guard: the
    # connection's own recovery says it, in the words of the settings that were sent)
    monkeypatch.setenv("HINTS_TOKEN", OLD)
    config = {"auth": {"type": "bearer", "token_env": "HINTS_TOKEN"}, **QUICK}
    pool.connect("m", url=demo[0].url, era="modern", config=config)
    assert pool.call("m", "echo", {"text": "hi"}).text == "hi"
    _rotate(demo)
    with pytest.raises(McpnbError) as info:
        pool.call("m", "echo", {"text": "hi"})
    text = str(info.value)
    assert "rejected the credentials, the bearer token in the variable HINTS_TOKEN" in text
    assert "set it to the new value, then reconnect (pool.reconnect('m')" in text
    assert OLD not in text
