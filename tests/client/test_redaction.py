"""Secrets never leak: tokens, passwords and env values stay out of every repr, row, log and error."""

from __future__ import annotations

import logging

import pytest
from conftest import HttpServer, demo_command, free_port

from mcpnb import ConnectError

TOKEN = "tok-9f8e7d6c5b4a"
PASSWORD = "pw-hunter2-zz"
ENV_SECRET = "env-s3cr3t-value"


def _everything_shown(pool, name: str) -> str:
    conn = pool.connection(name)
    return "\n".join(
        [
            repr(pool),
            repr(pool.status()),
            str(pool.status().rows()),
            repr(conn.config),
            str(conn.config),
            str(conn.config.redacted()),
            "\n".join(pool.logs(name)),
        ]
    )


def test_bearer_token_reaches_server_but_is_never_shown(pool, http_url, caplog):
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    pool.connect("secure", url=http_url, config={"auth": {"type": "bearer", "token": TOKEN}})
    assert pool.call("secure", "header", {"name": "Authorization"}).data == f"Bearer {TOKEN}"
    shown = _everything_shown(pool, "secure") + caplog.text
    assert TOKEN not in shown
    assert "secure" in shown  # the listing is there, only the secret is gone


def test_bearer_token_from_env_and_basic_auth(pool, http_url, monkeypatch):
    monkeypatch.setenv("MCPNB_TEST_TOKEN", TOKEN)
    pool.connect("env", url=http_url, config={"auth": {"type": "bearer", "token_env": "MCPNB_TEST_TOKEN"}})
    assert pool.call("env", "header", {"name": "Authorization"}).data == f"Bearer {TOKEN}"
    pool.connect(
        "basic", url=http_url, config={"auth": {"type": "basic", "username": "ada", "password": PASSWORD}}
    )
    import base64

    sent = pool.call("basic", "header", {"name": "Authorization"}).data
    assert base64.b64decode(sent.removeprefix("Basic ")).decode() == f"ada:{PASSWORD}"
    shown = _everything_shown(pool, "env") + _everything_shown(pool, "basic")
    assert TOKEN not in shown and PASSWORD not in shown


def test_secret_header_and_env_values_are_redacted(pool, http_url):
    custom = "custom-header-secret-42"
    pool.connect("hdr", url=http_url, headers={"X-Api-Key": TOKEN, "X-Tenant": custom, "Accept": "*/*"})
    assert pool.call("hdr", "header", {"name": "X-Api-Key"}).data == TOKEN
    assert pool.call("hdr", "header", {"name": "X-Tenant"}).data == custom
    # what a server says back (an error, a log line) is scrubbed of it, though its name says nothing
    assert custom not in pool.connection("hdr").safe(f"unknown tenant {custom}")
    pool.connect("stdio", **demo_command(), env={"SERVICE_PASSWORD": ENV_SECRET})
    assert pool.call("stdio", "env", {"name": "SERVICE_PASSWORD"}).data == ENV_SECRET
    pool.call("stdio", "stderr_line", {"text": f"debug: password is {ENV_SECRET}"})
    shown = _everything_shown(pool, "hdr") + _everything_shown(pool, "stdio")
    assert TOKEN not in shown and ENV_SECRET not in shown and custom not in shown
    assert "'Accept': '*/*'" in repr(pool.connection("hdr").config)  # a plain header stays readable


def test_instructions_that_repeat_a_secret_show_it_redacted(pool):
    said = "Connected with key {API_KEY}; ask for anything."  # the server fills in its setting
    pool.connect("talky", **demo_command(), env={"API_KEY": ENV_SECRET, "DEMO_INSTRUCTIONS": said})
    row = pool.status()["talky"]
    assert row.instructions == "Connected with key ***; ask for anything."
    assert ENV_SECRET not in repr(pool.status()) + str(pool.status()._repr_mimebundle_())


def test_failed_connect_error_does_not_leak(pool):
    url = f"http://127.0.0.1:{free_port()}/mcp?access_token={TOKEN}"
    with pytest.raises(ConnectError) as info:
        pool.connect("dead", url=url, headers={"Authorization": f"Bearer {TOKEN}"}, startup_timeout=10)
    assert TOKEN not in str(info.value)
    assert TOKEN not in _everything_shown(pool, "dead")
    assert pool.status()["dead"].state == "failed"


@pytest.mark.parametrize(
    "args",
    [
        ["postgresql://ann:{pw}@127.0.0.1:54329/shop"],  # server-postgres takes its DSN as an argument
        ["--db-url=mysql://root:{pw}@127.0.0.1/app"],
        ["--dsn", "redis://:{pw}@127.0.0.1:6379/0"],
        ["https://127.0.0.1/api?sig={pw}&user=ann"],
    ],
)
def test_a_password_in_a_connection_string_argument_is_never_shown(pool, args):
    """``%mcp connect pg -- mcp-server-postgres postgresql://ann:pw@…``: the password showed in
    ``%mcp config``, the config's repr and the "connecting to" log line."""
    given = [a.format(pw=PASSWORD) for a in args]
    pool.connect("db", **demo_command(*given))
    pool.call("db", "stderr_line", {"text": f"could not log in with {PASSWORD}"})
    shown = _everything_shown(pool, "db")
    assert PASSWORD not in shown and "***" in repr(pool.connection("db").config)
    assert "127.0.0.1" in repr(pool.connection("db").config)  # the rest of the address stays readable


def test_server_echoing_a_secret_in_stderr_is_scrubbed(pool):
    pool.connect("leaky", **demo_command("--token", TOKEN))
    pool.call("leaky", "stderr_line", {"text": f"started with --token {TOKEN}"})
    assert any("started with --token" in line for line in pool.logs("leaky"))
    assert TOKEN not in _everything_shown(pool, "leaky")


#: A hosted server's secret URL ("treat it like a password"): the token is a path segment.
PATH_TOKEN = "ZjQ2YTk4MmEtNzY4Ny00ZDU2LWE1ZDAt"


def test_a_token_in_the_url_path_is_never_shown(pool):
    server = HttpServer("http", "--path", f"/s/{PATH_TOKEN}/mcp")
    try:
        pool.connect("hosted", url=server.url)
        assert pool.call("hosted", "echo", {"text": "hi"}).data == "hi"  # the real URL was used
        shown = _everything_shown(pool, "hosted")
        assert PATH_TOKEN not in shown and "/s/***/mcp" in shown
    finally:
        server.stop()
    with pytest.raises(Exception) as info:  # the server is gone: the call's error names the URL
        pool.call("hosted", "echo", {"text": "again"}, timeout=10)
    assert PATH_TOKEN not in str(info.value)
    assert PATH_TOKEN not in _everything_shown(pool, "hosted")
