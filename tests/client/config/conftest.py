"""Fixtures for the config tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HttpServer

from .helpers import TOKEN


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """An environment whose user layer is a file under tmp_path (absent until a test writes it)."""
    return {"MCPNB_USER_CONFIG": str(tmp_path / "user" / "mcp.json"), "HOME": str(tmp_path)}


@pytest.fixture
def remote_servers() -> Iterator[tuple[Any, Any]]:
    """The demo server over SSE, and over Streamable HTTP refusing a request without ``TOKEN``: what
    another client's file reaches by URL."""
    sse = HttpServer("sse")
    http = HttpServer("http", "--require-token", TOKEN)
    try:
        yield sse, http
    finally:
        sse.stop()
        http.stop()
