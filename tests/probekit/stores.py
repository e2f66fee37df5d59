"""Task stores for the tests: a real ``redis-server`` of our own on a free loopback port, SQLite files.

The Redis server is Debian's ``redis-server`` (``.ci/run`` installs it), started once per test session
with no persistence (``--save '' --appendonly no``), emptied before each test that uses it and
killed at the end (and with the test process, should that be killed first): nothing is left
running. Without the binary the tests fail and say how to get it.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

STORES = ["memory", "sqlite", "redis"]
SHARED = ["sqlite", "redis"]


def die_with_parent() -> None:
    """``preexec_fn`` for servers the tests start: killed with the test run (``PR_SET_PDEATHSIG``),
    even one that is itself killed, and in a process group of their own."""
    import ctypes
    import os
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    os.setpgrp()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ping(port: int) -> bool:
    """One raw RESP ``PING`` (no client library needed to know the server is up)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _command(port: int, *words: str) -> bytes:
    body = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(body.encode())
        return sock.recv(64)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``redis://127.0.0.1:PORT`` of a redis-server this session started (and kills at the end)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: .ci/run installs it (apt-get install redis-server)")
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--daemonize", "no", "--dir", str(folder), "--logfile", str(folder / "redis.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )  # fmt: skip
    try:
        for _ in range(500):  # up in a few ms usually; bounded
            if _ping(port):
                break
            if proc.poll() is not None:
                log = (folder / "redis.log").read_text(errors="replace")[-2000:]
                pytest.fail(f"redis-server exited ({proc.returncode}): {log}")
            time.sleep(0.02)
        else:
            pytest.fail("redis-server did not answer PING within 10 s")
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)


class RedisProcess:
    """A redis-server of one test's own (free loopback port, its own folder, no persistence) that
    the test can kill (SIGKILL, as a crash or ``kill -9``) and start again on the same port, empty."""

    def __init__(self, folder: Path) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.fail("redis-server is not installed: .ci/run installs it (apt-get install redis-server)")
        self.folder, self.port = folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", str(self.folder),
             "--logfile", str(self.folder / "redis.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )  # fmt: skip
        for _ in range(500):
            if _ping(self.port):
                return
            if self.proc.poll() is not None:
                pytest.fail(f"redis-server exited: {(self.folder / 'redis.log').read_text()[-2000:]}")
            time.sleep(0.02)
        pytest.fail("redis-server did not answer PING within 10 s")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server this test alone uses, and may kill and start again."""
    redis = RedisProcess(tmp_path)
    try:
        yield redis
    finally:
        redis.kill()


def flush(redis_url: str) -> None:
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    assert _command(port, "FLUSHALL").startswith(b"+OK")


@pytest.fixture
def store_url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store of the ``kind`` the test module's ``kind`` fixture gives."""
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite://{tmp_path / 'tasks.db'}"
    redis_url = request.getfixturevalue("redis_server")
    flush(redis_url)
    return f"{redis_url}/0"
