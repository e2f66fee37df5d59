"""Where task handles come from: starting a tool as a task, listing a server's tasks, and the
registry that remembers the tasks this client started (the 2026-07-28 era has no ``tasks/list``):
the running ones and the :data:`KEEP_ENDED` newest ended ones per server.

:func:`server_tasks` is what a listing of many servers asks each one: the tasks it has, and a note
when it has none to give (no tasks at all, no ``tasks/list``, not connected), so one server's
"method not found" never hides the others' tasks."""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime
from typing import Any

from mcp import types

from mcpnb.client.errors import McpnbError, did_you_mean_text
from mcpnb.client.tasks import optin, wire
from mcpnb.client.tasks.errors import TaskExpiredError
from mcpnb.client.tasks.handle import Answer, ARunner, Runner, TaskHandle
from mcpnb.client.tasks.wire import Peer

#: Ended tasks (completed, failed, cancelled, or expired: gone from the server) the registry keeps
#: per server, the newest; older ones are let go (a handle held in a variable still works: the
#: registry only stops holding it). Running tasks are always kept: nothing else may follow them.
#: 100 is more rows than anyone reads in ``%mcp tasks`` and covers a session's recent history,
#: while a long session (a loop of thousands of tasks) no longer keeps every result it ever had
#: (about 50 MB per 1000 small tasks) nor lists them all.
KEEP_ENDED = 100


def _ended(handle: TaskHandle) -> bool:
    """The task will change no more as far as a listing is concerned: it ended, or its server no
    longer has it."""
    return handle.state.terminal or handle.expired


class TaskRegistry:
    """The tasks this client started or saw, per server: what ``%mcp tasks`` lists in the modern era.

    Bounded: every running task, and the :data:`KEEP_ENDED` newest ended ones per server (see
    :meth:`trim`). The pool forgets a server's tasks when it is disconnected, and all of them when
    it closes (``Pool.tasks`` lists connected servers only)."""

    def __init__(self, keep_ended: int = KEEP_ENDED) -> None:
        self._by_server: dict[str, dict[str, TaskHandle]] = {}
        self.keep_ended = keep_ended

    def add(self, handle: TaskHandle) -> None:
        if handle.task_id:
            self._by_server.setdefault(handle.server, {})[handle.task_id] = handle
            self.trim(handle.server)

    def trim(self, server: str) -> None:
        """Let go of ``server``'s ended tasks beyond the :attr:`keep_ended` newest (newest: last
        added). Done on every :meth:`add` and :meth:`handles` (what a listing reads), since a task
        ends after it was added."""
        tasks = self._by_server.get(server, {})
        ended = [task_id for task_id, handle in tasks.items() if _ended(handle)]
        for task_id in ended[: max(0, len(ended) - self.keep_ended)]:
            del tasks[task_id]

    def get(self, server: str, task_id: str) -> TaskHandle | None:
        return self._by_server.get(server, {}).get(task_id)

    def handles(self, server: str | None = None) -> list[TaskHandle]:
        """``server``'s tasks (every server's without one), oldest first, trimmed (:meth:`trim`)."""
        servers = list(self._by_server) if server is None else [server]
        for name in servers:
            self.trim(name)
        return [h for name in servers for h in self._by_server.get(name, {}).values()]

    def forget(self, server: str, task_id: str | None = None) -> None:
        """Let go of one task of ``server``, or of all of them (the server was disconnected)."""
        if task_id is None:
            self._by_server.pop(server, None)
        else:
            self._by_server.get(server, {}).pop(task_id, None)

    def clear(self) -> None:
        """Let go of every server's tasks (the pool closed)."""
        self._by_server.clear()


#: The process-wide registry (a pool may keep its own and pass it in).
registry = TaskRegistry()


def _peer(target: Any) -> Peer:
    return target if isinstance(target, Peer) else Peer(target)


async def start_task(
    conn: Any,
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    ttl_ms: int | None = None,
    answer: Answer | None = None,
    timeout: float | None = None,
    runner: Runner | None = None,
    arunner: ARunner | None = None,
    tasks: TaskRegistry | None = None,
) -> TaskHandle:
    """Call ``tool`` as a task on ``conn`` (a ``Connection``, ``mcp.Client`` or ``Peer``).

    Run it on the loop that owns the session. ``ttl_ms`` is a request (2025-11-25 only; servers may
    ignore it); ``answer`` answers modern ``inputRequests``; ``timeout`` bounds the creating request
    only. A server that answers synchronously gives an already finished handle with the result.
    """
    peer = _peer(conn)
    started = time.monotonic()
    created = await wire.create(peer, tool, arguments, ttl_ms, timeout)
    common: dict[str, Any] = {"arguments": arguments, "answer": answer, "runner": runner, "arunner": arunner}
    if isinstance(created, types.CallToolResult):
        return TaskHandle.finished(peer, tool, created, elapsed=time.monotonic() - started, **common)
    handle = TaskHandle(peer, tool, created, started=started, **common)
    (registry if tasks is None else tasks).add(handle)
    return handle


async def attach_task(
    conn: Any,
    task_id: str,
    *,
    answer: Answer | None = None,
    runner: Runner | None = None,
    arunner: ARunner | None = None,
    tasks: TaskRegistry | None = None,
) -> TaskHandle:
    """A live handle for a task this client did not start: one from before a kernel restart, or
    from another notebook on the same server (both eras: ``tasks/get`` is all it needs).

    The handle follows the task like one :func:`start_task` made: it polls, answers questions
    (``answer`` in the 2026-07-28 era; the client's elicitation callback through ``tasks/result``
    in 2025-11-25), fetches the result, cancels. ``tool`` is None: neither wire says which tool a
    task runs. An id the server does not know is a :class:`TaskExpiredError`.
    """
    peer = _peer(conn)
    known = registry if tasks is None else tasks
    handle = known.get(peer.name, task_id)
    try:
        state = await wire.get(peer, task_id, seen=handle is not None)
    except TaskExpiredError as exc:
        if handle is not None:
            raise
        ids = await _ids_known(conn, known)
        whole = [i for i in ids if i.startswith(task_id)] if len(task_id) >= MIN_PREFIX else []
        if whole == [task_id]:  # listed, yet unknown to tasks/get (its TTL ran out meanwhile)
            raise TaskExpiredError(str(exc)) from None
        if len(whole) == 1:  # the start of an id, as git takes a commit's: the task it names
            return await attach_task(
                conn, whole[0], answer=answer, runner=runner, arunner=arunner, tasks=tasks
            )
        if len(whole) > 1:
            raise TaskExpiredError(
                f"{exc}; {len(whole)} task ids start with {task_id!r} ({', '.join(whole[:5])}"
                f"{', …' if len(whole) > 5 else ''}): give more of it"
            ) from None
        raise TaskExpiredError(f"{exc}{did_you_mean_text(task_id, ids)}") from None
    if handle is not None:
        handle._apply(state)
        return handle
    age = (datetime.now(UTC) - state.created_at).total_seconds() if state.created_at else 0.0
    handle = TaskHandle(
        peer,
        None,
        state,
        answer=answer,
        runner=runner,
        arunner=arunner,
        started=time.monotonic() - max(0.0, age),
    )
    known.add(handle)
    return handle


#: The fewest characters of a task id that attach by its start (fewer: a typo, more likely).
MIN_PREFIX = 4


async def _ids_known(conn: Any, known: TaskRegistry) -> list[str]:
    """The task ids an id given in part may be the start of: the ones this client holds, and a
    2025-11-25 server's listing where it has one (a task from before a kernel restart)."""
    ids = [h.task_id for h in known.handles(conn.name) if h.task_id]
    if conn.era != "modern" and optin.server_lists_tasks(conn.capabilities, conn.era):
        with contextlib.suppress(McpnbError):
            ids += [state.task_id for state in await wire.list_states(_peer(conn))]
    return list(dict.fromkeys(ids))


async def list_tasks(
    conn: Any,
    *,
    tasks: TaskRegistry | None = None,
    runner: Runner | None = None,
    arunner: ARunner | None = None,
) -> list[TaskHandle]:
    """Tasks on ``conn``'s server: legacy asks ``tasks/list``; modern has none, so the ones we know.

    Listed tasks this client did not start get a handle too (``tool`` is None: the list does not
    say), so they can be watched, awaited or cancelled like our own; the registry keeps those that
    run (an ended one is listed as the server says: kept, it would push this session's own ended
    tasks, tool names and results, out of the registry's :data:`KEEP_ENDED`).
    """
    peer = _peer(conn)
    known = registry if tasks is None else tasks
    if peer.era == "modern":
        return known.handles(peer.name)
    out: list[TaskHandle] = []
    now = datetime.now(UTC)
    for state in await wire.list_states(peer):
        handle = known.get(peer.name, state.task_id)
        if handle is None:
            age = (now - state.created_at).total_seconds() if state.created_at else 0.0
            handle = TaskHandle(
                peer, None, state, runner=runner, arunner=arunner, started=time.monotonic() - max(0.0, age)
            )
            if not state.terminal:
                known.add(handle)
        else:
            handle._apply(state)
        out.append(handle)
    return out


class TaskListing(list[TaskHandle]):
    """Tasks of several servers, plus ``notes``: server -> why it shows none (or only ours)."""

    def __init__(self, handles: list[TaskHandle] = (), notes: dict[str, str] | None = None) -> None:  # type: ignore[assignment]
        super().__init__(handles)
        self.notes: dict[str, str] = dict(notes or {})

    def __repr__(self) -> str:
        lines = [repr(h) for h in self] or ["(no tasks)"]
        lines += [f"{server}: {note}" for server, note in self.notes.items()]
        return "\n".join(lines)


async def server_tasks(
    conn: Any,
    *,
    tasks: TaskRegistry | None = None,
    runner: Runner | None = None,
    arunner: ARunner | None = None,
) -> tuple[list[TaskHandle], str | None]:
    """One server's tasks and a note when it cannot list them; never raises for "no tasks here".

    Where each era says so: 2025-11-25 servers declare ``tasks.list``; SEP-2663 has no list, so a
    2026-07-28 server shows the tasks this client started. Tasks of this client that nothing follows
    are asked about (``tasks/get``): their status now, or that the server no longer has them
    (``handle.expired``); a 2025-11-25 task of ours that the list leaves out is one of those too.
    """
    known = registry if tasks is None else tasks
    mine = known.handles(conn.name)
    if conn.client is None:
        return mine, f"not connected ({conn.state})"
    era, caps = conn.era, conn.capabilities
    if not optin.server_offers_tasks(caps, era):
        what = "the tasks extension" if era == "modern" else "the tasks capability"
        return mine, f"no tasks: the server does not declare {what}"
    if era == "modern":
        await look_at(mine)
        return mine, None
    if not optin.server_lists_tasks(caps, era):
        await look_at(mine)
        return mine, "the server does not list tasks (no tasks.list capability): only tasks started here"
    try:
        found = await list_tasks(conn, tasks=known, runner=runner, arunner=arunner)
    except McpnbError as exc:
        return mine, f"{exc}: only tasks started here"
    listed = {h.task_id for h in found}
    unlisted = [h for h in known.handles(conn.name) if h.task_id not in listed]
    await look_at(unlisted)  # dropped by the server (expired), or kept but not listed to us
    return found + unlisted, None


#: How many ``tasks/get`` a listing sends at once.
LOOKS_AT_ONCE = 8


async def look_at(handles: list[TaskHandle]) -> None:
    """Ask the server about each task nothing follows, a few at a time: a listing then shows the
    status now, not the one heard when the cell that started it ran, and a task the server no
    longer has as expired (the 2026-07-28 era has no ``tasks/list`` to leave it out). A task that
    ended is asked about only once its server may have dropped it (``TaskHandle._look``): its
    status is final, so a listing costs no request per finished task."""
    limit = asyncio.Semaphore(LOOKS_AT_ONCE)

    async def look(handle: TaskHandle) -> None:
        async with limit:
            await handle._look()

    await asyncio.gather(*(look(h) for h in handles))
