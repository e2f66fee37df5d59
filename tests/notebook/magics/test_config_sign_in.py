"""``%mcp connect --config`` with pasted editor configs: ``--oauth`` signs in to the file's bare
URL servers (as VS Code, Cursor and Claude Code do), the other per-server flags say which key of
which file says the same, and ``%mcp config`` knows what a connect from a VS Code file was given."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO
from IPython.core.error import UsageError

from mcpnb.client.errors import ConnectError

from .conftest import line


def test_oauth_combines_with_config_for_servers_that_set_no_auth(
    ip: Any, mcp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from servers.oauth_server import OAuthServers, Person

    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui

    monkeypatch.setenv("MCPNB_TOKEN_DIR", str(tmp_path / "tokens"))
    monkeypatch.setenv("WRONG_TOKEN", "wrongTOKEN-0123456789abcdef")
    monkeypatch.chdir(tmp_path)
    with OAuthServers() as servers:
        vscode = tmp_path / ".vscode" / "mcp.json"
        vscode.parent.mkdir()
        vscode.write_text(json.dumps({"servers": {"remote": {"type": "http", "url": servers.mcp_url}}}))
        own = {"url": servers.mcp_url, "auth": {"type": "bearer", "token_env": "WRONG_TOKEN"}}
        local = {"command": sys.executable, "args": [DEMO, "stdio"]}
        (tmp_path / "other.json").write_text(json.dumps({"mcpServers": {"own": own, "local": local}}))

        with pytest.raises(ConnectError, match="could not connect to 'remote'"):
            line(ip, "connect --config .vscode/mcp.json remote")
        failed = line(ip, "status remote")["remote"]
        assert failed.state == "failed" and "signs people in with OAuth" in (failed.last_error or "")
        # connected again from its file, not as a one-off that would take its place
        assert re.search(
            r"in a notebook: %mcp connect --config \S*\.vscode/mcp\.json remote --oauth\)", failed.last_error
        )
        person = Person(follow=True)
        previous = set_authorization_ui(show_link=person.show_link, mode="listener")
        try:
            table = line(ip, "connect --config .vscode/mcp.json --oauth")
            assert table["remote"].state == "connected" and len(person.links) == 1
            assert line(ip, "call remote.whoami").text.startswith("dyn-")  # a client it registered
            with pytest.raises(UsageError) as info:  # nothing there for --oauth to sign in to
                line(ip, "connect --config other.json own local --oauth")
            said = str(info.value)
            assert "'own' sets its own auth or credentials" in said
            assert "'local' is started as a command" in said and person.links == [person.links[0]]
            with pytest.raises(UsageError, match="--issuer names the authorization server"):
                line(ip, f"connect --config .vscode/mcp.json --issuer {servers.issuer}")
        finally:
            restore_authorization_ui(previous)
        line(ip, "disconnect remote --sign-out")


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ('--header "X-Api-Key: k"', 'set it in .vscode/mcp.json, as the server\'s "headers"'),
        ("--env A=b", 'set it in .vscode/mcp.json, as the server\'s "env"'),
        ("--sse", 'set it in .vscode/mcp.json, as the server\'s "type": "sse"'),
        ("--wait 5", "--wait does not combine with --config: it waits for one server still starting"),
    ],
)
def test_other_flags_name_the_file_and_its_key(ip: Any, mcp: Any, flags: str, said: str) -> None:
    with pytest.raises(UsageError) as info:
        line(ip, f"connect --config .vscode/mcp.json {flags}")
    assert said in str(info.value) and ".mcp.json file" not in str(info.value)


def test_config_view_takes_the_inputs_a_connect_was_given(
    ip: Any, mcp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    entry = {"command": sys.executable, "args": [DEMO, "stdio"], "env": {"GREETING": "${input:greeting}"}}
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    inputs = [{"type": "promptString", "id": "greeting", "password": True}]
    path.write_text(json.dumps({"inputs": inputs, "servers": {"demo": entry, "idle": entry}}))
    line(ip, "connect --config .vscode/mcp.json demo --input greeting=hello-SECRET-4242")
    view = line(ip, "config .vscode/mcp.json demo")
    assert view["demo"]["state"] == "connected"
    assert not any("needs input" in p for p in view.problems)  # it runs: the live settings count
    assert "hello-SECRET-4242" not in repr(view)
    everything = line(ip, "config .vscode/mcp.json")  # one not connected still says what it needs
    assert any("'idle'" in p and "needs input 'greeting'" in p for p in everything.problems)


def test_one_bearer_token_for_several_servers_of_a_file_asks_which(
    ip: Any, mcp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH", "ghp_" + "x" * 36)
    monkeypatch.setenv("MCPNB_USER_CONFIG", str(tmp_path / "absent.json"))
    bare = {"github": {"url": "http://127.0.0.1:9/g"}, "tracker": {"url": "http://127.0.0.1:9/t"}}
    (tmp_path / "proj.json").write_text(json.dumps({"mcpServers": bare}))
    with pytest.raises(UsageError) as info:
        line(ip, f"connect --config {tmp_path / 'proj.json'} --bearer-env GH")
    said = str(info.value)
    assert "--bearer-env would send the same token to 2 servers of the file ('github', 'tracker')" in said
    assert "name the one it is for" in said and "x" * 36 not in said
    assert mcp.pool.names == []  # nothing was started, nothing was sent


def test_a_file_read_twice_for_oauth_warns_once(
    ip: Any, mcp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--oauth reads the file to check some server takes it, then the connect reads it: its
    warnings (VS Code's sandbox, not applied here) were said twice where every warning shows."""
    import warnings

    monkeypatch.setenv("MCPNB_USER_CONFIG", str(tmp_path / "absent.json"))
    vscode = tmp_path / ".vscode" / "mcp.json"
    vscode.parent.mkdir()
    boxed = {"command": sys.executable, "args": ["-c", "pass"], "sandboxEnabled": True}
    remote = {"type": "http", "url": "http://127.0.0.1:9/mcp"}
    vscode.write_text(json.dumps({"servers": {"boxed": boxed, "remote": remote}}))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with pytest.raises(ConnectError, match="could not connect to 2 of 2 servers"):
            line(ip, f"connect --config {vscode} --oauth")
    assert capsys.readouterr().err.count("sandboxEnabled is not applied here") == 1
