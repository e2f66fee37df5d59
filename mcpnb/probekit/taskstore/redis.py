"""Tasks in Redis (the ``redis`` package's asyncio client): shared by every worker, anywhere.

Each task is a hash ``probekit:task:<id>``; Redis expires it (``PEXPIREAT``) when its TTL runs out,
so nothing here sweeps task data. A sorted set ``probekit:tasks`` (score: creation time) lists them
for ``tasks/list`` and counts; members whose hash has expired are dropped when met. The two guarded
writes are Lua scripts, so each check and its write are one atomic step. Every change a worker
announces goes out on the channel ``probekit:tasks:changed`` (pub/sub): the worker running a task
hears "cancel" or "here is an answer" at once, and a ``tasks/result`` waiting elsewhere wakes up.
The manager still polls its own tasks now and then, so a message lost while a connection was down
delays the news; it never loses it. A short list (:meth:`RedisStore.remember`) is a Redis list
``probekit:recent:<name>``, trimmed and given its expiry in the same transaction as each append.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from mcpnb.probekit.taskstore import (
    PASSWORD_ENV,
    Fields,
    Position,
    TaskStore,
    TaskStoreError,
    Written,
    scrub,
    url_secrets,
)

T = TypeVar("T")
PREFIX = "probekit:"
INDEX = PREFIX + "tasks"
CHANNEL = PREFIX + "tasks:changed"
#: Seconds between attempts to listen again after the pub/sub connection broke.
RELISTEN = 1.0
#: The most one store operation may take. (The client's own ``socket_timeout`` stays off: on
#: Python 3.11 it wraps each send in ``asyncio.wait_for``, which can swallow a cancellation, and a
#: task that is cancelled must stop; ``asyncio.timeout`` here does not have that flaw.)
OPERATION_TIMEOUT = 10.0
#: Connections one worker keeps to Redis at most; a request beyond them waits for a free one (the
#: client's default pool would fail it with "Too many connections" under a class's load).
MAX_CONNECTIONS = 32

_TERMINAL_LUA = "s == 'completed' or s == 'failed' or s == 'cancelled'"
# KEYS[1]: the task; ARGV: unless_terminal ('1'|'0'), lease_before ('' = no check),
# expire-at in ms ('' = never), then field/value pairs. Returns 1 written, 0 missing, -1 refused.
WRITE = f"""
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '1' then
  local s = redis.call('HGET', KEYS[1], 'status')
  if {_TERMINAL_LUA} then return -1 end
end
if ARGV[2] ~= '' then
  local lease = tonumber(redis.call('HGET', KEYS[1], 'lease') or '0') or 0
  if lease >= tonumber(ARGV[2]) then return -1 end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
if ARGV[3] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1
"""
# KEYS[1]: the task; ARGV: field, value.
ADD = f"""
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local s = redis.call('HGET', KEYS[1], 'status')
if {_TERMINAL_LUA} then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
"""


def key(task_id: str) -> str:
    return f"{PREFIX}task:{task_id}"


def list_key(name: str) -> str:
    return f"{PREFIX}recent:{name}"


def _ms(expires_at: float | None) -> str:
    return "" if expires_at is None else str(int(expires_at * 1000))


class RedisStore(TaskStore):
    shared = True

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._raw_url = url
        #: A password from the environment (:data:`PASSWORD_ENV`), used when the URL has none.
        self._password = os.environ.get(PASSWORD_ENV) or None
        #: What error texts must never repeat (a client library may quote its options).
        self._secrets = url_secrets(url) + ([self._password] if self._password else [])
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scripts: dict[str, Any] = {}

    # ------------------------------------------------------------------ plumbing
    def _redis(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:  # a client belongs to the loop it was made on
            try:
                import redis.asyncio as aioredis
            except ImportError:
                raise TaskStoreError(
                    "the redis task store needs the redis package: pip install 'mcpnb[classroom]'"
                ) from None
            try:
                extra = {} if self._password is None else {"password": self._password}  # the URL's wins
                pool = aioredis.BlockingConnectionPool.from_url(
                    self._raw_url,
                    **extra,
                    max_connections=MAX_CONNECTIONS,
                    timeout=OPERATION_TIMEOUT,
                    decode_responses=True,
                    socket_connect_timeout=5,
                    socket_timeout=None,
                    health_check_interval=30,
                )
                self._client = aioredis.Redis.from_pool(pool)  # closing the client closes the pool
            except ValueError as exc:
                raise TaskStoreError(f"bad task store URL {self.url}: {self._scrub(exc)}") from None
            self._loop = loop
            self._scripts = {
                "write": self._client.register_script(WRITE),
                "add": self._client.register_script(ADD),
            }
        return self._client

    async def _do(self, what: str, fn: Callable[[Any], Awaitable[T]]) -> T:
        from redis.exceptions import RedisError

        try:
            async with asyncio.timeout(OPERATION_TIMEOUT):
                found = await fn(self._redis())
        except RedisError as exc:
            error = TaskStoreError(f"task store {self.url}: {what} failed: {self._scrub(exc)}")
            self.outage.failed(error)
            raise error from exc
        except TimeoutError:
            error = TaskStoreError(
                f"task store {self.url}: {what} got no answer within {OPERATION_TIMEOUT:g} s"
            )
            self.outage.failed(error)
            raise error from None
        self.outage.answered()
        return found

    def _scrub(self, exc: BaseException) -> str:
        return scrub(str(exc), self._secrets)

    def exposure(self) -> list[str]:
        """A Redis without a password is open to every local account and anyone who reaches its
        port (a one-machine hub runs every student's kernel next to it): they could list every task,
        read its questions and results and write another result into it. A unix socket only its
        owner (and group) may connect to is closed to them."""
        try:
            from redis.asyncio.connection import parse_url

            options = parse_url(self._raw_url)
        except (ImportError, ValueError):
            return []  # refused when first used, with its reason
        if options.get("password") or self._password:
            return []
        path = options.get("path")
        if path:
            try:
                mode = os.stat(path).st_mode
            except OSError:
                return []  # not there: the start's ping says so
            if stat.S_ISSOCK(mode) and not mode & 0o022:
                return []  # only its owner and group may connect (connecting needs write permission)
        return [
            f"the task store {self.url} has no password: any account on this machine (on a one-machine "
            "hub, every student's kernel) or anyone who reaches Redis can connect to it directly, list "
            "every task, read its questions and results, and change them (the task's owner would "
            "then read the forged result). Give Redis a password (requirepass, or an ACL user) and "
            f"probe-kit the same: {PASSWORD_ENV}=PASSWORD in probe-kit's environment (kept out of "
            "`ps`, which every account can read), or redis://:PASSWORD@127.0.0.1:6379/0; or use a unix "
            "socket only this account may open (unixsocketperm 700). See docs/classroom.md."
        ]

    # ------------------------------------------------------------------ the interface
    async def insert(self, task_id: str, fields: Fields, *, created: float, expires_at: float | None) -> None:
        async def run(r: Any) -> None:
            async with r.pipeline(transaction=True) as pipe:
                pipe.delete(key(task_id))  # a task put back replaces whatever was left of it
                pipe.hset(key(task_id), mapping=fields)
                if expires_at is not None:
                    pipe.pexpireat(key(task_id), int(expires_at * 1000))
                pipe.zadd(INDEX, {task_id: created})
                await pipe.execute()

        await self._do("insert", run)

    async def read(self, task_id: str) -> Fields | None:
        found = await self._do("read", lambda r: r.hgetall(key(task_id)))
        return found or None

    async def read_many(self, task_ids: Sequence[str]) -> list[Fields | None]:
        async def run(r: Any) -> list[Any]:
            async with r.pipeline(transaction=False) as pipe:
                for task_id in task_ids:
                    pipe.hgetall(key(task_id))
                return await pipe.execute()

        return [found or None for found in await self._do("read", run)] if task_ids else []

    async def write(
        self,
        task_id: str,
        fields: Fields,
        *,
        expires_at: float | None,
        unless_terminal: bool = True,
        lease_before: float | None = None,
    ) -> Written:
        pairs = [item for pair in fields.items() for item in pair]
        args = ["1" if unless_terminal else "0", "" if lease_before is None else repr(lease_before)]

        async def run(r: Any) -> Any:
            return await self._scripts["write"](keys=[key(task_id)], args=[*args, _ms(expires_at), *pairs])

        done = int(await self._do("write", run))
        return Written.SAVED if done > 0 else Written.MISSING if done == 0 else Written.REFUSED

    async def ping(self) -> None:
        await self._do("ping", lambda r: r.ping())

    async def add(self, task_id: str, name: str, value: str) -> bool:
        async def run(r: Any) -> Any:
            return await self._scripts["add"](keys=[key(task_id)], args=[name, value])

        return bool(await self._do("write", run))

    async def scan(self, names: Sequence[str]) -> list[tuple[str, Fields]]:
        wanted = ["status", *[n for n in names if n != "status"]]  # every task has a status

        async def run(r: Any) -> list[tuple[str, Fields]]:
            ids = await r.zrange(INDEX, 0, -1)
            async with r.pipeline(transaction=False) as pipe:
                for task_id in ids:
                    pipe.hmget(key(task_id), wanted)
                rows = await pipe.execute() if ids else []
            out, gone = [], []
            for task_id, values in zip(ids, rows, strict=True):
                if values[0] is None:
                    gone.append(task_id)
                    continue
                found = {n: v for n, v in zip(wanted, values, strict=True) if v is not None and n in names}
                out.append((task_id, found))
            if gone:
                await r.zrem(INDEX, *gone)
            return out

        return await self._do("scan", run)

    async def page(
        self, names: Sequence[str], after: Position | None, limit: int
    ) -> list[tuple[Position, Fields]]:
        """The index from ``after``'s score on (``ZRANGEBYSCORE``: Redis orders equal scores by
        member, which is the id), in batches, with one ``HMGET`` round trip per batch."""
        wanted = ["status", *[n for n in names if n != "status"]]  # every task has a status
        low = "-inf" if after is None else repr(after[0])  # repr: the exact float, as Redis keeps it

        async def run(r: Any) -> list[tuple[Position, Fields]]:
            out: list[tuple[Position, Fields]] = []
            gone: list[str] = []
            offset, batch = 0, limit + 1
            while len(out) < limit:
                entries = await r.zrangebyscore(INDEX, low, "+inf", start=offset, num=batch, withscores=True)
                offset += len(entries)
                later = [(float(score), str(m)) for m, score in entries]
                later = [p for p in later if after is None or p > after]  # equal scores: ids after it
                async with r.pipeline(transaction=False) as pipe:
                    for _, task_id in later:
                        pipe.hmget(key(task_id), wanted)
                    rows = await pipe.execute() if later else []
                for position, values in zip(later, rows, strict=True):
                    if values[0] is None:  # expired: Redis dropped the hash, the index still names it
                        gone.append(position[1])
                    elif len(out) < limit:
                        found = {
                            n: v for n, v in zip(wanted, values, strict=True) if v is not None and n in names
                        }
                        out.append((position, found))
                if len(entries) < batch:
                    break
            if gone:
                await r.zrem(INDEX, *gone)
            return out

        return await self._do("page", run)

    async def remember(self, name: str, value: str, *, keep: int, ttl_s: float) -> None:
        async def run(r: Any) -> None:
            async with r.pipeline(transaction=True) as pipe:
                pipe.rpush(list_key(name), value)
                pipe.ltrim(list_key(name), -keep, -1)
                pipe.pexpire(list_key(name), max(1, int(ttl_s * 1000)))
                await pipe.execute()

        await self._do("remember", run)

    async def recall(self, name: str) -> list[str]:
        return list(await self._do("recall", lambda r: r.lrange(list_key(name), 0, -1)))

    async def sweep(self) -> int:
        """Drop index entries whose task Redis has already expired (the tasks themselves need nothing)."""

        async def run(r: Any) -> int:
            ids = await r.zrange(INDEX, 0, -1)
            async with r.pipeline(transaction=False) as pipe:
                for task_id in ids:
                    pipe.exists(key(task_id))
                alive = await pipe.execute() if ids else []
            gone = [t for t, there in zip(ids, alive, strict=True) if not there]
            if gone:
                await r.zrem(INDEX, *gone)
            return len(gone)

        return await self._do("sweep", run)

    async def publish(self, task_id: str) -> None:
        await self._do("publish", lambda r: r.publish(CHANNEL, task_id))

    async def listen(self, on_change: Callable[[str], None]) -> None:
        from redis.exceptions import RedisError

        while True:
            pubsub = self._redis().pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self.outage.answered()
                while True:
                    message = await pubsub.get_message(timeout=5.0)
                    if message is not None and message.get("type") == "message":
                        on_change(str(message["data"]))
            except (RedisError, OSError) as exc:  # said once per outage, not once a second
                self.outage.failed(
                    TaskStoreError(f"task store {self.url}: listening failed: {self._scrub(exc)}")
                )
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(RELISTEN)

    async def close(self) -> None:
        client, self._client = self._client, None
        self._scripts = {}
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()
