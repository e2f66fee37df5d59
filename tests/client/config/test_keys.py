"""Spellings: snake_case, camelCase and aliases of one setting, and the schema agreeing with them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mcpnb.client.config import (
    AuthConfig,
    ServerConfig,
    schema,
)
from mcpnb.client.config.keys import ALIASES, AUTH_ALIASES, TRANSPORTS

from .helpers import assert_located, config_error


@pytest.mark.parametrize(
    ("key", "value", "field", "expected"),
    [
        ("startupTimeoutSec", 5, "startup_timeout", 5.0),
        ("startup_timeout_sec", 5, "startup_timeout", 5.0),
        ("startup_timeout", 5, "startup_timeout", 5.0),
        ("toolTimeoutSec", 7.5, "tool_timeout", 7.5),
        ("tool_timeout_sec", 7.5, "tool_timeout", 7.5),
        ("tool_timeout", 7.5, "tool_timeout", 7.5),
        ("maxTotalTimeoutSec", 900, "max_total_timeout", 900.0),
        ("enabledTools", ["a", "b"], "enabled_tools", ("a", "b")),
        ("enabled_tools", ["a"], "enabled_tools", ("a",)),
        ("disabledTools", ["x"], "disabled_tools", ("x",)),
        ("maxRetries", 0, "max_retries", 0),
        ("retryDelay", 500, "retry_delay", 0.5),  # the plan's camelCase time keys count milliseconds
        ("healthCheckInterval", 0, "health_check_interval", 0.0),
        ("cacheTtl", 10_000, "cache_ttl", 10.0),
        ("max_message_mb", 64, "max_message_mb", 64.0),
        ("era", "legacy", "era", "legacy"),
        ("enabled", False, "enabled", False),
    ],
)
def test_camel_and_snake_spellings(key: str, value: Any, field: str, expected: Any) -> None:
    cfg = ServerConfig.from_dict("s", {"command": "python", key: value})
    assert getattr(cfg, field) == expected
    defaults = ServerConfig(name="s", transport="stdio", command="python")
    assert getattr(defaults, field) != expected  # the key changed something


def test_two_spellings_of_one_setting_is_an_error() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {"command": "x", "startupTimeoutSec": 1, "startup_timeout": 2},
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="startup_timeout")
    assert "startupTimeoutSec" in str(err)


def test_spellings_give_equal_configs() -> None:
    camel = ServerConfig.from_dict(
        "s", {"type": "stdio", "command": "x", "toolTimeoutSec": 3, "enabledTools": ["a"]}
    )
    snake = ServerConfig.from_dict(
        "s", {"transport": "stdio", "command": "x", "tool_timeout": 3.0, "enabled_tools": ["a"]}
    )
    assert camel == snake and hash(camel) == hash(snake)


def test_two_spellings_of_one_auth_setting_is_an_error() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {"url": "http://h/mcp", "auth": {"type": "bearer", "token_env": "A", "tokenEnv": "B"}},
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="auth.tokenEnv")
    assert "'auth.token_env'" in str(err)


def test_every_spelling_in_the_schema_sets_a_field() -> None:
    """The schema and the spelling tables list the same keys: no spelling validates but sets nothing."""
    defs = schema()["$defs"]
    server_fields = {f.name for f in dataclasses.fields(ServerConfig)} - {"name", "server", "source"}
    assert {ALIASES.get(k, k) for k in defs["server"]["properties"]} == server_fields
    assert set(ALIASES) <= set(defs["server"]["properties"])
    auth_fields = {f.name for f in dataclasses.fields(AuthConfig)} - {"server_name", "source"}
    assert {AUTH_ALIASES.get(k, k) for k in defs["auth"]["properties"]} == auth_fields
    assert set(AUTH_ALIASES) <= set(defs["auth"]["properties"])
    assert set(defs["transport"]["enum"]) == set(TRANSPORTS)


@pytest.mark.parametrize(
    ("value", "said"), [(0, "must be greater than 0"), ("big", "expected a number, got a string ('big')")]
)
def test_max_message_mb_must_be_a_positive_number(value: Any, said: str) -> None:
    given = {"command": "x", "max_message_mb": value}
    err = config_error(ServerConfig.from_dict, "s", given, source="f.json")
    assert_located(err, file="f.json", server="s", key="max_message_mb")
    assert said in str(err)
