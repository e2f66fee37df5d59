"""Plain terminal IPython (no notebook, no HTML): the magics print readable text and short errors."""

from __future__ import annotations

import re
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
%mcp connect bad -- nonexistent-command-mcpnb-test
"""


def _terminal(session: str, cwd: Path) -> str:
    ipython = shutil.which("ipython", path=str(Path(sys.executable).parent))
    assert ipython, "ipython is installed with the package"
    out = subprocess.run(
        [ipython, "--no-banner", "--simple-prompt", "--colors=nocolor", "--HistoryManager.enabled=False"],
        input=session,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    return out.stdout + out.stderr


def test_terminal_session_is_text(tmp_path: Path):
    text = _terminal(SESSION, tmp_path)
    assert "estimate" in text and "task*" in text  # the tools listing as a text table
    assert "every change needs a read" in text  # the DataFrame, printed by pandas
    assert "UsageError: probe.estimate: missing required argument 'task'" in text
    assert "connected" in text and "probe-kit" in text
    assert "<table" not in text and "<div" not in text  # no HTML leaks into a terminal
    assert "Traceback" not in text
    assert "ConnectError: could not connect to 'bad': command not found" in text
    assert "\x1b[" not in text  # --colors=nocolor: no escape codes, ours included


def test_a_subscription_prints_each_update_once(tmp_path: Path):
    """A terminal keeps what it printed: each update is one new line, the header is not repeated."""
    text = _terminal(
        """\
%load_ext mcpnb
%mcp serve probe-kit
%mcp subscribe probe probe://status
h = %mcp call probe.slow_task steps=1 delay=0 --task
h.result().data is not None
h = %mcp call probe.slow_task steps=1 delay=0 --task
h.result().data is not None
import time; time.sleep(1)
%mcp unsubscribe probe probe://status
""",
        tmp_path,
    )
    assert text.count("probe: watching probe://status") == 1, text
    updates = re.findall(r"probe: \d\d:\d\d:\d\d updated: probe://status", text)
    assert len(updates) >= 2, text  # each task's start and end change the status
    assert text.count("updated: probe://status") == len(updates)  # never printed again
    assert "probe: stopped watching probe://status" in text and "Traceback" not in text
