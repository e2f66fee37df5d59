"""Shared by the config tests: fake secrets, file writers, and error assertions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpnb.client.config.model import CODE_SOURCE
from mcpnb.client.errors import ConfigError

TOKEN = "tok-SECRET-4f9a1c"
PASSWORD = "pw-SECRET-77b2"
ENV_VALUE = "env-SECRET-31d0"
API_KEY = "key-SECRET-aa51"


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def write_probe_vscode(folder: Path) -> Path:
    """``folder/.vscode/mcp.json`` whose one server, probe-kit over stdio, needs two inputs: a
    ``toolset`` (a pick: core or ui) and a ``key`` (a password, in the server's ``PROBE_KEY``)."""
    import sys

    entry = {
        "command": sys.executable,
        "args": ["-m", "mcpnb.probekit", "--toolset", "${input:toolset}"],
        "env": {"PROBE_KEY": "${input:key}"},
    }
    inputs = [
        {"type": "pickString", "id": "toolset", "description": "Which toolset", "options": ["core", "ui"]},
        {"type": "promptString", "id": "key", "description": "API key", "password": True},
    ]
    return write(folder / ".vscode" / "mcp.json", {"inputs": inputs, "servers": {"probe": entry}})


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
        if part is not None and part != CODE_SOURCE:
            assert part in str(err)
    if file == CODE_SOURCE:  # settings given in code: no file to name
        assert file not in str(err)


def assert_refused_alone(path: Path, environ: Any, key: str, says: str) -> None:
    """Server ``s`` of another client's file ``path`` is refused, saying ``says`` of ``key``, and
    the server ``ok`` beside it loads."""
    from mcpnb.client.config import load_config

    found = load_config(path=path, environ=environ, keep_going=True)
    assert says in found.problems["s"] and "ok" in found.servers
    with pytest.raises(ConfigError) as info:
        load_config(path=path, environ=environ)
    assert_located(info.value, file=str(path), server="s", key=key)


def assert_remote_calls(pool: Any, table: Any, *, off: bool = False) -> None:
    """``table`` connected ``local`` (stdio) and the servers of the ``remote_servers`` fixture, as
    ``events`` (SSE) and ``streamed`` (Streamable HTTP, with the bearer ``TOKEN`` it requires), and
    left ``off`` disabled; they answer, and the token shows nowhere."""
    expected = {
        "local": ("connected", "stdio"),
        "events": ("connected", "sse"),
        "streamed": ("connected", "http"),
    }
    if off:
        expected["off"] = ("disabled", "stdio")
    assert {r.name: (r.state, r.transport) for r in table} == expected
    assert pool.call("events", "echo", {"text": "over SSE"}).text == "over SSE"
    assert pool.call("streamed", "header", {"name": "authorization"}).text == f"Bearer {TOKEN}"
    assert TOKEN not in repr(pool.status()) + repr(pool.connection("streamed").config)
