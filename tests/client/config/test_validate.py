"""Schema validation: unknown keys, types, ranges and names, each with a located message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpnb.client.config import (
    MAX_SECONDS,
    ServerConfig,
    schema,
)
from mcpnb.client.config.validate import _NAME_RE

from .helpers import assert_located, config_error, servers


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("comand", "command"),
        ("startupTimeout", "startupTimeoutSec"),
        ("toolTimeoutsec", "toolTimeoutSec"),
        ("disabled", "enabled"),
        ("arg", "args"),
        # other clients' keys, and near misses of them
        ("environment", "env"),
        ("enviroment", "env"),
        ("serverUrl", "url"),
        ("httpUrl", "url"),
        ("includeTools", "enabled_tools"),
        ("excludeTools", "disabled_tools"),
        ("timeout", "tool_timeout"),
        ("transportType", "type"),
        ("envFile", None),
        ("autoApprove", None),
    ],
)
def test_unknown_key_suggests_the_closest(key: str, suggestion: str | None) -> None:
    err = config_error(ServerConfig.from_dict, "gh", {"command": "x", key: 1}, source="/p/.mcp.json")
    assert_located(err, file="/p/.mcp.json", server="gh", key=key)
    assert err.suggestion == suggestion
    if suggestion:
        assert f"did you mean {suggestion!r}" in str(err)


def test_other_clients_keys_say_what_mcpnb_calls_them_or_why_it_has_none() -> None:
    def said(key: str) -> str:
        return str(config_error(ServerConfig.from_dict, "gh", {"command": "x", key: 1}, source="f.json"))

    assert said("enviroment").endswith("key 'enviroment': unknown key (did you mean 'env'?)")
    assert "unknown key: an env file is read in VS Code's and Cursor's files" in said("envFile")
    assert "unknown key: mcpnb has no approval list" in said("alwaysAllow")
    assert "pool.functions(approve='destructive')" in said("autoApprove")  # where a model's calls ask
    # one name, two units: renamed as is, Gemini CLI's 30000 (ms) would wait eight hours
    assert "'tool_timeout', in seconds (Gemini CLI's 'timeout' counts milliseconds)" in said("timeout")


def test_unknown_auth_key() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {"url": "http://h", "auth": {"type": "bearer", "tokn": "x"}},
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="auth.tokn")
    assert err.suggestion == "token"


@pytest.mark.parametrize(
    ("entry", "key", "words"),
    [
        ({"command": ["python", "-m"]}, "command", ("expected a string", "got a list")),
        ({"command": "x", "args": "-m srv"}, "args", ("expected a list", "got a string")),
        ({"command": "x", "args": ["-m", 3]}, "args[1]", ("expected a string", "got a number")),
        (
            {"command": "x", "startupTimeoutSec": "30"},
            "startupTimeoutSec",
            ("expected a number", "got a string"),
        ),
        ({"command": "x", "enabled": "yes"}, "enabled", ("expected true or false", "got a string")),
        ({"command": "x", "markdown": "yes"}, "markdown", ("expected true or false", "got a string")),
        ({"command": "x", "maxRetries": 2.5}, "maxRetries", ("expected a whole number", "got a number")),
        ({"command": "x", "env": {"DEBUG": False}}, "env.DEBUG", ("expected a string", 'quote it ("true")')),
        ({"command": "x", "env": {"PORT": None}}, "env.PORT", ("expected a string", "got null")),
        ({"command": "x", "env": ["A=b"]}, "env", ("expected an object", "got a list")),
        ({"command": "x", "enabledTools": "echo"}, "enabledTools", ("expected a list", "got a string")),
    ],
)
def test_wrong_type_says_expected_and_got(entry: dict[str, Any], key: str, words: tuple[str, ...]) -> None:
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)
    for word in words:
        assert word in str(err)


@pytest.mark.parametrize(
    ("entry", "meant"),
    [
        ({"args": "-m srv --name 'a b'"}, ["-m", "srv", "--name", "a b"]),  # split as a shell would
        ({"disabledTools": "delete_page, drop_*"}, ["delete_page", "drop_*"]),
        ({"enabled_tools": "echo add"}, ["echo", "add"]),
    ],
)
def test_a_string_where_a_list_belongs_suggests_the_list(entry: dict[str, Any], meant: list[str]) -> None:
    err = config_error(ServerConfig.from_dict, "s", {"command": "x", **entry}, source="f.json")
    assert err.suggestion is not None and json.loads(err.suggestion) == meant
    assert f"(did you mean {err.suggestion!r}?)" in str(err)


def test_env_numbers_are_the_text_the_process_sees() -> None:
    # VS Code's mcp.json allows numbers in env ("PORT": 8080); JavaScript writes 8080.0 as "8080"
    env = {"PORT": 8080, "RATIO": 0.5, "WHOLE": 8080.0, "NAME": "x"}
    config = ServerConfig.from_dict("s", {"command": "x", "env": env}, source="f.json")
    assert dict(config.env) == {"PORT": "8080", "RATIO": "0.5", "WHOLE": "8080", "NAME": "x"}


def test_entry_that_is_not_an_object() -> None:
    err = config_error(ServerConfig.from_dict, "s", ["python"], source="f.json")
    assert_located(err, file="f.json", server="s", key=None)
    assert "got a list" in str(err)


def test_bad_transport_value_suggests() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "htp", "url": "http://h"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert err.suggestion == "http" and "'htp'" in str(err)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("startupTimeoutSec", -1, "greater than 0"),
        ("startupTimeoutSec", 0, "greater than 0"),
        ("toolTimeoutSec", 0, "greater than 0"),
        ("tool_timeout", -0.5, "greater than 0"),
        ("retryDelay", -1, "negative"),
        ("healthCheckInterval", -5, "negative"),
        ("cacheTtl", -1, "negative"),
        ("maxRetries", -1, "negative"),
        ("toolTimeoutSec", 86401, "absurd"),
        ("startupTimeoutSec", 3_600_000, "absurd"),
        ("maxTotalTimeoutSec", 1e9, "absurd"),
        ("maxRetries", 1000, "absurd"),
    ],
)
def test_negative_zero_and_absurd_numbers(key: str, value: float, words: str) -> None:
    err = config_error(ServerConfig.from_dict, "s", {"command": "x", key: value}, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)
    assert words in str(err)


def test_limits_are_inclusive() -> None:
    cfg = ServerConfig.from_dict("s", {"command": "x", "toolTimeoutSec": 86400, "healthCheckInterval": 0})
    assert cfg.tool_timeout == 86400 and cfg.health_check_interval == 0


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("my.server", "my-server"),
        ("my__server", "my_server"),
        ("my server", "my-server"),
        ("-lead", "lead"),
        ("trail_", "trail"),
        ("", None),
    ],
)
def test_invalid_server_names(name: str, suggestion: str | None) -> None:
    err = config_error(ServerConfig.from_dict, name, {"command": "x"}, source="f.json")
    assert err.file == "f.json" and err.suggestion == suggestion
    assert repr(name) in str(err)


@pytest.mark.parametrize("name", ["a", "gh", "my-server", "my_server", "Server2", "0x", "a-_b"])
def test_valid_server_names(name: str) -> None:
    assert ServerConfig.from_dict(name, {"command": "x"}).name == name


def test_shipped_schema_is_valid_and_accepts_a_real_file() -> None:
    import jsonschema

    shipped = schema()
    jsonschema.Draft202012Validator.check_schema(shipped)
    sample = servers(
        time={"command": "python", "args": ["-m", "mcp_server_time"], "startupTimeoutSec": 10},
        web={"type": "http", "url": "https://h/mcp", "auth": {"type": "bearer", "tokenEnv": "T"}},
    )
    jsonschema.validate(sample, shipped)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(servers(**{"a__b": {"command": "x"}}), shipped)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(servers(a={"comand": "x"}), shipped)


def test_limits_and_name_pattern_agree_with_the_schema() -> None:
    shipped = schema()
    assert shipped["$defs"]["timeout"]["maximum"] == shipped["$defs"]["seconds"]["maximum"] == MAX_SECONDS
    assert shipped["properties"]["mcpServers"]["propertyNames"]["pattern"] == _NAME_RE.pattern


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("müller", "muller"),
        ("größe", "grosse"),
        ("Ärger.srv", "Arger-srv"),
        ("ｆｕｌｌ", "full"),
        ("日本", None),
    ],
)
def test_a_name_with_letters_beyond_ascii_says_ascii_and_is_spelled_in_it(
    name: str, suggestion: str | None
) -> None:
    """ü is a letter: "use letters, digits" refused it all the same, and suggested 'm-ller'."""
    err = config_error(ServerConfig.from_dict, name, {"command": "x"}, source="f.json")
    assert err.suggestion == suggestion
    if "." not in name:
        wide = next(c for c in name if not c.isascii())
        assert "ASCII letters" in str(err) and f"{wide!r} is not ASCII" in str(err)
