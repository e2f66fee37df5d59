"""Shared fixtures for the rendering tests: anyio on asyncio only (the runtime mcpnb uses)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
