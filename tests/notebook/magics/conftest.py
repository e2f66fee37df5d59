"""A real IPython shell with ``%load_ext mcpnb``, and a fresh pool per test swapped into the magics."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def _loaded_shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    from mcpnb.client.interaction import default_interaction, set_default_interaction

    plain = default_interaction()
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcpnb")
    set_default_interaction(plain)  # the ip fixture installs the notebook's for each test
    return shell


@pytest.fixture
def ip(_loaded_shell: Any) -> Iterator[Any]:
    """The shell, with what ``%load_ext`` installs process-wide (the notebook's interaction) in place
    for this test only: a test elsewhere that runs later sees the plain library's default."""
    from mcpnb.client.interaction import set_default_interaction
    from mcpnb.notebook.cell import NotebookInteraction

    before = set_default_interaction(NotebookInteraction())
    yield _loaded_shell
    set_default_interaction(before)


@pytest.fixture
def mcp(ip: Any, pool: Any, tmp_path_factory: Any, monkeypatch: Any) -> Iterator[Any]:
    """The loaded magics, talking to this test's pool (closed by the ``pool`` fixture afterwards).

    The user's own config layer is pointed at a file that does not exist, so a developer's
    ``~/.config/mcpnb/mcp.json`` never leaks into a test.
    """
    from mcpnb.notebook.magics import get_magics

    monkeypatch.setenv("MCPNB_USER_CONFIG", str(tmp_path_factory.mktemp("user") / "absent.json"))
    magics = get_magics(ip)
    assert magics is not None
    magics.pool = pool
    before = set(ip.user_ns)
    yield magics
    magics.pool = None
    for name in set(ip.user_ns) - before:
        ip.user_ns.pop(name, None)


def connect_demo(ip: Any, name: str = "demo") -> Any:
    """The demo test server over stdio, connected through the magic."""
    import sys

    from conftest import DEMO

    return line(ip, f"connect {name} -- {sys.executable} {DEMO} stdio")


def line(ip: Any, text: str) -> Any:
    """``%mcp text`` through IPython's own magic machinery (errors propagate as exceptions)."""
    return ip.run_line_magic("mcp", text)


def complete(ip: Any, text: str) -> list[str]:
    """What Tab offers after ``text`` through the legacy API (``ip.complete``), which terminals call
    (its "pending deprecation" warning silenced)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        _, matches = ip.complete("", text, len(text))
    return list(matches)


def cell(ip: Any, source: str) -> Any:
    """Run a whole cell as a person would; returns IPython's ExecutionResult."""
    return ip.run_cell(source)


def bundle(ip: Any, obj: Any) -> dict[str, Any]:
    """What a notebook frontend would receive for ``obj`` (every mime type IPython formats)."""
    data, _ = ip.display_formatter.format(obj)
    return data
