"""Plain terminal IPython (no notebook, no HTML): the magics print readable text and short errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SESSION = """\
%load_ext mcpnb
%mcp serve probe-kit
%mcp tools probe --filter estimate
r = %mcp call probe.estimate task="add a login page" files=3
r.df
%mcp call probe.estimate files=x
%mcp status
"""


def test_terminal_session_is_text(tmp_path: Path):
    ipython = shutil.which("ipython", path=str(Path(sys.executable).parent))
    assert ipython, "ipython is installed with the package"
    out = subprocess.run(
        [ipython, "--no-banner", "--simple-prompt", "--colors=nocolor", "--HistoryManager.enabled=False"],
        input=SESSION,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    text = out.stdout + out.stderr
    assert "estimate" in text and "task*" in text  # the tools listing as a text table
    assert "every change needs a read" in text  # the DataFrame, printed by pandas
    assert "UsageError: probe.estimate: missing required argument 'task'" in text
    assert "connected" in text and "probe-kit" in text
    assert "<table" not in text and "<div" not in text  # no HTML leaks into a terminal
    assert "Traceback" not in text
