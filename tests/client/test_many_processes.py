"""A server of several processes behind one address (a load balancer, probe-kit's ``--workers``)
keeps no 2025-11-25 session between them: the next request reaches a process that never saw the
session and says "Session not found". The connect error said only that (and, with ``wait=``, "no
answer after waiting", though the server had answered); it now says why and what to do, unless the
server said so itself (probe-kit does)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpnb.client.errors import ConnectError

SERVERS = Path(__file__).resolve().parents[1] / "servers"


def serving(run: list[str]) -> Iterator[str]:
    proc = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.fixture
def sdk_behind_one_address() -> Iterator[str]:
    """The SDK's MCPServer (the demo server) answered by two processes on one socket."""
    yield from serving([sys.executable, str(SERVERS / "two_process_server.py")])


@pytest.fixture
def probe_kit_workers(tmp_path: Path) -> Iterator[str]:
    """probe-kit served by two worker processes on one port (a shared SQLite task store)."""
    run = [sys.executable, "-m", "mcpnb.probekit", "--http", "--port", "0", "--root", str(tmp_path)]
    yield from serving([*run, "--task-store", f"sqlite://{tmp_path / 'tasks.db'}", "--workers", "2"])


def first_failure(pool, url: str) -> str:
    """The error of the first 2025-11-25 connect that fails (which process answers is the kernel's
    pick: nearly every try fails, 8 of 8 and 10 of 12 measured)."""
    for attempt in range(12):
        try:
            pool.connect(f"legacy{attempt}", url=url, era="legacy")
        except ConnectError as exc:
            return str(exc)
    raise AssertionError("every 2025-11-25 connect landed on one process")


def test_a_2025_session_on_several_processes_says_why_it_fails_and_what_to_do(pool, sdk_behind_one_address):
    failed = first_failure(pool, sdk_behind_one_address)
    assert "Session not found" in failed and "several server processes behind one address" in failed
    assert "--era modern" in failed
    # as the error says: the 2026-07-28 era needs no session, any process answers
    pool.connect("modern", url=sdk_behind_one_address, era="modern")
    assert [pool.call("modern", "echo", {"text": "hi"}).text for _ in range(6)] == ["hi"] * 6


def test_a_server_that_says_why_itself_is_not_explained_twice(pool, probe_kit_workers):
    failed = first_failure(pool, probe_kit_workers)
    assert "this probe-kit serves one port from several worker processes" in failed  # its own words
    assert "several server processes behind one address" not in failed
