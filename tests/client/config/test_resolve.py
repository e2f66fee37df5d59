"""The checks after the schema: transport inference, keys of the other transport, tools, cwd, roots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcpnb.client.config import (
    ServerConfig,
    load_file,
)

from .helpers import TOKEN, assert_located, config_error, servers, write


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
    from mcp.server.lowlevel import Server

    class MyServer(Server):
        pass

    obj = MyServer("mine")
    cfg = ServerConfig.build("s", server=obj)
    assert cfg.transport == "inprocess" and cfg.server is obj and cfg.source == "<code>"
    assert cfg.target == "<in-process mine>"  # the name it gave itself


def test_a_server_object_the_sdk_cannot_run_is_refused_by_name() -> None:
    err = config_error(ServerConfig.build, "s", server={"tools": []})
    assert_located(err, file="<code>", server="s", key="server")
    assert (
        "an in-process server is an MCP server object (mcp's MCPServer or Server, or a FastMCP), not a dict"
        in str(err)
    )


def test_transport_that_contradicts_the_keys() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "stdio", "url": "http://h/mcp"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert err.suggestion == "http"


def test_inprocess_cannot_come_from_a_file() -> None:
    err = config_error(ServerConfig.from_dict, "s", {"type": "inprocess"}, source="f.json")
    assert_located(err, file="f.json", server="s", key="type")
    assert "server object" in str(err)


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


def test_not_a_number_from_code() -> None:
    err = config_error(ServerConfig.build, "s", command="x", tool_timeout=float("nan"))
    assert_located(err, file="<code>", server="s", key="tool_timeout")


def test_relative_cwd_is_relative_to_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "proj" / ".mcp.json", servers(s={"command": "x", "cwd": "tools"}))
    assert load_file(path)["s"].cwd == str(tmp_path / "proj" / "tools")
    assert ServerConfig.build("s", command="x", cwd="tools").cwd == "tools"


def test_roots_are_absolute_relative_to_the_file_and_expanded(tmp_path: Path, monkeypatch: Any) -> None:
    """Roots go out as file URIs, which are absolute: relative to the file, or to the working directory."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    path = write(
        tmp_path / "proj" / ".mcp.json", servers(s={"url": "http://h/mcp", "roots": [".", "${DATA_DIR}"]})
    )
    assert load_file(path)["s"].roots == (str(tmp_path / "proj"), str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert ServerConfig.build("s", command="x", roots=["here"]).roots == (str(tmp_path / "here"),)
    err = config_error(ServerConfig.from_dict, "s", {"command": "x", "roots": "/tmp"}, source="f.json")
    assert "did you mean" in str(err) and '["/tmp"]' in str(err)


# ---------------------------------------------------------------- a Windows user's settings


@pytest.mark.parametrize(
    ("entry", "key", "said"),
    [
        (
            {"command": "C:\nodejs\npx.cmd"},
            "command",
            "holds a line break (\\n): in JSON a backslash starts an escape",
        ),
        ({"command": "npx", "cwd": "C:\temp"}, "cwd", "holds a tab (\\t)"),
    ],
)
def test_a_path_a_json_escape_ate_into_says_to_double_the_backslashes(
    entry: dict[str, Any], key: str, said: str
) -> None:
    """``"C:\\nodejs"`` in a JSON file is ``C:``, a line break and ``odejs``: valid JSON, no path."""
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ={})
    assert_located(err, file="f.json", server="s", key=key)
    assert said in str(err) and "each backslash written twice" in str(err)


@pytest.mark.skipif(os.name == "nt", reason="a Windows path is this machine's own there")
@pytest.mark.parametrize(
    ("entry", "key", "said"),
    [
        ({"command": "C:\\Program Files\\nodejs\\npx.cmd"}, "command", "is a Windows path"),
        ({"command": "npx", "cwd": "C:\\Users\\me\\proj"}, "cwd", "is a Windows path"),
        ({"command": "npx", "cwd": "D:/work"}, "cwd", "is a Windows path"),
        ({"command": "npx", "roots": ["\\\\server\\share\\data"]}, "roots[0]", "is a Windows path"),
        ({"command": "npx", "cwd": "${HOME}\\proj"}, "cwd", "separates folders with backslashes"),
        ({"command": "cmd", "args": ["/c", "npx", "-y", "x"]}, "command", "is Windows' shell"),
        ({"command": "sh.exe"}, "command", "is Windows' name for 'sh'"),
    ],
)
def test_a_windows_path_on_this_machine_is_said_as_one(
    tmp_path: Path, entry: dict[str, Any], key: str, said: str
) -> None:
    """Not a file name beside the config file (``/proj/C:\\Users\\me``), nor "command not found"."""
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ={"HOME": str(tmp_path)})
    assert_located(err, file="f.json", server="s", key=key)
    assert said in str(err)


def test_a_vs_code_file_from_windows_says_its_backslashes(tmp_path: Path) -> None:
    from mcpnb.client.config import load_config

    entry = {"type": "stdio", "command": "npx", "cwd": "${workspaceFolder}\\server"}
    path = write(tmp_path / ".vscode" / "mcp.json", {"servers": {"s": entry}})
    found = load_config(
        path=path, environ={"MCPNB_USER_CONFIG": str(tmp_path / "none.json")}, keep_going=True
    )
    assert "separates folders with backslashes" in found.problems["s"]


def test_values_from_a_windows_environment_lose_their_line_endings() -> None:
    """``TOKEN=$(cat token.txt)`` of a file saved on Windows, ``docker --env-file`` of one: ``\\r``."""
    env = {"TOKEN": f"{TOKEN}\r", "DOCS_URL": "https://docs.example.com/mcp\r\n"}
    entry = {"url": "${DOCS_URL}", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": " data "}}
    config = ServerConfig.from_dict("s", entry, environ=env)
    assert config.url == "https://docs.example.com/mcp"
    assert dict(config.headers) == {"Authorization": f"Bearer {TOKEN}", "X-Team": "data"}
    assert TOKEN not in repr(config)


@pytest.mark.parametrize("value", ["", "  ", "\r"])
def test_a_variable_set_to_nothing_is_named_where_it_empties_a_setting(value: str) -> None:
    env = {"TOKEN": value, "CMD": value, "URL": value}
    for entry, key in [
        ({"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}, "headers.Authorization"),
        ({"command": "${CMD}"}, "command"),
        ({"url": "${URL}"}, "url"),
    ]:
        err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ=env)
        assert_located(err, file="f.json", server="s", key=key)
        assert "is set, but to nothing" in str(err)


@pytest.mark.parametrize(
    ("header", "written", "sent"),
    [("X-Trace", "${TRACE}", ""), ("User-Agent", "mcpnb ${TRACE}", "mcpnb")],
)
def test_a_variable_set_to_nothing_in_a_header_without_a_credential_is_sent_as_it_comes_out(
    header: str, written: str, sent: str
) -> None:
    """An empty trace id or suffix is a value like any other (these connected before the empty
    variable check, which refused them); only a credential header is refused."""
    entry = {"url": "https://h/mcp", "headers": {header: written}}
    config = ServerConfig.from_dict("s", entry, source="f.json", environ={"TRACE": ""})
    assert dict(config.headers) == {header: sent}


@pytest.mark.parametrize("header", ["Proxy-Authorization", "X-Api-Key", "X-Auth-Token", "Cookie"])
def test_a_variable_set_to_nothing_in_a_credential_header_is_named(header: str) -> None:
    entry = {"url": "https://h/mcp", "headers": {header: "${SECRET}"}}
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ={"SECRET": " "})
    assert_located(err, file="f.json", server="s", key=f"headers.{header}")
    assert "'SECRET' is set, but to nothing" in str(err)


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ({"command": "${NODE}"}, "command"),
        ({"command": "npx", "cwd": "${PROJ}"}, "cwd"),
        ({"command": "npx", "roots": ["/srv", "${PROJ:-/x}/data"]}, "roots[1]"),
    ],
)
def test_a_control_character_from_a_variable_names_the_variable_not_json_escapes(
    entry: dict[str, Any], key: str
) -> None:
    """The file is fine: the variable (set from a Windows file, a heredoc) holds the line break."""
    env = {"NODE": "/usr/bin/node\n", "PROJ": "/home/me/proj\n"}
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ=env)
    assert_located(err, file="f.json", server="s", key=key)
    name = "NODE" if key == "command" else "PROJ"
    assert f"came from the variable {name!r}" in str(err) and "JSON" not in str(err)


@pytest.mark.skipif(os.name == "nt", reason="backslashes separate folders there")
@pytest.mark.parametrize("key", ["cwd", "roots"])
def test_a_folder_with_a_backslash_in_its_name_beside_the_config_file_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """A Linux folder may have a backslash in its name; one that exists where the path is read
    (beside the config file, not in the kernel's working directory) is that folder."""
    (tmp_path / "proj" / "sub\\dir").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    value = "sub\\dir" if key == "cwd" else ["sub\\dir"]
    path = write(tmp_path / "proj" / ".mcp.json", servers(s={"command": "npx", key: value}))
    config = load_file(path)["s"]
    got = config.cwd if key == "cwd" else config.roots[0]
    assert got == str(tmp_path / "proj" / "sub\\dir")


def test_a_line_break_inside_a_header_is_refused_without_showing_it() -> None:
    env = {"TOKEN": f"{TOKEN}\nX-Injected: 1"}
    entry = {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
    err = config_error(ServerConfig.from_dict, "s", entry, source="f.json", environ=env)
    assert "line break" in str(err) and "'TOKEN'" in str(err) and TOKEN not in str(err)


def test_a_token_with_a_windows_line_ending_reaches_the_server(
    pool: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """The same token in a header and in ``auth.token_env``: both connect (the request failed with
    "Illegal header value" before), and the token shows nowhere."""
    from conftest import HttpServer

    server = HttpServer("http", "--require-token", TOKEN)
    try:
        monkeypatch.setenv("WIN_TOKEN", f"{TOKEN}\r")
        path = write(
            tmp_path / ".mcp.json",
            servers(
                header={"url": server.url, "headers": {"Authorization": "Bearer ${WIN_TOKEN}"}},
                auth={"url": server.url, "auth": {"type": "bearer", "token_env": "WIN_TOKEN"}},
            ),
        )
        table = pool.connect_config(path)
        assert {row.name: row.state for row in table} == {
            "header": "connected",
            "auth": "connected",
        }
        for name in ("header", "auth"):
            assert pool.call(name, "header", {"name": "authorization"}).text == f"Bearer {TOKEN}"
        assert TOKEN not in repr(pool.status())
    finally:
        server.stop()
