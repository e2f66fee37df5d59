"""The per-server tool list cache: a TTL, explicit invalidation, and no I/O on a hit.

``tools/list`` is asked for constantly (listings, completion, argument validation, the output schema
of every call), yet changes rarely; the server says when it does (``list_changed``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class TTLCache(Generic[T]):
    """One value with a time to live. ``ttl <= 0`` means every read is a miss."""

    ttl: float
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    _value: T | None = field(default=None, repr=False)
    _stored_at: float | None = None

    def get(self) -> T | None:
        """The value if it is still fresh, else None."""
        if self._stored_at is None or self.ttl <= 0 or self.clock() - self._stored_at >= self.ttl:
            return None
        return self._value

    def peek(self) -> T | None:
        """The last value even if stale (to answer a name lookup without I/O)."""
        return self._value

    def put(self, value: T) -> None:
        self._value, self._stored_at = value, self.clock()

    def invalidate(self) -> None:
        """Mark stale; the last value stays available to :meth:`peek`."""
        self._stored_at = None

    def clear(self) -> None:
        self._value, self._stored_at = None, None

    @property
    def age(self) -> float | None:
        return None if self._stored_at is None else self.clock() - self._stored_at
