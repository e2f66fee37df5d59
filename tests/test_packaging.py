"""The wheel and the sdist as a packager builds them (``pip wheel``, ``python -m build``, conda-forge,
Debian): a person who installs the wheel has no checkout beside it, so every file mcpnb reads at run
time must be inside it, and nothing of the checkout's (tests, caches, virtualenvs) may ride along.

Both are built offline from this tree with the build backend installed here (the ``test`` extra
brings it), the way ``pip wheel --no-build-isolation`` does; nothing is written into the tree.
"""

from __future__ import annotations

import email
import email.message
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent

#: What mcpnb reads from its own folder at run time, with the reader: a wheel without one of these
#: imports fine and fails later, in front of a person (a page, a skill, a config check).
RUNTIME_FILES = {
    "mcpnb/client/config/schema.json": "client/config/validate.py: a config file's schema",
    "mcpnb/notebook/render/app_view.js": "notebook/render/app_view.py: an MCP App's page (anywidget ESM)",
    "mcpnb/probekit/data/dice.html": "probekit/tools/apps.py: the dice page",
    "mcpnb/probekit/data/ui_catalog.json": "probekit/tools/ui.py: ui_search's catalog",
    "mcpnb/probekit/data/skills/probe-kit-tour/SKILL.md": "probekit/skills.py",
    "mcpnb/probekit/data/skills/probe-kit-tour/assets/dot.png": "probekit/skills.py (a binary file)",
    "mcpnb/probekit/data/skills/probe-kit-tour/references/toolsets.md": "probekit/skills.py",
    "mcpnb/probekit/data/skills/review-a-change/SKILL.md": "probekit/skills.py",
    "mcpnb/probekit/data/skills/review-a-change/checklist.md": "probekit/skills.py",
    # PEP 561: without it mypy and pyright skip an installed mcpnb's type hints ("missing library
    # stubs or py.typed marker") and the TYPE_CHECKING imports in mcpnb/__init__.py go unread
    "mcpnb/py.typed": "type checkers",
}

#: Parts of a path that belong to a checkout or a run, never to a distribution.
NEVER = {"__pycache__", ".venv", "node_modules", ".git", ".pytest_cache", ".ruff_cache", ".hypothesis"}
NEVER_SUFFIXES = (".pyc", ".pyo")

#: Tools of the tests and the bench: a plain ``pip install mcpnb`` must not pull them in.
DEV_ONLY = {"pytest", "pytest-timeout", "pytest-xdist", "hypothesis", "ruff", "playwright", "hatchling"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _backend() -> None:
    """Skip only where the build backend is truly absent (an environment made without the extra)."""
    backend = _pyproject()["build-system"]["build-backend"].split(".")[0]
    pytest.importorskip(
        backend, reason=f"the build backend {backend!r} is not installed: pip install -e '.[test]'"
    )


def _build(kind: str, out: Path) -> Path:
    """Build ``kind`` (wheel or sdist) into ``out`` through the PEP 517 hook a frontend calls."""
    _backend()
    hook = _pyproject()["build-system"]["build-backend"]
    code = f"import sys, {hook} as b; print(b.build_{kind}(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"build_{kind} failed:\n{done.stdout}\n{done.stderr}"
    return out / done.stdout.strip().splitlines()[-1]


def _offending(names: list[str]) -> list[str]:
    return [n for n in names if NEVER & set(n.split("/")) or n.endswith(NEVER_SUFFIXES)]


def _package_files() -> set[str]:
    """mcpnb's files in this tree, as git knows them (tracked or new, not ignored), or on disk."""
    if shutil.which("git") and (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "mcpnb"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    else:  # an unpacked sdist
        listed = [p.relative_to(ROOT).as_posix() for p in (ROOT / "mcpnb").rglob("*") if p.is_file()]
    return {n for n in listed if (ROOT / n).is_file() and not _offending([n])}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    path = _build("wheel", tmp_path_factory.mktemp("wheel"))
    with zipfile.ZipFile(path) as zf:
        yield zf


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = _build("sdist", tmp_path_factory.mktemp("sdist"))
    with tarfile.open(path) as tf:
        names = [m.name for m in tf.getmembers() if m.isfile()]
    top = {n.split("/", 1)[0] for n in names}
    assert len(top) == 1, f"an sdist unpacks into one folder, not {sorted(top)}"
    return [n.split("/", 1)[1] for n in names]


def _metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(wheel.read(name))


def test_the_wheel_holds_every_file_mcpnb_reads_at_run_time(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    missing = {f: why for f, why in RUNTIME_FILES.items() if f not in names}
    assert not missing, f"the wheel lacks files mcpnb reads at run time: {missing}"
    left_out = sorted(_package_files() - names)
    assert not left_out, f"files of mcpnb/ missing from the wheel: {left_out}"


def test_the_wheel_holds_the_package_and_nothing_of_the_checkout(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    assert not _offending(names), _offending(names)
    outside = [n for n in names if not n.startswith("mcpnb/") and ".dist-info/" not in n]
    assert not outside, f"the wheel installs files beside the package: {outside}"
    (info,) = {n.split("/", 1)[0] for n in names if ".dist-info/" in n}
    assert info.startswith("mcpnb-")


def test_the_wheel_says_the_version_the_package_reports(wheel: zipfile.ZipFile) -> None:
    """pyproject.toml and mcpnb.__version__ each hold the version: a release bumps both, or ``pip show``
    and ``python -m mcpnb --version`` disagree."""
    meta = _metadata(wheel)
    init = wheel.read("mcpnb/__init__.py").decode()
    (reported,) = re.findall(r'^__version__ = "([^"]+)"', init, re.M)
    assert meta["Name"] == "mcpnb"
    assert meta["Version"] == reported == _pyproject()["project"]["version"]


def test_the_wheels_metadata_is_what_a_packager_reads(wheel: zipfile.ZipFile) -> None:
    meta = _metadata(wheel)
    assert meta["Requires-Python"] == _pyproject()["project"]["requires-python"]
    assert meta["License-Expression"] == "MIT"
    # the MIT license asks that its text go with every copy: a wheel without it cannot be passed on
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist()), "no license text"
    classifiers = meta.get_all("Classifier") or []
    assert "Framework :: Jupyter" in classifiers
    assert "Typing :: Typed" in classifiers  # with mcpnb/py.typed, above
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
    base = {r.name.lower() for r in requires if r.marker is None or "extra" not in str(r.marker)}
    assert "mcp" in base
    assert not base & DEV_ONLY, f"a plain install pulls in test tools: {sorted(base & DEV_ONLY)}"
    assert {"lab", "course", "test", "classroom"} <= set(meta.get_all("Provides-Extra") or [])


def test_the_sdist_rebuilds_and_runs_the_tests(sdist: list[str]) -> None:
    names = set(sdist)
    needed = {
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "PKG-INFO",
        "tests/conftest.py",
        "tests/test_packaging.py",
        "tests/peers/package.json",  # npm ci --prefix tests/peers: the peer servers the tests talk to
        "tests/peers/package-lock.json",
        "docs/architecture.md",  # test_architecture reads it
        "notebooks/01-quickstart.ipynb",  # the course notebooks the tests run
        ".ci/run",
        *RUNTIME_FILES,
    }
    assert not needed - names, f"the sdist lacks: {sorted(needed - names)}"
    assert not _offending(sdist), _offending(sdist)
    assert not [n for n in sdist if n.startswith("tests/peers/.fastmcp-venv")]


def test_the_test_extra_installs_the_build_backend() -> None:
    """CI installs ``.[test]`` with build isolation, so the backend is in no environment the tests see
    unless the extra names it: these packaging tests would skip there, guarding nothing."""
    project = _pyproject()
    backends = {Requirement(r).name.lower() for r in project["build-system"]["requires"]}
    test = {Requirement(r).name.lower() for r in project["project"]["optional-dependencies"]["test"]}
    assert backends <= test, f"the test extra lacks the build backend: {sorted(backends - test)}"
