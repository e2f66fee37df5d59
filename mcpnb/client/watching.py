"""Resource subscriptions for one connection: who watches which URI, in either protocol era.

2025-11-25: ``resources/subscribe`` once per URI, then ``notifications/resources/updated`` arrives
among the session's notifications (``Connection._on_message`` hands it here). 2026-07-28: there is
no subscribe request; a ``subscriptions/listen`` stream with ``resourceSubscriptions`` carries the
same news, so one listener task per session follows every watched URI (restarted when the set
changes). A new session (after a reconnect) subscribes again to everything still watched.

News sent while nothing listened is not replayed: a listen stream a middlebox cut is opened again
(:func:`~mcpnb.client.listening.keep_listening`, the list_changed listener's policy), and after
such a gap, or a reconnect, every watcher is told of its URI once, so that it reads it again
(it may have changed, or not). The person is told the first time a stream is opened again.

A flood of updates (50,000 ``resources/updated`` in a few seconds) is told in bursts: the watchers
of a URI are told of it at once when it was quiet, then at most every :data:`TELL_EVERY` seconds,
each time after the updates it stands for, so the last update is always followed by a telling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcpnb.client.errors import CallError, check_offered, describe
from mcpnb.client.listening import keep_listening

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection
    from mcpnb.client.pool import Pool

Watcher = Callable[[str], None]

logger = logging.getLogger("mcpnb")

#: The shortest time (seconds) between two tellings of one URI's updates. A watcher runs on the
#: runtime loop, synchronously: one that re-reads (or has a thread re-read) the resource did it for
#: every one of a flood's notifications, and held every connection meanwhile.
TELL_EVERY = 0.1


class ResourceWatch:
    """The watched URIs of one connection and the callbacks to tell."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.watchers: dict[str, list[Watcher]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._warned = False  # the person was told a stream broke (once; later breaks are logged)
        self._told_at: dict[str, float] = {}  # URI -> when (loop time) its watchers were last told
        self._due: dict[str, asyncio.TimerHandle] = {}  # URI -> its next telling, updates waiting
        self._unsaid: dict[str, int] = {}  # URI -> updates since the log last said one

    @property
    def uris(self) -> list[str]:
        return list(self.watchers)

    async def add(self, uri: str, watcher: Watcher) -> None:
        """Start telling ``watcher(uri)`` when ``uri`` changes; subscribes on the server if needed."""
        check_offered(
            self.conn.name,
            self.conn.capabilities,
            "resources.subscribe",
            "resource subscriptions",
            f"nothing would tell about changes to {uri}; read it again instead",
        )
        first = uri not in self.watchers
        self.watchers.setdefault(uri, []).append(watcher)
        if first:
            try:
                await self._subscribe(uri)
            except BaseException:
                self.watchers[uri].remove(watcher)
                if not self.watchers[uri]:
                    del self.watchers[uri]
                raise

    async def remove(self, uri: str, watcher: Watcher | None = None) -> bool:
        """Stop telling ``watcher`` (every watcher of ``uri`` when None); False if none was watching."""
        current = self.watchers.get(uri, [])
        gone = list(current) if watcher is None else [w for w in current if w is watcher]
        if not gone:
            return False
        for w in gone:
            current.remove(w)
        if not current:
            del self.watchers[uri]
            self._drop_due(lambda due: not any(covers(watched, due) for watched in self.watchers))
            with contextlib.suppress(Exception):  # the session may be gone: nothing to undo there
                await self._unsubscribe(uri)
        return True

    def _drop_due(self, unheard: Callable[[str], bool]) -> None:
        """Cancel the tellings scheduled for the URIs ``unheard`` says nobody is to hear any more:
        a timer of a burst outlived an unwatch, and a disconnect, and told its watchers after it."""
        for uri in [u for u in self._due if unheard(u)]:
            self._due.pop(uri).cancel()

    def updated(self, uri: str) -> None:
        """A server said ``uri`` changed: tell the watchers of it and of every URI it lies under
        (each watcher once, with the URI that changed); a failing watcher is logged, not fatal.

        The update "might be a sub-resource of the one that the client actually subscribed to"
        (the schema's ``ResourceUpdatedNotification``): a watcher of a folder heard nothing when
        a file in it changed.

        At once when ``uri`` was quiet for :data:`TELL_EVERY`; else one telling is scheduled for
        then, and the updates that come meanwhile are told by it (a telling after the last of them:
        none is lost). The log says the first update of a burst, and how many were not said."""
        if uri in self._due:
            self._unsaid[uri] = self._unsaid.get(uri, 0) + 1
            return
        loop = asyncio.get_running_loop()
        last = self._told_at.get(uri)
        if last is not None and loop.time() - last < TELL_EVERY:
            self._unsaid[uri] = self._unsaid.get(uri, 0) + 1
            self._due[uri] = loop.call_at(last + TELL_EVERY, self._tell_due, uri)
            return
        unsaid = self._unsaid.pop(uri, 0)
        more = f" ({unsaid} more updates of it since the last line, told in bursts)" if unsaid else ""
        self.conn.emit("resource", f"resource updated: {uri}{more}", uri=uri)
        self._tell_watchers(uri)

    def _tell_due(self, uri: str) -> None:
        """The telling scheduled for the updates of ``uri`` that came too soon after the last."""
        self._due.pop(uri, None)
        self._tell_watchers(uri)

    def _tell_watchers(self, uri: str) -> None:
        now = asyncio.get_running_loop().time()
        if len(self._told_at) > 1024:  # a server that names a new URI each time: keep the recent
            for old in [u for u, t in self._told_at.items() if now - t >= TELL_EVERY and u not in self._due]:
                del self._told_at[old]
                self._unsaid.pop(old, None)
        self._told_at[uri] = now
        told: list[Watcher] = []
        for watched, watchers in list(self.watchers.items()):
            if not covers(watched, uri):
                continue
            for watcher in list(watchers):
                if any(watcher is seen for seen in told):
                    continue
                told.append(watcher)
                self._tell(watcher, watched, uri)

    def _tell(self, watcher: Watcher, watched: str, uri: str) -> None:
        try:
            watcher(uri)
        except Exception as exc:
            self.conn.emit("resource", f"a watcher of {watched} failed: {describe(exc)}")

    def _may_have_changed(self, uris: list[str]) -> None:
        """Nothing listened for a while (a cut stream, a lost session) and nothing replays what was
        sent meanwhile: each watcher of ``uris`` is told of its URI once, to read it again."""
        told: list[Watcher] = []
        for uri in uris:
            for watcher in list(self.watchers.get(uri, ())):
                if not any(watcher is seen for seen in told):
                    told.append(watcher)
                    self._tell(watcher, uri, uri)

    def _reopened(self, uris: list[str]) -> None:
        """A cut listen stream is acknowledged again: say so (to the person the first time), and
        have the watchers read again what may have changed while it was down."""
        said = (
            f"the resource subscription stream of {self.conn.name!r} broke and was opened again: "
            f"updates while it was down may have been missed, so the watchers of {', '.join(uris)} "
            "are told once to read again"
        )
        self.conn.emit("resource", said, reason="relisten")
        if not self._warned:
            self._warned = True
            logger.warning("mcpnb: %s (later breaks: pool.logs(%r))", self.conn.safe(said), self.conn.name)
        self._may_have_changed(uris)

    async def resume(self) -> None:
        """A new session: subscribe again to everything still watched (2026-07-28: one stream for
        all), then have the watchers read again what may have changed while no session was there."""
        self._listener = None
        uris = self.uris
        if self.conn.era == "modern" and uris:
            try:
                await self._relisten()
            except Exception as exc:
                self.conn.emit("resource", f"could not listen again to {', '.join(uris)}: {describe(exc)}")
                return
        else:
            for uri in list(uris):
                try:
                    await self._subscribe(uri)
                except Exception as exc:
                    self.conn.emit("resource", f"could not subscribe again to {uri}: {describe(exc)}")
                    uris.remove(uri)
        self._may_have_changed(uris)

    # ------------------------------------------------------------------ the two eras
    async def _subscribe(self, uri: str) -> None:
        if self.conn.era == "modern":
            try:
                await self._relisten()
            except (asyncio.CancelledError, CallError):
                raise
            except Exception as exc:  # the SDK's MCPError, a timeout: said as every request's failure
                raise CallError(
                    f"subscriptions/listen {uri} on {self.conn.name!r} failed: {describe(exc)}"
                ) from None
            return
        from mcp import types

        request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        await self.conn.request(
            f"resources/subscribe {uri}", lambda c: c.session.send_request(request, types.EmptyResult)
        )

    async def _unsubscribe(self, uri: str) -> None:
        if self.conn.era == "modern":
            await self._relisten()
            return
        from mcp import types

        request = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
        await self.conn.request(
            f"resources/unsubscribe {uri}", lambda c: c.session.send_request(request, types.EmptyResult)
        )

    async def _relisten(self) -> None:
        """One listen stream for every watched URI; returns once the server acknowledged it."""
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        if not self.watchers:
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._listener = asyncio.get_running_loop().create_task(
            self._listen(self.uris, ready), name=f"mcpnb-watch-{self.conn.name}"
        )
        await asyncio.wait_for(asyncio.shield(ready), self.conn.config.startup_timeout)

    async def _listen(self, uris: list[str], ready: asyncio.Future[None]) -> None:
        """Follow the stream (the SDK also hands each event to the message handler: updated() runs
        there), opened again when it is cut, as the list_changed listener's is."""
        refused = await keep_listening(
            self.conn,
            lambda client: client.listen(resource_subscriptions=uris),
            stream="the resource subscription stream",
            unheard=f"updates of {', '.join(uris)} are not heard",
            reopened=lambda: self._reopened(uris),
            ready=ready,
        )
        if refused is not None:
            self.conn.emit("resource", f"the subscription stream ended: {refused}")

    def cancel(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None
        self._drop_due(lambda _uri: True)


def covers(watched: str, uri: str) -> bool:
    """Whether an update of ``uri`` is news for a watcher of ``watched``: the same URI, or one below
    it by path (``file:///a/b`` covers ``file:///a/b/c``, never ``file:///a/bc``)."""
    if uri == watched:
        return True
    if not uri.startswith(watched):
        return False
    return watched.endswith("/") or uri[len(watched)] == "/"


def watch_from(pool: Pool, server: str, uri: str, callback: Watcher) -> Callable[[], None]:
    """``Pool.watch``: watch ``uri`` on ``server`` from the caller's thread; the function it returns
    stops this one watcher (and does nothing once the runtime is closed)."""
    conn = pool.connection(server)
    pool._run(conn.watch_resource(uri, callback))

    def stop() -> None:
        if not pool.runtime.closed:
            pool._run(conn.unwatch_resource(uri, callback))

    return stop
