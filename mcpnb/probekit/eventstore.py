"""Resumable SSE streams (SEP-1699): remember what each stream sent so a client can catch up.

Over Streamable HTTP a response travels as an SSE stream. Every event gets an id; when the stream
breaks (or the server closes it on purpose, as ``test_reconnection`` does), the client reconnects
with ``GET`` and ``Last-Event-ID`` and the server replays what came after. The SDK defines the
interface and ships no store, so this is the smallest one that works: in memory, bounded.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

#: Events kept in all (oldest dropped first): a teaching server, not an archive.
MAX_EVENTS = 10_000


class MemoryEventStore(EventStore):
    """Events by id, in order; a replay sends the later events of the same stream."""

    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        self.max_events = max_events
        self._ids = itertools.count(1)
        self._events: OrderedDict[str, tuple[str, object]] = OrderedDict()

    async def store_event(self, stream_id: str, message: object) -> str:
        event_id = str(next(self._ids))
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self.max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None  # unknown or dropped: the client must start over
        stream_id = found[0]
        after = False
        for event_id, (stream, message) in list(self._events.items()):
            if event_id == last_event_id:
                after = True
            elif after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))  # type: ignore[arg-type]
        return stream_id
