"""VS Code's ``.vscode/mcp.json``, read as VS Code reads it: comments, ``servers``, ``inputs`` and
its variables (the file below is written as VS Code's documentation shows one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpnb.client.config import load_config, load_file
from mcpnb.client.errors import ConfigError

from .helpers import API_KEY, assert_located, config_error, servers, write

VSCODE = """{
  // Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "Search API Key", "password": true},
    {"type": "promptString", "id": "toolset", "description": "Which toolset"},
  ],
  "servers": {
    "search": {
      "type": "stdio",
      "command": "python",
      "args": ["-m", "search_server", "--root", "${workspaceFolder}", "--key", "${input:api-key}"],
      "env": {"SEARCH_KEY": "${input:api-key}", "REGION": "${env:REGION}", "SEP": "${/}"},
      "dev": {"watch": "src/**/*.py", "debug": {"type": "python"}}, /* VS Code's own */
    },
    "probe": {"command": "python", "args": ["-m", "mcpnb.probekit", "--toolset", "${input:toolset}"]},
    "bare": {"command": "python", "args": ["serve", "${input:api-key}"]},
    "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Home": "${userHome}"}},
  },
}
"""


@pytest.fixture
def vscode(tmp_path: Path) -> Path:
    return write(tmp_path / "proj" / ".vscode" / "mcp.json", VSCODE)


def test_servers_comments_and_variables_are_read_as_vs_code_reads_them(vscode, environ):
    inputs = {"api-key": API_KEY, "toolset": "core"}
    found = load_config(path=vscode, environ={**environ, "REGION": "eu"}, inputs=inputs)
    search, probe, docs = (found.servers[n] for n in ("search", "probe", "docs"))
    workspace = str(vscode.parent.parent)  # the folder that holds .vscode
    assert search.args == ("-m", "search_server", "--root", workspace, "--key", API_KEY)
    assert dict(search.env) == {"SEARCH_KEY": API_KEY, "REGION": "eu", "SEP": "/"}
    assert probe.args[-1] == "core" and docs.transport == "http"
    assert dict(docs.headers) == {"X-Home": str(Path.home())}
    # a password input is a secret wherever it goes: among the values the pool scrubs from text it
    # did not write, and in no repr; an input that is no password is not
    bare = found.servers["bare"]
    assert API_KEY in bare.secrets() and "core" not in probe.secrets()
    assert API_KEY not in repr(bare) and API_KEY not in str(bare.redacted())
    assert API_KEY not in repr(search) and API_KEY not in str(search.redacted())


def test_a_server_whose_inputs_are_not_given_says_all_of_them_and_the_others_load(vscode, environ):
    found = load_config(path=vscode, environ={**environ, "REGION": "eu"}, keep_going=True)
    assert list(found.servers) == ["docs"]  # probe, search and bare lack inputs
    said = found.problems["search"]
    assert "needs input 'api-key' (Search API Key)" in said
    said = found.problems["probe"]
    assert "needs input 'toolset' (Which toolset), which VS Code would prompt for" in said
    assert "--input toolset=VALUE" in said and "inputs={'toolset': ...}" in said
    err = config_error(load_config, path=vscode, environ={**environ, "REGION": "eu"})
    assert_located(err, file=str(vscode), server="search", key="args[5]")


def test_every_missing_input_of_a_server_is_named_at_once(tmp_path, environ):
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "inputs": [{"id": "a", "description": "first"}, {"id": "b"}],
            "servers": {"s": {"command": "x", "args": ["${input:a}"], "env": {"B": "${input:b}"}}},
        },
    )
    err = config_error(load_file, path, environ=environ, inputs={})
    assert "needs inputs 'a' (first) and 'b'" in str(err) and "--input a=VALUE --input b=VALUE" in str(err)
    assert load_file(path, environ=environ, inputs={"a": "1", "b": "2"})["s"].args == ("1",)


@pytest.mark.parametrize(
    ("entry", "inputs", "says"),
    [
        ({"command": "x", "args": ["${input:api-kye}"]}, {}, "declare no 'api-kye'"),
        ({"command": "x", "args": ["${config:python.defaultInterpreterPath}"]}, {}, "asks VS Code itself"),
        (
            {"command": "x", "args": ["${env:NOT_SET_HERE}"]},
            {},
            "environment variable 'NOT_SET_HERE' is not set",
        ),
        (
            {"command": "x"},
            {"api-kye": "v"},
            "an input was given for 'api-kye', which the file does not declare",
        ),
    ],
)
def test_mistakes_say_what_and_where(tmp_path, environ, entry, inputs, says):
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {"inputs": [{"id": "api-key", "password": True}], "servers": {"s": entry}},
    )
    err = config_error(load_file, path, environ=environ, inputs=inputs)
    assert says in str(err) and err.file == str(path)
    if "api-kye" in says:
        assert "api-key" in str(err)  # did you mean


def test_an_unknown_top_level_key_is_refused_with_a_suggestion(tmp_path, environ):
    path = write(tmp_path / "mcp.json", {"servers": {}, "input": []})
    err = config_error(load_file, path, environ=environ)
    assert err.key == "input" and err.suggestion == "inputs"


def test_dot_mcp_json_stays_json(tmp_path, environ):
    """Comments are VS Code's: a .mcp.json with one is still refused (other clients could not read it)."""
    path = write(tmp_path / ".mcp.json", '{\n  // mine\n  "mcpServers": {"s": {"command": "x"}}\n}\n')
    with pytest.raises(ConfigError, match=r"invalid JSON at line 2.*JSON does not allow comments"):
        load_config(path=path, environ=environ)
    write(path, servers(s={"command": "x"}))
    assert list(load_config(path=path, environ=environ).servers) == ["s"]


def test_a_syntax_error_in_a_vs_code_file_is_its_own_not_the_comments(tmp_path, environ):
    """Comments are allowed there: the missing comma on line 5 is the mistake to show."""
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        '{\n  // mine\n  "servers": {\n    "a": {"command": "x"}\n    "b": {"command": "y"}\n  }\n}\n',
    )
    err = config_error(load_file, path, environ=environ)
    assert str(err) == f"{path}: invalid JSON at line 5, column 5: Expecting ',' delimiter"


def test_cursors_file_is_mcp_servers_json_with_vs_codes_variables(tmp_path, environ):
    """``.cursor/mcp.json`` (Cursor's project file) writes ``${env:NAME}`` and ``${workspaceFolder}``
    as VS Code does; they were refused ("VS Code's ${env:MY_TOKEN} is ${MY_TOKEN} here")."""
    path = write(
        tmp_path / "proj" / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "local": {"command": "x", "args": ["--root", "${workspaceFolder}", "--home", "${userHome}"]},
                "remote": {
                    "url": "http://127.0.0.1:9/mcp",
                    "headers": {"Authorization": "Bearer ${env:TOKEN}", "X-Plain": "${PLAIN:-p}"},
                },
                "asks": {"command": "x", "args": ["${input:key}"]},
            }
        },
    )
    found = load_config(path=path, environ={**environ, "TOKEN": API_KEY}, keep_going=True)
    assert found.servers["local"].args == ("--root", str(tmp_path / "proj"), "--home", str(Path.home()))
    assert dict(found.servers["remote"].headers) == {"Authorization": f"Bearer {API_KEY}", "X-Plain": "p"}
    assert "${input:key}: the file's inputs declare no 'key'" in found.problems["asks"]
    # elsewhere, ${env:NAME} is still not ours: a .mcp.json says how to write it
    plain = write(tmp_path / ".mcp.json", {"mcpServers": {"s": {"command": "x", "args": ["${env:TOKEN}"]}}})
    err = config_error(load_config, path=plain, environ=environ)
    assert "VS Code's ${env:TOKEN} is ${TOKEN} here" in str(err)


ENV_FILE = """# the service's settings
export SEARCH_KEY="key with spaces # not a comment"
REGION=eu  # a comment
QUOTED='$literal ${NOT_EXPANDED}'
EMPTY=
BARE
"""


def test_an_env_file_goes_into_the_servers_env_as_vs_code_reads_it(tmp_path, environ):
    """VS Code's ``envFile`` (its documented ``"${workspaceFolder}/.env"``) was refused: "mcpnb reads
    no env file"."""
    write(tmp_path / "proj" / ".env", ENV_FILE)
    write(tmp_path / "proj" / "conf" / "other.env", "OTHER=1\n")
    path = write(
        tmp_path / "proj" / ".vscode" / "mcp.json",
        {
            "servers": {
                "search": {"command": "x", "envFile": "${workspaceFolder}/.env", "env": {"REGION": "us"}},
                "relative": {"command": "x", "envFile": "conf/other.env"},
                "missing": {"command": "x", "envFile": "${workspaceFolder}/nowhere.env"},
                "off": {"command": "x", "envFile": "nowhere.env", "enabled": False},
            }
        },
    )
    found = load_config(path=path, environ=environ, keep_going=True)
    search = found.servers["search"]
    assert dict(search.env) == {
        "SEARCH_KEY": "key with spaces # not a comment",
        "REGION": "us",  # what env names itself wins
        "QUOTED": "$literal ${NOT_EXPANDED}",  # as written
        "EMPTY": "",
    }
    assert "key with spaces # not a comment" in search.secrets()
    assert "key with spaces" not in repr(search) + str(search.redacted())
    assert dict(found.servers["relative"].env) == {"OTHER": "1"}  # from the workspace folder
    assert found.servers["off"].enabled is False  # never started: its file is not read
    assert set(found.problems) == {"missing"}
    assert f"{tmp_path / 'proj' / 'nowhere.env'} is not a file" in found.problems["missing"]
    err = config_error(load_config, path=path, environ=environ)
    assert_located(err, file=str(path), server="missing", key="envFile")


def test_a_server_started_from_a_vs_code_file_gets_its_env_files_variables(pool, tmp_path):
    import sys

    from conftest import DEMO

    write(tmp_path / ".env", f"PROBE_KEY={API_KEY}\n")
    entry = {"command": sys.executable, "args": [DEMO, "stdio"], "envFile": "${workspaceFolder}/.env"}
    path = write(tmp_path / ".vscode" / "mcp.json", {"servers": {"demo": entry}})
    assert pool.connect_config(path)["demo"].state == "connected"
    assert pool.call("demo", "env", {"name": "PROBE_KEY"}).text == API_KEY
    assert API_KEY not in repr(pool.status()) + repr(pool.connection("demo").config)
