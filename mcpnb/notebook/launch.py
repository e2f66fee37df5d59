"""Start probe-kit from a cell and connect it to a pool, so every demo works with zero setup.

In-process (the default) needs no socket at all. Over HTTP, uvicorn runs as a task on the runtime
loop (never the kernel's: a sync magic blocks the kernel thread while it waits), bound to 127.0.0.1.

A serve cell run again (or Run All from the top) leaves a healthy probe-kit that has the settings
asked for as it is: restarting it lost its state (tasks in flight, subscriptions, the dice history)
and, over HTTP, moved it to a new port under every other client of the old URL. Other settings,
``restart=True``, or a server that is no longer well start it afresh (over HTTP on its port while
that is free), and one line says which.
A serve on a port another server holds fails before the probe-kit serving under that name is
stopped; a reconnect of one that a disconnect stopped serves it again (:func:`serve_again`).
"""

from __future__ import annotations

import errno
import inspect
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client.redact import is_secret_key

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.status import ServerStatus


@dataclass
class _Served:
    """A probe-kit this module started under one name: what it was asked for, and what runs."""

    settings: dict[str, Any]  # as compared with the next serve's (labels as the change line says them)
    server: Any  # the MCPServer object (in-process and HTTP alike)
    handle: Any = None  # the HttpHandle, over HTTP


@dataclass(frozen=True)
class _Asked:
    """What one serve asks for, as given (:meth:`settings`: as probe-kit will resolve it)."""

    toolset: str | None
    http: bool
    port: int
    root: str | Path | None
    task_ttl_ms: int | None
    poll_interval_ms: int | None
    options: dict[str, Any]

    def tuning(self) -> dict[str, int]:
        given = (("task_ttl_ms", self.task_ttl_ms), ("poll_interval_ms", self.poll_interval_ms))
        return {key: value for key, value in given if value is not None}

    def settings(self) -> dict[str, Any]:
        """Resolved as probe-kit will resolve them (the toolset of ``MCP_TOOLSET``, the working
        directory as root, create_server's defaults): ``--toolset full`` and no toolset are the
        same settings, and so are ``--era auto`` and no era."""
        from mcpnb.probekit.server import create_server
        from mcpnb.probekit.toolsets import resolve_toolset

        defaults = inspect.signature(create_server).parameters
        tuning = {key: defaults[key].default for key in ("task_ttl_ms", "poll_interval_ms")} | self.tuning()
        return {
            "toolset": resolve_toolset(self.toolset),
            "transport": "HTTP" if self.http else "in-process",
            "root": str(Path(self.root if self.root is not None else Path.cwd()).resolve()),
            "task ttl": f"{tuning['task_ttl_ms']} ms",
            "poll interval": f"{tuning['poll_interval_ms']} ms",
            "era": self.options.get("era") or "auto",
            **{key: value for key, value in self.options.items() if key != "era"},
        }


#: Per pool, the probe-kits started into it by name (weak: a pool let go of takes its entries along).
_SERVED: weakref.WeakKeyDictionary[Pool, dict[str, _Served]] = weakref.WeakKeyDictionary()


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
    restart: bool = False,
    restart_hint: str = "restart=True",
    **options: Any,
) -> ServerStatus:
    """Start probe-kit and connect it as ``name`` (in-process, or over HTTP on 127.0.0.1:``port``).

    ``root`` is the project folder its file tools may read (default: the working directory);
    ``task_ttl_ms`` how long finished tasks are kept, ``poll_interval_ms`` the poll hint tasks carry.
    ``options`` go to :meth:`Pool.connect` (``era="legacy"``, ``tool_timeout=...``).

    Called again for a probe-kit it started that is connected and healthy, with the same settings
    (``port=0`` is any port), it leaves that one running, state, tasks and URL kept, and prints one
    line saying so; other settings restart it and the line says what changed. ``restart=True``
    always starts afresh (its state is lost; over HTTP it keeps its port where it is still free).
    ``restart_hint``: how that line names a restart to its reader (``%mcp serve``'s: ``--restart``).
    """
    from mcpnb.client.pool import default_pool

    pool = default_pool() if pool is None else pool
    asked = _Asked(toolset, http, port, root, task_ttl_ms, poll_interval_ms, options)
    settings = asked.settings()  # a bad toolset raises
    before = _ours(pool, name)
    unwell: str | None = None
    changed: list[str] = []
    if before is not None and not restart:
        unwell = _unwell(pool, name, before)
        changed = _changes(before, settings, port)
        if unwell is None and not changed:
            where = before.handle.url if before.handle is not None else "in-process"
            toolset_now = settings["toolset"]
            print(
                f"{name} is already serving ({where}, toolset {toolset_now}); {restart_hint} starts it afresh"
            )
            return pool.connection(name).status()
    kept = before.handle.port if before is not None and before.handle is not None and http and not port else 0
    other = pool.connection(name).config.target if before is None and name in pool else None
    status, served = _start(pool, name, asked, settings, kept)
    if other is not None:  # a server of that name that is not probe-kit: said, not silently dropped
        print(
            f"{name} was connected to {other}: disconnected, and probe-kit serves as {name} now "
            "(another name keeps both)"
        )
    if before is None:
        return status  # a first start says nothing
    if restart:
        why = f"restarted {name} afresh, as asked"
    elif unwell is not None:
        why = f"{name} {unwell}: started afresh"
    else:
        why = f"restarted {name}: {', '.join(changed)}"
    if served.handle is not None and (before.handle is None or before.handle.url != served.handle.url):
        gone = "; the old address is gone" if before.handle is not None else ""
        why += f" (now at {served.handle.url}{gone})"
    print(why)
    return status


def _start(
    pool: Pool, name: str, asked: _Asked, settings: dict[str, Any], kept: int = 0
) -> tuple[ServerStatus, _Served]:
    """Stop whatever serves as ``name`` and start a fresh probe-kit there (what every serve did).

    ``kept``: the port the one it replaces listened on, tried first where any port will do, so
    another client of its URL (a second notebook, an inspector) still reaches it; taken meanwhile,
    any port."""
    from mcpnb.probekit import create_server

    # a bad root fails here, before anything is stopped
    server = create_server(asked.toolset, root=asked.root, **asked.tuning())
    options = asked.options
    if not asked.http:
        stop_probekit(name, pool=pool, missing_ok=True)
        served = _remember(pool, name, _Served(settings, server))  # one that fails to connect is ours too
        return pool.connect(name, server=server, **options), served
    port = asked.port or kept
    if port and _holder(pool, port) == name:  # its own port: freed, then taken again
        stop_probekit(name, pool=pool, missing_ok=True)
        handle = _listen(pool, name, server, port, any_port=not asked.port)
    else:  # a port someone else holds fails here, and the probe-kit serving as name goes on serving
        handle = _listen(pool, name, server, port, any_port=not asked.port)
        stop_probekit(name, pool=pool, missing_ok=True)
    pool.add_service(_service(name), handle.stop)  # stopped with the pool (kernel exit included)
    served = _remember(pool, name, _Served(settings, server, handle))
    try:
        return pool.connect(name, url=handle.url, **options), served
    except BaseException:
        stop_probekit(name, pool=pool, missing_ok=True)
        raise


def _listen(pool: Pool, name: str, server: Any, port: int, *, any_port: bool = False) -> Any:
    """``server`` served over HTTP on 127.0.0.1:``port`` (its ``HttpHandle``); a port that is taken
    is a ``ConnectError`` that says so (naming the probe-kit of this pool that holds it), not a
    traceback, unless ``any_port`` (the port was only preferred): then a free one."""
    from mcpnb.probekit import serve_http

    try:
        return pool.runtime.run(serve_http(server, port=port))
    except OSError as exc:  # the port is taken (or not ours to take)
        if any_port and port:
            return _listen(pool, name, server, 0)
        from mcpnb.client.errors import ConnectError

        holder = _holder(pool, port)
        if holder is not None:
            why = (
                f"the probe-kit served here as {holder!r} is listening there (%mcp serve --stop "
                f"{holder}, or stop_probekit({holder!r}), stops it)"
            )
        elif exc.errno == errno.EADDRINUSE:
            why = "another server is listening there"
        else:
            why = exc.strerror or str(exc)
        raise ConnectError(
            name,
            f"probe-kit cannot listen on 127.0.0.1:{port}: {why}; choose another port, or leave the "
            "port out for a free one",
        ) from None


def _holder(pool: Pool, port: int) -> str | None:
    """The name of the probe-kit this module serves into ``pool`` over HTTP on ``port``, if any."""
    for name, served in _SERVED.get(pool, {}).items():
        if served.handle is not None and served.handle.running and served.handle.port == port:
            return name
    return None


def _changes(before: _Served, settings: dict[str, Any], port: int) -> list[str]:
    """Each setting that differs, as ``toolset core → full`` (a port of 0 is any port: the one it has)."""
    unset = object()
    said = []
    for key in dict.fromkeys([*before.settings, *settings]):
        old, new = before.settings.get(key, unset), settings.get(key, unset)
        if old == new:
            continue
        if key in _OWN_SETTINGS or (_plain(old, unset) and _plain(new, unset) and not is_secret_key(key)):
            said.append(f"{key} {'unset' if old is unset else old} → {'unset' if new is unset else new}")
        else:  # headers, auth, env, tls: what they hold is not said (a token, a password)
            said.append(f"{key} changed")
    if port and before.handle is not None and settings["transport"] == "HTTP" and port != before.handle.port:
        said.append(f"port {before.handle.port} → {port}")
    return said


#: The settings of probe-kit's own a change line says in full; a connect option only where it is
#: a number or a flag (``tool_timeout 60 → 120``), never what a header or an auth holds.
_OWN_SETTINGS = frozenset({"toolset", "transport", "root", "task ttl", "poll interval", "era"})


def _plain(value: Any, unset: object) -> bool:
    return value is unset or value is None or isinstance(value, bool | int | float)


def _ours(pool: Pool, name: str) -> _Served | None:
    """The probe-kit this module started as ``name`` if the pool's connection of that name is still
    to it; None when there is none (never served, disconnected, the name connected to another
    server since: that one is replaced, as before)."""
    served = _SERVED.get(pool, {}).get(name)
    if served is None or name not in pool:
        return None
    config = pool.connection(name).config
    if served.handle is None:
        return served if config.server is served.server else None
    return served if config.url == served.handle.url else None


def _unwell(pool: Pool, name: str, served: _Served) -> str | None:
    """Why the probe-kit served as ``name`` cannot be kept (None: it can): its HTTP server stopped,
    its connection is not connected, or the health probes say it does not answer."""
    from mcpnb.client.events import State

    conn = pool.connection(name)
    if served.handle is not None and not served.handle.running:
        return "had stopped (its HTTP server was no longer running)"
    if conn.state is not State.CONNECTED:
        why = f": {conn.last_error}" if conn.last_error else ""
        return f"was {conn.state}{why}"
    if conn.health.healthy is False:
        return "was not answering its health checks"
    return None


def _remember(pool: Pool, name: str, served: _Served) -> _Served:
    _SERVED.setdefault(pool, {})[name] = served
    _STOPPED.get(pool, {}).pop(name, None)
    return served


#: Per pool, the probe-kits :func:`stop_probekit` stopped by name (a disconnect, ``--stop``): what
#: :func:`serve_again` brings back when the name is reconnected.
_STOPPED: weakref.WeakKeyDictionary[Pool, dict[str, _Served]] = weakref.WeakKeyDictionary()


def serve_again(name: str, *, pool: Pool) -> str | None:
    """Before a reconnect of ``name``, disconnected on purpose: the probe-kit that disconnect stopped,
    served again as it was (the same server object, its state kept; over HTTP on its old port, so
    the URL the reconnect goes to answers), and ours again (a later serve with the same settings
    keeps it). Returns what to say (its HTTP server is listening again), or None.

    A reconnect is connecting "again as it was"; over HTTP it went to the URL of a server
    ``%mcp disconnect`` had stopped, and failed with "is the server running?" about mcpnb's own."""
    stopped = _STOPPED.get(pool, {}).get(name)  # kept until it serves again: a taken port may free up
    if stopped is None or not pool.was_disconnected(name):
        return None
    said = None
    if stopped.handle is not None:
        handle = _listen(pool, name, stopped.server, stopped.handle.port)
        pool.add_service(_service(name), handle.stop)
        stopped = _Served(stopped.settings, stopped.server, handle)
        said = (
            f"{name}: probe-kit listens again at {handle.url} (its HTTP server stopped with the disconnect)"
        )
    _remember(pool, name, stopped)
    return said


def stop_probekit(name: str = "probe", *, pool: Pool | None = None, missing_ok: bool = False) -> None:
    """Disconnect ``name`` and stop its HTTP server if :func:`serve_probekit` started one."""
    from mcpnb.client.pool import default_pool

    pool = default_pool() if pool is None else pool
    served = _SERVED.get(pool, {}).pop(name, None)
    stopped = _STOPPED.setdefault(pool, {})
    if served is not None:
        stopped[name] = served  # the next reconnect of name serves it again
    else:  # name was some other server's (or nobody's): a reconnect has no probe-kit to bring back
        stopped.pop(name, None)
    connected = name in pool
    if connected:
        pool.disconnect(name)
    if not pool.stop_service(_service(name)) and not connected and not missing_ok:
        pool.connection(name)  # raises UnknownServerError with a suggestion


def _service(name: str) -> str:
    return f"probe-kit:{name}"
