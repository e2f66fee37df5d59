"""Secrets in a stdio server's ``args`` and in substituted ``${…}`` values are never shown; values
that plainly cannot be secrets are not scrubbed from text (where they would garble words)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpnb.client.config import load_config
from mcpnb.client.config.model import ServerConfig
from mcpnb.client.redact import is_plain_value, scrub

from .helpers import write

TOKEN = "ghp_Q7rT2xLm9KpZ4vWb8NcY1dHs6JfA3eGu"
#: A secret no rule recognises by its look (punctuation, no long token run): only knowing that
#: mcpnb substituted it hides it.
UNREMARKABLE = "Tr0ub4dor&3!x"


def shown(config: ServerConfig) -> str:
    """Every view of a config a person sees: its target (status rows, progress), ``%mcp config``,
    its repr."""
    return "\n".join([config.target, json.dumps(config.redacted()), repr(config)])


@pytest.mark.parametrize(
    "args, secret, still_shown",
    [
        (["--pat", TOKEN], TOKEN, "--pat ***"),
        (["-k", TOKEN], TOKEN, "-k ***"),
        ([TOKEN], TOKEN, "server.py ***"),
        (["--conn=" + TOKEN], TOKEN, "--conn=***"),
        (["Server=db;Password=pw-In-Conn;User=ann"], "pw-In-Conn", "Server=db;Password=***;User=ann"),
        (["host=db password=pw-In-Libpq dbname=shop"], "pw-In-Libpq", "host=db password=*** dbname=shop"),
        (["--header", "X-Api: hdr-Plain-Name-7"], "hdr-Plain-Name-7", "--header 'X-Api: ***'"),
        (["--header=X-Api: hdr-Plain-Name-7"], "hdr-Plain-Name-7", "'--header=X-Api: ***'"),
        (["--db-pass", "pw-Flag-9"], "pw-Flag-9", "--db-pass ***"),
    ],
)
def test_a_secret_in_args_is_hidden_in_every_view_and_scrubbed(args, secret, still_shown):
    config = ServerConfig.build("s", command="python", args=["server.py", *args])
    text = shown(config)
    assert secret not in text and still_shown in config.target, text
    assert secret in config.secrets()
    assert scrub(f"the server said {secret}", config.secrets()) == "the server said ***"


def test_plain_args_are_shown_as_written():
    args = ["server.py", "--port", "8000", "--header", "Accept: application/json", "--root", "/srv/data"]
    config = ServerConfig.build("s", command="python", args=args)
    assert (
        config.target == "python server.py --port 8000 --header 'Accept: application/json' --root /srv/data"
    )
    assert config.secrets() == set()


@pytest.mark.parametrize(
    "written",
    ["${PW}", "${PW:-unused}", "--login=ann:${PW}", "--credential-file-ok ${PW}"],
)
def test_a_value_expansion_put_in_args_counts_as_secret(written):
    config = ServerConfig.from_dict(
        "s", {"command": "python", "args": ["server.py", *written.split(" ")]}, environ={"PW": UNREMARKABLE}
    )
    assert UNREMARKABLE in config.args[-1]
    assert UNREMARKABLE not in shown(config) and UNREMARKABLE in config.secrets()


def test_a_value_expansion_put_in_a_url_counts_as_secret():
    config = ServerConfig.from_dict(
        "s", {"url": "http://127.0.0.1:9/mcp?page=${P}"}, environ={"P": UNREMARKABLE}
    )
    assert UNREMARKABLE not in shown(config) and UNREMARKABLE in config.secrets()


def test_plain_expanded_values_are_not_hidden():
    environ = {"HOME": "/home/ann", "PORT": "8000", "REGION": "us-east-1", "DEBUG": "true"}
    args = ["${HOME}/server.py", "--port", "${PORT}", "--region", "${REGION}", "--debug=${DEBUG}"]
    config = ServerConfig.from_dict("s", {"command": "python", "args": args}, environ=environ)
    assert config.target == "python /home/ann/server.py --port 8000 --region us-east-1 --debug=true"
    assert config.secrets() == set()


def test_vs_code_env_and_input_values_put_in_args_count_as_secret(tmp_path: Path):
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "code", "description": "not marked a password"}],
            "servers": {
                "s": {"command": "python", "args": ["server.py", "--a", "${env:A}", "--b", "${input:code}"]}
            },
        },
    )
    environ = {"A": UNREMARKABLE, "MCPNB_USER_CONFIG": str(tmp_path / "absent.json"), "HOME": str(tmp_path)}
    config = load_config(path=path, environ=environ, inputs={"code": "Zx9!pass-phrase"}).servers["s"]
    assert config.args[-3:] == (UNREMARKABLE, "--b", "Zx9!pass-phrase")
    text = shown(config)
    assert UNREMARKABLE not in text and "Zx9!pass-phrase" not in text


# ------------------------------------------------------------------ env: which values are scrubbed
@pytest.mark.parametrize(
    "name, value",
    [
        ("REGION", "us-east-1"),
        ("APP_ENV", "test"),
        ("LOG_FORMAT", "json"),
        ("PORT", "8000"),
        ("DEBUG", "true"),
        ("DATA_DIR", "/srv/data/2024"),
        ("VERSION", "v1.2"),
    ],
)
def test_a_plain_value_under_a_plain_name_is_not_scrubbed(name, value):
    assert is_plain_value(value, name)
    config = ServerConfig.build("s", command="python", args=["server.py"], env={name: value})
    assert value not in config.secrets()
    assert scrub(f"startup {name.lower()}={value}", config.secrets()) == f"startup {name.lower()}={value}"
    assert config.redacted()["env"] == {name: "***"}  # where env is listed, every value is hidden


@pytest.mark.parametrize(
    "name, value",
    [
        ("API_KEY", "test"),  # a secret-looking name: whatever its value
        ("DB_PASS", "hunter22"),
        ("GITLAB_PAT", "json"),
        ("SESSION_ID", "abcd"),
        ("TOKEN", "us-east-1"),
        ("X", TOKEN),  # a value that looks like a token
        ("X", "Tr0ub4dor&3"),  # upper case and punctuation: not a plain word
        ("X", "correct-horse-battery-staple"),  # four words: a passphrase, not a slug
        ("X", "deadbeefcafef00d1234"),  # hex
        ("X", "/run/" + TOKEN),  # a path with a token in it
    ],
)
def test_a_secret_looking_name_or_value_is_scrubbed(name, value):
    assert not is_plain_value(value, name)
    config = ServerConfig.build("s", command="python", args=["server.py"], env={name: value})
    assert value in config.secrets()
