"""Cline's ``cline_mcp_settings.json``, read as Cline reads it (the entries below follow Cline's own
settings schema): ``disabled``, ``timeout`` in seconds, ``autoApprove``, a ``url`` alone as SSE,
values as written. Before, every server of such a file was a failed row ("unknown key 'disabled'")."""

from __future__ import annotations

import sys

import pytest

from mcpnb.client.config import load_config
from tests.conftest import DEMO

from .helpers import TOKEN, assert_refused_alone, assert_remote_calls, write

SETTINGS = {
    "mcpServers": {
        "local": {
            "command": "python",
            "args": ["-m", "tools", "--pattern", "${not a variable}"],
            "env": {"REGION": "eu"},
            "autoApprove": ["search"],
            "disabled": False,
            "timeout": 30,
            "type": "stdio",
            "url": "http://127.0.0.1:9/left-over",  # Cline lets it stand beside a command, unused
        },
        "events": {"url": "http://127.0.0.1:9/sse", "headers": {"X-Plain": "plain"}},
        "streamed": {"type": "streamableHttp", "url": "http://127.0.0.1:9/mcp", "command": "unused"},
        "older": {"transportType": "http", "url": "http://127.0.0.1:9/mcp"},
        "off": {"command": "python", "disabled": True},
    }
}


@pytest.fixture
def settings(tmp_path):
    return write(tmp_path / "settings" / "cline_mcp_settings.json", SETTINGS)


def test_its_servers_are_read_as_cline_reads_them(settings, environ):
    found = load_config(path=settings, environ=environ, keep_going=True)
    assert not found.problems
    local = found.servers["local"]
    assert (local.transport, local.url) == ("stdio", None)  # the url beside its command is left
    assert local.args == ("-m", "tools", "--pattern", "${not a variable}")  # Cline expands nothing
    assert (dict(local.env), local.tool_timeout, local.enabled) == ({"REGION": "eu"}, 30, True)
    transports = {name: c.transport for name, c in found.servers.items()}
    # a url alone is SSE, as Cline reads its older entries; "streamableHttp", or transportType "http"
    assert transports == {
        "local": "stdio",
        "events": "sse",
        "streamed": "http",
        "older": "http",
        "off": "stdio",
    }
    assert dict(found.servers["events"].headers) == {"X-Plain": "plain"}
    assert found.servers["streamed"].command is None
    assert found.servers["off"].enabled is False


@pytest.mark.parametrize(
    ("entry", "key", "says"),
    [
        ({"command": "x", "disabled": "yes"}, "disabled", "expected true or false"),
        ({"command": "x", "timeout": 0}, "timeout", "expected a number of seconds, at least 1"),
        ({"url": "http://127.0.0.1:9/mcp", "transportType": "ws"}, "transportType", "expected one of"),
        # a misspelt key is one of Cline's, not mcpnb's
        ({"command": "x", "autoAprove": ["a"]}, "autoAprove", "unknown key (did you mean 'autoApprove'?)"),
    ],
)
def test_a_mistake_in_a_cline_key_names_that_key(tmp_path, environ, entry, key, says):
    path = write(tmp_path / "cline_mcp_settings.json", {"mcpServers": {"s": entry, "ok": {"command": "x"}}})
    assert_refused_alone(path, environ, key, says)


def test_a_refused_entry_says_how_it_is_reached(tmp_path, environ):
    path = write(
        tmp_path / "cline_mcp_settings.json",
        {"mcpServers": {"s": {"url": "http://127.0.0.1:9/mcp", "timeout": "1m"}}},  # a url alone: SSE
    )
    assert load_config(path=path, environ=environ, keep_going=True).problem_transports["s"] == "sse"


def test_in_mcpnbs_own_file_disabled_is_still_not_ours(tmp_path, environ):
    """A ``.mcp.json`` is mcpnb's format: ``disabled`` there says what to write."""
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"s": {"command": "x", "disabled": True}}})
    assert '"enabled": false' in load_config(path=path, environ=environ, keep_going=True).problems["s"]


def test_the_pool_starts_its_servers_over_stdio_sse_and_streamable_http(pool, tmp_path, remote_servers):
    """Real servers, each reached as Cline would: a command, a url alone (SSE), and a Streamable HTTP
    server that refuses a request without the header the file gives; the disabled one stays off."""
    sse, http = remote_servers
    path = write(
        tmp_path / "cline_mcp_settings.json",
        {
            "mcpServers": {
                "local": {
                    "command": sys.executable,
                    "args": [DEMO, "stdio"],
                    "env": {"GREETING": "${literally}"},
                    "autoApprove": ["echo"],
                    "timeout": 20,
                },
                "events": {"url": sse.url},
                "streamed": {
                    "type": "streamableHttp",
                    "url": http.url,
                    "headers": {"Authorization": f"Bearer {TOKEN}"},
                },
                "off": {"command": sys.executable, "args": [DEMO, "stdio"], "disabled": True},
            }
        },
    )
    table = pool.connect_config(path)
    assert pool.call("local", "env", {"name": "GREETING"}).text == "${literally}"
    assert pool.connection("local").config.tool_timeout == 20
    assert_remote_calls(pool, table, off=True)
