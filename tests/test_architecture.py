"""docs/architecture.md keeps up with the tree: every module of the three rooms is on its code map,
and every module the map names exists."""

from __future__ import annotations

import re
from pathlib import Path

import mcpnb

PACKAGE = Path(mcpnb.__file__).parent
DOC = (PACKAGE.parent / "docs" / "architecture.md").read_text()


def _modules() -> set[str]:
    """What each room holds at its top: modules and folders (``pool``, ``tasks``, ``forms``, ...)."""
    stems: set[str] = set()
    for room in ("client", "notebook", "probekit"):
        for path in (PACKAGE / room).iterdir():
            if path.suffix == ".py" and not path.name.startswith("_"):
                stems.add(path.stem)
            elif (path / "__init__.py").exists():
                stems.add(path.name)
    return stems


def test_every_module_is_on_the_code_map() -> None:
    named = set(re.findall(r"`([a-z_]+)(?:\.py|/)?`", DOC)) | set(re.findall(r"\b([a-z_]+)\.py\b", DOC))
    named |= set(re.findall(r"`([a-z_]+)` \(", DOC))
    for words in re.findall(r"\(`([^)]*)`\)", DOC):  # "(`code`, `git`, ...)" lists
        named |= set(re.findall(r"[a-z_]+", words))
    assert sorted(_modules() - named) == []


def test_every_module_the_map_names_exists() -> None:
    missing, named = [], 0
    for room, body in re.findall(r"^### `mcpnb/([a-z]+)/`.*?\n(.*?)(?=^### |^## )", DOC, re.M | re.S):
        for cell in re.findall(r"^\| (.+?) \|", body, re.M):
            for name in re.findall(r"`([a-z_]+)(?:\.py|/)?`", cell):
                named += 1
                if not any((PACKAGE / room / f).exists() for f in (f"{name}.py", name)):
                    missing.append(f"{room}/{name}")
        for path in re.findall(r"`([a-z_/]+\.py)`", body):
            named += 1
            if not (PACKAGE / room / path).exists():
                missing.append(f"{room}/{path}")
    assert named > 30 and missing == []


def test_the_long_files_run_first_are_files_of_the_suite():
    """conftest's LONG_FILES go first to keep the workers busy alike; a renamed file would quietly
    fall back to its usual place."""
    from tests.conftest import LONG_FILES

    tests = Path(__file__).parent
    assert [name for name in LONG_FILES if not (tests / name).is_file()] == []
