"""Windsurf's ``~/.codeium/windsurf/mcp_config.json``, read as Windsurf's documentation says:
``serverUrl`` for a remote server, ``${env:NAME}`` in command, args, env, serverUrl, url and
headers, ``disabled``. Before, every remote server of such a file was a failed row ("unknown key
'serverUrl'") and ``${env:…}`` reached the server as written."""

from __future__ import annotations

import sys

import pytest

from mcpnb.client.config import load_config
from mcpnb.client.errors import ConfigError
from tests.conftest import DEMO

from .helpers import API_KEY, TOKEN, assert_refused_alone, assert_remote_calls, write

SETTINGS = {
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github", "--key=${env:MY_API_KEY}"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:MY_API_KEY}"},
            "disabledTools": ["delete_repo"],
        },
        "remote": {"serverUrl": "http://127.0.0.1:9/mcp", "headers": {"API_KEY": "Bearer ${env:MY_API_KEY}"}},
        "off": {"command": "python", "disabled": True},
        "literal": {"command": "python", "cwd": "/srv/${HOME}"},  # not interpolated there: as written
    }
}


def test_its_servers_are_read_as_windsurf_reads_them(tmp_path, environ):
    path = write(tmp_path / ".codeium" / "windsurf" / "mcp_config.json", SETTINGS)
    found = load_config(path=path, environ={**environ, "MY_API_KEY": API_KEY}, keep_going=True)
    assert not found.problems
    github, remote = found.servers["github"], found.servers["remote"]
    assert github.args[-1] == f"--key={API_KEY}" and dict(github.env) == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": API_KEY
    }
    assert github.disabled_tools == ("delete_repo",)
    assert remote.url == "http://127.0.0.1:9/mcp" and dict(remote.headers) == {"API_KEY": f"Bearer {API_KEY}"}
    assert API_KEY in remote.secrets() and API_KEY not in repr(remote) + repr(github)
    assert found.servers["off"].enabled is False
    assert found.servers["literal"].cwd == "/srv/${HOME}"


def test_an_unset_variable_is_named(tmp_path, environ):
    path = write(
        tmp_path / "mcp_config.json", {"mcpServers": {"s": {"serverUrl": "http://127.0.0.1:9/${env:NOPE}"}}}
    )
    with pytest.raises(ConfigError, match="NOPE"):
        load_config(path=path, environ=environ)


@pytest.mark.parametrize(
    ("entry", "key", "says"),
    [
        ({"serverUrl": "http://127.0.0.1:9/a", "url": "http://127.0.0.1:9/b"}, "url", "not both"),
        ({"command": "x", "disabled": "yes"}, "disabled", "expected true or false"),
        (
            {"command": "x", "disabledTool": ["a"]},
            "disabledTool",
            "unknown key (did you mean 'disabledTools'?)",
        ),
        ({"servrUrl": "http://127.0.0.1:9/mcp"}, "servrUrl", "unknown key (did you mean 'serverUrl'?)"),
    ],
)
def test_a_mistake_in_a_windsurf_entry_names_its_key(tmp_path, environ, entry, key, says):
    path = write(tmp_path / "mcp_config.json", {"mcpServers": {"s": entry, "ok": {"command": "x"}}})
    assert_refused_alone(path, environ, key, says)


def test_the_pool_finds_how_each_serverurl_speaks(pool, tmp_path, monkeypatch, remote_servers):
    """Real servers, reached at a ``serverUrl`` with no word on the transport (Windsurf's way):
    the SSE one and the Streamable HTTP one, whose bearer token comes from ``${env:…}``."""
    sse, http = remote_servers
    monkeypatch.setenv("MCPNB_TEST_TOKEN", TOKEN)
    path = write(
        tmp_path / "mcp_config.json",
        {
            "mcpServers": {
                "local": {"command": sys.executable, "args": [DEMO, "stdio"]},
                "events": {"serverUrl": sse.url},
                "streamed": {
                    "serverUrl": http.url,
                    "headers": {"Authorization": "Bearer ${env:MCPNB_TEST_TOKEN}"},
                },
                "off": {"command": sys.executable, "args": [DEMO, "stdio"], "disabled": True},
            }
        },
    )
    assert_remote_calls(pool, pool.connect_config(path), off=True)
