"""The configuration layer: real files in tmp_path, three layers, ${VAR}, validation, redaction."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from mcpnb.config import (
    AuthConfig,
    ConfigSet,
    ServerConfig,
    find_project_config,
    load_config,
    load_file,
    schema,
    user_config_path,
)
from mcpnb.errors import ConfigError

TOKEN = "tok-SECRET-4f9a1c"
PASSWORD = "pw-SECRET-77b2"
ENV_VALUE = "env-SECRET-31d0"
API_KEY = "key-SECRET-aa51"


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def servers(**entries: Any) -> dict[str, Any]:
    return {"mcpServers": entries}


def config_error(call: Any, *args: Any, **kwargs: Any) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        call(*args, **kwargs)
    return info.value


def assert_located(err: ConfigError, *, file: str | None, server: str | None, key: str | None) -> None:
    """The error says where: as attributes (for tools) and in the text (for people)."""
    assert (err.file, err.server, err.key) == (file, server, key)
    for part in (file, server, key):
        if part is not None:
            assert part in str(err)


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """An environment whose user layer is a file under tmp_path (absent until a test writes it)."""
    return {"MCPNB_USER_CONFIG": str(tmp_path / "user" / "mcp.json"), "HOME": str(tmp_path)}


# ---------------------------------------------------------------- spellings
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
        ("retryDelay", 0.5, "retry_delay", 0.5),
        ("healthCheckInterval", 0, "health_check_interval", 0.0),
        ("cacheTtl", 10, "cache_ttl", 10.0),
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


# ---------------------------------------------------------------- transport
@pytest.mark.parametrize(
    ("entry", "transport"),
    [
        ({"command": "python"}, "stdio"),
        ({"url": "http://127.0.0.1:8000/mcp"}, "http"),
        ({"url": "http://127.0.0.1:8000/sse"}, "sse"),
        ({"url": "http://127.0.0.1:8000/sse/"}, "sse"),
        ({"url": "http://127.0.0.1:8000/sse?x=1"}, "sse"),
        ({"url": "http://h/sse", "type": "http"}, "http"),
        ({"url": "http://h/events", "type": "sse"}, "sse"),
        ({"url": "http://h/mcp", "type": "streamable-http"}, "http"),
        ({"url": "http://h/mcp", "type": "streamableHttp"}, "http"),
        ({"url": "http://h/mcp", "transport": "http"}, "http"),
        ({"command": "python", "type": "stdio"}, "stdio"),
    ],
)
def test_transport_inference(entry: dict[str, Any], transport: str) -> None:
    assert ServerConfig.from_dict("s", entry).transport == transport


def test_server_object_means_inprocess() -> None:
    class MyServer:
        pass

    obj = MyServer()
    cfg = ServerConfig.build("s", server=obj)
    assert cfg.transport == "inprocess" and cfg.server is obj and cfg.source == "<code>"
    assert cfg.target == "<in-process MyServer>"


def test_transport_that_contradicts_the_keys() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "stdio", "url": "http://h/mcp"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert err.suggestion == "http"


def test_inprocess_cannot_come_from_a_file() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "inprocess"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert "server object" in str(err)


def test_bad_transport_value_suggests() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "htp", "url": "http://h"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert err.suggestion == "http" and "'htp'" in str(err)


def test_url_must_be_http() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"url": "ftp://h/x?token=abcdef99"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="url")
    assert "abcdef99" not in str(err)


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ({"url": "http://h/mcp", "args": ["-v"]}, "args"),
        ({"url": "http://h/mcp", "env": {"A": "b"}}, "env"),
        ({"command": "x", "headers": {"Accept": "x"}}, "headers"),
        ({"command": "x", "auth": {"type": "bearer", "token": "abcd"}}, "auth"),
    ],
)
def test_keys_of_the_other_transport(entry: dict[str, Any], key: str) -> None:
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)


# ---------------------------------------------------------------- ${VAR}
def test_variables_expand_in_every_string_setting() -> None:
    env = {"BIN": "python3", "MOD": "srv", "DIR": "/srv", "HOST": "h.example", "TOK": TOKEN, "NAME": "ann"}
    stdio = ServerConfig.from_dict(
        "s",
        {
            "command": "${BIN}",
            "args": ["-m", "${MOD}", "--level=${LEVEL:-info}"],
            "env": {"T": "${TOK}"},
            "cwd": "${DIR}",
        },
        environ=env,
    )
    assert (stdio.command, stdio.args, dict(stdio.env), stdio.cwd) == (
        "python3",
        ("-m", "srv", "--level=info"),
        {"T": TOKEN},
        "/srv",
    )
    http = ServerConfig.from_dict(
        "h",
        {
            "url": "https://${HOST}/mcp",
            "headers": {"X-User": "${NAME}"},
            "auth": {"type": "basic", "username": "${NAME}", "password": "${PW:-fallback-pw}"},
        },
        environ=env,
    )
    assert http.url == "https://h.example/mcp" and http.headers == {"X-User": "ann"}
    assert http.auth is not None and (http.auth.username, http.auth.password) == ("ann", "fallback-pw")


def test_default_applies_to_unset_and_empty_variables() -> None:
    cfg = ServerConfig.from_dict(
        "s", {"command": "x", "args": ["${A:-one}", "${B:-two}", "${C:-}"]}, environ={"A": ""}
    )
    assert cfg.args == ("one", "two", "")


def test_dollar_dollar_escapes_a_literal() -> None:
    cfg = ServerConfig.from_dict(
        "s", {"command": "x", "args": ["$${HOME}", "$HOME", "a$$${B}"]}, environ={"B": "b"}
    )
    assert cfg.args == ("${HOME}", "$HOME", "a$${B}")


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ({"command": "${MISSING_BIN}"}, "command"),
        ({"command": "x", "args": ["ok", "${MISSING_BIN}"]}, "args[1]"),
        ({"command": "x", "env": {"TOKEN": "${MISSING_BIN}"}}, "env.TOKEN"),
        (
            {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${MISSING_BIN}"}},
            "headers.Authorization",
        ),
        ({"url": "http://h/${MISSING_BIN}"}, "url"),
        ({"url": "http://h/mcp", "auth": {"type": "bearer", "token": "${MISSING_BIN}"}}, "auth.token"),
    ],
)
def test_missing_variable_names_variable_server_key_and_file(entry: dict[str, Any], key: str) -> None:
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ={"MISSING_BIM": "x"})
    assert_located(err, file="f.json", server="s", key=key)
    assert "'MISSING_BIN'" in str(err) and "not set" in str(err)
    assert err.suggestion == "MISSING_BIM"


@pytest.mark.parametrize("text", ["${", "${1X}", "${A:default}", "${A:-${B}}"])
def test_malformed_variable_reference(text: str) -> None:
    err = config_error(
        ServerConfig.from_dict, "s", {"command": "x", "args": [text]}, source="f.json", environ={}
    )
    assert_located(err, file="f.json", server="s", key="args[0]")


def test_variable_names_for_secrets_are_not_expanded() -> None:
    """``token_env`` holds a *name*; writing ``${X}`` there would put the secret where names are shown."""
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {"url": "http://h/mcp", "auth": {"type": "bearer", "tokenEnv": "${GH_TOKEN}"}},
        source="f.json",
        environ={"GH_TOKEN": TOKEN},
    )
    assert_located(err, file="f.json", server="s", key="auth.tokenEnv")
    assert err.suggestion == "GH_TOKEN" and TOKEN not in str(err)


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("comand", "command"),
        ("startupTimeout", "startupTimeoutSec"),
        ("toolTimeoutsec", "toolTimeoutSec"),
        ("enviroment", None),
        ("disabled", "enabled"),
        ("arg", "args"),
    ],
)
def test_unknown_key_suggests_the_closest(key: str, suggestion: str | None) -> None:
    err = config_error(ServerConfig.from_dict, "gh", {"command": "x", key: 1}, source="/p/.mcp.json")
    assert_located(err, file="/p/.mcp.json", server="gh", key=key)
    assert err.suggestion == suggestion
    if suggestion:
        assert f"did you mean {suggestion!r}" in str(err)


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
        ({"command": "x", "maxRetries": 2.5}, "maxRetries", ("expected a whole number", "got a number")),
        ({"command": "x", "env": {"PORT": 8080}}, "env.PORT", ("expected a string", "got a number")),
        ({"command": "x", "env": ["A=b"]}, "env", ("expected an object", "got a list")),
        ({"command": "x", "enabledTools": "echo"}, "enabledTools", ("expected a list", "got a string")),
    ],
)
def test_wrong_type_says_expected_and_got(entry: dict[str, Any], key: str, words: tuple[str, ...]) -> None:
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)
    for word in words:
        assert word in str(err)


def test_entry_that_is_not_an_object() -> None:
    err = config_error(ServerConfig.from_dict, "s", ["python"], source="f.json")
    assert_located(err, file="f.json", server="s", key=None)
    assert "got a list" in str(err)


def test_both_command_and_url() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"command": "x", "url": "http://h"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="url")
    assert "'command'" in str(err) and "'url'" in str(err)


def test_neither_command_nor_url() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"toolTimeoutSec": 5}, source="f.json")
    assert_located(err, file="f.json", server="s", key="command")
    assert "neither" in str(err)


def test_server_object_with_a_command() -> None:
    err = config_error(ServerConfig.build, "s", command="python", server=object())
    assert_located(err, file="<code>", server="s", key="command")


def test_tool_both_enabled_and_disabled_names_the_tool() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {"command": "x", "enabledTools": ["echo", "add"], "disabledTools": ["add"]},
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="disabledTools")
    assert "'add'" in str(err) and "'echo'" not in str(err)


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


def test_not_a_number_from_code() -> None:
    err = config_error(ServerConfig.build, "s", command="x", tool_timeout=float("nan"))
    assert_located(err, file="<code>", server="s", key="tool_timeout")


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


@pytest.mark.parametrize(
    ("auth", "key"),
    [
        ({"type": "bearer"}, "auth"),
        ({"type": "bearer", "token": "abcd", "token_env": "T"}, "auth.token_env"),
        ({"type": "bearer", "token": "abcd", "username": "u"}, "auth.username"),
        ({"type": "basic", "password": "p"}, "auth"),
        ({"type": "basic", "username": "u"}, "auth"),
        ({"type": "oauth"}, "auth"),
        ({"type": "oauth", "client_id": "c"}, "auth"),
        ({"token": "abcd"}, "auth.type"),
        ({"type": "jwt"}, "auth.type"),
        ({"type": "oauth", "flow": "implicit"}, "auth.flow"),
    ],
)
def test_auth_validation(auth: dict[str, Any], key: str) -> None:
    err = config_error(ServerConfig.from_dict, "s", {"url": "http://h/mcp", "auth": auth}, source="f.json")
    assert_located(err, file="f.json", server="s", key=key)


def test_valid_auth_shapes() -> None:
    ok = [
        {"type": "bearer", "token_env": "T"},
        {"type": "basic", "username": "u", "passwordEnv": "P"},
        {"type": "oauth", "clientId": "c", "clientSecretEnv": "S", "scope": "read", "tokenStorage": "file"},
        {"type": "oauth", "flow": "authorization_code"},
    ]
    kinds = [ServerConfig.from_dict("s", {"url": "http://h/mcp", "auth": a}).auth for a in ok]
    assert [a.type for a in kinds if a] == ["bearer", "basic", "oauth", "oauth"]
    assert kinds[2] is not None and (kinds[2].client_secret_env, kinds[2].token_storage) == ("S", "file")


def test_authorization_header_and_auth_together() -> None:
    err = config_error(
        ServerConfig.from_dict,
        "s",
        {
            "url": "http://h",
            "headers": {"authorization": "Bearer x"},
            "auth": {"type": "bearer", "token": "abcd"},
        },
        source="f.json",
    )
    assert_located(err, file="f.json", server="s", key="headers.authorization")


# ---------------------------------------------------------------- build / replace
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


def test_replace_does_not_expand_twice() -> None:
    cfg = ServerConfig.from_dict("s", {"command": "x", "args": ["$${LITERAL}"]}, environ={})
    assert cfg.args == ("${LITERAL}",)
    assert cfg.replace(tool_timeout=2).args == ("${LITERAL}",)
    assert cfg.replace(args=["${NEW:-fresh}"]).args == ("fresh",)


def test_equality_and_identity_of_server_objects() -> None:
    a, b = object(), object()
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


def test_relative_cwd_is_relative_to_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "proj" / ".mcp.json", servers(s={"command": "x", "cwd": "tools"}))
    assert load_file(path)["s"].cwd == str(tmp_path / "proj" / "tools")
    assert ServerConfig.build("s", command="x", cwd="tools").cwd == "tools"


# ---------------------------------------------------------------- files
def test_load_file_reads_every_server(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".mcp.json",
        {
            "$schema": "ignored",
            "mcpServers": {
                "time": {"command": "python", "args": ["-m", "mcp_server_time"]},
                "remote": {"type": "http", "url": "https://h/mcp", "enabled": False},
            },
        },
    )
    found = load_file(path)
    assert list(found) == ["time", "remote"]
    assert found["time"].transport == "stdio" and found["remote"].enabled is False
    assert found["time"].source == str(path)


@pytest.mark.parametrize(
    ("text", "line", "column", "hint"),
    [
        ('{"mcpServers": {\n  "a": {"command": "x",}\n}}', 2, 24, "trailing comma"),
        ('{"mcpServers": {\n  // comment\n}}', 2, 3, "comments"),
        ('{"mcpServers": {"a": {"command": "x"}}', 1, 39, None),
        ("", 1, 1, None),
    ],
)
def test_json_syntax_errors_give_line_and_column(
    tmp_path: Path, text: str, line: int, column: int, hint: str | None
) -> None:
    path = write(tmp_path / ".mcp.json", text)
    err = config_error(load_file, path)
    assert err.file == str(path)
    assert f"line {line}, column {column}" in str(err)
    if hint:
        assert hint in str(err)


@pytest.mark.parametrize(
    ("data", "key", "suggestion"),
    [
        ({"mcpServer": {}}, "mcpServer", "mcpServers"),
        ({"servers": {"a": {"command": "x"}}}, "servers", "mcpServers"),
        ({"mcp_servers": {}}, "mcp_servers", "mcpServers"),
        ({"mcpServers": {}, "mcpservers": {}}, "mcpservers", "mcpServers"),
        ({"other": 1}, None, None),
        ({"mcpServers": []}, "mcpServers", None),
        ([{"mcpServers": {}}], None, None),
    ],
)
def test_top_level_shape(tmp_path: Path, data: Any, key: str | None, suggestion: str | None) -> None:
    path = write(tmp_path / ".mcp.json", data)
    err = config_error(load_file, path)
    assert_located(err, file=str(path), server=None, key=key)
    assert err.suggestion == suggestion


def test_other_top_level_keys_are_ignored(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"a": {"command": "x"}}, "inputs": [], "version": 2})
    assert list(load_file(path)) == ["a"]


def test_duplicate_keys_are_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}')
    err = config_error(load_file, path)
    assert_located(err, file=str(path), server=None, key="a")


def test_error_in_file_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", servers(gh={"comand": "npx"}))
    err = config_error(load_file, path)
    assert_located(err, file=str(path), server="gh", key="comand")
    assert err.suggestion == "command"


def test_invalid_server_name_in_file(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", servers(**{"git.hub": {"command": "x"}}))
    err = config_error(load_file, path)
    assert err.file == str(path) and err.suggestion == "git-hub"


# ---------------------------------------------------------------- layers
def test_find_project_config_walks_upward(tmp_path: Path) -> None:
    project = write(tmp_path / "proj" / ".mcp.json", servers())
    nested = tmp_path / "proj" / "notebooks" / "deep"
    nested.mkdir(parents=True)
    assert find_project_config(nested) == project
    assert find_project_config(tmp_path) is None


def test_user_config_path(tmp_path: Path) -> None:
    assert user_config_path({"MCPNB_USER_CONFIG": str(tmp_path / "u.json")}) == tmp_path / "u.json"
    default = user_config_path({})
    assert default.name == "mcp.json" and default.parent.name == "mcpnb"


def test_three_layers_and_overrides(tmp_path: Path, environ: dict[str, str]) -> None:
    user = write(
        Path(environ["MCPNB_USER_CONFIG"]),
        servers(
            shared={"command": "user-cmd", "toolTimeoutSec": 10, "maxRetries": 1, "cacheTtl": 5},
            only_user={"url": "http://user/mcp"},
        ),
    )
    project = write(
        tmp_path / "proj" / ".mcp.json",
        servers(
            shared={"command": "proj-cmd", "args": ["-p"], "tool_timeout": 20}, only_project={"command": "p"}
        ),
    )
    local = write(tmp_path / "proj" / ".mcp.local.json", servers(shared={"maxRetries": 5}))
    nested = tmp_path / "proj" / "nb"
    nested.mkdir()
    found = load_config(nested, environ=environ, overrides={"shared": {"retry_delay": 0.25}})
    assert found.files == (user, project, local)
    shared = found.servers["shared"]
    assert (shared.command, shared.args, shared.tool_timeout) == (
        "proj-cmd",
        ("-p",),
        20.0,
    )  # project over user
    assert shared.max_retries == 5  # local over user
    assert shared.cache_ttl == 5.0  # only the user layer set it: kept key by key
    assert shared.retry_delay == 0.25  # overrides win
    assert shared.source == "<code>"
    assert found.servers["only_user"].source == str(user)
    assert found.servers["only_project"].source == str(project)
    assert set(found) == {"shared", "only_user", "only_project"}


def test_source_is_the_last_file_that_set_the_server(tmp_path: Path, environ: dict[str, str]) -> None:
    write(tmp_path / ".mcp.json", servers(a={"command": "x"}, b={"command": "y"}))
    local = write(tmp_path / ".mcp.local.json", servers(a={"enabled": False}))
    found = load_config(tmp_path, environ=environ)
    assert found.servers["a"].source == str(local) and found.servers["a"].command == "x"
    assert found.servers["b"].source == str(tmp_path / ".mcp.json")
    assert list(found.enabled()) == ["b"]


def test_transport_keys_are_replaced_not_merged(tmp_path: Path, environ: dict[str, str]) -> None:
    write(
        Path(environ["MCPNB_USER_CONFIG"]),
        servers(
            s={
                "command": "python",
                "args": ["-m", "srv"],
                "env": {"A": "1"},
                "cwd": "/x",
                "toolTimeoutSec": 7,
            }
        ),
    )
    write(tmp_path / ".mcp.json", servers(s={"url": "http://127.0.0.1:9/mcp", "headers": {"Accept": "x"}}))
    write(tmp_path / ".mcp.local.json", servers(s={"type": "sse", "url": "http://127.0.0.1:9/events"}))
    s = load_config(tmp_path, environ=environ).servers["s"]
    assert (s.transport, s.url, s.command, s.args, s.env, s.cwd) == (
        "sse",
        "http://127.0.0.1:9/events",
        None,
        (),
        {},
        None,
    )
    assert s.headers == {}  # the local layer named a transport: the project's headers went with it
    assert s.tool_timeout == 7.0  # non-transport keys still merge


def test_env_and_headers_merge_entry_by_entry(tmp_path: Path, environ: dict[str, str]) -> None:
    write(tmp_path / ".mcp.json", servers(s={"command": "x", "env": {"API_URL": "https://api", "MODE": "a"}}))
    write(tmp_path / ".mcp.local.json", servers(s={"env": {"API_KEY": "${KEY}", "MODE": "b"}}))
    s = load_config(tmp_path, environ={**environ, "KEY": API_KEY}).servers["s"]
    assert dict(s.env) == {"API_URL": "https://api", "MODE": "b", "API_KEY": API_KEY}


def test_missing_files_are_skipped(tmp_path: Path, environ: dict[str, str]) -> None:
    assert load_config(tmp_path, environ=environ) == ConfigSet(servers={}, files=())
    write(tmp_path / ".mcp.json", servers(a={"command": "x"}))
    assert load_config(tmp_path, environ=environ).files == (tmp_path / ".mcp.json",)


def test_explicit_path_and_its_local_file(tmp_path: Path, environ: dict[str, str]) -> None:
    chosen = write(tmp_path / "conf" / "servers.json", servers(a={"command": "x"}))
    local = write(tmp_path / "conf" / ".mcp.local.json", servers(a={"toolTimeoutSec": 3}))
    write(tmp_path / ".mcp.json", servers(ignored={"command": "y"}))
    found = load_config(tmp_path, path=chosen, environ=environ)
    assert found.files == (chosen, local) and list(found) == ["a"] and found["a"].tool_timeout == 3
    err = config_error(load_config, path=tmp_path / "nope.json", environ=environ)
    assert err.file == str(tmp_path / "nope.json")


def test_layer_errors_name_the_layer_that_wrote_the_key(tmp_path: Path, environ: dict[str, str]) -> None:
    project = write(tmp_path / ".mcp.json", servers(s={"command": "x", "args": ["${NOPE}"]}))
    local = write(tmp_path / ".mcp.local.json", servers(s={"toolTimeoutSec": 5}))
    err = config_error(load_config, tmp_path, environ=environ)
    assert_located(err, file=str(project), server="s", key="args[0]")
    write(local, servers(s={"toolTimeout": 5}))
    err = config_error(load_config, tmp_path, environ=environ)
    assert_located(err, file=str(local), server="s", key="toolTimeout")
    assert err.suggestion == "toolTimeoutSec"


def test_a_merge_that_sets_both_command_and_url_is_reported(tmp_path: Path, environ: dict[str, str]) -> None:
    write(Path(environ["MCPNB_USER_CONFIG"]), servers(s={"command": "x"}))
    project = write(tmp_path / ".mcp.json", servers(s={"headers": {"Accept": "a"}}))
    err = config_error(load_config, tmp_path, environ=environ)
    assert_located(err, file=str(project), server="s", key="headers")


# ---------------------------------------------------------------- auth & secrets
def test_resolve_token_reads_the_environment_late() -> None:
    cfg = ServerConfig.from_dict(
        "gh", {"url": "https://h/mcp", "auth": {"type": "bearer", "token_env": "GH_TOKEN"}}
    )
    assert cfg.auth is not None
    assert cfg.auth.resolve_token({"GH_TOKEN": TOKEN}) == TOKEN
    err = config_error(cfg.auth.resolve_token, {"GH_TOKN": "x"})
    assert err.server == "gh" and "'GH_TOKEN'" in str(err) and err.suggestion == "GH_TOKN"
    err = config_error(cfg.auth.resolve_token, {"GH_TOKEN": ""})
    assert "empty" in str(err)


def test_resolve_password_and_client_secret() -> None:
    basic = AuthConfig(type="basic", username="u", password_env="PW")
    assert basic.resolve_password({"PW": PASSWORD}) == PASSWORD
    oauth = AuthConfig(type="oauth", client_id="c", client_secret="shh-secret")
    assert oauth.resolve_client_secret({}) == "shh-secret"
    assert AuthConfig(type="oauth", flow="authorization_code").resolve_client_secret({}) is None
    with pytest.raises(ConfigError):
        oauth.resolve_token({})


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
        {"command": "x", "env": {"T": ENV_VALUE, "N": 5}},
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


# ---------------------------------------------------------------- schema
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
