"""``mcpnb``'s public names: every error a person may meet can be imported from ``mcpnb`` (for an
``except``), each name loads only when first used, and ``import mcpnb`` stays light."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest
from conftest import ROOT

import mcpnb
from mcpnb.probekit import create_server

#: Errors that never reach a person: each is turned into one that does where it is caught.
INTERNAL = {"MessageTooLargeError": "a stdio flood: the connection fails with it as its reason"}


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_every_public_name_resolves_lazily() -> None:
    assert sorted(mcpnb._LAZY) == sorted(n for n in mcpnb.__all__ if n != "__version__")
    for name in mcpnb.__all__:
        assert getattr(mcpnb, name) is not None, name


def test_every_error_mcpnb_raises_can_be_imported_from_mcpnb() -> None:
    """TaskCancelledError (attach_task's docstring), RequirementError (require's), NotApprovedError,
    ToolFailedError, NoSkillsError, NotTabularError... were only in their modules."""
    for module in pkgutil.walk_packages(importlib.import_module("mcpnb.client").__path__, "mcpnb.client."):
        importlib.import_module(module.name)
    errors = {
        cls.__name__: cls
        for cls in _subclasses(mcpnb.McpnbError)
        if cls.__module__.startswith("mcpnb.client.")
    }
    missing = sorted(set(errors) - set(mcpnb.__all__) - set(INTERNAL))
    assert missing == []
    for name in set(errors) - set(INTERNAL):
        assert getattr(mcpnb, name) is errors[name], name


def test_not_tabular_is_an_mcpnb_error_and_still_a_type_and_value_error(pool) -> None:
    """docs/architecture.md: everything a person may see is an McpnbError; ``except TypeError`` and
    ``except ValueError`` around ``.df`` still work."""
    pool.connect("kit", server=create_server("conformance"))
    result = pool.call("kit", "test_simple_text")
    for kind in (mcpnb.McpnbError, mcpnb.NotTabularError, TypeError, ValueError):
        with pytest.raises(kind, match=r"not tabular|no table"):
            result.df  # noqa: B018


def test_import_mcpnb_loads_none_of_its_parts() -> None:
    code = "import mcpnb, sys; print(sorted(m for m in sys.modules if m.startswith('mcpnb')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "['mcpnb', 'mcpnb._moved']", done.stderr
