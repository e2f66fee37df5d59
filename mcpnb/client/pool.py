"""The pool: named connections that outlive cells. This is the public API; the magics sit on top.

Every operation is written once as a coroutine that runs on the runtime loop. The synchronous method
waits for it interruptibly; the ``a``-prefixed twin awaits it without blocking the caller's loop.
One server failing, hanging or dying never touches the others: each connection has its own owner
task, and multi-server operations gather per-server outcomes instead of stopping at the first error.

This module is the pool's core (connections, status, tools, calls) and the two faces of every
operation; the work lives elsewhere: in the connection (:mod:`.connection`, :mod:`.operations`,
:mod:`.requests`) and in each feature's own module: tasks in :mod:`.tasks.pooled`, declared
requirements in :mod:`.requirements`, tools as functions in :mod:`.toolbox.box`, watching in
:mod:`.watching`. A new feature adds its body there and only its two faces here.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import weakref
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mcpnb.client.connection import Connection
from mcpnb.client.errors import (
    ArgumentsError,
    UnknownServerError,
    describe,
    did_you_mean,
    did_you_mean_text,
    out_of_reach,
)
from mcpnb.client.events import ConnectionEvent, EventLog
from mcpnb.client.interaction import CallContext, Interaction, default_interaction
from mcpnb.client.operations import checked_log_level, completion_reference
from mcpnb.client.status import ServerStatus, StatusTable
from mcpnb.client.timeouts import checked_timeout
from mcpnb.client.toolinfo import FLAT_PREFIX, ToolInfo, ToolList, split_flat_name
from mcpnb.client.watching import watch_from

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from mcpnb.client.config import ServerConfig
    from mcpnb.client.contents import PromptMessages, ResourceContents
    from mcpnb.client.inputs import TypedInputs
    from mcpnb.client.runtime import Runtime
    from mcpnb.client.toolbox import Toolbox
    from mcpnb.client.toolbox.approval import Approve

T = TypeVar("T")
_Said = TypeVar("_Said", ServerStatus, StatusTable)

#: Servers disconnected on purpose (or closed with the pool) that the pool remembers, the newest
#: ones: each keeps its configuration (``reconnect`` connects it again) and its log (``logs``). A
#: loop that connects and disconnects servers of new names kept every one of them (an in-process
#: server's configuration holds the server object itself, about 0.65 MB); an older one is
#: forgotten, its status row's place too, and its name is then unknown, as if never connected.
DISCONNECTED_KEPT = 32
#: How long ``logs()`` waits, at most, for the stdio servers' stderr written until now to be read.
STDERR_CATCH_UP = 1.0


@dataclass(frozen=True)
class Disconnected:
    """What the pool keeps of a server disconnected on purpose: what ``reconnect`` and ``logs``
    read, not the stopped connection (its tool catalog, its stderr, its session's objects)."""

    config: ServerConfig
    #: The connection's own log, which it still writes as it stops (what it said as it ended).
    events: EventLog
    #: Ended by ``close()``, not ``disconnect``: a call to it says the pool closed.
    with_pool: bool = False


class Pool:
    """Named MCP connections, shared by the magics and by Python code.

    >>> pool = Pool()
    >>> pool.connect("time", command="python", args=["-m", "mcp_server_time"])  # doctest: +SKIP
    >>> pool.call("time", "get_current_time", {"timezone": "UTC"})  # doctest: +SKIP

    ``with Pool() as pool:`` closes every connection at the end of the block (``pool.close()``),
    and ``async with Pool() as pool:`` does so with ``await pool.aclose()``. A pool is always
    true, connected or not: ``pool = given or Pool()`` keeps an empty pool that was given.

    In a coroutine, use the ``a``-twins (``await pool.acall(...)``): a synchronous method blocks
    the running loop while it waits (mcpnb warns once). A process forked after a pool was made
    (multiprocessing, gunicorn ``--preload``, celery) makes its own pool: the parent's refuses work
    there (:class:`~mcpnb.client.runtime.ForkedPoolError`), its connections stay in the parent.
    """

    def __init__(self, runtime: Runtime | None = None) -> None:
        if runtime is None:
            from mcpnb.client.runtime import get_runtime

            runtime = get_runtime()
        self.runtime = runtime
        self._connections: dict[str, Connection] = {}
        # names closed on purpose (errors then say so), each with its log: what a server said as it
        # ended is often what a person disconnected it to read (%mcp logs NAME still shows it)
        #: Servers disconnected on purpose, oldest first (at most DISCONNECTED_KEPT: _remember).
        self._disconnected: dict[str, Disconnected] = {}
        # Servers of a config file whose settings are invalid: not started, but listed (and named
        # in errors) until they are connected again or disconnected.
        self._misconfigured: dict[str, ServerStatus] = {}
        # Every name in the order it was first connected (or listed as invalid): the status table
        # keeps it, so a reconnect or a fix does not move a row.
        self._order: dict[str, None] = {}
        self._subscribers: list[Callable[[ConnectionEvent], None]] = []
        # How to stop hearing each connection's events: a closed pool lets go of them, so a stopped
        # connection that something else still holds does not keep the pool in memory (weak: one
        # replaced by a reconnect goes when nothing holds it).
        self._heard: weakref.WeakKeyDictionary[Connection, Callable[[], None]] = weakref.WeakKeyDictionary()
        self._interaction: Interaction | None = None
        self._tasks: Any = None  # a TaskRegistry, made on first use (importing tasks loads the SDK)
        self._services: dict[str, Callable[[], Awaitable[None]]] = {}
        self._typed: TypedInputs | None = None
        runtime.add_closer(self._close)

    @property
    def typed_inputs(self) -> TypedInputs:
        """What a person typed for VS Code files' ``${input:ID}`` in this kernel (see
        :mod:`mcpnb.client.inputs`): not asked again until a server that used it fails to start."""
        if self._typed is None:
            from mcpnb.client.inputs import TypedInputs

            self._typed = TypedInputs()
        return self._typed

    def forget_inputs(self, path: str | Path | None = None) -> None:
        """Ask again for the inputs of ``path`` (default: every file) at its next connect."""
        self.typed_inputs.forget(path)

    @property
    def interaction(self) -> Interaction | None:
        """How servers' requests for a person are answered (None: the process-wide default)."""
        return self._interaction

    @interaction.setter
    def interaction(self, value: Interaction | None) -> None:
        self._interaction = value
        for conn in self._connections.values():
            conn.interaction = value

    @property
    def effective_interaction(self) -> Interaction:
        """The interaction that asks now: this pool's own, else the process-wide default (the
        notebook's once ``%load_ext mcpnb`` has run)."""
        return self._interaction or default_interaction()

    def asking_context(self, *, awaited: bool = False, later: bool = False) -> CallContext:
        """Where a question for a call made from code without a context goes (a server's form, a
        file's inputs): the interaction decides; the notebook's asks in the calling cell. Built on
        the caller's thread, or in a coroutine that carries the caller's context variables;
        ``awaited``: the caller awaits on a loop of its own (a cell's), so it is free for a click;
        ``later``: the questions come after the caller has moved on (a task's)."""
        return self.effective_interaction.code_context(awaited=awaited, later=later)

    def awaited_here(self) -> bool:
        """An ``await`` of the pool from outside mcpnb's own loop (a cell's), which stays free while
        the call runs; on mcpnb's loop the caller blocks in ``runtime.run``."""
        return not self.runtime.in_runtime_thread

    def _call_context(
        self,
        context: CallContext | None,
        answers: dict[str, Any] | None,
        *,
        awaited: bool = False,
        later: bool = False,
    ) -> CallContext:
        context = context or self.asking_context(awaited=awaited, later=later)
        if answers is not None:
            context.answers = answers
        return context

    # ------------------------------------------------------------------ plumbing
    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        __tracebackhide__ = True  # IPython and pytest leave plumbing out of a user's traceback
        return self.runtime.run(coro)

    async def _arun(self, coro: Coroutine[Any, Any, T]) -> T:
        __tracebackhide__ = True
        return await self.runtime.arun(coro)

    def connection(self, name: str) -> Connection:
        """The :class:`Connection` object (its coroutines run on the runtime loop only)."""
        try:
            return self._connections[name]
        except KeyError:
            if name in self._misconfigured:
                raise UnknownServerError(
                    not_started(name, self.misconfigured[name]),
                    model_text=out_of_reach(
                        f"server {name!r} was not started", "the user fixes its settings"
                    ),
                ) from None
            if name in self._disconnected:
                raise UnknownServerError(
                    closed_with_pool(name) if self._disconnected[name].with_pool else disconnected(name),
                    model_text=out_of_reach(f"server {name!r} was disconnected by the user"),
                ) from None
            said = did_you_mean_text(name, self._connections)
            raise UnknownServerError(f"no server named {name!r}{said} ({self.roll_call()})") from None

    @property
    def misconfigured(self) -> dict[str, str]:
        """Servers of a config file that were not started because their settings are invalid, and
        why (each shows as a ``failed`` row until it is connected again or disconnected)."""
        return {name: row.last_error or "" for name, row in self._misconfigured.items()}

    def was_disconnected(self, name: str) -> bool:
        """True for a name that was disconnected on purpose (and not connected again since)."""
        return name in self._disconnected and name not in self._connections

    @property
    def names(self) -> list[str]:
        return list(self._connections)

    def roll_call(self, limit: int | None = None) -> str:
        """The servers by state, for an error that names one that is not there (``connected: a, b;
        failed: c``): a server that failed to start is not "connected". ``limit`` caps the names."""
        names = sorted(self._connections)
        by_state: dict[str, list[str]] = {}
        for name in names[:limit]:
            by_state.setdefault(self._connections[name].state.value, []).append(name)
        said = "; ".join(f"{state}: {', '.join(group)}" for state, group in by_state.items())
        more = len(names) - (limit or len(names))
        return (said or "connected: none yet") + (f" and {more} more" if more > 0 else "")

    def __contains__(self, name: object) -> bool:
        return name in self._connections

    def __len__(self) -> int:
        return len(self._connections)

    def __bool__(self) -> bool:
        """A pool is true even with no server in it (``__len__`` alone would make an empty one
        false, and ``pool = given or Pool()`` would silently drop the pool it was given)."""
        return True

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> Pool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def subscribe(self, callback: Callable[[ConnectionEvent], None]) -> Callable[[], None]:
        """Receive every event of every connection (present and future). Runs on the runtime thread."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _fan_out(self, event: ConnectionEvent) -> None:
        """Every pool subscriber hears ``event``, each on its own: one that raises is logged under
        its own name and the next still hears it (they were called as one, by this)."""
        conn = self._connections.get(event.server) or self._disconnected.get(event.server)
        if conn is not None:
            conn.events.deliver(self._subscribers, event)
        else:
            from mcpnb.client.events import call_each

            call_each(self._subscribers, event)

    # ------------------------------------------------------------------ connect / disconnect
    @staticmethod
    def _config(
        name: str,
        config: ServerConfig | Mapping[str, Any] | None,
        options: dict[str, Any],
    ) -> ServerConfig:
        from mcpnb.client.config import ServerConfig

        if isinstance(config, ServerConfig):
            return config.replace(name=name, **{k: v for k, v in options.items() if v is not None})
        if config is not None:
            server = options.pop("server", None)
            merged = {**config, **{k: v for k, v in options.items() if v is not None}}
            return ServerConfig.from_dict(name, merged, source="<code>", server=server)
        return ServerConfig.build(name, **options)

    async def _connect(
        self, config: ServerConfig, *, raise_on_failure: bool = True, wait: float | None = None
    ) -> ServerStatus:
        self._disconnected.pop(config.name, None)
        self._misconfigured.pop(config.name, None)
        self._order.setdefault(config.name)
        old = self._connections.pop(config.name, None)
        if old is not None:
            await old.stop("reconnected by you")
        conn = Connection(config)
        conn.interaction = self._interaction
        self._heard[conn] = conn.events.subscribe(self._fan_out)
        self._connections[config.name] = conn
        try:
            await conn.start(wait=wait or 0.0)
        except Exception:
            if raise_on_failure:
                raise
        return conn.status()

    def connect(
        self,
        name: str,
        *,
        command: str | None = None,
        args: list[str] | tuple[str, ...] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        transport: str | None = None,
        config: ServerConfig | Mapping[str, Any] | None = None,
        server: Any = None,
        wait: float | None = None,
        **options: Any,
    ) -> ServerStatus:
        """Connect (or reconnect, replacing) the server ``name``; raise ``ConnectError`` if it fails.

        A failed server stays in the pool, ``failed`` with its reason, so ``status()`` shows it.
        ``wait=SECONDS`` keeps trying (with backoff) while the server is not answering yet, for a
        server that is still starting; the default fails at once.
        """
        cfg = self._config(name, config, _given(locals(), options))
        return self._filters_said(self._run(self._connect(cfg, wait=wait)))

    async def aconnect(
        self,
        name: str,
        *,
        command: str | None = None,
        args: list[str] | tuple[str, ...] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        transport: str | None = None,
        config: ServerConfig | Mapping[str, Any] | None = None,
        server: Any = None,
        wait: float | None = None,
        **options: Any,
    ) -> ServerStatus:
        """Async twin of :meth:`connect`."""
        cfg = self._config(name, config, _given(locals(), options))
        return self._filters_said(await self._arun(self._connect(cfg, wait=wait)))

    def _filters_said(self, connected: _Said) -> _Said:
        """Warn (where the person connected) of tool filter patterns that match no tool: a typo in
        ``disabled_tools`` hides nothing, and the tool it meant stays callable."""
        import warnings

        rows = connected if isinstance(connected, StatusTable) else [connected]
        for row in rows:
            conn = self._connections.get(row.name)
            for said in conn.catalog.unmatched() if conn is not None else ():
                warnings.warn(f"server {row.name!r}: {said}", UserWarning, stacklevel=3)
        return connected

    async def _connect_many(self, configs: list[ServerConfig | tuple[str, str, str]]) -> StatusTable:
        """Connect each config at once; a ``(name, problem)`` is a server whose settings are invalid:
        not started, shown as failed; a live session of that name is left as it is, and its row
        says so (it said "failed" while ``status()`` said connected and its calls worked)."""
        rows: dict[str, ServerStatus] = {}
        for item in configs:
            self._order.setdefault(item[0] if isinstance(item, tuple) else item.name)
            if isinstance(item, tuple):
                name, problem, transport = item
                live = self._connections.get(name)
                if live is not None:
                    kept = f"kept as it was: the file's settings are invalid: {problem}"
                    rows[name] = replace(live.status(), last_error=kept)
                    continue
                rows[name] = ServerStatus(
                    name, transport, "failed", last_error=f"invalid settings: {problem}", since=datetime.now()
                )
                self._misconfigured[name] = rows[name]
        ready = [c for c in configs if not isinstance(c, tuple)]
        await asyncio.gather(*(self._connect(c, raise_on_failure=False) for c in ready))
        return StatusTable(
            rows[c[0]] if isinstance(c, tuple) else self._connections[c.name].status() for c in configs
        )

    def _configs_from_files(
        self,
        path: str | Path | None,
        names: list[str] | None,
        inputs: Mapping[str, str] | None = None,
        auth: Mapping[str, Any] | None = None,
    ) -> list[ServerConfig | tuple[str, str, str]]:
        from mcpnb.client.config import load_config

        loaded = load_config(path=Path(path) if path else None, keep_going=True, inputs=inputs, auth=auth)
        found: dict[str, ServerConfig | tuple[str, str, str]] = {
            n: loaded.servers[n] if n in loaded.servers else (n, why, loaded.problem_transports.get(n, "?"))
            for n in loaded.order
            if n in loaded.servers or (why := loaded.problems.get(n)) is not None
        }
        if names:
            missing = [n for n in names if n not in found]
            if missing:
                hint = did_you_mean(missing[0], found)
                raise UnknownServerError(
                    f"no server named {missing[0]!r} in the configuration"
                    + (f"; did you mean {hint!r}?" if hint else "")
                    + f" (configured: {', '.join(sorted(found)) or 'none'})"
                )
            return [found[n] for n in names]
        asked = loaded.named_file_servers  # a file named: its servers, not the user file's others
        return [c for n, c in found.items() if asked is None or n in asked]

    async def _connect_files(
        self,
        path: str | Path | None,
        names: list[str] | None,
        inputs: Mapping[str, str] | None,
        context: CallContext | None,
        auth: Mapping[str, Any] | None = None,
    ) -> StatusTable:
        configs = self._configs_from_files(path, names, inputs, auth)  # names checked before anyone is asked
        if path is not None:
            from mcpnb.client.inputs import ask_inputs

            interaction = self.effective_interaction
            asked = await ask_inputs(
                interaction, path, names, inputs, context or self.asking_context(), self.typed_inputs
            )
            if asked != dict(inputs or {}):
                configs = self._configs_from_files(path, names, asked, auth)
        table = await self._connect_many(configs)
        if self._typed is not None:
            self._typed.failed(row.name for row in table if row.state == "failed")
        return table

    def connect_config(
        self,
        path: str | Path | None = None,
        names: list[str] | None = None,
        *,
        inputs: Mapping[str, str] | None = None,
        context: CallContext | None = None,
        auth: Mapping[str, Any] | None = None,
    ) -> StatusTable:
        """Connect the servers of the layered ``.mcp.json`` configuration (every one when ``names`` is None).

        Per-server failures do not raise: they show as ``failed`` rows in the returned table, and so
        does a server whose settings are invalid (it is not started; the others are). Disabled
        servers are listed as ``disabled`` and not started. ``path`` may be VS Code's
        ``.vscode/mcp.json``; ``inputs`` then gives the values VS Code would prompt for
        (``${input:ID}``), and the ones not given are asked through the :attr:`interaction` (in
        ``context``'s cell), where someone can answer. ``auth`` goes to the servers reached by URL
        that say nothing of signing in (``{"type": "oauth", "flow": "authorization_code"}``, as
        VS Code and Cursor sign in to them): see :func:`~mcpnb.client.config.load_config`.
        """
        return self._filters_said(self._run(self._connect_files(path, names, inputs, context, auth)))

    async def aconnect_config(
        self,
        path: str | Path | None = None,
        names: list[str] | None = None,
        *,
        inputs: Mapping[str, str] | None = None,
        context: CallContext | None = None,
        auth: Mapping[str, Any] | None = None,
    ) -> StatusTable:
        return self._filters_said(await self._arun(self._connect_files(path, names, inputs, context, auth)))

    async def _disconnect(self, name: str, sign_out: bool = False) -> None:
        # one never started (invalid settings) is only forgotten; an unknown name raises here
        if name in self._connections or self._misconfigured.pop(name, None) is None:
            conn = self.connection(name)
            del self._connections[name]
            self._remember(conn)
            if self._tasks is not None:  # Pool.tasks lists connected servers only; a held handle still works
                self._tasks.forget(name)
            await conn.stop()
        if sign_out:
            from mcpnb.client.auth import forget_tokens

            forget_tokens(name)

    def disconnect(self, name: str, *, sign_out: bool = False) -> None:
        """Close one server's session (its process exits) and forget it. ``sign_out`` also drops its
        OAuth tokens and registration (in memory and on disk): the next connect signs in afresh."""
        self._run(self._disconnect(name, sign_out))

    async def adisconnect(self, name: str, *, sign_out: bool = False) -> None:
        await self._arun(self._disconnect(name, sign_out))

    async def _reconnect(self, name: str) -> ServerStatus:
        gone = self._disconnected.get(name) if name not in self._connections else None
        if gone is not None:  # disconnected on purpose: its configuration, connected again
            return await self._connect(gone.config)
        conn = self.connection(name)
        await conn.start()
        return conn.status()

    def reconnect(self, name: str) -> ServerStatus:
        """Start a fresh session with the same configuration (a server disconnected on purpose is
        connected again with the one it had)."""
        return self._run(self._reconnect(name))

    async def areconnect(self, name: str) -> ServerStatus:
        return await self._arun(self._reconnect(name))

    def add_service(self, key: str, stop: Callable[[], Awaitable[None]]) -> None:
        """Something the pool started (a server on the runtime loop): ``stop()`` runs at close,
        after the connections, so no client talks to a server that is already gone."""
        self._services[key] = stop

    def stop_service(self, key: str) -> bool:
        """Stop one service now; False when there is no such service."""
        stop = self._services.pop(key, None)
        if stop is not None:
            self._run(stop())
        return stop is not None

    async def _close(self) -> None:
        conns = list(self._connections.values())
        self._misconfigured.clear()
        self._order.clear()
        self._remember(*self._connections.values(), with_pool=True)
        self._connections.clear()
        if self._tasks is not None:  # their servers are gone from the pool: so are their tasks
            self._tasks.clear()
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)
        stops, self._services = list(self._services.values()), {}
        await asyncio.gather(*(stop() for stop in stops), return_exceptions=True)
        # every connection has said its last (stopped): a context or timer of the runtime loop that
        # still holds one (asyncio keeps a cancelled timer's context until it is purged) must not
        # hold the pool too
        heard, self._heard = list(self._heard.values()), weakref.WeakKeyDictionary()
        for unsubscribe in heard:
            unsubscribe()

    def _remember(self, *conns: Connection, with_pool: bool = False) -> None:
        """Keep what ``reconnect`` and ``logs`` need of connections ended on purpose, the newest
        :data:`DISCONNECTED_KEPT` of them; an older one is forgotten with its status row's place."""
        for conn in conns:
            self._disconnected.pop(conn.name, None)  # (again: now the newest)
            self._disconnected[conn.name] = Disconnected(conn.config, conn.events, with_pool)
        while len(self._disconnected) > DISCONNECTED_KEPT:
            oldest = next(iter(self._disconnected))
            del self._disconnected[oldest]
            if oldest not in self._connections and oldest not in self._misconfigured:
                self._order.pop(oldest, None)

    def close(self) -> None:
        """Close every connection. The pool stays usable for new connects."""
        self._run(self._close())

    async def aclose(self) -> None:
        await self._arun(self._close())

    async def _sync(self, desired: Mapping[str, ServerConfig | Mapping[str, Any]]) -> StatusTable:
        wanted = {name: self._config(name, cfg, {}) for name, cfg in desired.items()}
        for name in [n for n in self._connections if n not in wanted]:
            await self._disconnect(name)
        changed = [
            c for n, c in wanted.items() if n not in self._connections or self._connections[n].config != c
        ]
        await asyncio.gather(*(self._connect(c, raise_on_failure=False) for c in changed))
        return StatusTable(self._connections[n].status() for n in wanted)

    def sync(self, desired: Mapping[str, ServerConfig | Mapping[str, Any]]) -> StatusTable:
        """Make the pool match ``desired``: add new servers, drop missing ones, reconnect changed ones."""
        return self._run(self._sync(desired))

    async def async_sync(self, desired: Mapping[str, ServerConfig | Mapping[str, Any]]) -> StatusTable:
        return await self._arun(self._sync(desired))

    # ------------------------------------------------------------------ declared requirements
    def require(
        self,
        spec: Any,
        *,
        strategy: str = "priority",
        source: str = "notebook",
        skills: list[str | Path] | tuple[str | Path, ...] = (),
        base: str | Path | None = None,
        config: bool | str | Path = True,
        answers: dict[str, Any] | None = None,
        context: CallContext | None = None,
        inputs: Mapping[str, str] | None = None,
    ) -> Any:
        """Connect what ``spec`` declares (``{"mcpServers": {...}, "skills": [...]}``, as a mapping or
        JSON/YAML text), with the skills it names and the ``.mcp.json`` layers, each server once.

        ``strategy`` settles conflicts: ``priority`` (notebook > skill > local > project > user > site),
        ``newest``, ``ask`` (a form, or ``answers``; headless, priority) or ``error``. Servers already
        connected with the same settings are left alone. Returns a
        :class:`~mcpnb.client.requirements.Resolution` (the table); raises a ``RequirementError``
        (with ``.resolution``) before connecting anything when the input is wrong, and after, listing
        every required server that failed. ``config`` may be VS Code's ``.vscode/mcp.json``: its
        ``${input:ID}`` values come from ``inputs``, else are asked as :meth:`connect_config` asks.
        See :mod:`mcpnb.client.requirements`.
        """
        from mcpnb.client.requirements import require

        return require(
            self, spec, strategy=strategy, source=source, skills=skills, base=base, config=config,
            answers=answers, context=context, inputs=inputs,
        )  # fmt: skip

    async def arequire(
        self,
        spec: Any,
        *,
        strategy: str = "priority",
        source: str = "notebook",
        skills: list[str | Path] | tuple[str | Path, ...] = (),
        base: str | Path | None = None,
        config: bool | str | Path = True,
        answers: dict[str, Any] | None = None,
        context: CallContext | None = None,
        inputs: Mapping[str, str] | None = None,
    ) -> Any:
        """Async twin of :meth:`require`."""
        from mcpnb.client.requirements import arequire

        return await arequire(
            self, spec, strategy=strategy, source=source, skills=skills, base=base, config=config,
            answers=answers, context=context, inputs=inputs,
        )  # fmt: skip

    # ------------------------------------------------------------------ status
    def status(self) -> StatusTable:
        """One row per server: state, era, server name/version, tools, latency, last error."""
        rows = [conn.status() for conn in list(self._connections.values())]
        rows += self._misconfigured.values()
        return StatusTable(self._ordered(rows, lambda row: row.name))

    def unreachable(self) -> dict[str, str]:
        """The servers that cannot be asked now, and why (their state, or invalid settings), in the
        status table's order: what a listing of every server says it left out."""
        found = {c.name: str(c.state) for c in self._connections.values() if c.client is None}
        found |= dict.fromkeys(self._misconfigured, "invalid settings")
        return dict(self._ordered(found.items(), lambda kv: kv[0]))

    def _ordered(self, items: Iterable[T], name: Callable[[T], str]) -> list[T]:
        """``items`` in the order their servers were first named (unknown names last)."""
        place = {n: i for i, n in enumerate(self._order)}
        return sorted(items, key=lambda item: place.get(name(item), len(place)))

    async def astatus(self) -> StatusTable:
        return self.status()

    # ------------------------------------------------------------------ tools
    async def _tools(self, server: str | None, refresh: bool) -> ToolList:
        if server is not None:  # a server that is down: its old list, saying so (ToolList.stale)
            conn = self.connection(server)
            return ToolList(await conn.list_tools(refresh=refresh), stale=conn.catalog.stale())
        conns = [c for c in self._connections.values() if c.client is not None]
        found = await asyncio.gather(*(c.list_tools(refresh=refresh) for c in conns), return_exceptions=True)
        failed = {
            c.name: f"listing failed: {describe(r)}"
            for c, r in zip(conns, found, strict=True)
            if not isinstance(r, list)
        }
        return ToolList(
            [tool for tools in found if isinstance(tools, list) for tool in tools],
            not_listed=dict(self._ordered({**self.unreachable(), **failed}.items(), lambda kv: kv[0])),
        )

    def tools(self, server: str | None = None, *, refresh: bool = False) -> ToolList:
        """The tools of one server, or of every connected server (the others are named in the
        list's ``not_listed``, with their state)."""
        return self._run(self._tools(server, refresh))

    async def atools(self, server: str | None = None, *, refresh: bool = False) -> ToolList:
        return await self._arun(self._tools(server, refresh))

    def find_tool(self, server: str, tool: str, *, unlisted: bool = False) -> ToolInfo:
        """``tool`` of ``server`` (its list asked again when the cached one lacks it); an unknown or
        filtered tool raises :class:`ToolNotFoundError`. ``unlisted``: an unknown one is a bare
        :class:`ToolInfo` to send unchecked, as ``call(..., validate=False)`` does."""
        return self._run(self.connection(server).catalog.get(tool, unlisted=unlisted))

    def relisted_tool(self, server: str, tool: str) -> ToolInfo | None:
        """``tool`` from ``server``'s list asked again where the cached one is stale, else None
        (:meth:`~mcpnb.client.catalog.ToolCatalog.relisted`): before arguments are refused."""
        return self._run(self.connection(server).catalog.relisted(tool))

    def cached_tool(self, server: str, tool: str) -> ToolInfo | None:
        """``tool`` of ``server`` if the tool list is cached and fresh, else None: no I/O, no hop."""
        conn = self._connections.get(server)
        return conn.catalog.cached(tool) if conn is not None else None

    # ------------------------------------------------------------------ tools as functions (for LLMs)
    def functions(
        self, *servers: str, refresh: bool = False, approve: Approve = "never", skills: bool = False
    ) -> Toolbox:
        """The tools of ``servers`` (every connected one when none is named) as a :class:`Toolbox`:
        Python functions by flat name, tool specs for OpenAI/Anthropic/Gemini, and ``run(call)``
        to execute a model's tool calls. ``approve`` says which of those calls ask the person first
        (``"never"``, ``"destructive"``, ``"writes"``, ``"always"``, or ``(tool, arguments) -> bool``).
        ``skills=True`` also offers the model the servers' skills (SEP-2640): listed in
        ``.instructions``, loaded (and checked) by one more tool, ``load_skill``."""
        from mcpnb.client.toolbox.approval import check_approve
        from mcpnb.client.toolbox.box import Toolbox, contents_of

        check_approve(approve)  # before the servers are asked for their tools
        tools, found, missed = self._run(contents_of(self, servers, refresh, skills))
        return Toolbox(self, tools, approve=approve, skills=found, skills_missed=missed)

    async def afunctions(
        self, *servers: str, refresh: bool = False, approve: Approve = "never", skills: bool = False
    ) -> Toolbox:
        from mcpnb.client.toolbox.approval import check_approve
        from mcpnb.client.toolbox.box import Toolbox, contents_of

        check_approve(approve)
        tools, found, missed = await self._arun(contents_of(self, servers, refresh, skills))
        return Toolbox(self, tools, approve=approve, skills=found, skills_missed=missed)

    def _target(
        self, server: str, tool: str | Mapping[str, Any] | None, arguments: Any
    ) -> tuple[str, str, Any]:
        """(server, tool, arguments) however a call names its tool: ``("probe", "ui_search", {...})``,
        ``("probe.ui_search", {...})`` as the magics write it (server names have no ".") or a flat
        ``"mcp__probe__ui_search"``."""
        if isinstance(tool, Mapping) and arguments is None:
            tool, arguments = None, tool
        if tool is None:
            if server.startswith(FLAT_PREFIX):
                return (*split_flat_name(server), arguments)
            if "." not in server:
                raise TypeError(
                    "call() needs a tool: ('server', 'tool', {...}), 'server.tool' or a flat name "
                    "'mcp__<server>__<tool>'"
                )
            server, _, tool = server.partition(".")
        return server, tool, arguments  # type: ignore[return-value]

    def call(
        self,
        server: str,
        tool: str | Mapping[str, Any] | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        answers: dict[str, Any] | None = None,
        context: CallContext | None = None,
        task: bool | None = None,
        validate: bool = True,
        **keywords: Any,
    ) -> Any:
        """Call ``tool`` on ``server`` and return its result. The tool may also be named as the magics
        name it, ``pool.call("probe.ui_search", {...})``, or by its flat ``mcp__server__tool`` name.

        A tool that reports an error returns a result with ``is_error``; only transport or protocol
        failures raise (``CallError``, ``CallTimeoutError``). Ctrl-C cancels the call on the server.
        ``answers`` answers a form the server may ask for (instead of asking a person).
        The arguments are checked against the tool's ``inputSchema`` first (``ArgumentsError``, and
        nothing is sent); ``validate=False`` leaves that to the server, and sends a tool the server
        does not list too (its unknown-tool error comes back as any error does).
        The tool's arguments are one dict, never keywords: ``pool.call("probe", "ui_search",
        {"query": "login"})`` (a keyword is refused, saying so).
        A plain call stays a plain call. ``task=True`` runs it as a task and returns the live
        :class:`~mcpnb.client.tasks.TaskHandle` at once; a tool that *requires* tasks runs as one
        anyway, and the call waits for its result.
        """
        _no_keywords(keywords, server, tool)
        timeout = checked_timeout(timeout)  # a bad one raises here: nothing is sent
        server, tool, arguments = self._target(server, tool, arguments)
        ctx = self._call_context(context, answers, later=task is True)  # a task asks after the cell
        return self._run(self._call(server, tool, arguments, timeout, ctx, task, validate))

    async def acall(
        self,
        server: str,
        tool: str | Mapping[str, Any] | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        answers: dict[str, Any] | None = None,
        context: CallContext | None = None,
        task: bool | None = None,
        validate: bool = True,
        **keywords: Any,
    ) -> Any:
        _no_keywords(keywords, server, tool)
        timeout = checked_timeout(timeout)  # a bad one raises here: nothing is sent
        server, tool, arguments = self._target(server, tool, arguments)
        ctx = self._call_context(context, answers, awaited=self.awaited_here(), later=task is True)
        return await self._arun(self._call(server, tool, arguments, timeout, ctx, task, validate))

    async def _call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None,
        timeout: float | None,
        ctx: CallContext,
        task: bool | None,
        validate: bool,
    ) -> Any:
        conn = self.connection(server)
        # unknown or filtered: a clear error, and nothing is sent; validate=False sends a tool the
        # server does not list (its own unknown-tool error is what is tested), never a filtered one
        info = await conn.catalog.get(tool, unlisted=not validate)
        checked, unchecked = _argument_checks()
        try:
            arguments = (checked if validate else unchecked)(info, arguments)
        except ArgumentsError:
            fresh = await conn.catalog.relisted(tool) if validate else None  # asked again once
            if fresh is None:  # a fresh list said so: the arguments are wrong
                raise
            info, arguments = fresh, checked(fresh, arguments)
        if task or (task is None and info.task_support == "required"):
            from mcpnb.client.tasks.extension import follow

            handle = await self._start_task(server, tool, arguments, None, ctx)
            return handle if task else await follow(handle)
        return await conn.call_tool(tool, arguments, timeout=timeout, context=ctx, info=info)

    # ------------------------------------------------------------------ tasks
    @property
    def task_registry(self) -> Any:
        if self._tasks is None:
            from mcpnb.client.tasks import TaskRegistry

            self._tasks = TaskRegistry()
        return self._tasks

    async def _start_task(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None,
        ttl_ms: int | None,
        context: CallContext | None = None,
    ) -> Any:
        from mcpnb.client.tasks import pooled

        return await pooled.start(self, server, tool, arguments, ttl_ms, context)

    def start_task(
        self,
        server: str,
        tool: str | Mapping[str, Any] | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl_ms: int | None = None,
        context: CallContext | None = None,
        **keywords: Any,
    ) -> Any:
        """Start ``tool`` as a task (both protocol eras) and return its live ``TaskHandle`` at once.

        ``handle.status``, ``handle.result()``, ``await handle``, ``handle.cancel()``. Questions the
        task asks later go to ``context``; without one, in a notebook, to a form in the cell that
        started it (elsewhere the elicitation policy answers them).
        """
        from mcpnb.client.tasks import pooled

        _no_keywords(keywords, server, tool, "start_task")
        server, tool, arguments = self._target(server, tool, arguments)
        pooled.warn_unsent_ttl(self, server, ttl_ms)
        context = context or self.asking_context(later=True)
        return self._run(self._start_task(server, tool, arguments, ttl_ms, context))

    async def astart_task(
        self,
        server: str,
        tool: str | Mapping[str, Any] | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl_ms: int | None = None,
        context: CallContext | None = None,
        **keywords: Any,
    ) -> Any:
        from mcpnb.client.tasks import pooled

        _no_keywords(keywords, server, tool, "start_task")
        server, tool, arguments = self._target(server, tool, arguments)
        pooled.warn_unsent_ttl(self, server, ttl_ms)
        context = context or self.asking_context(later=True)
        return await self._arun(self._start_task(server, tool, arguments, ttl_ms, context))

    def attach_task(self, server: str, task_id: str, *, context: CallContext | None = None) -> Any:
        """A live ``TaskHandle`` for a task this kernel did not start: one started before a kernel
        restart, or by another notebook on the same server (both eras). Its questions go to
        ``context`` (e.g. the cell that attached); an unknown or expired id is ``TaskExpiredError``."""
        from mcpnb.client.tasks import pooled

        context = context or self.asking_context(later=True)
        return self._run(pooled.attach(self, server, task_id, context))

    async def aattach_task(self, server: str, task_id: str, *, context: CallContext | None = None) -> Any:
        from mcpnb.client.tasks import pooled

        context = context or self.asking_context(later=True)
        return await self._arun(pooled.attach(self, server, task_id, context))

    def tasks(self, server: str | None = None) -> Any:
        """Tasks per server: 2025-11-25 servers that list tasks are asked (``tasks/list``); others
        (2026-07-28 has no list) show the tasks started here. ``.notes`` says, per server, why it
        shows none or only ours (no tasks at all, no ``tasks/list``, not connected); one server
        without tasks never hides the others'."""
        from mcpnb.client.tasks import pooled

        return self._run(pooled.listing(self, server))

    async def atasks(self, server: str | None = None) -> Any:
        from mcpnb.client.tasks import pooled

        return await self._arun(pooled.listing(self, server))

    # ------------------------------------------------------------------ resources and prompts
    def resources(self, server: str) -> list[Any]:
        return self._run(self.connection(server).list_resources())

    async def aresources(self, server: str) -> list[Any]:
        return await self._arun(self.connection(server).list_resources())

    def unlisted_resource(self, server: str, uri: str) -> str | None:
        """For ``uri`` that ``server`` lists neither as a resource nor as a template's match: the
        listed URI it is closest to (a typo), or ``""``; None when it is listed or fits a template
        (or the lists cannot be read). A read refused for such a URI says so by itself."""
        return self._run(self.connection(server).unlisted_resource(uri))

    def resource_templates(self, server: str) -> list[Any]:
        """Templates of resources (``uri_template``): fill the ``{placeholders}``, then :meth:`read`."""
        return self._run(self.connection(server).list_resource_templates())

    async def aresource_templates(self, server: str) -> list[Any]:
        return await self._arun(self.connection(server).list_resource_templates())

    def read(self, server: str, uri: str) -> ResourceContents:
        """``resources/read``: the contents (a list), ``.text`` of them all, ``.sdk_result``."""
        return self._run(self._read(server, uri))

    async def aread(self, server: str, uri: str) -> ResourceContents:
        return await self._arun(self._read(server, uri))

    async def _read(self, server: str, uri: str) -> ResourceContents:
        from mcpnb.client.contents import ResourceContents

        result = await self.connection(server).read_resource(uri)
        return ResourceContents(server, uri, list(getattr(result, "contents", None) or []), result)

    def skills(self, server: str) -> list[Any]:
        """The skills ``server`` offers (SEP-2640), as listed: nothing is read until one is loaded
        (``skill.load()``, which checks every file against the listing)."""
        return self._run(self._skills(server))

    async def askills(self, server: str) -> list[Any]:
        return await self._arun(self._skills(server))

    async def _skills(self, server: str) -> list[Any]:
        from mcpnb.client.server_skills import (
            EXTENSION,
            NoSkillsError,
            declares_skills,
            list_entries,
            skill_of,
        )

        conn = self.connection(server)
        if not declares_skills(conn.capabilities):
            raise NoSkillsError(f"{server!r} offers no skills: it does not declare the {EXTENSION} extension")
        entries = await conn.request("skills/list", lambda client: list_entries(client.session))
        runtime = self.runtime
        return [skill_of(server, e, conn.read_resource, runtime.run, runtime.arun) for e in entries]

    def prompts(self, server: str, *, refresh: bool = False) -> list[Any]:
        """``server``'s prompts, from its cached list while fresh; ``refresh`` asks the server again
        (a server that says nothing when it adds one: FastMCP on 2026-07-28 declares no
        ``listChanged``)."""
        return self._run(self._prompts(server, refresh))

    async def aprompts(self, server: str, *, refresh: bool = False) -> list[Any]:
        return await self._arun(self._prompts(server, refresh))

    async def _prompts(self, server: str, refresh: bool) -> list[Any]:
        conn = self.connection(server)
        if refresh:  # stale, not dropped: the last list still answers a name while the new one comes
            conn.prompt_cache.invalidate()
        return await conn.list_prompts()

    def find_prompt(self, server: str, name: str) -> Any:
        """``name`` of ``server``'s prompts (the SDK's ``Prompt``: its arguments, description), its
        list asked again when the cached one lacks it; an unknown name raises
        :class:`ArgumentsError` with a did-you-mean."""
        return self._run(self.connection(server).find_prompt(name))

    def prompt(self, server: str, name: str, arguments: Mapping[str, Any] | None = None) -> PromptMessages:
        """``prompts/get``: the messages (a list), ``.text`` of them all, ``.sdk_result``.

        The name and arguments are checked against the server's prompt list first (an
        :class:`ArgumentsError` with a did-you-mean; nothing sent); a value that is not text goes
        as JSON text (``3`` as ``"3"``), since prompt arguments are strings."""
        return self._run(self._prompt(server, name, arguments))

    async def aprompt(
        self, server: str, name: str, arguments: Mapping[str, Any] | None = None
    ) -> PromptMessages:
        return await self._arun(self._prompt(server, name, arguments))

    async def _prompt(self, server: str, name: str, arguments: Mapping[str, Any] | None) -> PromptMessages:
        from mcpnb.client.contents import PromptMessages

        return PromptMessages(server, name, await self.connection(server).get_prompt(name, arguments))

    # ------------------------------------------------------------------ logging, completion, subscriptions
    def set_log_level(self, server: str, level: str) -> None:
        """Ask ``server`` for log lines at ``level`` and above (``debug`` … ``emergency``)."""
        self._run(self.connection(server).set_log_level(checked_log_level(level)))

    async def aset_log_level(self, server: str, level: str) -> None:
        await self._arun(self.connection(server).set_log_level(checked_log_level(level)))

    def complete(
        self,
        server: str,
        prompt: str,
        argument: str,
        value: str = "",
        context: dict[str, str] | None = None,
        *,
        template: str | None = None,
        timeout: float | None = None,
    ) -> list[str]:
        """The server's suggestions for ``argument`` of a prompt (or of resource ``template`` when
        given; ``prompt`` is then ignored). ``timeout`` bounds the wait (tab completion uses ~1 s)."""
        return self._run(self._complete(server, prompt, argument, value, context, template, timeout))

    async def acomplete(
        self,
        server: str,
        prompt: str,
        argument: str,
        value: str = "",
        context: dict[str, str] | None = None,
        *,
        template: str | None = None,
        timeout: float | None = None,
    ) -> list[str]:
        return await self._arun(self._complete(server, prompt, argument, value, context, template, timeout))

    def _complete(
        self,
        server: str,
        prompt: str,
        argument: str,
        value: str,
        context: dict[str, str] | None,
        template: str | None,
        timeout: float | None,
    ) -> Coroutine[Any, Any, list[str]]:
        ref = completion_reference(prompt, template)
        coro = self.connection(server).complete(ref, argument, value, context)
        return asyncio.wait_for(coro, timeout) if timeout else coro

    def watch(self, server: str, uri: str, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(uri)`` (on the runtime thread) whenever ``server`` says ``uri`` changed;
        returns a function that stops watching. Subscribes in either era, again after a reconnect."""
        return watch_from(self, server, uri, callback)

    def unwatch(self, server: str, uri: str) -> bool:
        """Stop every watcher of ``uri`` on ``server``; False when nobody was watching it."""
        return self._run(self.connection(server).unwatch_resource(uri))

    def watched(self, server: str) -> list[str]:
        return self.connection(server).watch.uris

    def logs(self, server: str | None = None) -> list[str]:
        """What the server printed on stderr and what happened to the connection, oldest first;
        without ``server``, every server's, interleaved in the order it happened. A server
        disconnected on purpose keeps its log (what it said as it ended) until connected again (the
        newest :data:`DISCONNECTED_KEPT` of them)."""
        if server is not None and self.was_disconnected(server):
            logs = [self._disconnected[server].events]
        elif server is not None:
            conn = self.connection(server)
            self._read_stderr([conn])
            logs = [conn.events]
        else:
            self._read_stderr(list(self._connections.values()))
            logs = [conn.events for conn in self._connections.values()]
            logs += [
                conn.events for name, conn in self._disconnected.items() if name not in self._connections
            ]
        events = sorted((e for log in logs for e in log.history), key=lambda e: e.monotonic)
        return [str(e) for e in events]

    def _read_stderr(self, conns: list[Connection]) -> None:
        """Take in what stdio servers have written on stderr until now, before their log is read:
        a server that had said much at its start has its stderr reading paused a while (the flood
        throttle), and a line it printed during the call just made still waited in the pipe, missing
        from ``%mcp logs``. Bounded (a second), skipped on the runtime thread, where it cannot wait."""
        piped = [conn for conn in conns if conn.config.transport == "stdio"]
        if not piped or self.runtime.in_runtime_thread or self.runtime.closed:
            return

        async def read() -> None:
            for conn in piped:
                await conn.read_stderr()

        hop = self.runtime.hand_over(read())
        if not hop.wait(STDERR_CATCH_UP):
            hop.cancel_and_settle()

    def __repr__(self) -> str:
        return f"<Pool {len(self)} servers>\n{self.status()!r}"


def disconnected(name: str) -> str:
    """What a server disconnected on purpose says when it is used: how to have it back."""
    return (
        f"server {name!r} was disconnected; %mcp reconnect {name} (pool.reconnect({name!r})) connects "
        "it again as it was"
    )


def closed_with_pool(name: str) -> str:
    """What a server that ended with ``pool.close()`` says when it is used."""
    return (
        f"server {name!r} is not connected: this pool was closed (pool.close()); make a new Pool, "
        f"or connect it again in this one (pool.reconnect({name!r}))"
    )


def not_started(name: str, why: str) -> str:
    """What a call to a server with invalid settings hears."""
    return f"server {name!r} was not started: {why}; fix its settings and connect it again"


@functools.cache
def _argument_checks() -> tuple[Any, Any]:
    """``(checked_arguments, unchecked_arguments)``, imported on the first call (not when the
    extension loads) and kept: an import statement in :meth:`Pool._call` cost every call about
    a microsecond."""
    from mcpnb.client.arguments import checked_arguments, unchecked_arguments

    return checked_arguments, unchecked_arguments


def _given(local_vars: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``connect`` that were actually given."""
    keys = ("command", "args", "env", "cwd", "url", "headers", "transport", "server")
    given = {k: local_vars[k] for k in keys if local_vars[k] is not None}
    if "cwd" in given:
        given["cwd"] = str(given["cwd"])
    return {**given, **options}


_default: Pool | None = None
_default_lock = threading.Lock()


def _forget_in_child() -> None:
    """A forked child gets a default pool of its own on first use (the parent's runs on a thread
    that is not there), and a lock no thread of the parent may hold."""
    global _default, _default_lock
    _default, _default_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)


def default_pool() -> Pool:
    """The process-wide pool the ``%mcp`` magics use (and Python code may share); a new one once
    its runtime closed, and in a forked child."""
    global _default
    with _default_lock:
        if _default is None or _default.runtime.closed:
            _default = Pool()
        return _default


def _no_keywords(keywords: dict[str, Any], server: str, tool: Any, method: str = "call") -> None:
    """Refuse a tool's arguments given as keywords (``pool.call("s", "t", x=1)``), saying how to give
    them: Python's own "unexpected keyword argument 'x'" said nothing of the dict ``call`` takes."""
    if not keywords:
        return
    names = list(keywords)
    named = repr(server) if tool is None or isinstance(tool, Mapping) else f"{server!r}, {tool!r}"
    given = "{" + ", ".join(f"{k!r}: ..." for k in names) + "}"
    raise TypeError(
        f"{method}() takes the tool's arguments as one dict, not as keywords ({', '.join(names)}): "
        f"pool.{method}({named}, {given}) or pool.{method}({named}, arguments={given})"
    )
