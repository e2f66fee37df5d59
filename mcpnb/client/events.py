"""Connection events: every state change (and later retries, health results, cache hits) as data.

Subscribers (the status UI, tests, logs) get each event as it happens; a bounded history stays on the
connection so ``%mcp logs`` can show what happened before anyone looked.
"""

from __future__ import annotations

import json
import logging
import time as _time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

logger = logging.getLogger("mcpnb")


class State(StrEnum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    FAILED = "failed"
    DISABLED = "disabled"


@dataclass(frozen=True)
class ConnectionEvent:
    """Something that happened to one server. ``message`` is safe to show (secrets scrubbed)."""

    server: str
    kind: str  # "state", "stderr", "stdout" (a stdio server's stray lines), "schema", "cache", ...
    message: str
    state: State | None = None
    previous: State | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    time: datetime = field(default_factory=datetime.now)
    monotonic: float = field(default_factory=_time.monotonic)

    def __str__(self) -> str:
        return f"{self.time:%H:%M:%S} {self.server} {self.kind}: {self.message}"


Subscriber = Callable[[ConnectionEvent], None]


def log_data_text(data: Any) -> str:
    """A server log notification's ``data`` as a log line shows it: text as it is, anything else as
    JSON, as the calling cell shows it under a call (``{"msg": "…", "extra": null}``), so a line reads
    the same in both places and can be copied as JSON (Python's repr said ``None`` and ``'…'``)."""
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # a circular structure, say: its repr is still something
        return repr(data)


class EventLog:
    """A bounded history of events plus fan-out to subscribers (a failing subscriber is only logged)."""

    def __init__(self, maxlen: int = 200) -> None:
        self.history: deque[ConnectionEvent] = deque(maxlen=maxlen)
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` for every future event; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: ConnectionEvent) -> None:
        self.history.append(event)
        logger.debug("%s", event)
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken UI callback must never break a connection
                logger.exception("mcpnb event subscriber failed")
