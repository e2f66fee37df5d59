"""Configs pasted from Claude Desktop, VS Code, Cursor and Claude Code: what each client means is
read where mcpnb can do it, said precisely where it cannot, and no secret is quoted back."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO

from mcpnb.client.config import load_config, load_file
from mcpnb.client.errors import ConfigError

from .helpers import servers, write

ARG_SECRET = "argstr-SECRET-000111222"


def problems(path: Path, **kwargs: Any) -> dict[str, str]:
    return dict(load_config(path=path, keep_going=True, **kwargs).problems)


# ---------------------------------------------------------------- A: a string args quoted safely
@pytest.mark.parametrize(
    ("args", "secret", "said"),
    [
        (
            f"--token={ARG_SECRET}",
            ARG_SECRET,
            "got a string ('--token=***') (did you mean '[\"--token=***\"]'?)",
        ),
        ("--api-key sk-ant-api03-AAAABBBBCCCCDDDD", "AAAABBBB", "('--api-key ***')"),
        ("postgresql://ann:PgPassw0rd-XYZ@127.0.0.1/db", "PgPassw0rd", "postgresql://ann:***@127.0.0.1/db"),
        ("-m some_module", None, '(did you mean \'["-m", "some_module"]\'?)'),
    ],
)
def test_a_string_args_is_quoted_with_its_secrets_hidden(
    tmp_path: Path, args: str, secret: str | None, said: str
) -> None:
    path = write(tmp_path / ".mcp.json", servers(d={"command": "python", "args": args}))
    problem = problems(path)["d"]
    assert "key 'args': expected a list, got a string" in problem and said in problem
    assert secret is None or secret not in problem


def test_a_string_args_secret_stays_out_of_the_pool_s_status_row(tmp_path: Path, pool: Any) -> None:
    path = write(tmp_path / ".mcp.json", servers(d={"command": "python", "args": f"--token={ARG_SECRET}"}))
    table = pool.connect_config(path)
    assert table["d"].state == "failed" and "--token=***" in (table["d"].last_error or "")
    assert ARG_SECRET not in repr(table) and ARG_SECRET not in str(table)


# ---------------------------------------------------------------- B: auth for the files' bare URLs
def test_auth_goes_to_url_servers_that_say_nothing_of_signing_in(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "servers": {
                "bare": {"type": "http", "url": "http://127.0.0.1:1/mcp"},
                "own": {"url": "http://127.0.0.1:1/mcp", "auth": {"type": "bearer", "token_env": "T"}},
                "hdr": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${env:T}"}},
                "key": {"url": "http://127.0.0.1:1/mcp", "headers": {"X-Api-Key": "k"}},
                "local": {"command": "python", "args": ["x"]},
            }
        },
    )
    oauth = {"type": "oauth", "flow": "authorization_code", "token_storage": "file"}
    loaded = load_config(
        path=path, keep_going=True, auth=oauth, environ={"T": "t", "MCPNB_USER_CONFIG": "/nowhere"}
    )
    auth = {name: config.auth for name, config in loaded.servers.items()}
    assert auth["bare"] is not None and auth["bare"].flow == "authorization_code"
    assert auth["bare"].token_storage == "file"
    assert auth["own"] is not None and auth["own"].type == "bearer"
    assert auth["hdr"] is None and auth["key"] is None and auth["local"] is None
    plain = load_config(path=path, keep_going=True, environ={"T": "t", "MCPNB_USER_CONFIG": "/nowhere"})
    assert plain.servers["bare"].auth is None


def test_auth_given_for_a_project_never_reaches_a_server_of_the_users_own_file(tmp_path: Path) -> None:
    """``--config proj.json --bearer-env GH`` sent the GitHub token to a vendor's server the user's
    own file set up, a bare URL too."""
    user = write(tmp_path / "user.json", {"mcpServers": {"vendor": {"url": "http://127.0.0.1:1/v"}}})
    project = write(
        tmp_path / "proj" / "proj.json", {"mcpServers": {"github": {"url": "http://127.0.0.1:1/g"}}}
    )
    write(tmp_path / "proj" / ".mcp.local.json", {"mcpServers": {"mine": {"url": "http://127.0.0.1:1/m"}}})
    bearer = {"type": "bearer", "token_env": "GH"}
    loaded = load_config(path=project, auth=bearer, environ={"GH": "t", "MCPNB_USER_CONFIG": str(user)})
    assert loaded.servers["vendor"].auth is None
    assert loaded.servers["github"].auth is not None and loaded.servers["github"].auth.token_env == "GH"
    assert loaded.servers["mine"].auth is not None  # the project's local file is the project's


# ---------------------------------------------------------------- C: Cursor's and Claude Code's OAuth
def test_cursor_static_oauth_client_is_an_authorization_code_sign_in(tmp_path: Path) -> None:
    secret = "cursor-client-SECRET-123456"
    path = write(
        tmp_path / ".cursor" / "mcp.json",
        servers(
            remote={
                "url": "http://127.0.0.1:1/mcp",
                "auth": {"CLIENT_ID": "my-client", "CLIENT_SECRET": secret, "scopes": ["read", "write"]},
            }
        ),
    )
    config = load_file(path)["remote"]
    assert config.auth is not None
    assert (config.auth.type, config.auth.flow) == ("oauth", "authorization_code")
    assert (config.auth.client_id, config.auth.client_secret, config.auth.scope) == (
        "my-client",
        secret,
        "read write",
    )
    assert secret not in repr(config) and secret in config.secrets()


def test_cursor_scopes_must_be_a_list_of_names(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".cursor" / "mcp.json",
        servers(remote={"url": "http://127.0.0.1:1/mcp", "auth": {"CLIENT_ID": "c", "scopes": "read"}}),
    )
    assert "key 'auth.scopes': expected a list of scope names, got a string" in problems(path)["remote"]


@pytest.mark.parametrize("where", ["oauth", "auth"])
def test_claude_code_oauth_client_and_callback_port(tmp_path: Path, where: str) -> None:
    entry = {
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        where: {
            "clientId": "abc",
            "callbackPort": 8080,
            "scopes": "read write",
            "authServerMetadataUrl": "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
        },
    }
    config = load_file(write(tmp_path / ".mcp.json", servers(cc=entry)))["cc"]
    assert config.auth is not None and config.auth.flow == "authorization_code"
    assert (config.auth.client_id, config.auth.redirect_port, config.auth.scope) == (
        "abc",
        8080,
        "read write",
    )
    assert config.auth.issuer == "https://auth.example.com/tenant"


def test_claude_code_oauth_says_what_it_cannot_read(tmp_path: Path) -> None:
    url = "https://mcp.example.com/mcp"
    path = write(
        tmp_path / ".mcp.json",
        servers(
            typo={"url": url, "oauth": {"clientID": "abc"}},
            meta={"url": url, "oauth": {"authServerMetadataUrl": "https://auth.example.com/meta.json"}},
            both={"url": url, "oauth": {"clientId": "a"}, "auth": {"type": "oauth"}},
            helper={"url": url, "headersHelper": "/usr/local/bin/get-headers.sh"},
        ),
    )
    found = problems(path)
    assert "key 'oauth.clientID': unknown key of Claude Code's oauth" in found["typo"]
    assert "did you mean 'clientId'" in found["typo"]
    assert "mcpnb takes the authorization server as auth.issuer" in found["meta"]
    assert "set twice, as 'auth' and 'oauth'" in found["both"]
    assert "mcpnb runs no headers helper" in found["helper"] and "did you mean" not in found["helper"]


# ---------------------------------------------------------------- D: Cursor's envFile
def test_cursor_env_file_is_read_as_vscode_reads_it(tmp_path: Path, pool: Any) -> None:
    (tmp_path / ".env").write_text("GREETING=from-the-env-file\nOTHER=x\n")
    path = write(
        tmp_path / ".cursor" / "mcp.json",
        servers(
            demo={
                "command": sys.executable,
                "args": [DEMO, "stdio"],
                "envFile": "${workspaceFolder}/.env",
                "env": {"OTHER": "from-env"},
            },
            missing={"command": sys.executable, "args": [DEMO, "stdio"], "envFile": ".env.absent"},
        ),
    )
    table = pool.connect_config(path)
    assert table["demo"].state == "connected"
    assert pool.call("demo", "env", {"name": "GREETING"}).text == "from-the-env-file"
    assert pool.call("demo", "env", {"name": "OTHER"}).text == "from-env"
    assert (
        "key 'envFile'" in (table["missing"].last_error or "")
        and ".env.absent" in table["missing"].last_error
    )


def test_env_file_elsewhere_says_where_it_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", servers(a={"command": "x", "envFile": ".env"}))
    said = problems(path)["a"]
    assert "an env file is read in VS Code's and Cursor's files" in said and "mcpnb reads no" not in said


# ---------------------------------------------------------------- E: a default is no secret
def test_a_default_written_in_the_file_is_shown(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".mcp.json",
        servers(
            api={"type": "http", "url": "${API_BASE_URL:-http://127.0.0.1:18766}/mcp"},
            tok={"url": "http://127.0.0.1:1/mcp?x=${API_TOKEN:-dev-token-SECRET-98765}"},
        ),
    )
    found = load_file(path, environ={})
    assert found["api"].url == "http://127.0.0.1:18766/mcp"
    assert "http://127.0.0.1:18766/mcp" in found["api"].target and "***" not in repr(found["api"])
    assert "dev-token-SECRET-98765" in found["tok"].secrets()  # its variable's name says secret
    assert "dev-token-SECRET-98765" not in found["tok"].target


# ---------------------------------------------------------------- F: VS Code's own keys
def test_vscode_sandbox_is_not_applied_and_says_so(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "servers": {
                "boxed": {
                    "command": "python",
                    "sandboxEnabled": True,
                    "sandbox": {"filesystem": {"allowWrite": ["${workspaceFolder}"]}},
                },
                "open": {"command": "python", "sandboxEnabled": False},
            }
        },
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = load_file(path)
    assert set(found) == {"boxed", "open"}
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "'boxed': sandboxEnabled is not applied here" in said[0]


def test_vscode_servers_pasted_into_mcp_json_are_told_it_is_vscode_s_format(tmp_path: Path) -> None:
    data = {
        "inputs": [{"type": "promptString", "id": "k", "password": True}],
        "servers": {"a": {"command": "python", "env": {"K": "${input:k}"}}},
    }
    with pytest.raises(ConfigError) as info:
        load_file(write(tmp_path / ".mcp.json", data))
    said = str(info.value)
    assert "this is VS Code's format (top-level 'servers' and 'inputs')" in said
    assert ".vscode/mcp.json" in said and "--config PATH" in said
    renamed = write(tmp_path / "mcp.vscode.json", data)
    assert list(load_file(renamed, inputs={"k": "v"})) == ["a"]  # read as VS Code's, inputs and all


# ---------------------------------------------------------------- G: an input's default
def test_an_input_default_is_taken_when_nobody_answers(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "inputs": [
                {"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"},
                {"type": "promptString", "id": "key", "password": True},
            ],
            "servers": {
                "s": {
                    "command": "python",
                    "args": ["--region", "${input:region}"],
                    "env": {"K": "${input:key}"},
                }
            },
        },
    )
    assert load_file(path, inputs={"key": "k"})["s"].args == ("--region", "eu")
    assert load_file(path, inputs={"key": "k", "region": "us"})["s"].args == ("--region", "us")
    said = problems(path)["s"]
    assert "needs input 'key'" in said and "region" not in said  # the default answers for it
    assert json.dumps(load_file(path, inputs={"key": "k"})["s"].redacted())
