"""The runtime loop held by an in-process tool that blocks: noticed, measured and said.

In-process servers run on mcpnb's runtime loop (:mod:`mcpnb.client.runtime`), beside every other
server's session. An ``async def`` tool that blocks (``time.sleep``, a synchronous HTTP client, a
long computation) holds that loop: no other server is answered, no timer fires, not even its own
call's deadline, and the call ends "ok" when the tool lets go. Nothing in-process can pre-empt it
(a server in a process of its own, over stdio, is the isolation); what mcpnb can do is say so, on
that call's result, once per tool in that server's log, and on the other calls it held up.

How it is seen: while an in-process call is in flight a heartbeat runs on the loop every
:data:`BEAT` seconds. A beat that runs :data:`THRESHOLD` seconds after it was due means one step of
one task held the loop that long. Every call entering or leaving looks at the pending beat too, so
a tool that blocks and then returns within the same step (the SDK's direct path runs the handler in
the calling task) is seen by its own call as it ends, before the late beat runs. The per-call cost
is a clock read, a set insertion and removal, and scheduling a beat only when none is pending: no
wrapper around the call's steps and no thread. The heartbeat stops with the last in-process call.

A request watches itself with :func:`begin` as it starts and :func:`finish` as it ends (a tool
call: :func:`mcpnb.client.requests.call_tool`; a task: from its creation until its handle sees it
end). A call that timed out says why with :func:`explained`: the deadline fires only once the loop
is back, so the tool that held it is the likelier cause than a slow server.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass
from typing import Any

from mcpnb.client.errors import CallTimeoutError
from mcpnb.client.runtime import HANDED

#: A loop held this long (seconds) is reported. A person notices a second; timeouts are whole
#: seconds; and it stays clear of what else may hold a loop briefly on a loaded 2-core machine
#: (a garbage collection, parsing a large result, a first import: tens to a few hundred ms), so
#: a warning always means something that blocks.
THRESHOLD = 1.0
#: The heartbeat's period while in-process calls run: a stall is measured to within this, at ten
#: wake-ups a second that cost microseconds each, and none when no in-process call runs.
BEAT = 0.1

#: A call asked for before the loop came back that starts within this (seconds) after it waited
#: it out: queued hand-overs start within microseconds, this leaves room for a loaded machine.
WAITED = 0.5

#: The clock every stall and span is measured on (only here: requests use :func:`begin`).
_monotonic = time.monotonic


@dataclass(frozen=True)
class Stall:
    """One time the runtime loop was held past :data:`THRESHOLD`."""

    seconds: float  # how long: from the loop's last sign of life to when it ran again
    end: float  # when it was seen (monotonic): as the loop ran again, before anything started anew
    calls: tuple[str, ...]  # the in-process calls in flight ("server.tool"): one of them held it

    def culprits(self, joiner: str = " and ") -> str:
        return joiner.join(self.calls)


class Watched:
    """One in-process call while it runs, and the stalls it was in flight for (made on every
    in-process call: a bare class with slots, its list only when there is a stall)."""

    __slots__ = ("name", "stalls", "watch")

    def __init__(self, name: str, watch: LoopWatch) -> None:
        self.name, self.watch = name, watch
        self.stalls: list[Stall] | None = None


class LoopWatch:
    """The heartbeat of one event loop (the runtime's) and the in-process calls it watches.

    It keeps no reference to its loop (it schedules on the running one): the loop can go, and
    its watch with it (:data:`_watches` is keyed weakly by loop)."""

    def __init__(self) -> None:
        self.calls: set[Watched] = set()
        self.due: float | None = None  # when the pending beat should run; None: no beat pending
        self.seen = _monotonic()  # the loop's last sign of life we saw (a beat, a call in or out)
        self.last: Stall | None = None

    def enter(self, name: str) -> Watched:
        now = _monotonic()
        self._check(now)  # a stall that ended just now is not this new call's doing
        call = Watched(name, self)
        self.calls.add(call)
        self.seen = now
        if self.due is None:
            self.due = now + BEAT
            asyncio.get_running_loop().call_later(BEAT, self._beat)
        return call

    def leave(self, call: Watched) -> list[Stall]:
        now = _monotonic()
        self._check(now)  # the call's own step may have held the loop until this very moment
        self.calls.discard(call)
        self.seen = now
        return call.stalls or []

    def _check(self, now: float) -> None:
        global _stalled
        due = self.due
        if due is None or now - due < THRESHOLD:
            return
        self.due = now  # seen: the late beat, when it runs, does not count it again
        if not self.calls:  # the last beat, after the last in-process call: not theirs to say
            return
        stall = self.stall(now)
        for call in self.calls:
            call.stalls = [*(call.stalls or ()), stall]
        self.last = stall
        _stalled = True

    def stall(self, now: float) -> Stall:
        """The stall as seen at ``now``: since the loop's last sign of life, with the calls in flight
        (a tool in flight twice is one suspect). Read from another thread too (:func:`held_now`):
        ``calls`` is copied first."""
        names = tuple(sorted({c.name for c in list(self.calls)}))
        return Stall(seconds=now - self.seen, end=now, calls=names)

    def _beat(self) -> None:
        now = _monotonic()
        self._check(now)
        self.seen = now
        if self.calls:
            self.due = now + BEAT
            asyncio.get_running_loop().call_later(BEAT, self._beat)
        else:
            self.due = None

    def held_up(self, began: float, handed: float) -> Stall | None:
        """The last stall that held up a call that began on the loop at ``began``, handed over
        by its caller at ``handed``: one it was in flight for, or one it waited out in the
        hand-over (asked for before the loop came back, started right after)."""
        self._check(_monotonic())
        stall = self.last
        if stall is None or (began > stall.end and not (handed <= stall.end and began - stall.end <= WAITED)):
            return None
        return stall


#: Each loop's watch, made by its first in-process call.
_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch] = weakref.WeakKeyDictionary()
#: The last loop asked for and its watch: one loop (the runtime's) asks nearly always.
_last: tuple[weakref.ref[asyncio.AbstractEventLoop], LoopWatch] | None = None
#: Whether any loop was ever seen held: until then, calls of other servers look no further.
_stalled = False


def enter(name: str) -> Watched:
    """An in-process call (``name``: "server.tool") starts on the running loop."""
    global _last
    loop = asyncio.get_running_loop()
    last = _last
    if last is not None and last[0]() is loop:
        return last[1].enter(name)
    watch = _watches.get(loop)
    if watch is None:
        watch = _watches[loop] = LoopWatch()
    _last = (weakref.ref(loop), watch)
    return watch.enter(name)


def leave(call: Watched) -> list[Stall]:
    """It ended: the stalls it was in flight for (nearly always none)."""
    return call.watch.leave(call)


def held_up(began: float, handed: float) -> Stall | None:
    """The stall that held up a call of another server (see :meth:`LoopWatch.held_up`)."""
    if not _stalled:
        return None
    watch = _watches.get(asyncio.get_running_loop())
    return watch.held_up(began, handed) if watch is not None else None


def held_now() -> Stall | None:
    """A loop held right now by an in-process call, asked from another thread (the kernel's, as a
    person interrupts a cell that waits on it): its heartbeat overdue by :data:`THRESHOLD` or more
    while in-process calls are in flight. Read without the loop (it is the one that does not
    run): the watches' fields, which only their loops write."""
    try:
        watches = list(_watches.values())
    except RuntimeError:  # a loop's watch came or went meanwhile: as good as not seen
        return None
    now = _monotonic()
    for watch in watches:
        due = watch.due
        if due is not None and watch.calls and now - due >= THRESHOLD:
            return watch.stall(now)
    return None


def held_words(stall: Stall) -> str:
    """What an interrupted cell says while the loop is held (nothing could be sent meanwhile)."""
    return (
        f"mcpnb's runtime loop has been held for {stall.seconds:.0f} s by an in-process tool "
        f"({stall.culprits(' or ')}): no server can be told anything, its call's cancel included, "
        "and every server waits until it lets go; if it never does, restart the kernel. "
        + ADVICE[0].upper()
        + ADVICE[1:]
    )


ADVICE = (
    "an async tool that blocks (time.sleep, sync I/O) stops every server and its own timeout; "
    "write it as a def (run in a worker thread) or await asyncio.sleep / an async library, "
    "or run the server over stdio, in a process of its own"
)

#: The tools whose stall a connection's log has told already (once per tool is enough).
_said: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def blocked(stall: Stall, name: str) -> str:
    """What an in-process call that was in flight during ``stall`` says (``name``: "server.tool");
    with other in-process calls in flight, which of them blocked cannot be told: all are named."""
    who = f"{stall.culprits()} ran (one of them blocks)" if len(stall.calls) > 1 else f"{name} ran"
    return f"the runtime loop was blocked for {stall.seconds:.1f} s while {who}: {ADVICE}"


def held_up_by(stall: Stall) -> str:
    """What another server's call that ``stall`` held up says."""
    return (
        f"this call was held up: mcpnb's runtime loop was blocked for {stall.seconds:.1f} s by an "
        f"in-process tool ({stall.culprits(' or ')}), so no server was answered and no timeout could "
        "fire meanwhile"
    )


def report(conn: Any, tool: str, stalls: list[Stall]) -> list[str]:
    """The warnings for an in-process call's result; the first stall of each tool in its server's log."""
    name = f"{conn.name}.{tool}"
    said = [blocked(stall, name) for stall in stalls]
    told = _said.setdefault(conn, set())
    if tool not in told:
        told.add(tool)
        conn.emit("stall", said[-1])
    return said


class Span:
    """One request on the runtime loop, from :func:`begin` to :func:`finish`: when it began, when
    its caller handed it over, and its :class:`Watched` when its server runs in this process (made
    on every tool call: a bare class with slots)."""

    __slots__ = ("began", "conn", "ended", "handed", "tool", "watched")

    def __init__(self, conn: Any, tool: str, began: float, handed: float, watched: Watched | None) -> None:
        self.conn, self.tool, self.watched = conn, tool, watched
        self.began, self.handed = began, handed
        self.ended = False


def begin(conn: Any, tool: str) -> Span:
    """A call of ``tool`` on ``conn`` (a ``Connection``) starts, on the runtime loop: watched while
    it runs when its server is in-process; any call can still be held up by one that is."""
    began = _monotonic()  # before enter(): a stall seen as this call enters ended after it asked
    watched = enter(f"{conn.name}.{tool}") if conn.transport == "inprocess" else None
    return Span(conn, tool, began, HANDED.get(), watched)


def finish(span: Span) -> list[str]:
    """It ended: what it says of the loop being held while it ran or waited to start (nearly always
    nothing). An in-process call in flight then names the calls in flight with it (itself, usually)
    and tells its server's log once per tool; any call says why it took longer than its timeout.

    A task's span is finished when its handle sees it end, whichever way: until then the heartbeat
    runs and the tool is named in every stall, so a task nobody follows should be followed (its
    handle polls to the end) or its span finished when it is let go."""
    if span.ended:  # a task's handle may end more than one way: it is said once
        return []
    span.ended = True
    held = leave(span.watched) if span.watched is not None else []
    said = report(span.conn, span.tool, held) if held else []
    stall = held_up(span.began, span.handed)
    if stall is not None and stall not in held:
        said.append(held_up_by(stall))
    return said


def explained(exc: CallTimeoutError, said: list[str]) -> CallTimeoutError:
    """A call's timeout and what :func:`finish` said of it: the deadline could not fire while the
    loop was held, and fired as soon as it was free, so the hold (and how to write the tool that
    held it) belongs in the error, not only in the server's log."""
    if not said:
        return exc
    told = ". ".join([str(exc), *(line[0].upper() + line[1:] for line in said)])
    return type(exc)(told, model_text=exc.model_text)  # how to write the tool is its author's
