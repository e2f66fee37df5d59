"""Fixtures the client tests share: the OAuth tests' token isolation, authorization UI and key, and
the peers we did not write: server-everything over Streamable HTTP, and FastMCP with its tasks
package (SEP-2663), run as a subprocess on 127.0.0.1 from its own virtual environment
(``tests/peers/fastmcp_venv.py`` builds it).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import LOOPBACK, ROOT, _accepts, free_port, tcp_sockets, wait_until

from tests.peers.fastmcp_venv import FASTMCP_SERVER, fastmcp_python, serving


@pytest.fixture
def isolated_tokens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Token files in a temporary directory; no memory store leaks from one test into the next."""
    from mcpnb.client.auth import storage

    monkeypatch.setenv("MCPNB_TOKEN_DIR", str(tmp_path / "tokens"))
    storage._MEMORY.clear()
    storage._HELD.clear()
    yield
    storage._MEMORY.clear()
    storage._HELD.clear()


@pytest.fixture
def ui() -> Iterator[None]:
    """Restores the default authorization UI after a test replaces it."""
    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui

    previous = set_authorization_ui()
    yield
    restore_authorization_ui(previous)


@pytest.fixture(scope="module")
def rsa_key() -> Any:
    """A private key for ``private_key_jwt`` (2048-bit RSA takes a moment: one per module)."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C raises ``KeyboardInterrupt`` here, as in a terminal or a kernel.

    A test run started in the background by a shell without job control inherits SIGINT ignored,
    and Python then installs no handler of its own: a test that sends SIGINT sets it for itself.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class FastMcpServer:
    """The FastMCP tasks server over Streamable HTTP on 127.0.0.1 (a free port, or ``port``)."""

    def __init__(self, port: int = 0) -> None:
        command = [str(fastmcp_python()), str(FASTMCP_SERVER), "http", str(port)]
        self.proc, self.url, self.port = serving(command, "the FastMCP peer")
        assert wait_until(self._answers, timeout=60), "the FastMCP peer never answered HTTP"

    def _answers(self) -> bool:
        import httpx2

        try:
            httpx2.get(self.url, timeout=1.0)
        except httpx2.TransportError:
            return False
        return True

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="session")
def fastmcp_url() -> Iterator[str]:
    """One FastMCP tasks server for the session (tests read counters as differences)."""
    server = FastMcpServer()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def fastmcp_venv() -> Path:
    return fastmcp_python()


@pytest.fixture
def host_of():
    """An AppHost for a tool of a live pool; its ``sent`` list holds what it posted to the page."""
    from mcpnb import Pool
    from mcpnb.client.app_host import AppHost
    from mcpnb.client.apps import page_from, view_uri

    pool = Pool()
    hosts = []

    def make(server: str, tool: str, result: Any = None, arguments: Any = None) -> Any:
        info = next(t for t in pool.tools(server) if t.name == tool)
        page = page_from(server, view_uri(info), list(pool.read(server, view_uri(info))))
        sent: list[dict] = []
        notes: list = []
        host = AppHost(pool, info, page, arguments, result, send=sent.append, note=notes.append)
        host.sent, host.noted = sent, notes  # type: ignore[attr-defined]
        hosts.append(host)
        return host

    make.pool = pool  # type: ignore[attr-defined]
    yield make
    pool.close()


# ---------------------------------------------------------------- net_proxy.py: proxies and relays
#: A proxy (``--map``), or a relay that cuts quiet connections (``--mode relay-idle5``), on 127.0.0.1.
PROXY = ROOT / "tests" / "servers" / "net_proxy.py"


@pytest.fixture
def start_proxy() -> Iterator[Any]:
    """``start_proxy(*args)``: ``net_proxy.py`` with those arguments on a free port (returned);
    ``log=path``: what it logs (a line per request, or per connection it relays) goes there."""
    started: list[subprocess.Popen[str]] = []

    def run(*args: str, log: Path | None = None) -> int:
        port = free_port()
        with open(log, "w") if log is not None else contextlib.nullcontext() as out:
            proc = subprocess.Popen(
                [sys.executable, str(PROXY), "--port", str(port), *args], stdout=out, text=True
            )
        started.append(proc)
        assert wait_until(lambda: _accepts(port)), "the proxy never listened"
        return port

    yield run
    for proc in started:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy from the environment in the way (a developer's own settings)."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


@pytest.fixture
def everything_http(everything: str) -> Iterator[str]:
    """server-everything (the TypeScript SDK's, a 2025-11-25 peer) over Streamable HTTP on
    127.0.0.1: its URL."""
    port = free_port()
    proc = subprocess.Popen(
        ["node", "-r", LOOPBACK, everything, "streamableHttp"],
        env={"PORT": str(port), "PATH": "/usr/bin:/bin:/usr/local/bin", "GZIP_ALLOWED_DOMAINS": "127.0.0.1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    address = f"127.0.0.1:{port}"
    listening = wait_until(
        lambda: any(local == address and state == "0A" for local, _, state, _ in tcp_sockets())
    )
    assert listening, "server-everything did not start on 127.0.0.1"
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)
