"""Resource subscriptions as a lesson: a client asks to hear when a resource changes.

2025-11-25: ``resources/subscribe`` / ``resources/unsubscribe`` per URI, and the server pushes
``notifications/resources/updated`` on the client's standalone stream. 2026-07-28 has no subscribe
request: the client opens ``subscriptions/listen`` with ``resourceSubscriptions`` and the server
publishes on its bus. :meth:`Subscriptions.changed` does both, so a tool (or the task manager) says
"probe://status changed" once and every subscriber of either era hears it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any

from mcp import types
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

from mcpnb.probekit.logs import connection_of


class Subscriptions:
    """Which client connections subscribed to which URIs, and the 2026-07-28 event bus."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._by_uri: dict[str, weakref.WeakSet[Any]] = {}
        self._pending: set[asyncio.Task[None]] = set()

    def subscribers(self, uri: str) -> int:
        return len(self._by_uri.get(uri, ()))

    async def handle_subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        self._by_uri.setdefault(str(params.uri), weakref.WeakSet()).add(connection_of(ctx.session))
        return types.EmptyResult()

    async def handle_unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        """Unsubscribing from a URI one never subscribed to is not an error (nothing to undo)."""
        self._by_uri.get(str(params.uri), weakref.WeakSet()).discard(connection_of(ctx.session))
        return types.EmptyResult()

    async def changed(self, uri: str) -> None:
        """Tell every subscriber of ``uri`` that it changed (both eras); a gone client is skipped."""
        for conn in list(self._by_uri.get(uri, ())):
            with contextlib.suppress(Exception):
                await conn.send_resource_updated(uri)
        with contextlib.suppress(Exception):
            await self.bus.publish(ResourceUpdated(uri=uri))

    def changed_soon(self, uri: str) -> None:
        """:meth:`changed` from synchronous code running on the server's loop (fire and forget)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.changed(uri), name=f"probe-kit-updated-{uri}")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
