"""Roo Code's (and Kilo Code's) ``.roo/mcp.json`` and ``mcp_settings.json``, read as Roo Code reads
them (the entries below follow Roo Code's own settings schema): ``type`` required beside a ``url``,
``disabled``, ``disabledTools``, ``timeout`` in seconds, ``${env:NAME}`` and ``${workspaceFolder}``.
Before, every server of such a file was a failed row ("unknown key 'disabled'")."""

from __future__ import annotations

import sys

import pytest

from mcpnb.client.config import find_other_configs, load_config
from tests.conftest import DEMO

from .helpers import API_KEY, TOKEN, assert_refused_alone, assert_remote_calls, write

SETTINGS = {
    "mcpServers": {
        "local": {
            "command": "python",
            "args": [
                "${workspaceFolder}/server.py",
                "--key",
                "${env:MY_API_KEY}",
                "${env:NOT_SET}",
                "${HOME}",
            ],
            "cwd": "tools",
            "env": {"REGION": "eu"},
            "alwaysAllow": ["search"],
            "watchPaths": ["server.py"],
            "disabledTools": ["delete"],
            "timeout": 90,
        },
        "events": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"X-Key": "${env:MY_API_KEY}"}},
        "streamed": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"},
        "off": {"command": "python", "disabled": True},
    }
}


@pytest.fixture
def project(tmp_path):
    return tmp_path / "proj"


def test_its_servers_are_read_as_roo_code_reads_them(project, environ):
    path = write(project / ".roo" / "mcp.json", SETTINGS)
    found = load_config(path=path, environ={**environ, "MY_API_KEY": API_KEY}, keep_going=True)
    assert not found.problems
    local = found.servers["local"]
    # ${env:…} set: its value; not set: as written (as Roo Code leaves it); ${HOME}: no Roo variable
    assert local.args == (f"{project.resolve()}/server.py", "--key", API_KEY, "${env:NOT_SET}", "${HOME}")
    assert local.cwd == str(project.resolve() / "tools")  # from the project's folder
    assert (local.tool_timeout, local.disabled_tools, dict(local.env)) == (90, ("delete",), {"REGION": "eu"})
    assert {n: c.transport for n, c in found.servers.items()} == {
        "local": "stdio",
        "events": "sse",
        "streamed": "http",
        "off": "stdio",
    }
    assert dict(found.servers["events"].headers) == {"X-Key": API_KEY}
    assert API_KEY in found.servers["events"].secrets() and API_KEY not in repr(found.servers["events"])
    assert found.servers["off"].enabled is False


@pytest.mark.parametrize(
    ("entry", "key", "says"),
    [
        ({"url": "http://127.0.0.1:9/mcp"}, "type", "a 'url' needs a 'type': 'sse' or 'streamable-http'"),
        ({"command": "x", "url": "http://127.0.0.1:9/mcp"}, "url", "a 'command' or a 'url', not both"),
        ({"type": "http", "url": "http://127.0.0.1:9/mcp"}, "type", "expected one of 'stdio', 'sse'"),
        ({"type": ["sse"], "url": "http://127.0.0.1:9/sse"}, "type", "expected one of 'stdio', 'sse'"),
        ({"command": "x", "timeout": 7200}, "timeout", "expected a number of seconds, from 1 to 3600"),
        ({"command": "x", "disabledTools": "delete"}, "disabledTools", "expected a list of names"),
        ({"command": "x", "alwaysAlow": ["a"]}, "alwaysAlow", "unknown key (did you mean 'alwaysAllow'?)"),
    ],
)
def test_a_mistake_in_a_roo_code_entry_names_its_key(tmp_path, environ, entry, key, says):
    path = write(tmp_path / ".roo" / "mcp.json", {"mcpServers": {"s": entry, "ok": {"command": "x"}}})
    assert_refused_alone(path, environ, key, says)


def test_the_editor_wide_file_and_kilo_codes_read_the_same_way(tmp_path, environ):
    for path in (tmp_path / "settings" / "mcp_settings.json", tmp_path / "proj" / ".kilocode" / "mcp.json"):
        write(path, {"mcpServers": {"s": {"command": "x", "disabled": True, "timeout": 5}}})
        server = load_config(path=path, environ=environ).servers["s"]
        assert (server.enabled, server.tool_timeout) == (False, 5)


def test_a_bare_config_points_at_a_projects_roo_file(tmp_path):
    write(tmp_path / ".roo" / "mcp.json", SETTINGS)
    assert find_other_configs(tmp_path / "sub") == {"Roo Code": tmp_path / ".roo" / "mcp.json"}


def test_the_pool_starts_its_servers_over_stdio_sse_and_streamable_http(
    pool, tmp_path, monkeypatch, remote_servers
):
    """Real servers, each reached as the file says, the bearer token from ``${env:…}`` (the
    Streamable HTTP server refuses a request without it); the disabled one stays off."""
    sse, http = remote_servers
    monkeypatch.setenv("MCPNB_TEST_TOKEN", TOKEN)
    path = write(
        tmp_path / ".roo" / "mcp.json",
        {
            "mcpServers": {
                "local": {
                    "command": sys.executable,
                    "args": [DEMO, "stdio"],
                    "env": {"HERE": "${workspaceFolder}"},
                },
                "events": {"type": "sse", "url": sse.url},
                "streamed": {
                    "type": "streamable-http",
                    "url": http.url,
                    "headers": {"Authorization": "Bearer ${env:MCPNB_TEST_TOKEN}"},
                },
                "off": {"command": sys.executable, "args": [DEMO, "stdio"], "disabled": True},
            }
        },
    )
    table = pool.connect_config(path)
    assert pool.call("local", "env", {"name": "HERE"}).text == str(tmp_path.resolve())
    assert_remote_calls(pool, table, off=True)
