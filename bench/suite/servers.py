"""The servers the bench talks to, and how each client reaches them.

Every process started here is registered with :class:`Processes` and stopped when the run ends
(terminate, then kill), whatever happened. Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import subprocess
import sys
import time
from typing import Any

from suite.common import DEMO, PYTHON, ROOT

sys.path.insert(0, str(DEMO.parent))  # demo_server, for in-process servers


class Processes:
    """The child processes of this run; ``close()`` stops every one still alive."""

    def __init__(self) -> None:
        self._children: list[subprocess.Popen[str]] = []
        self.devnull = open(os.devnull, "w")  # noqa: SIM115 - closed in close()

    def start(self, args: list[str], *, stdout: Any = subprocess.PIPE, **kw: Any) -> subprocess.Popen[str]:
        proc = subprocess.Popen(args, stdout=stdout, stderr=self.devnull, text=True, cwd=ROOT, **kw)
        self._children.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[str]) -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stdout:
            proc.stdout.close()
        with contextlib.suppress(ValueError):
            self._children.remove(proc)

    def close(self) -> None:
        for proc in list(self._children):
            self.stop(proc)
        self.devnull.close()

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def first_line(proc: subprocess.Popen[str], timeout: float = 60.0) -> str:
    """The first stdout line of a server that prints its URL when it listens (bounded wait)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise TimeoutError(f"no URL from {proc.args!r} within {timeout} s")
    line = proc.stdout.readline().strip()
    if not line:
        raise RuntimeError(f"{proc.args!r} exited before printing its URL (code {proc.wait(5)})")
    return line


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen[str], timeout: float = 60.0) -> None:
    """Poll until something accepts on 127.0.0.1:port (for servers that print nothing)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with code {proc.returncode} before listening")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on 127.0.0.1:{port} within {timeout} s")


class Servers:
    """Servers shared by the sections of one run, started when first needed."""

    def __init__(self, procs: Processes) -> None:
        self.procs = procs
        self._demo_url: str | None = None

    @property
    def demo_url(self) -> str:
        """The demo server over Streamable HTTP (both eras are spoken on the same endpoint)."""
        if self._demo_url is None:
            proc = self.procs.start([PYTHON, str(DEMO), "http", "--port", "0"])
            self._demo_url = first_line(proc)
        return self._demo_url

    def url_for(self, transport: str) -> str | None:
        return self.demo_url if transport.startswith("http") else None


# ---------------------------------------------------------------- how each client reaches the demo server


def demo_server() -> Any:
    from demo_server import create_server

    return create_server()


def raw_mode(transport: str) -> str:
    """``mcp.Client``'s mode: the handshake era for http-legacy, auto (= 2026-07-28 here) otherwise."""
    return "legacy" if transport == "http-legacy" else "auto"


def raw_client(transport: str, url: str | None, errlog: Any, server: Any = None) -> Any:
    """A raw ``mcp.Client`` (not entered yet) for the demo server over ``transport``."""
    from mcp import Client

    return Client(raw_target(transport, url, errlog, server), mode=raw_mode(transport))


def declared_client(transport: str, url: str | None, errlog: Any) -> Any:
    """A raw ``mcp.Client`` that declares what mcpnb's sessions declare: sampling, forms and URL
    elicitation, MCP Apps, a log level. On 2026-07-28 every request carries the client's
    capabilities and the server reads them each time, so this is what the same call costs any
    client that offers a person's answers, before the pool's own work."""
    from mcp import Client
    from mcp.client.extension import advertise

    from mcpnb.client import apps

    async def never(*_: Any) -> Any:  # declared, not used: the demo's ``add`` asks nothing
        raise AssertionError("the bench's server asked the client something")

    return Client(
        raw_target(transport, url, errlog),
        mode=raw_mode(transport),
        elicitation_callback=never,
        sampling_callback=never,
        log_level="info",
        extensions=[advertise(apps.EXTENSION, apps.extension_settings())],
    )


async def no_progress(*_: Any) -> None:
    """A progress callback, so the floor's request carries a progressToken as the pool's does."""


def raw_target(transport: str, url: str | None, errlog: Any, server: Any = None) -> Any:
    """What ``mcp.Client`` takes for ``transport``; a stdio child's stderr goes to ``errlog``."""
    if transport == "inprocess":
        return server if server is not None else demo_server()
    if transport == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        return stdio_client(StdioServerParameters(command=PYTHON, args=[str(DEMO), "stdio"]), errlog=errlog)
    assert url is not None
    return url


def pool_options(transport: str, url: str | None) -> dict[str, Any]:
    """``Pool.connect`` keyword arguments for ``transport``."""
    if transport == "inprocess":
        return {"server": demo_server()}
    if transport == "stdio":
        return {"command": PYTHON, "args": [str(DEMO), "stdio"]}
    return {"url": url, "era": "legacy" if transport == "http-legacy" else "modern"}
