"""``python -m mcpnb``, the README's first command, runs end to end and shows real data."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_quick_tour_runs():
    done = subprocess.run(
        [sys.executable, "-m", "mcpnb"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "probe-kit" in out and "connected" in out
    assert "probe.interview" in out and "mcp__probe__" not in out  # the names the magics use
    assert "%mcp call probe.code_review" in out
    assert "…" in out  # long descriptions are cut visibly
    assert "S-EVAL" in out and "R-BARE-EXCEPT" in out  # the findings table really came from the server
    assert "schema ✓" in out


def _tour(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpnb", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_help_and_unknown_options_do_not_run_the_tour():
    """``python -m mcpnb --help`` ran the whole tour."""
    import mcpnb

    shown = _tour("--help")
    assert shown.returncode == 0 and "usage: python -m mcpnb" in shown.stdout
    assert "connected" not in shown.stdout and "notebooks/01-quickstart.ipynb" in shown.stdout
    assert _tour("--version").stdout.strip() == f"mcpnb {mcpnb.__version__}"
    wrong = _tour("--tour")
    assert wrong.returncode == 2 and "unrecognized arguments: --tour" in wrong.stderr and not wrong.stdout
