"""The per-server tool list cache: a TTL, explicit invalidation, and no I/O on a hit.

``tools/list`` is asked for constantly (listings, completion, argument validation, the output schema
of every call), yet changes rarely; the server says when it does (``list_changed``). A notice can
overtake the listing it makes old (the server read its list, then it changed): a listing fetched
across a notice is kept stale, so the next read asks again (:attr:`TTLCache.generation`).
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
    _generation: int = 0
    _value_from: int = -1  # the generation the kept value was fetched in

    def get(self) -> T | None:
        """The value if it is still fresh, else None."""
        if self._stored_at is None or self.ttl <= 0 or self.clock() - self._stored_at >= self.ttl:
            return None
        return self._value

    def peek(self) -> T | None:
        """The last value even if stale (to answer a name lookup without I/O)."""
        return self._value

    @property
    def generation(self) -> int:
        """Moves on at each :meth:`invalidate` and :meth:`clear`: read before a fetch, handed to
        :meth:`put` after it."""
        return self._generation

    def put(self, value: T, *, fetched_in: int | None = None) -> None:
        """Keep ``value``; fresh unless the cache was invalidated since ``fetched_in`` (the
        :attr:`generation` read when its fetch began): then it is only the last value known,
        unless a fetch begun later is kept already (two fetches crossed a notice: the older one's
        answer, arriving last, is not the newer)."""
        began = self._generation if fetched_in is None else fetched_in
        if began < self._value_from:
            return
        fresh = began == self._generation
        self._value, self._stored_at, self._value_from = value, self.clock() if fresh else None, began

    def invalidate(self) -> None:
        """Mark stale; the last value stays available to :meth:`peek`."""
        self._stored_at = None
        self._generation += 1

    def clear(self) -> None:
        self._value, self._stored_at, self._value_from = None, None, -1
        self._generation += 1

    @property
    def age(self) -> float | None:
        return None if self._stored_at is None else self.clock() - self._stored_at
