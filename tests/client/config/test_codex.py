"""Codex's ``config.toml``, read as Codex reads it: ``[mcp_servers.NAME]`` tables, values taken as
written, secrets named by their environment variables (the tables below follow Codex's documented
keys). Before, a ``.toml`` file was "invalid JSON at line 1"."""

from __future__ import annotations

import json

import pytest

from mcpnb.client.config import load_config
from tests.conftest import EVERYTHING, HttpServer

from .helpers import API_KEY, TOKEN, assert_located, config_error, write

CONFIG = """
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server", "--pattern", "${not a variable}"]
env = { "REGION" = "eu" }
env_vars = ["MY_API_KEY", "NOT_SET_HERE", { name = "HOME_DIR", source = "local" }]
cwd = "tools"
startup_timeout_ms = 20000
tool_timeout_sec = 90.5
enabled_tools = ["search", "fetch", "delete"]
disabled_tools = ["delete"]
required = true

[mcp_servers.docs.tools.search]
approval_mode = "approve"

[mcp_servers.remote]
url = "http://127.0.0.1:9/mcp"
bearer_token_env_var = "MY_API_KEY"
env_http_headers = { "X-Key" = "MY_API_KEY", "X-Absent" = "NOT_SET_HERE" }
http_headers = { "X-Plain" = "plain", "X-Key" = "written" }

[mcp_servers.login]
url = "http://127.0.0.1:9/mcp"
scopes = ["read", "write"]
oauth_resource = "http://127.0.0.1:9"

[mcp_servers.off]
command = "python"
enabled = false

[mcp_servers.inline]
url = "http://127.0.0.1:9/mcp"
bearer_token = "written-in-the-file"
"""


@pytest.fixture
def config(tmp_path):
    return write(tmp_path / "proj" / ".codex" / "config.toml", CONFIG)


def test_its_servers_are_read_as_codex_reads_them(config, environ):
    env = {**environ, "MY_API_KEY": API_KEY, "HOME_DIR": "/home/me"}
    found = load_config(path=config, environ=env, keep_going=True)
    docs, remote = found.servers["docs"], found.servers["remote"]
    assert docs.args == ("-y", "docs-server", "--pattern", "${not a variable}")  # Codex expands nothing
    # env_vars passes on the ones set (the secret among them) and not the one that is not
    assert dict(docs.env) == {"MY_API_KEY": API_KEY, "HOME_DIR": "/home/me", "REGION": "eu"}
    assert docs.cwd == str(config.parent.parent / "tools")  # the project's folder
    assert (docs.startup_timeout, docs.tool_timeout) == (20.0, 90.5)
    assert (docs.enabled_tools, docs.disabled_tools) == (("search", "fetch"), ("delete",))
    assert remote.transport == "http" and (remote.auth.type, remote.auth.token_env) == (
        "bearer",
        "MY_API_KEY",
    )
    # X-Absent: its variable is unset; X-Key: the variable's value over the written one, as in Codex
    assert dict(remote.headers) == {"X-Plain": "plain", "X-Key": API_KEY}
    login = found.servers["login"].auth
    assert (login.type, login.flow, login.scope) == ("oauth", "authorization_code", "read write")
    assert found.servers["off"].enabled is False
    assert API_KEY not in repr(docs) + repr(remote) and API_KEY in docs.secrets()
    # a token written in the file is refused, as Codex refuses it; the others load
    assert set(found.problems) == {"inline"} and found.problem_transports["inline"] == "http"
    assert "bearer_token_env_var" in found.problems["inline"]
    assert "written-in-the-file" not in found.problems["inline"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[mcp_servers.a]\ncommand = 'x'\nargs = [\n", "invalid TOML"),
        ("model = 'o3'\n[mcp-servers.a]\ncommand = 'x'\n", "(this file has 'mcp-servers')"),
        ("model = 'o3'\n", "no [mcp_servers.NAME] table"),
    ],
)
def test_a_file_that_cannot_be_read_says_why(tmp_path, environ, text, says):
    path = write(tmp_path / "config.toml", text)
    err = config_error(load_config, path=path, environ=environ)
    assert says in str(err) and str(path) in str(err)


@pytest.mark.parametrize(
    ("table", "key", "says"),
    [
        ("command = 'x'\nenv_vars = 'HOME'", "env_vars", "expected a list of variable names"),
        ("command = 'x'\nstartup_timeout_ms = -1", "startup_timeout_ms", "positive number of milliseconds"),
        ("url = 'http://127.0.0.1:9/mcp'\nhttp_headers = { X = 1 }", "http_headers", "a table of strings"),
        ("command = 'x'\nstartup_timeout_sec = 'ten'", "startup_timeout_sec", "expected a number"),
        ("command = 'x'\nenabled_tool = ['a']", "enabled_tool", "did you mean 'enabled_tools'"),
        # Codex's own keys, misspelt: mcpnb's 'env' or nothing was suggested
        ("command = 'x'\nenv_var = ['HOME']", "env_var", "unknown key (did you mean 'env_vars'?)"),
        (
            "url = 'http://127.0.0.1:9/mcp'\nbearer_token_env = 'T'",
            "bearer_token_env",
            "'bearer_token_env_var'",
        ),
    ],
)
def test_a_mistake_in_one_table_names_its_key(tmp_path, environ, table, key, says):
    path = write(tmp_path / "config.toml", f"[mcp_servers.s]\n{table}\n[mcp_servers.ok]\ncommand = 'x'\n")
    assert "ok" in load_config(path=path, environ=environ, keep_going=True).servers
    err = config_error(load_config, path=path, environ=environ)
    assert says in str(err)
    assert_located(err, file=str(path), server="s", key=key)


def test_mcpnbs_own_keys_may_stand_in_a_codex_table(tmp_path, environ):
    path = write(tmp_path / "config.toml", "[mcp_servers.s]\ncommand = 'x'\nstartup_timeout = 5\n")
    assert load_config(path=path, environ=environ).servers["s"].startup_timeout == 5.0


def test_the_pool_starts_its_servers_with_what_the_environment_holds(pool, tmp_path, monkeypatch, everything):
    """server-everything over stdio gets the variable ``env_vars`` names (and no other of ours), the
    demo server over Streamable HTTP the bearer token and a header from the environment."""
    http = HttpServer("http", "--require-token", TOKEN)
    try:
        monkeypatch.setenv("MCPNB_TEST_TOKEN", TOKEN)
        monkeypatch.setenv("MCPNB_TEST_PASSED", "passed on")
        monkeypatch.setenv("MCPNB_TEST_KEPT", "kept back")
        path = write(
            tmp_path / ".codex" / "config.toml",
            f"""
[mcp_servers.ev]
command = "node"
args = [{json.dumps(str(EVERYTHING))}, "stdio"]
env = {{ "LITERAL" = "${{MCPNB_TEST_KEPT}}" }}
env_vars = ["MCPNB_TEST_PASSED"]

[mcp_servers.web]
url = "{http.url}"
bearer_token_env_var = "MCPNB_TEST_TOKEN"
env_http_headers = {{ "X-Passed" = "MCPNB_TEST_PASSED" }}
""",
        )
        table = pool.connect_config(path)
        assert {r.name: (r.state, r.transport) for r in table} == {
            "ev": ("connected", "stdio"),
            "web": ("connected", "http"),
        }
        env = json.loads(pool.call("ev", "get-env", {}).text)
        assert env["MCPNB_TEST_PASSED"] == "passed on" and "MCPNB_TEST_KEPT" not in env
        assert env["LITERAL"] == "${MCPNB_TEST_KEPT}"  # as written: Codex expands nothing
        assert pool.call("web", "header", {"name": "authorization"}).text == f"Bearer {TOKEN}"
        assert pool.call("web", "header", {"name": "x-passed"}).text == "passed on"
        assert TOKEN not in repr(pool.status()) + " ".join(pool.logs("web"))
    finally:
        http.stop()
