"""Gemini CLI's ``.gemini/settings.json``, read as Gemini CLI reads it: its keys, its ``$VAR``, its
comments, its server lists (the entries below follow Gemini CLI's documentation). Before, every
server of such a file was a failed row ("unknown key 'httpUrl'", "'timeout'"), and the file's own
``mcp`` object refused the whole file as a misspelt ``mcpServers``."""

from __future__ import annotations

import json
import sys

import pytest

from mcpnb.client.config import load_config
from tests.conftest import DEMO

from .helpers import API_KEY, TOKEN, assert_refused_alone, assert_remote_calls, write

SETTINGS = """{
  "theme": "Dracula",
  "selectedAuthType": "gemini-api-key",
  // servers Gemini CLI may start: "off" may not
  "mcp": {"excluded": ["off"]},
  "mcpServers": {
    "local": {
      "command": "python",
      "args": ["-m", "tools", "--home", "$HOME_DIR"],
      "env": {"API_KEY": "$MY_API_KEY", "REGION": "${REGION}"},
      "cwd": "./servers/python",
      "timeout": 15000,
      "trust": true,
      "includeTools": ["search", "fetch", "delete"],
      "excludeTools": ["delete"]
    },
    "streamed": {"httpUrl": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer $MY_API_KEY"}},
    "events": {"url": "http://127.0.0.1:9/sse", "description": "an SSE server"},
    "typed": {"url": "http://127.0.0.1:9/mcp", "type": "http"},
    "signin": {"httpUrl": "http://127.0.0.1:9/mcp", "oauth": {"clientId": "nb", "scopes": ["read", "write"]}},
    "off": {"command": "python"},
    "google": {"httpUrl": "http://127.0.0.1:9/mcp", "authProviderType": "google_credentials"}
  }
}
"""


@pytest.fixture
def settings(tmp_path):
    return write(tmp_path / "proj" / ".gemini" / "settings.json", SETTINGS)


def test_its_servers_are_read_as_gemini_cli_reads_them(settings, environ):
    env = {**environ, "MY_API_KEY": API_KEY, "REGION": "eu", "HOME_DIR": "/home/me"}
    found = load_config(path=settings, environ=env, keep_going=True)
    local = found.servers["local"]
    assert local.args == ("-m", "tools", "--home", "/home/me")  # $VAR as well as ${VAR}
    assert dict(local.env) == {"API_KEY": API_KEY, "REGION": "eu"}
    assert local.cwd == str(settings.parent.parent / "servers" / "python")  # the project's folder
    assert local.tool_timeout == 15.0  # milliseconds
    assert (local.enabled_tools, local.disabled_tools) == (("search", "fetch"), ("delete",))  # excluded wins
    transports = {n: found.servers[n].transport for n in ("streamed", "events", "typed")}
    assert transports == {"streamed": "http", "events": "sse", "typed": "http"}
    assert dict(found.servers["streamed"].headers) == {"Authorization": f"Bearer {API_KEY}"}
    assert found.servers["events"].description == "an SSE server"
    auth = found.servers["signin"].auth
    assert (auth.type, auth.flow, auth.client_id, auth.scope) == (
        "oauth",
        "authorization_code",
        "nb",
        "read write",
    )
    assert found.servers["off"].enabled is False  # mcp.excluded
    # the secret is the environment's, kept out of what is shown
    assert API_KEY in local.secrets() and API_KEY not in repr(local) + repr(found.servers["streamed"])
    # Google's own sign-in is that server's failure alone, saying what to write instead
    assert "Gemini CLI's own Google sign-in" in found.problems["google"]
    assert '"Authorization": "Bearer ${TOKEN}"' in found.problems["google"]
    assert set(found.problems) == {"google"}
    assert found.problem_transports["google"] == "http"  # its status row says how it is reached


def test_a_variable_that_is_not_set_stays_as_written(tmp_path, environ):
    """As in Gemini CLI: ``$word`` in a password is no variable unless one of that name is set (it
    was "environment variable 'sword' is not set"); ``${VAR:-default}`` takes its default."""
    path = write(
        tmp_path / ".gemini" / "settings.json",
        {
            "mcpServers": {
                "s": {
                    "command": "x",
                    "args": ["pa$sword", "${UNSET}", "$SET", "${SET}", "${UNSET:-fallback}"],
                }
            }
        },
    )
    found = load_config(path=path, environ={**environ, "SET": "value"})
    assert found.servers["s"].args == ("pa$sword", "${UNSET}", "value", "value", "fallback")


def test_an_allowed_list_leaves_the_others_disabled(tmp_path, environ):
    path = write(
        tmp_path / ".gemini" / "settings.json",
        {"mcp": {"allowed": ["a"]}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}},
    )
    found = load_config(path=path, environ=environ)
    assert (found.servers["a"].enabled, found.servers["b"].enabled) == (True, False)


@pytest.mark.parametrize(
    ("entry", "key", "says"),
    [
        ({"command": "x", "timeout": "30s"}, "timeout", "expected a positive number of milliseconds"),
        ({"command": "x", "includeTools": "search"}, "includeTools", "expected a list of names"),
        ({"httpUrl": 8080}, "httpUrl", "expected a string"),
        ({"httpUrl": "http://127.0.0.1:9/mcp", "oauth": ["read"]}, "oauth", "expected an object"),
        # a misspelt key is one of Gemini CLI's, not mcpnb's 'enabled_tools'
        ({"command": "x", "includTools": ["a"]}, "includTools", "unknown key (did you mean 'includeTools'?)"),
        ({"httpurl": "http://127.0.0.1:9/mcp"}, "httpurl", "unknown key (did you mean 'httpUrl'?)"),
    ],
)
def test_a_mistake_in_a_gemini_key_names_that_key(tmp_path, environ, entry, key, says):
    path = write(tmp_path / ".gemini" / "settings.json", {"mcpServers": {"s": entry, "ok": {"command": "x"}}})
    assert_refused_alone(path, environ, key, says)


def test_outside_a_gemini_folder_its_keys_are_still_not_ours(tmp_path, environ):
    """A ``.mcp.json`` is mcpnb's format: ``httpUrl`` there says what to write."""
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"s": {"httpUrl": "http://127.0.0.1:9/mcp"}}})
    found = load_config(path=path, environ=environ, keep_going=True)
    assert "did you mean 'url'" in found.problems["s"]


def test_the_pool_starts_its_servers_over_stdio_sse_and_streamable_http(
    pool, tmp_path, monkeypatch, remote_servers
):
    """Real servers, each reached as the file says: ``command``, ``url`` (SSE), ``httpUrl`` with a
    bearer header from ``$VAR`` (the server refuses a request without it)."""
    sse, http = remote_servers
    monkeypatch.setenv("MCPNB_TEST_TOKEN", TOKEN)
    monkeypatch.setenv("MCPNB_TEST_REGION", "north")
    path = write(
        tmp_path / ".gemini" / "settings.json",
        "// mine\n"
        + json.dumps(
            {
                "mcpServers": {
                    "local": {
                        "command": sys.executable,
                        "args": [DEMO, "stdio"],
                        "env": {"REGION": "$MCPNB_TEST_REGION"},
                        "excludeTools": ["fail"],
                        "timeout": 20000,
                    },
                    "events": {"url": sse.url},
                    "streamed": {
                        "httpUrl": http.url,
                        "headers": {"Authorization": "Bearer $MCPNB_TEST_TOKEN"},
                    },
                }
            }
        ),
    )
    table = pool.connect_config(path)
    assert pool.call("local", "env", {"name": "REGION"}).text == "north"
    assert "fail" not in {t.name for t in pool.tools("local")}
    assert_remote_calls(pool, table)
