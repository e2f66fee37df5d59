"""Where probe-kit keeps its tasks: in this process, in a SQLite file, or in Redis.

A task is a small hash of text fields (``status``, ``doc`` with the rest of its state as JSON,
``lease``, ``cancel``, ``answer:<key>``, ...). The task manager (``tasks.py``) decides what the fields
mean; a store only keeps them, expires them and guards the two writes that race between workers:

- a finished task never changes again (``unless_terminal``): the first ending wins;
- a worker that finds a task whose owner stopped renewing its lease may end it, but only if the lease
  is still the expired one it saw (``lease_before``), so a late heartbeat and a reaper cannot both win.

Pick one with a URL (``--task-store`` or ``MCP_TASK_STORE``): ``memory://`` (the default: this process
only), ``sqlite:///path/to/tasks.db`` (a file: survives restarts, shared by workers on one machine),
``redis://127.0.0.1:6379/0`` (shared by workers anywhere; needs the ``redis`` package).

Besides tasks a store keeps a few short lists the workers must agree on (:meth:`TaskStore.remember`:
each client's last dice totals), so a client sees the same on whichever worker answers it.
"""

from __future__ import annotations

import enum
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from urllib.parse import unquote_plus, urlsplit

#: The status values after which a task never changes (the stores' guard reads ``status``).
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUS, LEASE = "status", "lease"
#: How long a worker's claim on a running task lasts unrenewed (``--task-lease-s``): a task whose
#: worker died stays "working" this long, then ends as failed.
LEASE_S = 10.0
ENV = "MCP_TASK_STORE"
DEFAULT_URL = "memory://"

Fields = dict[str, str]
Clock = Callable[[], float]
#: Where a task stands in every store's order (``tasks/list`` pages): its creation time, then its id.
Position = tuple[float, str]


class TaskStoreError(RuntimeError):
    """The store cannot be opened or answered (bad URL, missing package, server down)."""


class NotBackYet(TaskStoreError):
    """A task the store does not have, just after the store came back from an outage: perhaps
    unknown, perhaps lost by the store and not yet written back by the worker running it (it does
    so at its next write or heartbeat). Saying "unknown" now would make a client drop a live task."""

    def __init__(self, url: str, task_id: str) -> None:
        super().__init__(
            f"task store {url}: task {quoted_id(task_id)} is not in it; the store came back from an outage "
            "moments ago, and the worker running the task writes it back at its next heartbeat"
        )


class Written(enum.Enum):
    """What :meth:`TaskStore.write` did. Only ``SAVED`` is true, so ``if not written`` still reads
    "nothing was written"; the other two say why, which the worker running a task must know: a
    task *missing* from the store (a Redis restarted without persistence lost it) is still that
    worker's to write back, a *refused* one was ended by someone else."""

    SAVED = "saved"
    MISSING = "missing"  # no such live task: unknown, expired, or lost by the store
    REFUSED = "refused"  # there, but already finished, or its lease is newer than ``lease_before``

    def __bool__(self) -> bool:
        return self is Written.SAVED


class Outage:
    """Whether the store answers, said once when it stops and once when it answers again.

    Every failed operation reports here (a progress write every 50 ms during a 4 s Redis restart
    made 281 log lines, one per write); ``back_at`` lets a worker tell "unknown task" from "not
    back in the store yet" just after an outage.
    """

    def __init__(self, url: str, clock: Clock = time.time) -> None:
        self.url, self.clock = url, clock
        self.down_since: float | None = None
        self.back_at: float | None = None

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, exc: BaseException) -> None:
        if self.down_since is None:
            self.down_since = self.clock()
            _log(
                f"task store {self.url} is not answering ({_reason(exc)}); tasks running here go on "
                "and are written again once it answers (said once until then)"
            )

    def answered(self) -> None:
        if self.down_since is not None:
            _log(f"task store {self.url} answers again (after {self.clock() - self.down_since:.1f} s)")
            self.down_since, self.back_at = None, self.clock()

    def just_back(self, within: float) -> bool:
        """The store came back less than ``within`` seconds ago (or is still down)."""
        return self.down or (self.back_at is not None and self.clock() - self.back_at < within)


def _reason(exc: BaseException) -> str:
    text = str(exc)
    prefix = "task store "
    if text.startswith(prefix) and ": " in text:  # "task store URL: write failed: ..." -> the cause
        text = text.split(": ", 1)[1]
    return text


def _log(message: str) -> None:
    print(f"[probe-kit] {message}", file=sys.stderr, flush=True)


class TaskStore(ABC):
    """The operations the task manager needs; every method may be called from any task on one loop.

    ``expires_at`` is an epoch time in seconds (``None``: never). ``shared`` says whether other
    processes see the same tasks; a shared store also carries :meth:`publish` to every worker's
    :meth:`listen` (Redis pub/sub, or a change log SQLite workers poll).
    """

    shared: bool = False

    def __init__(self, url: str) -> None:
        self.url = safe_url(url)
        self.outage = Outage(self.url)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}>"

    @abstractmethod
    async def insert(self, task_id: str, fields: Fields, *, created: float, expires_at: float | None) -> None:
        """Add a new task, or put back one the store lost (whatever an expired copy held is replaced)."""

    def exposure(self) -> list[str]:
        """What another account on this machine (every student's kernel, on a one-machine hub) or on
        its network could read or change in this store, and how to close it: said once on the
        teacher's console at start (:func:`exposure_warnings`). Empty: nothing found."""
        return []

    async def ping(self) -> None:
        """Raise :class:`TaskStoreError` if the store cannot be reached now (checked at startup)."""
        await self.scan([])

    @abstractmethod
    async def read(self, task_id: str) -> Fields | None:
        """Every field of a live task, or ``None`` (unknown or expired)."""

    @abstractmethod
    async def read_many(self, task_ids: Sequence[str]) -> list[Fields | None]:
        """:meth:`read` for several tasks in one round trip."""

    @abstractmethod
    async def write(
        self,
        task_id: str,
        fields: Fields,
        *,
        expires_at: float | None,
        unless_terminal: bool = True,
        lease_before: float | None = None,
    ) -> Written:
        """Set ``fields`` and the expiry of a live task. Nothing is written when the task is
        ``MISSING`` (unknown, expired, or lost by the store) or ``REFUSED``: already finished (with
        ``unless_terminal``), or its lease is not older than ``lease_before``."""

    @abstractmethod
    async def add(self, task_id: str, name: str, value: str) -> bool:
        """Set one field if the task is live, unfinished and has no such field yet (answers, cancel)."""

    @abstractmethod
    async def scan(self, names: Sequence[str]) -> list[tuple[str, Fields]]:
        """The named fields of every live task, oldest first (task counts; ``tasks/list`` pages)."""

    @abstractmethod
    async def page(
        self, names: Sequence[str], after: Position | None, limit: int
    ) -> list[tuple[Position, Fields]]:
        """Up to ``limit`` live tasks that come after ``after`` in creation order (``created``, then
        the id; ``None``: from the first), each with its position and the named fields. A page
        reads only what it returns (plus any expired entries it meets), so listing the first
        hundred of thousands of tasks costs a hundred; a task created or expired meanwhile neither
        repeats nor skips another (``tasks/list``'s cursor is the last position a page returned)."""

    @abstractmethod
    async def remember(self, name: str, value: str, *, keep: int, ttl_s: float) -> None:
        """Append ``value`` to the short list ``name``, keeping its newest ``keep`` values for
        ``ttl_s`` seconds after this append (then the whole list is forgotten)."""

    @abstractmethod
    async def recall(self, name: str) -> list[str]:
        """The list ``name``, oldest first (``[]``: never written, or forgotten)."""

    async def sweep(self) -> int:
        """Delete expired tasks now (stores that expire on read); returns how many."""
        return 0

    async def publish(self, task_id: str) -> None:
        """Tell the other workers that something about ``task_id`` changed (if the store can)."""
        return None

    async def listen(self, on_change: Callable[[str], None]) -> None:
        """Call ``on_change(task_id)`` for every :meth:`publish` anywhere, until cancelled."""
        return None

    async def close(self) -> None:
        """Let go of connections and files; the store opens them again on next use."""
        return None


#: Query parameters whose value is a secret (redis-py reads any query key as a connection option:
#: ``?password=``, ``?ssl_password=``): matched case-insensitively, as a part of the name.
SECRET_QUERY_KEYS = ("pass", "pwd", "secret", "token", "auth", "credential")
#: Where a store's password may come from instead of its URL (a URL given as ``--task-store`` is on
#: the command line, which every local account can read with ``ps``; the environment is not).
PASSWORD_ENV = "MCP_TASK_STORE_PASSWORD"


def safe_url(url: str) -> str:
    """``url`` with every password replaced by ``***``: the userinfo's (``redis://:pw@h``) and any
    query parameter that carries one (``?password=pw``, which redis-py reads too, any case). The
    URL is printed in logs, error messages and ``probe://status``, which every student reads.
    Everything else is kept as written (``unix:///path`` stays so)."""
    head, mark, rest = url.partition("://")
    if not mark:
        return url
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    userinfo, at, host = netloc.rpartition("@")
    if at and ":" in userinfo:  # user:password@host (the password may itself hold '@' or ':')
        netloc = f"{userinfo.split(':', 1)[0]}:***@{host}"
    path, question, query = tail.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        pairs = []
        for pair in query.split("&"):
            name, eq, _ = pair.partition("=")
            secret = any(word in unquote_plus(name).lower() for word in SECRET_QUERY_KEYS)
            pairs.append(f"{name}=***" if secret and eq else pair)
        tail = f"{path}?{'&'.join(pairs)}{hash_}{fragment}"
    return f"{head}://{netloc}{tail}"


def url_secrets(url: str) -> list[str]:
    """The secrets :func:`safe_url` hides, as they may appear in a client library's own messages
    (raw and percent-decoded), longest first."""
    parts = urlsplit(url)
    found = []
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at and ":" in userinfo:
        found.append(userinfo.split(":", 1)[1])
    for pair in parts.query.split("&") if parts.query else []:
        name, eq, value = pair.partition("=")
        if eq and any(word in unquote_plus(name).lower() for word in SECRET_QUERY_KEYS):
            found.append(value)
    found += [unquote_plus(s) for s in found]
    # a very short one would turn every such letter in a message into ***: those are left
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def scrub(text: str, secrets: Sequence[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


#: How much of a task id a message repeats: enough to tell tasks apart on a screen (probe-kit's ids
#: are 32 hex digits), short enough that an id sent as 60 KB does not come back as 60 KB, and, on a
#: console a class may see, not the whole id (without authorization an id is a bearer capability).
SHORT_ID = 8


def short_id(task_id: str, keep: int = SHORT_ID) -> str:
    """The first ``keep`` characters of ``task_id`` and an ellipsis (the whole id if it is that short),
    for messages; lookups always use the whole id."""
    return task_id if len(task_id) <= keep else f"{task_id[:keep]}…"


def quoted_id(task_id: str, keep: int = 40) -> str:
    """``task_id`` quoted for an error message, cut to ``keep`` characters (a client may send any
    string as an id; the message says how long it was when cut)."""
    if len(task_id) <= keep:
        return repr(task_id)
    return f"{task_id[:keep]!r}… ({len(task_id)} characters)"


def exposure_warnings(url: str | None = None) -> list[str]:
    """:meth:`TaskStore.exposure` of the store ``url`` names, each line starting with
    ``probe-kit: WARNING:`` (nothing for a URL that names no store: the start refuses it anyway)."""
    try:
        store = open_store(url)
    except TaskStoreError:
        return []
    return [f"probe-kit: WARNING: {line}" for line in store.exposure()]


def open_store(url: str | None = None, *, clock: Clock | None = None) -> TaskStore:
    """The store a URL names (default: ``$MCP_TASK_STORE``, else ``memory://``).

    Opening is lazy: a Redis server that is down fails the first task request, with its address.
    """
    url = (url or os.environ.get(ENV) or DEFAULT_URL).strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme == "memory":
        from mcpnb.probekit.taskstore.memory import MemoryStore

        return MemoryStore(url, clock=clock)
    if scheme == "sqlite":
        from mcpnb.probekit.taskstore.sqlite import SqliteStore

        return SqliteStore(url)
    if scheme in {"redis", "rediss", "unix"}:
        from mcpnb.probekit.taskstore.redis import RedisStore

        return RedisStore(url)
    raise TaskStoreError(
        f"unknown task store {safe_url(url)!r}: use memory://, sqlite:///path/to/tasks.db "
        "or redis://127.0.0.1:6379/0"
    )
