"""A call deadline that progress pushes back, under a hard cap, paused while a person answers.

``tool_timeout`` is about silence, not length: a tool that reports progress is alive, so each
progress notification restarts the clock. ``max_total_timeout`` still bounds the whole call. When
the server waits for a person (elicitation, sampling), neither clock runs. A connect's
``startup_timeout`` is such a deadline too, paused while its OAuth sign-in waits for another one.

A call's own ``timeout=`` is checked before anything is sent (:func:`checked_timeout`): a number
no deadline can be (0, negative, NaN) would send the call and cancel it at once.

Deadlines are enforced by one timer per loop (:class:`_Watch`), set for the earliest of them, not
by a timer per call: a call that ends long before its deadline (nearly every call) then costs a
dictionary entry instead of a scheduled and cancelled timer (``python bench/run.py`` measures it).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import math
import numbers
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

T = TypeVar("T")


#: The connect under way in this task and those it starts (the session, its HTTP auth flow): a wait
#: that is no fault of the server's pauses it (an OAuth sign-in waiting for the one before it).
CONNECTING: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("mcpnb_connecting", default=None)


@contextlib.contextmanager
def connect_clock_paused() -> Iterator[None]:
    """Stop the startup clock of the connect this code runs for (if any) while the block waits."""
    deadline = CONNECTING.get()
    if deadline is None:
        yield
        return
    deadline.pause()
    try:
        yield
    finally:
        deadline.resume()


def checked_timeout(
    value: Any, what: str = "timeout=", unset: str = "None for the server's tool_timeout"
) -> float | None:
    """A call's ``timeout=`` as seconds, checked before anything is sent: a positive, finite number
    (a ``Decimal`` too: what a form, a database or pydantic hands over) up to a day
    (``MAX_SECONDS``, a server's ``tool_timeout`` limit too), or None for the server's own
    ``tool_timeout``. Anything else raises ``TypeError`` (not a number) or ``ValueError`` (a number
    no deadline can be: 0, negative, NaN, infinite, over a day), saying what was given and what is
    accepted; ``what`` names the setting in those words (``--timeout`` for a magic's option), and
    ``unset`` how to leave it to the server (empty for a setting that must be a number)."""
    if value is None:
        return None
    kind_of = type(value)
    if (kind_of is int or kind_of is float) and 0 < value <= _max_seconds():  # the usual: no more to check
        return float(value)
    from mcpnb.client.config.validate import MAX_SECONDS, kind

    accepted = f"accepted: seconds greater than 0, at most {MAX_SECONDS:g}" + (
        f", or {unset}" if unset else ""
    )
    if isinstance(value, bool) or not isinstance(value, numbers.Real | Decimal):
        shown = f" ({value!r})" if isinstance(value, str) and len(value) <= 40 else ""
        raise TypeError(f"{what} expected a number of seconds, got {kind(value)}{shown}; {accepted}")
    seconds = math.nan if isinstance(value, Decimal) and value.is_snan() else float(value)
    if math.isnan(seconds):
        raise ValueError(f"{what} expected a number of seconds, got nan; {accepted}")
    if seconds <= 0:
        raise ValueError(f"{what} must be greater than 0, got {value!r}; {accepted}")
    if seconds > MAX_SECONDS:
        raise ValueError(f"{what} must be at most {MAX_SECONDS:g} s (a day), got {value!r}; {accepted}")
    return seconds


@functools.cache
def _max_seconds() -> float:
    """The config's ``MAX_SECONDS``, imported on first use (as :func:`checked_timeout` always did)
    and kept: every call checks its ``timeout=`` against it."""
    from mcpnb.client.config.validate import MAX_SECONDS

    return MAX_SECONDS


class DeadlinePassed(TimeoutError):
    """The :class:`Deadline` ran out (not some other timeout inside the awaited work)."""


@dataclass
class Deadline:
    idle: float
    total: float
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    #: The loop's watch enforcing it while :func:`within` awaits, told of every change so that it
    #: reschedules its timer (kept as the watch itself, not a partial made per call).
    watch: _Watch | None = field(default=None, init=False, repr=False, compare=False)
    started: float = field(init=False)
    last_activity: float = field(init=False)
    paused: int = field(default=0, init=False)
    #: Set when the deadline ran out and the call was cancelled for it.
    expired: bool = field(default=False, init=False, repr=False)
    _paused_at: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.started = self.last_activity = self.clock()

    def _changed(self) -> None:
        if self.watch is not None:
            self.watch.arm_for(self)

    def touch(self) -> None:
        """Progress arrived: the idle clock starts again."""
        self.last_activity = self.clock()
        self._changed()

    def pause(self) -> None:
        """The server is waiting for a person: neither clock runs meanwhile."""
        if not self.paused:
            self._paused_at = self.clock()
        self.paused += 1
        self._changed()

    def resume(self) -> None:
        self.paused -= 1
        if not self.paused:
            self.started += self.clock() - self._paused_at  # a person's time is not the tool's time
            self.touch()

    def remaining(self) -> float | None:
        """Seconds left, or None while paused."""
        if self.paused:
            return None
        now = self.clock()
        return max(0.0, min(self.last_activity + self.idle, self.started + self.total) - now)

    @property
    def hit_total(self) -> bool:
        return self.clock() >= self.started + self.total

    def message(self, what: str, server: str) -> str:
        if self.hit_total:
            return (
                f"{what} on {server!r} ran past max_total_timeout={self.total:g} s, and the server was told "
                f"to cancel it; raise max_total_timeout for server {server!r}"
            )
        return (
            f"{what} on {server!r} timed out after {self.idle:g} s without progress, and the server was "
            f"told to cancel it; raise tool_timeout for server {server!r} (or pass timeout=)"
        )

    def for_model(self) -> str:
        """:meth:`message` for a model that made the call: no setting of ours is its to raise, so
        it hears what it can do instead."""
        how = (
            f"ran past its time limit of {self.total:g} s"
            if self.hit_total
            else f"timed out after {self.idle:g} s without progress"
        )
        return (
            f"the call {how}, and the server was told to cancel it (it may have done part of its work); "
            "try again later or with less to do, or tell the user"
        )


async def within(deadline: Deadline, work: Awaitable[T]) -> T:
    """Await ``work`` until ``deadline`` passes, however progress and pauses move it.

    When it passes, the awaiting task is cancelled (so ``work`` can clean up and tell its peer)
    and :class:`DeadlinePassed` is raised.
    """
    task = asyncio.current_task()
    if task is None:  # pragma: no cover - within() is always awaited in a task
        raise RuntimeError("within() needs a running task")
    watch = _watch_for(asyncio.get_running_loop())
    cancelling = task.cancelling()
    key = id(deadline)
    watch.calls[key] = (deadline, task)
    deadline.watch = watch
    watch.arm_for(deadline)
    try:
        result = await work
    except asyncio.CancelledError:
        if deadline.expired and task.uncancel() <= cancelling:  # ours, and nobody else's as well
            raise DeadlinePassed from None
        raise
    except BaseException:
        if deadline.expired:  # the work turned our cancel into an error of its own: that error stands
            task.uncancel()
        raise
    finally:
        watch.calls.pop(key, None)
        deadline.watch = None
    if deadline.expired:  # the work swallowed our cancel and finished: keep its result
        task.uncancel()
    return result


class _Watch:
    """The running deadlines of one loop and the one timer that checks them, set for the earliest."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.calls: dict[int, tuple[Deadline, asyncio.Task[Any]]] = {}
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf  # loop time the timer fires

    def arm_for(self, deadline: Deadline) -> None:
        """Make sure the timer fires no later than ``deadline`` runs out (a moved deadline too)."""
        remaining = deadline.remaining()
        if remaining is None:  # paused: resume() calls again
            return
        when = self.loop.time() + remaining
        if when < self._at:
            if self._handle is not None:
                self._handle.cancel()
            self._at, self._handle = when, self.loop.call_at(when, self._check)

    def _check(self) -> None:
        """Cancel the calls whose deadline passed; set the timer for the next one."""
        self._handle, self._at = None, math.inf
        for deadline, task in list(self.calls.values()):
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0 and not deadline.expired:
                deadline.expired = True
                task.cancel()
            elif not deadline.expired:
                self.arm_for(deadline)


def _watch_for(loop: asyncio.AbstractEventLoop) -> _Watch:
    """The loop's one :class:`_Watch`, kept on the loop itself: every call looks it up, and an
    attribute is cheaper than a weak mapping (it goes with the loop all the same)."""
    try:
        return loop._mcpnb_watch  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        watch = loop._mcpnb_watch = _Watch(loop)  # type: ignore[attr-defined]
        return watch
