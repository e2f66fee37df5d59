"""Tasks in this process's memory: today's behaviour and the default (one worker, gone on restart).

Expiry happens on read against the manager's clock, so tests can move time by hand.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from mcpnb.probekit.taskstore import LEASE, STATUS, TERMINAL, Clock, Fields, TaskStore, Written


class MemoryStore(TaskStore):
    """A dict of tasks in insertion (= creation) order."""

    def __init__(self, url: str = "memory://", *, clock: Clock | None = None) -> None:
        super().__init__(url)
        self.clock = clock or time.time
        self._tasks: dict[str, tuple[Fields, float | None]] = {}

    def _live(self, task_id: str) -> Fields | None:
        found = self._tasks.get(task_id)
        if found is None:
            return None
        fields, expires_at = found
        if expires_at is not None and expires_at <= self.clock():
            del self._tasks[task_id]
            return None
        return fields

    async def insert(self, task_id: str, fields: Fields, *, created: float, expires_at: float | None) -> None:
        self._tasks[task_id] = (dict(fields), expires_at)

    async def read(self, task_id: str) -> Fields | None:
        fields = self._live(task_id)
        return None if fields is None else dict(fields)

    async def read_many(self, task_ids: Sequence[str]) -> list[Fields | None]:
        return [await self.read(t) for t in task_ids]

    async def write(
        self,
        task_id: str,
        fields: Fields,
        *,
        expires_at: float | None,
        unless_terminal: bool = True,
        lease_before: float | None = None,
    ) -> Written:
        current = self._live(task_id)
        if current is None:
            return Written.MISSING
        if unless_terminal and current.get(STATUS) in TERMINAL:
            return Written.REFUSED
        if lease_before is not None and float(current.get(LEASE) or 0) >= lease_before:
            return Written.REFUSED
        current.update(fields)
        self._tasks[task_id] = (current, expires_at)
        return Written.SAVED

    async def add(self, task_id: str, name: str, value: str) -> bool:
        current = self._live(task_id)
        if current is None or current.get(STATUS) in TERMINAL or name in current:
            return False
        current[name] = value
        return True

    async def scan(self, names: Sequence[str]) -> list[tuple[str, Fields]]:
        out = []
        for task_id in list(self._tasks):
            fields = self._live(task_id)
            if fields is not None:
                out.append((task_id, {n: fields[n] for n in names if n in fields}))
        return out

    async def sweep(self) -> int:
        before = len(self._tasks)
        for task_id in list(self._tasks):
            self._live(task_id)
        return before - len(self._tasks)
