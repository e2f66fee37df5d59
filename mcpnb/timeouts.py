"""A call deadline that progress pushes back, under a hard cap.

``tool_timeout`` is about silence, not length: a tool that reports progress is alive, so each
progress notification restarts the clock. ``max_total_timeout`` still bounds the whole call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Deadline:
    idle: float
    total: float
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    started: float = field(init=False)
    last_activity: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.last_activity = self.clock()

    paused: int = field(default=0, init=False)

    def touch(self) -> None:
        """Progress arrived: the idle clock starts again."""
        self.last_activity = self.clock()

    def pause(self) -> None:
        """The server is waiting for a person: neither clock runs meanwhile."""
        if not self.paused:
            self._paused_at = self.clock()
        self.paused += 1

    def resume(self) -> None:
        self.paused -= 1
        if not self.paused:
            waited = self.clock() - self._paused_at
            self.started += waited  # the person's time does not count against max_total_timeout
            self.touch()

    def remaining(self) -> float:
        if self.paused:
            return float("inf")
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
