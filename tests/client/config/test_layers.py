"""Files and layers: real files in tmp_path, JSON errors, user/project/local merging."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpnb.client.config import (
    ConfigSet,
    find_project_config,
    load_config,
    load_file,
    user_config_path,
)
from mcpnb.client.errors import ConfigError

from .helpers import API_KEY, assert_located, config_error, servers, write


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
        # Python's own column: after the comma ("Expecting property name"); 3.13 points at the comma
        # itself and says "Illegal trailing comma" (so mcpnb adds no hint of its own there)
        (
            '{"mcpServers": {\n  "a": {"command": "x",}\n}}',
            2,
            23 if sys.version_info >= (3, 13) else 24,
            "trailing comma",
        ),
        ('{"mcpServers": {\n  // comment\n}}', 2, 3, "comments"),
        ('{"mcpServers": {"a": {"command": "x"}}', 1, 39, None),
        ('{"mcpServers": {"a": {"command": "x}}}', 1, 34, "Unterminated string (a missing closing quote?)"),
        ("", 1, 1, None),
    ],
)
def test_json_syntax_errors_give_line_and_column(
    tmp_path: Path, text: str, line: int, column: int, hint: str | None
) -> None:
    path = write(tmp_path / ".mcp.json", text)
    err = config_error(load_file, path)
    assert err.file == str(path) and str(err).count(str(path)) == 1  # named once
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
            shared={"command": "user-cmd", "toolTimeoutSec": 10, "maxRetries": 1, "cacheTtl": 5000},
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


def test_a_header_replaces_one_whose_name_differs_only_in_case(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    """HTTP names ignore case: ``x-api-key`` in the local file is the project's ``X-API-Key``, not a
    second header (two would both be sent, and the server would read either)."""
    url = "http://127.0.0.1:9/mcp"
    write(
        tmp_path / ".mcp.json",
        servers(s={"url": url, "headers": {"X-API-Key": "${OLD}", "Accept-Language": "fr"}}),
    )
    write(tmp_path / ".mcp.local.json", servers(s={"headers": {"x-api-key": "${KEY}"}}))
    s = load_config(tmp_path, environ={**environ, "KEY": API_KEY, "OLD": "old"}).servers["s"]
    assert dict(s.headers) == {"Accept-Language": "fr", "x-api-key": API_KEY}


def test_two_headers_one_name_in_one_entry_are_refused(tmp_path: Path, environ: dict[str, str]) -> None:
    both = {"url": "http://127.0.0.1:9/mcp", "headers": {"X-API-Key": "a", "x-api-key": "b"}}
    project = write(tmp_path / ".mcp.json", servers(s=both))
    err = config_error(load_config, tmp_path, environ=environ)
    assert_located(err, file=str(project), server="s", key="headers.x-api-key")
    assert "'X-API-Key' and 'x-api-key' are one header" in str(err)


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


def test_keep_going_leaves_out_only_the_invalid_servers(tmp_path: Path, environ: dict[str, str]) -> None:
    project = write(
        tmp_path / ".mcp.json",
        servers(
            good={"command": "x"},
            typo={"comand": "x"},  # an unknown key: invalid on its own
            unset={"command": "x", "args": ["${NOPE}"]},  # invalid once assembled
            later={"command": "x"},
            web={"url": "https://h/mcp", "headerz": {}},
            events={"url": "https://h/sse", "timeout": 3},
            named={"type": "streamableHttp", "ur": "https://h/mcp"},
            odd=["not", "an", "object"],
        ),
    )
    write(tmp_path / ".mcp.local.json", servers(later={"toolTimeout": 5}))  # a later layer breaks it
    with pytest.raises(ConfigError):  # without keep_going, the first problem still stops the load
        load_config(tmp_path, environ=environ)

    found = load_config(tmp_path, environ=environ, keep_going=True)
    assert list(found.servers) == ["good"]
    assert sorted(found.problems) == ["events", "later", "named", "odd", "typo", "unset", "web"]
    assert found.problem_transports == {  # for their status rows: what the entries say
        "typo": "?",  # "comand" is not "command"
        "unset": "stdio",
        "later": "stdio",
        "web": "http",
        "events": "sse",
        "named": "http",
        "odd": "?",
    }
    assert found.problems["typo"].startswith(f"{project}: server 'typo': key 'comand'")
    assert "did you mean 'command'" in found.problems["typo"]
    assert "NOPE" in found.problems["unset"]
    assert ".mcp.local.json" in found.problems["later"] and "toolTimeoutSec" in found.problems["later"]
    with pytest.raises(ConfigError, match="invalid JSON"):  # a file that cannot be read still raises
        write(project, "{")
        load_config(tmp_path, environ=environ, keep_going=True)


# ---------------------------------------------------------------- files saved on Windows


def test_notepads_bom_and_crlf_and_powershells_utf16_read_as_written(tmp_path: Path) -> None:
    """Notepad writes a UTF-8 BOM and CRLF; Windows PowerShell's ``>`` writes UTF-16 with a BOM."""
    lines = [
        "{",
        '  "mcpServers": {',
        '    "time": {"command": "uvx", "args": ["mcp-server-time"]}',
        "  }",
        "}",
    ]
    text = "\ufeff" + "\r\n".join(lines) + "\r\n"
    for encoding in ("utf-8", "utf-16-le", "utf-32-le", "utf-32-be"):  # UTF-32's mark starts as UTF-16's
        path = tmp_path / encoding / ".mcp.json"
        path.parent.mkdir()
        path.write_bytes(text.encode(encoding))
        assert load_file(path)["time"].args == ("mcp-server-time",)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ('{"mcpServers": {}}'.encode("utf-16-le"), "UTF-16 without a byte order mark"),
        ('{"mcpServers": {}}'.encode("utf-32-le"), "UTF-32 without a byte order mark"),
        ('{"mcpServers": {}}'.encode("utf-32-be"), "UTF-32 without a byte order mark"),
        (
            '{"mcpServers": {"a": {"command": "x",\n "description": "café"}}}'.encode("cp1252"),
            "(line 2, byte 0xE9): it looks like another encoding",
        ),
    ],
    ids=["utf-16", "utf-32-le", "utf-32-be", "cp1252"],
)
def test_a_file_in_another_encoding_says_which_and_how_to_save_it(
    tmp_path: Path, data: bytes, said: str
) -> None:
    path = tmp_path / ".mcp.json"
    path.write_bytes(data)
    err = config_error(load_file, path)
    assert said in str(err) and "save it as UTF-8" in str(err)


def test_a_windows_path_with_single_backslashes_says_to_double_them(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".mcp.json", r'{"mcpServers": {"fs": {"command": "C:\Program Files\nodejs\npx.cmd"}}}'
    )
    err = config_error(load_file, path)
    assert "Invalid \\escape" in str(err) and "write each one twice" in str(err)


# ---------------------------------------------------------------- a JupyterHub's administrator


def test_site_files_set_defaults_that_the_users_file_overrides(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    """An administrator's files (``$MCPNB_SITE_CONFIG``, most general first) come before the
    user's, which changes a key of one server and turns another off; the project's come after."""
    machine = write(
        tmp_path / "etc" / "mcp.json",
        servers(docs={"url": "https://docs.example.com/mcp", "toolTimeoutSec": 30}, lab={"command": "lab"}),
    )
    venv = write(tmp_path / "venv" / "mcp.json", servers(docs={"url": "https://docs.internal/mcp"}))
    user = write(
        Path(environ["MCPNB_USER_CONFIG"]), servers(docs={"tool_timeout": 90}, lab={"enabled": False})
    )
    project = write(tmp_path / "proj" / ".mcp.json", servers(own={"command": "own"}))
    env = {**environ, "MCPNB_SITE_CONFIG": f"{machine}{os.pathsep} {venv}\r"}

    found = load_config(tmp_path / "proj", environ=env)
    assert found.files == (machine, venv, user, project)
    assert found["docs"].url == "https://docs.internal/mcp" and found["docs"].tool_timeout == 90
    assert found["lab"].enabled is False and found["own"].command == "own"
    assert found["docs"].source == str(user)


def test_site_files_default_to_where_jupyter_keeps_its_own(tmp_path: Path) -> None:
    from mcpnb.client.config import site_config_paths

    paths = site_config_paths({"MCPNB_SITE_CONFIG": " \r"})  # blank: not set
    assert paths[-1] == Path(sys.prefix) / "etc" / "mcpnb" / "mcp.json"
    if os.name != "nt":
        assert paths[0] == Path("/etc/mcpnb/mcp.json")
    assert site_config_paths({"MCPNB_SITE_CONFIG": str(tmp_path / "a.json")}) == (tmp_path / "a.json",)


def test_a_sign_in_for_the_project_never_goes_to_a_site_server(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    site = write(tmp_path / "site.json", servers(wiki={"url": "https://wiki.example.com/mcp"}))
    project = write(tmp_path / "proj" / ".mcp.json", servers(app={"url": "https://app.example.com/mcp"}))
    env = {**environ, "MCPNB_SITE_CONFIG": str(site)}
    found = load_config(path=project, environ=env, auth={"type": "oauth", "flow": "authorization_code"})
    assert found["app"].auth is not None and found["wiki"].auth is None


def test_a_path_variable_ends_without_its_line_ending(tmp_path: Path) -> None:
    """A spawner's environment written in a file saved on Windows ends each value in \\r."""
    assert user_config_path({"MCPNB_USER_CONFIG": f" {tmp_path / 'u.json'}\r"}) == tmp_path / "u.json"
    assert user_config_path({"MCPNB_USER_CONFIG": " \r"}) == user_config_path({})


_UNREADABLE = """
import json, sys, warnings
from mcpnb.client.config import load_config
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    found = load_config(sys.argv[1], environ=json.loads(sys.argv[2]), keep_going=True)
print(json.dumps({"servers": sorted(found.servers), "unread": dict(found.unread),
                  "said": [str(w.message) for w in said]}))
"""


def _unprivileged(*args: str) -> dict[str, Any]:
    """Runs ``_UNREADABLE`` where file permissions apply: as root (a container), without the
    capabilities that let root read any file."""
    import json
    import shutil
    import subprocess

    command = [sys.executable, "-c", _UNREADABLE, *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root, and no setpriv to drop the right to read every file")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    out = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if out.returncode != 0 and "setpriv" in out.stderr:
        pytest.skip(f"cannot drop capabilities here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_a_file_nobody_may_read_is_left_out_saying_so_and_the_others_apply(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    """The administrator's file nobody may read (its mode 000), and a user file in a folder one
    may not enter: each said once, by name and why; the project's servers start."""
    site = write(tmp_path / "etc" / "mcp.json", servers(admin={"command": "a"}))
    site.chmod(0o000)
    user = write(tmp_path / "private" / "mcp.json", servers(mine={"command": "m"}))
    user.parent.chmod(0o000)
    write(tmp_path / "proj" / ".mcp.json", servers(proj={"command": "p"}))
    env = {**environ, "MCPNB_SITE_CONFIG": str(site), "MCPNB_USER_CONFIG": str(user)}
    try:
        found = _unprivileged(str(tmp_path / "proj"), __import__("json").dumps(env))
    finally:
        user.parent.chmod(0o755)
    assert found["servers"] == ["proj"]
    assert found["unread"] == {str(site): "Permission denied", str(user): "Permission denied"}
    assert len(found["said"]) == 2
    assert all(
        "cannot read (Permission denied)" in w and "other config files still apply" in w
        for w in found["said"]
    )
