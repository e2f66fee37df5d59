"""The FastMCP peer's own virtual environment, built once for the tests that need it.

``fastmcp-tasks`` pins ``fastmcp-slim`` and friends to versions that conflict with ours, so it can
never join the project's environment: a separate venv under ``tests/peers/.fastmcp-venv``
(git-ignored; about half a minute from PyPI on a clean machine; kept while the pinned requirements
are unchanged), which a whole run starts building as it starts (:func:`build_ahead`) and otherwise
the first test that needs it builds. Client, kernel and browser tests all run FastMCP
servers (``tests/servers/fastmcp_*.py``) with :func:`fastmcp_python`, over HTTP with :func:`serving`.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import threading
import venv
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, unclocked

#: fastmcp-tasks pulls fastmcp-slim[server]==4.1.4, pydocket, burner-redis; prefab-ui draws FastMCP's
#: own MCP Apps (``fastmcp.apps``: Approval, Choice, FormInput)
FASTMCP_REQUIREMENTS = ("fastmcp-tasks==4.1.4", "prefab-ui==0.21.1")
FASTMCP_REQUIREMENT = " ".join(FASTMCP_REQUIREMENTS)
FASTMCP_VENV = ROOT / "tests" / "peers" / ".fastmcp-venv"
FASTMCP_LOCK = ROOT / "tests" / "peers" / ".fastmcp-venv.lock"
FASTMCP_PYTHON = FASTMCP_VENV / "bin" / "python"
FASTMCP_STAMP = FASTMCP_VENV / ".mcpnb-ready"
FASTMCP_SERVER = ROOT / "tests" / "servers" / "fastmcp_tasks_server.py"
FASTMCP_APPS_SERVER = ROOT / "tests" / "servers" / "fastmcp_apps_server.py"


def fastmcp_python() -> Path:
    """The venv's interpreter, building the venv first if it is missing or stale.

    Parallel test workers may all ask at once on a clean machine: one builds (or the build
    :func:`build_ahead` started), the others wait on the lock and find it built. Neither is the
    asking test's time: the build downloads and installs a few dozen packages (a minute or more
    while another worker runs tests), which is not what a test's timeout bounds.
    """
    with unclocked(), open(FASTMCP_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _built():
            return FASTMCP_PYTHON
        why = _build()
        if why is not None:
            pytest.fail(f"could not build the FastMCP peer's venv ({FASTMCP_REQUIREMENT}):\n{why}")
        return FASTMCP_PYTHON


def build_ahead() -> Callable[[], None]:
    """Start building the venv in a thread, for a whole run: its first user (a minute into the run)
    then finds it built instead of waiting a minute for it. Returns what stops it at the run's end:
    an unfinished build is killed (the venv is built again the next time it is needed). A build
    that fails says nothing here: the first test that needs the venv builds it again and fails
    with pip's words."""
    stopped = threading.Event()
    running: list[subprocess.Popen[str]] = []

    def build() -> None:
        with open(FASTMCP_LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _built() and not stopped.is_set():
                _build(running, stopped)

    thread = threading.Thread(target=build, name="fastmcp-venv", daemon=True)
    thread.start()

    def stop() -> None:
        stopped.set()
        for proc in running:
            proc.kill()
        thread.join()

    return stop


def _built() -> bool:
    return (
        FASTMCP_PYTHON.exists()
        and FASTMCP_STAMP.exists()
        and FASTMCP_STAMP.read_text() == FASTMCP_REQUIREMENT
    )


def _build(
    running: list[subprocess.Popen[str]] | None = None, stopped: threading.Event | None = None
) -> str | None:
    """Build the venv: None once built, else why not (pip's last words)."""
    venv.EnvBuilder(clear=True, with_pip=True).create(FASTMCP_VENV)
    install = [str(FASTMCP_PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.Popen(
        [*install, *FASTMCP_REQUIREMENTS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    if running is not None:
        running.append(proc)
    if stopped is not None and stopped.is_set():
        proc.kill()
    try:
        _, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    if proc.returncode != 0:
        return err[-2000:] or f"pip ended with {proc.returncode}"
    FASTMCP_STAMP.write_text(FASTMCP_REQUIREMENT)
    return None


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
