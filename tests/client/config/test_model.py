"""ServerConfig: build, replace, equality, frozenness, and secrets kept out of every view."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
from pathlib import Path

import pytest

from mcpnb.client.config import (
    AuthConfig,
    ServerConfig,
)

from .helpers import API_KEY, ENV_VALUE, PASSWORD, TOKEN, assert_located, config_error


def test_build_validates_like_files() -> None:
    cfg = ServerConfig.build(
        "s",
        command="python",
        args=("-m", "srv"),
        env=None,
        cwd=Path("/tmp"),
        tool_timeout=5,
        enabled_tools=["a"],
    )
    assert (cfg.command, cfg.args, cfg.cwd, cfg.tool_timeout, cfg.enabled_tools) == (
        "python",
        ("-m", "srv"),
        "/tmp",
        5.0,
        ("a",),
    )
    assert cfg.source == "<code>" and cfg.env == {}
    err = config_error(ServerConfig.build, "s", command="python", startup_timeout=-1)
    assert_located(err, file="<code>", server="s", key="startup_timeout")


@pytest.mark.parametrize(
    ("kwarg", "suggestion"),
    [
        ("comand", "command"),
        ("startupTimeoutSec", "startup_timeout"),
        ("type", "transport"),
        ("timeout", "tool_timeout"),
    ],
)
def test_build_unknown_keyword(kwarg: str, suggestion: str) -> None:
    err = config_error(ServerConfig.build, "s", command="x", **{kwarg: 1})
    assert_located(err, file="<code>", server="s", key=kwarg)
    assert err.suggestion == suggestion


def test_build_accepts_auth_objects() -> None:
    cfg = ServerConfig.build("s", url="http://h/mcp", auth=AuthConfig(type="bearer", token_env="T"))
    assert cfg.auth == AuthConfig(type="bearer", token_env="T")
    assert cfg.auth is not None and cfg.auth.server_name == "s"


def test_replace_revalidates_and_switches_transport() -> None:
    cfg = ServerConfig.from_dict(
        "s", {"command": "x", "args": ["-v"], "env": {"A": "b"}, "toolTimeoutSec": 5}, source="f.json"
    )
    assert cfg.replace(tool_timeout=9).tool_timeout == 9
    assert cfg.replace(tool_timeout=9).args == ("-v",)
    http = cfg.replace(url="http://h/sse")
    assert (http.transport, http.command, http.args, http.env, http.tool_timeout) == (
        "sse",
        None,
        (),
        {},
        5.0,
    )
    assert cfg.replace(tool_timeout=None).tool_timeout == 60.0  # None resets
    err = config_error(cfg.replace, tool_timeout=-1)
    assert_located(err, file="<code>", server="s", key="tool_timeout")
    err = config_error(cfg.replace, comand="y")
    assert err.suggestion == "command"
    assert cfg.replace(name="t").name == "t"


def test_equality_and_identity_of_server_objects() -> None:
    from mcp.server.mcpserver import MCPServer

    a, b = MCPServer("a", log_level="WARNING"), MCPServer("a", log_level="WARNING")
    assert ServerConfig.build("s", server=a) == ServerConfig.build("s", server=a)
    assert ServerConfig.build("s", server=a) != ServerConfig.build("s", server=b)
    one = ServerConfig.from_dict("s", {"command": "x"}, source="a.json")
    two = ServerConfig.from_dict("s", {"command": "x"}, source="b.json")
    assert one == two  # same way of connecting, wherever it was written
    assert one != one.replace(tool_timeout=1)


def test_configs_are_frozen_but_copyable() -> None:
    cfg = ServerConfig.from_dict("s", {"command": "x", "env": {"A": "b"}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.command = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.env["A"] = "c"  # type: ignore[index]
    assert copy.deepcopy(cfg) == cfg
    assert dataclasses.asdict(cfg)["env"] == {"A": "b"}
    assert {cfg: 1}[ServerConfig.from_dict("s", {"command": "x", "env": {"A": "b"}})] == 1


def test_secrets_lists_every_secret_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPNB_TEST_PW", PASSWORD)
    http = ServerConfig.build(
        "h",
        url=f"https://user:{PASSWORD}@h/mcp?token={TOKEN}",
        headers={"X-Api-Key": API_KEY, "Accept": "application/json"},
        auth={"type": "basic", "username": "ann", "password_env": "MCPNB_TEST_PW"},
    )
    found = http.secrets()
    assert {PASSWORD, TOKEN, API_KEY} <= found
    assert base64.b64encode(f"ann:{PASSWORD}".encode()).decode() in found
    assert "application/json" not in found
    stdio = ServerConfig.build(
        "s", command="x", args=["--token", TOKEN, "--api-key=" + API_KEY], env={"V": ENV_VALUE}
    )
    assert {TOKEN, API_KEY, ENV_VALUE} <= stdio.secrets()


def test_env_values_that_hide_nothing_are_not_secrets() -> None:
    """Each secret is scrubbed from every log line while its connection lives: a loopback address
    among them hid the host of every local URL logged."""
    cfg = ServerConfig.build(
        "s", command="x", env={"ALLOWED": "127.0.0.1", "HOST": "localhost", "DEBUG": "true", "V": ENV_VALUE}
    )
    assert cfg.secrets() == {ENV_VALUE}


def test_secret_never_in_repr_str_or_redacted() -> None:
    env = {"GH_TOKEN": TOKEN}
    configs = [
        ServerConfig.from_dict(
            "s",
            {
                "command": "srv",
                "args": ["--token", "${GH_TOKEN}", f"--password={PASSWORD}"],
                "env": {"LEVEL": ENV_VALUE},
            },
            environ=env,
        ),
        ServerConfig.from_dict(
            "h",
            {
                "url": f"https://u:{PASSWORD}@h/sse?api_key={API_KEY}",
                "headers": {"X-Api-Key": API_KEY, "Accept": "text/event-stream"},
                "auth": {"type": "bearer", "token": "${GH_TOKEN}"},
            },
            environ=env,
        ),
        ServerConfig.from_dict(
            "b", {"url": "https://h/mcp", "auth": {"type": "basic", "username": "ann", "password": PASSWORD}}
        ),
        ServerConfig.from_dict(
            "o", {"url": "https://h/mcp", "auth": {"type": "oauth", "clientId": "c", "clientSecret": TOKEN}}
        ),
    ]
    for cfg in configs:
        shown = [repr(cfg), str(cfg), json.dumps(cfg.redacted()), cfg.target, repr(cfg.auth), str(cfg.auth)]
        for text in shown:
            for secret in (TOKEN, PASSWORD, ENV_VALUE, API_KEY):
                assert secret not in text, (cfg.name, text)
    assert "***" in repr(configs[0]) and "text/event-stream" in repr(configs[1])  # redaction, not omission
    assert configs[1].redacted()["headers"] == {"X-Api-Key": "***", "Accept": "text/event-stream"}


def test_secret_never_in_a_config_error() -> None:
    env = {"GH_TOKEN": TOKEN}
    bad = [
        {"command": "x", "env": {"T": ENV_VALUE, "N": [5]}},
        {"command": "x", "env": {"T": ENV_VALUE}, "toolTimeoutSec": -1},
        {"url": f"ftp://h/?token={TOKEN}"},
        {
            "url": "https://h/mcp",
            "headers": {"X-Api-Key": API_KEY},
            "auth": {"type": "bearer", "token": TOKEN, "tokenEnv": "X"},
        },
        {
            "url": "https://h/mcp",
            "headers": {"X-Api-Key": API_KEY, "Authorization": f"Bearer {TOKEN}"},
            "auth": {"type": "bearer", "token": "${GH_TOKEN}"},
        },
        {"url": "https://h/mcp", "auth": {"type": "basic", "username": "u", "password": 12345}},
        {"url": "https://h/mcp", "auth": {"type": "bearer", "tokenEnv": TOKEN}},
    ]
    for entry in bad:
        err = config_error(ServerConfig.from_dict, "s", entry, environ=env, source="f.json")
        for secret in (TOKEN, ENV_VALUE, API_KEY, "12345"):
            assert secret not in str(err), str(err)


def test_target_is_short_and_safe() -> None:
    stdio = ServerConfig.build("s", command="python", args=["-m", "foo", "--x", "--token", TOKEN, "a b"])
    assert stdio.target == "python -m foo --x --token *** 'a b'"
    http = ServerConfig.build("h", url=f"https://h/mcp?token={TOKEN}")
    assert http.target == "https://h/mcp?token=***"
    long = ServerConfig.build("l", command="x", args=["y" * 300])
    assert len(long.target) <= 120


def test_redacted_shows_only_non_defaults() -> None:
    cfg = ServerConfig.from_dict(
        "s", {"command": "x", "toolTimeoutSec": 5, "enabled": False}, source="f.json"
    )
    assert cfg.redacted() == {
        "name": "s",
        "transport": "stdio",
        "command": "x",
        "enabled": False,
        "tool_timeout": 5.0,
        "source": "f.json",
    }


def test_a_description_is_a_note_shown_and_not_a_setting() -> None:
    """Entries copied from other clients' files carry a ``description``: it refused the server
    ("unknown key"); it is kept, shown, and changes nothing (the same server, no reconnect)."""
    noted = ServerConfig.from_dict("s", {"command": "x", "description": "the docs server"})
    assert noted.redacted()["description"] == "the docs server"
    assert noted == ServerConfig.from_dict("s", {"command": "x"})
    err = config_error(ServerConfig.from_dict, "s", {"command": "x", "description": ["a", "b"]})
    assert "expected a string" in str(err)
    assert_located(err, file=None, server="s", key="description")


def test_python_means_this_interpreter_when_configs_are_compared():
    import sys

    written = ServerConfig.build("s", command="python", args=["-m", "x"])
    resolved = ServerConfig.build("s", command=sys.executable, args=["-m", "x"])
    assert written == resolved and hash(written) == hash(resolved)  # they start the same process
    assert written.program == sys.executable and written.command == "python"
    other = ServerConfig.build("s", command="/opt/other/bin/python", args=["-m", "x"])
    assert other != written and other.program == "/opt/other/bin/python"
    assert ServerConfig.build("u", url="http://127.0.0.1:1/mcp").program == ""
