"""Shared fixtures: real servers (subprocesses on 127.0.0.1), a fresh runtime and pool per test."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parent.parent
DEMO = str(ROOT / "tests" / "servers" / "demo_server.py")
EVERYTHING = (
    ROOT
    / "tests"
    / "peers"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)
LOOPBACK = str(ROOT / "tests" / "peers" / "loopback-only.cjs")


def demo_command(*extra: str) -> dict:
    """Keyword arguments for ``Pool.connect`` that start the demo server over stdio."""
    return {"command": sys.executable, "args": [DEMO, "stdio", *extra]}


def demo_server_object():
    """The demo server as an in-process object (a fresh one each time)."""
    sys.path.insert(0, str(Path(DEMO).parent))
    from demo_server import create_server

    return create_server()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_processes() -> dict[int, tuple[int, int]]:
    """Every live (not zombie) process, read from /proc: pid -> (parent pid, process group)."""
    found: dict[int, tuple[int, int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, ...
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), int(fields[2]))
    return found


def children(pid: int | None = None) -> set[int]:
    """Live descendants of ``pid`` (default: this process), read from /proc (zombies excluded)."""
    pid = os.getpid() if pid is None else pid
    parents = {p: parent for p, (parent, _group) in live_processes().items()}
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier and p not in found}
        found |= frontier
    return found


@contextlib.contextmanager
def unclocked() -> Iterator[None]:
    """Stop the running test's timeout clock (pytest-timeout's ``signal`` method) for a one-off
    setup step that is no part of the test (building a peer's venv), and start it again after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    left, interval = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left, interval)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def connect_everything(pool: Any, name: str = "ev") -> str:
    """server-everything over stdio, once its task tool is listed (it registers that one just after
    initialization). Returns ``name``."""
    pool.connect(name, command="node", args=[str(EVERYTHING), "stdio"])
    deadline = time.monotonic() + 20
    while "simulate-research-query" not in {t.name for t in pool.tools(name, refresh=True)}:
        assert time.monotonic() < deadline, "the task tool never appeared"
        time.sleep(0.1)
    return name


def wait_until(predicate, timeout: float = 15.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


class HttpServer:
    """A demo server subprocess over Streamable HTTP or SSE on 127.0.0.1 (free port)."""

    def __init__(self, kind: str, *extra: str, port: int = 0) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, DEMO, kind, "--port", str(port), *extra], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url
        port = int(self.url.split(":")[2].split("/")[0])
        assert wait_until(lambda: _accepts(port)), "demo server did not start"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def tcp_sockets() -> list[tuple[str, str, str, str]]:
    """This machine's TCP sockets, read from ``/proc/net/tcp*``: ``(local, remote, state, inode)``,
    addresses as ``host:port`` (IPv4 dotted, IPv6 as /proc's hex), states as /proc's hex
    (``0A`` LISTEN, ``01`` ESTABLISHED, ``06`` TIME_WAIT)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            found.append((_address(fields[1]), _address(fields[2]), fields[3], fields[9]))
    return found


def _address(field: str) -> str:
    host_hex, port_hex = field.split(":")
    host = (
        ".".join(str(int(host_hex[i : i + 2], 16)) for i in (6, 4, 2, 0)) if len(host_hex) == 8 else host_hex
    )
    return f"{host}:{int(port_hex, 16)}"


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


# ---------------------------------------------------------------- the run in parallel (pytest-xdist)
#: Workers at the most for ``-n auto`` (pyproject's addopts): each may hold a kernel, a JupyterLab
#: and a chromium at once, and the tests that time a server's recovery need some CPU left.
MAX_WORKERS = 4

#: Lines for the end of the run's report. A worker's own report is not shown, so a worker hands
#: them to the controller (``workeroutput``), which prints them.
_summary: list[str] = []
#: Processes the workers found alive at their end (on the controller).
_leftovers: list[str] = []


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


#: The files that take a minute or more, longest first, run before the rest: each file runs on one
#: worker (``--dist loadfile``) and the workers take files in the order collected, so one of these
#: collected last (``tests/test_*.py`` sort after the folders) kept one worker busy for minutes after
#: the others had run out of files. That order holds only with ``--no-loadscope-reorder`` (in
#: pyproject's addopts): xdist otherwise sorts files by their number of tests, which put the
#: JupyterLab files (few tests, each long) last. Browser and other files take turns, so the two
#: workers do not both drive a JupyterLab and a chromium at the start. Seconds from a run here,
#: for whoever reorders: a file missing here only runs in its usual place.
LONG_FILES = (
    "browser/test_course_in_jupyterlab.py",  # 234
    "client/test_resilience.py",  # 164 (with the FastMCP peer's venv, built on first use)
    "probekit/test_workers.py",  # 147
    "browser/test_form_in_jupyterlab.py",  # 158
    "browser/test_two_views_in_jupyterlab.py",  # 125
    "notebook/cell/test_cell_kernel.py",  # 135
    "client/test_pool.py",  # 119
    "browser/test_apps_in_jupyterlab.py",  # 117
    "browser/test_explorer_in_jupyterlab.py",  # 106
    "test_bench.py",  # 116
    "faults/test_processes.py",  # 105
    "browser/test_typing.py",  # 94
    "browser/test_apps_hostile.py",  # 78
    "test_notebooks.py",  # 101
    "conformance/test_conformance.py",  # 96
    "test_course.py",  # 73
    "client/test_auth_two_kernels.py",  # 73
    "notebook/magics/test_connect.py",  # 68
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long files first (:data:`LONG_FILES`); the order within a file, and of the others, kept."""
    tests = Path(__file__).parent
    rank = {str(tests / name): n for n, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(str(item.path), len(rank)))


def run_basetemp(factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder: under xdist each worker has a subfolder of the controller's."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def report_at_the_end(line: str) -> None:
    """Print ``line`` once under the run's summary, whichever process ran the test."""
    if line not in _summary:
        _summary.append(line)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the controller: what a worker that ended had to report."""
    output = getattr(node, "workeroutput", {})
    for line in output.get("mcpnb_summary", []):
        report_at_the_end(line)
    _leftovers.extend(output.get("mcpnb_leftovers", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in _summary:
        terminalreporter.write_line(line)


# ---------------------------------------------------------------- nothing outlives the test session
#: Linux prctl option: orphaned descendants are re-parented to this process, not to init.
_PR_SET_CHILD_SUBREAPER = 36
#: what stops the FastMCP peer's venv build :func:`pytest_sessionstart` started ahead of its tests
_ahead: list[Any] = []


def pytest_sessionstart(session: pytest.Session) -> None:
    """Become the subreaper of every process the tests start, so one orphaned by a dying kernel or
    a killed parent (a server in its own session) still counts as ours at the end."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not Linux: the check sees descendants only
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # The browser in these tests runs on this machine, whoever started the run: a CI job or a person
    # over SSH must not switch OAuth sign-ins to paste mode (mcpnb.client.auth.redirect).
    for var in ("SSH_CONNECTION", "SSH_CLIENT"):
        os.environ.pop(var, None)
    if session.config.pluginmanager.has_plugin("dsession"):  # xdist's controller: a whole run
        from tests.peers.fastmcp_venv import build_ahead

        _ahead.append(build_ahead())


@pytest.hookimpl(trylast=True)  # on the xdist controller: after its workers are down
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any process the tests started (a server, a kernel) is still alive at the end.

    Every fixture has been torn down by now; a process still ending gets a few seconds to go. Each
    xdist worker checks its own and tells the controller, which also sees what a worker orphaned.
    """
    while _ahead:  # the FastMCP peer's venv, if the run ended before its build did
        _ahead.pop()()
    wait_until(lambda: not children(), timeout=10, interval=0.1)
    left = sorted(children())
    lines = [f"{pid}: {_cmdline(pid)}" for pid in left]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # an xdist worker: the controller reports for it
        worker_output["mcpnb_summary"] = _summary
        worker_output["mcpnb_leftovers"] = lines
        return
    lines += _leftovers
    if not lines:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = "processes started by the tests outlived them (now killed):\n  " + "\n  ".join(lines)
    if reporter is not None:
        reporter.write_line("")
        reporter.write_line(message, red=True, bold=True)
    else:
        print(message, file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:300]
    except OSError:
        return "?"


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    """Tests never read the developer's own user-level MCP config, nor the machine's site files
    (an ``/etc/mcpnb/mcp.json``)."""
    kept = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("MCPNB_USER_CONFIG", str(kept / "mcp.json"))
    monkeypatch.setenv("MCPNB_SITE_CONFIG", str(kept / "site.json"))


@pytest.fixture(autouse=True)
def _default_interaction_restored():
    """What answers a server's questions by default is process-wide (``%load_ext`` installs the
    notebook's): a test that changes it must not decide how a later test's questions are answered."""
    from mcpnb.client import interaction

    before = interaction._default_interaction
    yield
    interaction._default_interaction = before


@pytest.fixture
def runtime():
    from mcpnb.client.runtime import Runtime

    rt = Runtime(name="mcpnb-test-runtime")
    yield rt
    rt.close()


@pytest.fixture
def pool(runtime):
    from mcpnb import Pool

    p = Pool(runtime)
    yield p
    p.close()


@pytest.fixture
def http_url() -> Iterator[str]:
    server = HttpServer("http")
    yield server.url
    server.stop()


@pytest.fixture
def sse_url() -> Iterator[str]:
    server = HttpServer("sse")
    yield server.url
    server.stop()


def reference_server(name: str) -> str:
    """The entry point of one of the MCP project's reference servers in ``tests/peers``
    (``server-filesystem``, ``server-memory``), run with ``node``."""
    path = EVERYTHING.parents[2] / name / "dist" / "index.js"
    if not path.exists() or shutil.which("node") is None:
        pytest.fail(
            f"{name} is not installed: run `npm ci --prefix tests/peers` (the README's test command does)"
        )
    return str(path)


@pytest.fixture(scope="session")
def everything() -> str:
    if not EVERYTHING.exists() or shutil.which("node") is None:
        pytest.fail(
            "server-everything is not installed: run `npm ci --prefix tests/peers` "
            "(the README's test command does)"
        )
    return str(EVERYTHING)


def started_kernel(**options: Any) -> tuple[Any, Any]:
    """``start_new_kernel``, tried again (twice at most) when the kernel dies before it replies:
    jupyter_client picks five free ports, frees them and hands them to the kernel, and another
    process of the run (a server on port 0, another worker's kernel) may take one meanwhile
    ("ZMQError: Address already in use"): a race of the machine's ports, not what a test tests."""
    for attempt in range(3):
        try:
            return start_new_kernel(**{"kernel_name": "python3", "cwd": str(ROOT), **options})
        except RuntimeError as exc:  # "Kernel died before replying to kernel_info"
            if attempt == 2 or "died" not in str(exc):
                raise
    raise AssertionError("unreachable")


@pytest.fixture
def kernel():
    """A fresh kernel per test (~1 s): a failed test must not leave an awaiting cell for the next."""
    km, kc = started_kernel()
    kc.kernel_manager = km  # for tests that interrupt it, as the ■ button does
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
