"""``${VAR}`` and ``${VAR:-default}`` expansion, ``$${`` escapes, and variables that name secrets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpnb.client.config import (
    ServerConfig,
)
from mcpnb.client.config.expand import escape, expand
from mcpnb.client.errors import ConfigError

from .helpers import TOKEN, assert_located, config_error, write


def never(message: str, suggestion: str | None = None) -> ConfigError:
    raise AssertionError(message)


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


def test_replace_does_not_expand_twice() -> None:
    cfg = ServerConfig.from_dict("s", {"command": "x", "args": ["$${LITERAL}"]}, environ={})
    assert cfg.args == ("${LITERAL}",)
    assert cfg.replace(tool_timeout=2).args == ("${LITERAL}",)
    assert cfg.replace(args=["${NEW:-fresh}"]).args == ("fresh",)


def test_values_of_secret_variables_are_collected() -> None:
    found: set[str] = set()
    text = expand("${GH_TOKEN} ${HOME} ${API_KEY:-dflt-key}", {"GH_TOKEN": TOKEN, "HOME": "/h"}, never, found)
    assert text == f"{TOKEN} /h dflt-key" and found == {TOKEN, "dflt-key"}


@given(st.text(alphabet="${}:-A_x ", max_size=40))
def test_expansion_undoes_escape(text: str) -> None:
    assert expand(escape(text), {}, never, set()) == text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("${env:GH_TOKEN}", "VS Code's ${env:GH_TOKEN} is ${GH_TOKEN} here"),
        ("Bearer ${input:token}", "${input:token} is a VS Code prompt, which these files do not have"),
        (
            "${workspaceFolder}/src",
            "VS Code's ${workspaceFolder} is not expanded here: write the path itself",
        ),
    ],
)
def test_a_vs_code_variable_says_what_to_write_instead(text: str, said: str) -> None:
    """Configs are copied from .vscode/mcp.json: its variables get the spelling that works here."""
    err = config_error(
        ServerConfig.from_dict, "s", {"command": "x", "args": [text]}, source="f.json", environ={}
    )
    assert_located(err, file="f.json", server="s", key="args[0]")
    assert said in str(err)


@pytest.mark.parametrize("name", [".mcp.json", "claude_desktop_config.json", "mcp.json"])
def test_a_vs_code_input_pasted_into_another_format_says_what_it_is_and_what_to_do(
    tmp_path: Path, name: str
) -> None:
    """Said first, not as a "malformed variable reference", and never started with the text as written."""
    from mcpnb.client.config import load_config

    entry = {"command": "npx", "env": {"GITHUB_TOKEN": "${input:github_token}"}}
    path = write(tmp_path / name, {"mcpServers": {"gh": entry, "ok": {"command": "npx"}}})
    found = load_config(
        path=path, environ={"MCPNB_USER_CONFIG": str(tmp_path / "none.json")}, keep_going=True
    )
    said = found.problems["gh"]
    assert list(found.servers) == ["ok"] and "malformed" not in said
    assert "key 'env.GITHUB_TOKEN': ${input:github_token} is a VS Code prompt" in said
    assert "write ${VAR}" in said and "--input github_token=VALUE" in said
