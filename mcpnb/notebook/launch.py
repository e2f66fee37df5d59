"""Start probe-kit from a cell and connect it to a pool, so every demo works with zero setup.

In-process (the default) needs no socket at all. Over HTTP, uvicorn runs as a task on the runtime
loop (never the kernel's: a sync magic blocks the kernel thread while it waits), bound to 127.0.0.1.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.status import ServerStatus


def serve_probekit(
    name: str = "probe",
    *,
    toolset: str | None = None,
    http: bool = False,
    port: int = 0,
    pool: Pool | None = None,
    root: str | Path | None = None,
    task_ttl_ms: int | None = None,
    poll_interval_ms: int | None = None,
    **options: Any,
) -> ServerStatus:
    """Start probe-kit and connect it as ``name`` (in-process, or over HTTP on 127.0.0.1:``port``).

    ``root`` is the project folder its file tools may read (default: the working directory);
    ``task_ttl_ms`` how long finished tasks are kept, ``poll_interval_ms`` the poll hint tasks carry.
    ``options`` go to :meth:`Pool.connect` (``era="legacy"``, ``tool_timeout=...``).
    """
    from mcpnb.client.pool import default_pool
    from mcpnb.probekit import create_server, serve_http

    pool = default_pool() if pool is None else pool
    tuning = {
        key: value
        for key, value in (("task_ttl_ms", task_ttl_ms), ("poll_interval_ms", poll_interval_ms))
        if value is not None
    }
    server = create_server(toolset, root=root, **tuning)  # a bad root or toolset fails before any stop
    stop_probekit(name, pool=pool, missing_ok=True)
    if not http:
        return pool.connect(name, server=server, **options)
    try:
        handle = pool.runtime.run(serve_http(server, port=port))
    except OSError as exc:  # the port is taken (or not ours to take): said, not a traceback
        from mcpnb.client.errors import ConnectError

        taken = exc.errno == errno.EADDRINUSE
        why = "another server is listening there" if taken else (exc.strerror or str(exc))
        raise ConnectError(
            name,
            f"probe-kit cannot listen on 127.0.0.1:{port}: {why}; choose another port, or leave the "
            "port out for a free one",
        ) from None
    pool.add_service(_service(name), handle.stop)  # stopped with the pool (kernel exit included)
    try:
        return pool.connect(name, url=handle.url, **options)
    except BaseException:
        stop_probekit(name, pool=pool, missing_ok=True)
        raise


def stop_probekit(name: str = "probe", *, pool: Pool | None = None, missing_ok: bool = False) -> None:
    """Disconnect ``name`` and stop its HTTP server if :func:`serve_probekit` started one."""
    from mcpnb.client.pool import default_pool

    pool = default_pool() if pool is None else pool
    connected = name in pool
    if connected:
        pool.disconnect(name)
    if not pool.stop_service(_service(name)) and not connected and not missing_ok:
        pool.connection(name)  # raises UnknownServerError with a suggestion


def _service(name: str) -> str:
    return f"probe-kit:{name}"
