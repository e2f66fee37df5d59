"""The FastMCP peer's own virtual environment, built once for the tests that need it.

``fastmcp-tasks`` pins ``fastmcp-slim`` and friends to versions that conflict with ours, so it can
never join the project's environment: the first test that needs it builds a separate venv under
``tests/peers/.fastmcp-venv`` (git-ignored; about half a minute from PyPI on a clean machine; kept
while the pinned requirements are unchanged). Client, kernel and browser tests all run FastMCP
servers (``tests/servers/fastmcp_*.py``) with :func:`fastmcp_python`, over HTTP with :func:`serving`.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import venv
from pathlib import Path

import pytest
from conftest import ROOT, unclocked

#: fastmcp-tasks pulls fastmcp-slim[server]==4.1.4, pydocket, burner-redis; prefab-ui draws FastMCP's
#: own MCP Apps (``fastmcp.apps``: Approval, Choice, FormInput)
FASTMCP_REQUIREMENTS = ("fastmcp-tasks==4.1.4", "prefab-ui==0.21.1")
FASTMCP_REQUIREMENT = " ".join(FASTMCP_REQUIREMENTS)
FASTMCP_VENV = ROOT / "tests" / "peers" / ".fastmcp-venv"
FASTMCP_LOCK = ROOT / "tests" / "peers" / ".fastmcp-venv.lock"
FASTMCP_SERVER = ROOT / "tests" / "servers" / "fastmcp_tasks_server.py"
FASTMCP_APPS_SERVER = ROOT / "tests" / "servers" / "fastmcp_apps_server.py"


def fastmcp_python() -> Path:
    """The venv's interpreter, building the venv first if it is missing or stale.

    Parallel test workers may all ask at once on a clean machine: one builds, the others wait on
    the lock and find it built. Neither is the asking test's time: the build downloads and installs
    a few dozen packages (a minute or more while another worker runs tests), which is not what a
    test's timeout bounds.
    """
    python = FASTMCP_VENV / "bin" / "python"
    stamp = FASTMCP_VENV / ".mcpnb-ready"
    with unclocked(), open(FASTMCP_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text() == FASTMCP_REQUIREMENT:
            return python
        return _build_fastmcp_venv(python, stamp)


def _build_fastmcp_venv(python: Path, stamp: Path) -> Path:
    venv.EnvBuilder(clear=True, with_pip=True).create(FASTMCP_VENV)
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *FASTMCP_REQUIREMENTS,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        why = done.stderr[-2000:]
        pytest.fail(f"could not build the FastMCP peer's venv ({FASTMCP_REQUIREMENT}):\n{why}")
    stamp.write_text(FASTMCP_REQUIREMENT)
    return python


def serving(command: list[str], what: str) -> tuple[subprocess.Popen[str], str, int]:
    """Start an HTTP server that prints its URL first (127.0.0.1, a free port): its process, URL
    and port. Run outside our environment's FastMCP settings and venv, so a FastMCP peer in its
    own venv starts as it would anywhere, quietly."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FASTMCP_", "VIRTUAL_ENV"))}
    env["FASTMCP_LOG_LEVEL"] = "WARNING"
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), f"{what} did not start: {url!r}"
    return proc, url, int(url.split(":")[2].split("/")[0])
