"""0.1's deep imports keep working after the move to rooms: same objects, and a warning that says where."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcpnb._moved import MOVED, new_name


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("mcpnb.pool", "mcpnb.client.pool", "Pool"),
        ("mcpnb.results", "mcpnb.client.results", "ToolResult"),
        ("mcpnb.config", "mcpnb.client.config", "ServerConfig"),
        ("mcpnb.config.model", "mcpnb.client.config.model", "ServerConfig"),
        ("mcpnb.tasks.view", "mcpnb.notebook.taskview", "TaskView"),
        ("mcpnb.magics.validate", "mcpnb.client.arguments", "check_arguments"),
    ],
)
def test_an_old_import_gives_the_same_object_and_names_the_new_path(old: str, new: str, name: str) -> None:
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        f"print(getattr(old, {name!r}) is getattr(new, {name!r}))\n"
        "print([str(w.message) for w in caught if w.category is DeprecationWarning])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    same, warned = out.stdout.strip().splitlines()
    assert same == "True"
    assert f"{old} moved to {new}" in warned


def test_every_old_name_points_at_a_module_that_exists() -> None:
    import importlib.util

    missing = [new for new in MOVED.values() if importlib.util.find_spec(new) is None]
    assert missing == []


def test_new_names_and_unknown_names_are_left_alone() -> None:
    assert new_name("mcpnb.client.pool") is None
    assert new_name("mcpnb.notebook.render") is None
    assert new_name("json") is None
    assert new_name("mcpnb.render.markdown") == "mcpnb.notebook.render.markdown"
