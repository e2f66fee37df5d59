"""Fault injection: servers that misbehave on purpose (tests/servers/faulty_server.py), and the
check every fault test ends with: no process it started is left."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, alive, children, wait_until

FAULTY = str(ROOT / "tests" / "servers" / "faulty_server.py")
#: Reconnect fast, never probe on a timer: the faults, not the health loop, drive these tests.
QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}


class Marks:
    """A folder where every faulty server writes ``pid-<pid>`` as it starts."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # servers that other tests' session-scoped fixtures keep running are not this test's
        self.children_before = children()

    def stdio(self, *flags: str) -> dict:
        """``Pool.connect`` keywords for a faulty stdio server that leaves its pid here."""
        return {"command": sys.executable, "args": [FAULTY, "stdio", *flags, "--marks", str(self.path)]}

    def pids(self) -> set[int]:
        return {int(p.name.removeprefix("pid-")) for p in self.path.glob("pid-*")}

    def wait_for(self, count: int) -> set[int]:
        assert wait_until(lambda: len(self.pids()) >= count), f"expected {count} server starts"
        return self.pids()

    def none_alive(self) -> bool:
        return not any(alive(pid) for pid in self.pids())


@pytest.fixture
def marks(tmp_path: Path) -> Marks:
    folder = tmp_path / "marks"
    folder.mkdir()
    return Marks(folder)


def no_process_left(marks: Marks) -> None:
    """Every server a test started is gone, and this process has no child it did not have before."""
    assert marks.pids(), "the test started no server?"
    assert wait_until(marks.none_alive), f"still alive: {[p for p in marks.pids() if alive(p)]}"

    def new_children() -> set[int]:
        return children() - marks.children_before

    assert wait_until(lambda: not new_children()), f"children left: {new_children()}"


class FaultyHttp:
    """The faulty server over Streamable HTTP on 127.0.0.1 (a free port)."""

    def __init__(self, marks: Marks) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, FAULTY, "http", "--marks", str(marks.path)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url
        port = int(self.url.split(":")[2].split("/")[0])
        assert wait_until(lambda: _accepts(port)), "the faulty HTTP server did not start listening"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def faulty_http(marks: Marks) -> Iterator[FaultyHttp]:
    server = FaultyHttp(marks)
    yield server
    server.stop()
