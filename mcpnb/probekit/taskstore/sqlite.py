"""Tasks in a SQLite file (standard library): they survive a restart, and workers on one machine share them.

``sqlite:///abs/path/tasks.db`` (or ``sqlite://relative.db``). The file is in WAL mode so readers never
wait for a writer; each write that must not race (see the package docstring) runs in one
``BEGIN IMMEDIATE`` transaction, which SQLite serialises across processes. SQLite cannot notify
other processes, so workers poll it (the task manager does that for the tasks it runs) and expired
tasks are removed on read and by :meth:`sweep`. The connection lives in one thread of its own: the
event loop never blocks on the file lock.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from mcpnb.probekit.taskstore import (
    LEASE,
    STATUS,
    TERMINAL,
    Fields,
    Position,
    TaskStore,
    TaskStoreError,
    Written,
)

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, created REAL NOT NULL, expires REAL);
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_expires ON tasks (expires);
CREATE INDEX IF NOT EXISTS tasks_order ON tasks (created, id);
CREATE TABLE IF NOT EXISTS fields (
    id TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recent (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, value TEXT NOT NULL, expires REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS recent_name ON recent (name, seq);
"""
LIVE_FIELDS = (
    "SELECT f.name, f.value FROM fields f JOIN tasks t ON t.id = f.id "
    "WHERE f.id = ? AND (t.expires IS NULL OR t.expires > ?)"
)
#: How often :meth:`SqliteStore.listen` looks at the change log (s), and how long entries stay there.
LISTEN_EVERY, CHANGES_KEPT = 0.05, 60.0
#: How long a write waits for another process's transaction before giving up (ms).
BUSY_TIMEOUT_MS = 10_000


def sqlite_path(url: str) -> Path:
    """``sqlite:///tmp/t.db`` -> ``/tmp/t.db``; ``sqlite://t.db`` -> ``t.db`` (relative to the cwd)."""
    rest = url.split("://", 1)[1] if "://" in url else ""
    if not rest or rest in {"/", ":memory:"}:
        raise TaskStoreError(
            f"task store {url!r} names no file: use sqlite:///absolute/path/tasks.db (a file workers share)"
        )
    return Path(rest).expanduser()


class SqliteStore(TaskStore):
    shared = True

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.path = sqlite_path(url)
        self._db: sqlite3.Connection | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ plumbing
    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._thread is None:
            self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="probe-kit-sqlite")
        try:
            found = await asyncio.get_running_loop().run_in_executor(self._thread, self._run, fn)
        except TaskStoreError as exc:  # a locked, vanished or unwritable file
            self.outage.failed(exc)
            raise
        self.outage.answered()
        return found

    def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._db is None:
            self._db = self._open()
        try:
            return fn(self._db)
        except sqlite3.Error as exc:
            raise TaskStoreError(f"task store {self.url}: {exc}") from exc

    def _open(self) -> sqlite3.Connection:
        try:
            _make_private(self.path)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise TaskStoreError(f"cannot open the task store {self.url}: {exc}") from exc
        return db

    def exposure(self) -> list[str]:
        """The file (and its ``-wal``/``-shm`` companions, which SQLite gives the file's mode) must
        be this account's alone: every task's questions and results are in it, and a one-machine
        hub gives every student an account here. Said for a file or folder made before (probe-kit
        makes them 0600 and 0700)."""
        found = []
        for path in (self.path, *(self.path.with_name(self.path.name + end) for end in ("-wal", "-shm"))):
            mode = _mode(path)
            if mode is not None and mode & 0o044:
                found.append(
                    f"the task store file {path} can be read by other accounts on this machine (mode "
                    f"{stat.filemode(mode)}): every task's questions and results are in it. "
                    f"chmod 600 {path} (probe-kit makes a new one 0600)"
                )
        folder = self.path.parent
        mode = _mode(folder)
        if mode is not None and mode & 0o022 and not mode & stat.S_ISVTX:
            found.append(
                f"the task store's folder {folder} can be written by other accounts (mode "
                f"{stat.filemode(mode)}): they could replace or delete the task store. chmod 700 {folder}"
            )
        return found

    @staticmethod
    def _fields(db: sqlite3.Connection, task_id: str, now: float) -> Fields | None:
        rows = db.execute(LIVE_FIELDS, (task_id, now)).fetchall()
        return dict(rows) if rows else None  # a task always has fields: none means unknown or expired

    @staticmethod
    def _set(db: sqlite3.Connection, task_id: str, fields: Fields) -> None:
        db.executemany(
            "INSERT OR REPLACE INTO fields (id, name, value) VALUES (?, ?, ?)",
            [(task_id, k, v) for k, v in fields.items()],
        )

    # ------------------------------------------------------------------ the interface
    async def insert(self, task_id: str, fields: Fields, *, created: float, expires_at: float | None) -> None:
        def run(db: sqlite3.Connection) -> None:
            with _transaction(db):  # a task put back replaces whatever was left of it (expired, unswept)
                db.execute("DELETE FROM fields WHERE id = ?", (task_id,))
                db.execute(
                    "INSERT OR REPLACE INTO tasks (id, created, expires) VALUES (?, ?, ?)",
                    (task_id, created, expires_at),
                )
                self._set(db, task_id, fields)

        await self._call(run)

    async def read(self, task_id: str) -> Fields | None:
        now = time.time()
        return await self._call(lambda db: self._fields(db, task_id, now))

    async def read_many(self, task_ids: Sequence[str]) -> list[Fields | None]:
        now = time.time()
        return await self._call(lambda db: [self._fields(db, t, now) for t in task_ids])

    async def write(
        self,
        task_id: str,
        fields: Fields,
        *,
        expires_at: float | None,
        unless_terminal: bool = True,
        lease_before: float | None = None,
    ) -> Written:
        now = time.time()

        def run(db: sqlite3.Connection) -> Written:
            with _transaction(db):
                current = self._fields(db, task_id, now)
                if current is None:
                    return Written.MISSING
                if unless_terminal and current.get(STATUS) in TERMINAL:
                    return Written.REFUSED
                if lease_before is not None and float(current.get(LEASE) or 0) >= lease_before:
                    return Written.REFUSED
                self._set(db, task_id, fields)
                db.execute("UPDATE tasks SET expires = ? WHERE id = ?", (expires_at, task_id))
                return Written.SAVED

        return await self._call(run)

    async def add(self, task_id: str, name: str, value: str) -> bool:
        now = time.time()

        def run(db: sqlite3.Connection) -> bool:
            with _transaction(db):
                current = self._fields(db, task_id, now)
                if current is None or current.get(STATUS) in TERMINAL or name in current:
                    return False
                self._set(db, task_id, {name: value})
                return True

        return await self._call(run)

    async def scan(self, names: Sequence[str]) -> list[tuple[str, Fields]]:
        now = time.time()
        marks = ",".join("?" * len(names))

        def run(db: sqlite3.Connection) -> list[tuple[str, Fields]]:
            rows = db.execute(
                "SELECT t.id, f.name, f.value FROM tasks t LEFT JOIN fields f "
                f"ON f.id = t.id AND f.name IN ({marks}) "
                "WHERE t.expires IS NULL OR t.expires > ? ORDER BY t.created, t.id",
                (*names, now),
            ).fetchall()
            out: dict[str, Fields] = {}
            for task_id, name, value in rows:
                found = out.setdefault(task_id, {})
                if name is not None:
                    found[name] = value
            return list(out.items())

        return await self._call(run)

    async def page(
        self, names: Sequence[str], after: Position | None, limit: int
    ) -> list[tuple[Position, Fields]]:
        now = time.time()
        live = "(expires IS NULL OR expires > ?)"
        if after is None:
            query, args = f"SELECT created, id FROM tasks WHERE {live}", [now]
        else:
            later = "(created > ? OR (created = ? AND id > ?))"
            query, args = (
                f"SELECT created, id FROM tasks WHERE {later} AND {live}",
                [after[0], after[0], after[1], now],
            )
        marks = ",".join("?" * len(names))

        def run(db: sqlite3.Connection) -> list[tuple[Position, Fields]]:
            rows = db.execute(f"{query} ORDER BY created, id LIMIT ?", (*args, limit)).fetchall()
            found: dict[str, Fields] = {task_id: {} for _, task_id in rows}
            if rows and names:
                ids = ",".join("?" * len(rows))
                for task_id, name, value in db.execute(
                    f"SELECT id, name, value FROM fields WHERE id IN ({ids}) AND name IN ({marks})",
                    (*found, *names),
                ):
                    found[task_id][name] = value
            return [((created, task_id), found[task_id]) for created, task_id in rows]

        return await self._call(run)

    async def remember(self, name: str, value: str, *, keep: int, ttl_s: float) -> None:
        now = time.time()

        def run(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "INSERT INTO recent (name, value, expires) VALUES (?, ?, ?)", (name, value, now + ttl_s)
                )
                db.execute("UPDATE recent SET expires = ? WHERE name = ?", (now + ttl_s, name))
                db.execute(
                    "DELETE FROM recent WHERE name = ? AND seq NOT IN "
                    "(SELECT seq FROM recent WHERE name = ? ORDER BY seq DESC LIMIT ?)",
                    (name, name, keep),
                )

        await self._call(run)

    async def recall(self, name: str) -> list[str]:
        now = time.time()

        def run(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT value FROM recent WHERE name = ? AND expires > ? ORDER BY seq", (name, now)
            ).fetchall()
            return [value for (value,) in rows]

        return await self._call(run)

    async def sweep(self) -> int:
        now = time.time()

        def run(db: sqlite3.Connection) -> int:
            with _transaction(db):
                db.execute("DELETE FROM recent WHERE expires <= ?", (now,))
                gone = "SELECT id FROM tasks WHERE expires IS NOT NULL AND expires <= ?"
                db.execute(f"DELETE FROM fields WHERE id IN ({gone})", (now,))
                db.execute("DELETE FROM changes WHERE at < ?", (now - CHANGES_KEPT,))
                return db.execute(
                    "DELETE FROM tasks WHERE expires IS NOT NULL AND expires <= ?", (now,)
                ).rowcount

        return await self._call(run)

    async def publish(self, task_id: str) -> None:
        now = time.time()
        await self._call(
            lambda db: db.execute("INSERT INTO changes (task_id, at) VALUES (?, ?)", (task_id, now))
        )

    async def listen(self, on_change: Callable[[str], None]) -> None:
        """Read the change log from its current end on, every :data:`LISTEN_EVERY` seconds."""
        last = await self._call(
            lambda db: db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
        )
        while True:
            await asyncio.sleep(LISTEN_EVERY)
            seen = last
            try:
                rows = await self._call(
                    lambda db, seen=seen: db.execute(
                        "SELECT seq, task_id FROM changes WHERE seq > ? ORDER BY seq", (seen,)
                    ).fetchall()
                )
            except TaskStoreError:  # a locked or vanished file: said once (by the outage), keep listening
                continue
            for seq, task_id in rows:
                last = seq
                on_change(task_id)

    async def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return

        def shut() -> None:
            db, self._db = self._db, None
            if db is not None:
                db.close()

        await asyncio.get_running_loop().run_in_executor(thread, shut)
        thread.shutdown(wait=False)


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode
    except OSError:
        return None


def _make_private(path: Path) -> None:
    """Make the folders ``path`` needs (0700) and the file itself (0600) if they are not there yet,
    before SQLite opens it: SQLite would make it 0644 (umask 022), readable by every account, and
    its ``-wal`` and ``-shm`` files take the file's mode. Existing ones are left as they are
    (:meth:`SqliteStore.exposure` says if others can read them)."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


class _transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error): the write lock is taken up front,
    so a check and the write that depends on it see the same file."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
