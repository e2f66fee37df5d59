"""A call deadline that progress pushes back, under a hard cap, paused while a person answers.

``tool_timeout`` is about silence, not length: a tool that reports progress is alive, so each
progress notification restarts the clock. ``max_total_timeout`` still bounds the whole call. When
the server waits for a person (elicitation, sampling), neither clock runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


class DeadlinePassed(TimeoutError):
    """The :class:`Deadline` ran out (not some other timeout inside the awaited work)."""


@dataclass
class Deadline:
    idle: float
    total: float
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    #: Called after every change, so whoever enforces the deadline can reschedule its timer.
    on_change: Callable[[], None] | None = field(default=None, repr=False)
    started: float = field(init=False)
    last_activity: float = field(init=False)
    paused: int = field(default=0, init=False)
    _paused_at: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.started = self.last_activity = self.clock()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

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
                f"{what} on {server!r} ran past max_total_timeout={self.total:g} s and was cancelled on the "
                f"server; raise max_total_timeout for server {server!r}"
            )
        return (
            f"{what} on {server!r} timed out after {self.idle:g} s without progress and was cancelled on the "
            f"server; raise tool_timeout for server {server!r} (or pass timeout=)"
        )


async def within(deadline: Deadline, work: Awaitable[T]) -> T:
    """Await ``work`` until ``deadline`` passes, rescheduled on every change (progress, pauses).

    When it passes, the awaiting task is cancelled (so ``work`` can clean up and tell its peer)
    and :class:`DeadlinePassed` is raised.
    """
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(None) as timer:  # raises TimeoutError on the way out when it passed

            def reschedule() -> None:
                remaining = deadline.remaining()
                timer.reschedule(None if remaining is None else loop.time() + remaining)

            deadline.on_change = reschedule
            reschedule()
            return await work
    except TimeoutError:
        if timer.expired():
            raise DeadlinePassed from None
        raise
    finally:
        deadline.on_change = None
