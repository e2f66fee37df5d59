"""Fixtures for the config tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """An environment whose user layer is a file under tmp_path (absent until a test writes it)."""
    return {"MCPNB_USER_CONFIG": str(tmp_path / "user" / "mcp.json"), "HOME": str(tmp_path)}
