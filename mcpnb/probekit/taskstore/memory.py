"""Tasks in this process's memory: today's behaviour and the default (one worker, gone on restart).

Expiry happens on read against the manager's clock, so tests can move time by hand.
"""

from __future__ import annotations

import bisect
import time
from collections import OrderedDict
from collections.abc import Sequence

from mcpnb.probekit.taskstore import LEASE, STATUS, TERMINAL, Clock, Fields, Position, TaskStore, Written

#: Short lists (:meth:`MemoryStore.remember`) kept at most; the least recently written go first.
MAX_LISTS = 10_000


class MemoryStore(TaskStore):
    """A dict of tasks in insertion (= creation) order, and their positions sorted for paging."""

    def __init__(self, url: str = "memory://", *, clock: Clock | None = None) -> None:
        super().__init__(url)
        self.clock = clock or time.time
        self._tasks: dict[str, tuple[Fields, float | None]] = {}
        self._created: dict[str, float] = {}
        #: The position of every task in ``_tasks``, sorted (``page``).
        self._order: list[Position] = []
        self._lists: OrderedDict[str, tuple[list[str], float]] = OrderedDict()

    def _live(self, task_id: str) -> Fields | None:
        found = self._tasks.get(task_id)
        if found is None:
            return None
        fields, expires_at = found
        if expires_at is not None and expires_at <= self.clock():
            del self._tasks[task_id]
            self._unplace(task_id)
            return None
        return fields

    async def insert(self, task_id: str, fields: Fields, *, created: float, expires_at: float | None) -> None:
        self._tasks[task_id] = (dict(fields), expires_at)
        if self._created.get(task_id) != created:
            self._unplace(task_id)
            self._created[task_id] = created
            bisect.insort(self._order, (created, task_id))

    def _unplace(self, task_id: str) -> None:
        created = self._created.pop(task_id, None)
        if created is None:
            return
        at = bisect.bisect_left(self._order, (created, task_id))
        if at < len(self._order) and self._order[at] == (created, task_id):
            del self._order[at]

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

    async def page(
        self, names: Sequence[str], after: Position | None, limit: int
    ) -> list[tuple[Position, Fields]]:
        at = 0 if after is None else bisect.bisect_right(self._order, after)
        out: list[tuple[Position, Fields]] = []
        while at < len(self._order) and len(out) < limit:
            position = self._order[at]
            fields = self._live(position[1])
            if fields is None:  # expired just now: ``_live`` took its place out of the order
                if at < len(self._order) and self._order[at] == position:
                    del self._order[at]
                continue
            out.append((position, {n: fields[n] for n in names if n in fields}))
            at += 1
        return out

    async def remember(self, name: str, value: str, *, keep: int, ttl_s: float) -> None:
        values = [*await self.recall(name), value][-keep:]
        self._lists[name] = (values, self.clock() + ttl_s)
        self._lists.move_to_end(name)
        while len(self._lists) > MAX_LISTS:
            self._lists.popitem(last=False)

    async def recall(self, name: str) -> list[str]:
        values, expires_at = self._lists.get(name, ([], 0.0))
        if expires_at <= self.clock():
            self._lists.pop(name, None)
            return []
        return list(values)

    async def sweep(self) -> int:
        before = len(self._tasks)
        for task_id in list(self._tasks):
            self._live(task_id)
        return before - len(self._tasks)
