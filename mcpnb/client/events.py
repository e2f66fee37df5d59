"""Connection events: every state change (and later retries, health results, cache hits) as data.

Subscribers (the status UI, tests, logs) get each event as it happens; a bounded history stays on the
connection so ``%mcp logs`` can show what happened before anyone looked. Each event is also logged
on the ``mcpnb`` logger, at a level that fits it (:func:`log_level`): a service that logs at INFO or
WARNING hears a server die and come back, without the chatter of every stderr line.
"""

from __future__ import annotations

import json
import logging
import threading
import time as _time
from collections import deque
from collections.abc import Callable, Iterable
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


#: Kinds of event worth more than DEBUG whatever they say (``state`` and ``health`` depend on the
#: event: :func:`log_level`). A stall is said once per tool.
_KIND_LEVELS = {"stall": logging.WARNING}


def log_level(event: ConnectionEvent) -> int:
    """How loud ``event`` is on the ``mcpnb`` logger: WARNING when a server is lost, failed (not
    again for the same reason) or fails its health probe; INFO when it is healthy again; DEBUG for
    the rest (connects, disconnects, retries, stderr lines, cache hits). Routine events stay
    DEBUG: an SDK ``MCPServer`` made in a kernel sets the root logger to INFO, and each connect
    then showed in the running cell."""
    if event.kind == "state":
        if event.state is State.FAILED:  # a failure said again in the same words: DEBUG
            return logging.DEBUG if event.detail.get("repeated") else logging.WARNING
        if event.state is State.RECONNECTING:  # lost: once; the attempts after it are "retry" lines
            return logging.WARNING if event.previous is State.CONNECTED else logging.DEBUG
        return logging.DEBUG
    if event.kind == "health":
        if event.detail.get("ok") is False:  # "probe failed (…): why", then the bare "unhealthy"
            return logging.INFO if event.message == "unhealthy" else logging.WARNING
        return logging.INFO if event.message == "healthy again" else logging.DEBUG
    if event.kind == "ask" and event.detail.get("failed"):  # the interaction itself broke
        return logging.WARNING
    return _KIND_LEVELS.get(event.kind, logging.DEBUG)


def _callback_name(callback: Subscriber) -> str:
    return getattr(callback, "__qualname__", None) or type(callback).__qualname__


def call_each(callbacks: Iterable[Subscriber], event: ConnectionEvent) -> list[str]:
    """Call every callback with ``event``. One that raises anything (``sys.exit()`` and a stray
    ``CancelledError`` included) is logged with its traceback and the next one is called: callbacks
    run inside mcpnb's own work (the task reconnecting a lost server), which they must never stop.
    Only a ``KeyboardInterrupt`` on the main thread passes (Ctrl-C, which a person means); on the
    runtime thread, where events are emitted, no signal lands, so one there was raised by the
    callback itself. Returns a line per failure, saying which callback raised what."""
    failures: list[str] = []
    for callback in callbacks:
        try:
            callback(event)
        except KeyboardInterrupt as exc:
            if threading.current_thread() is threading.main_thread():
                raise
            failures.append(_subscriber_failed(callback, event, exc))
        except BaseException as exc:  # a broken callback must never break a connection
            failures.append(_subscriber_failed(callback, event, exc))
    return failures


def _subscriber_failed(callback: Subscriber, event: ConnectionEvent, error: BaseException) -> str:
    """Log ``error`` with its traceback; returns the line the server's log keeps."""
    said = f"the event subscriber {_callback_name(callback)} raised {type(error).__name__}: ignored"
    if isinstance(error, SystemExit):  # sys.exit() in a thread only ends that thread; here, nothing
        said += " (subscribers run on mcpnb's runtime thread, where sys.exit() ends no program)"
    logger.error("mcpnb: %s, on the event %r", said, str(event), exc_info=error)
    if _callback_name(callback) not in _told_unheard:  # once per callback
        _told_unheard.add(_callback_name(callback))
        unheard(f"{said} (said once; its traceback goes to the 'mcpnb' logger once logging is set up)")
    return said


#: The callbacks whose failure :func:`unheard` has said.
_told_unheard: set[str] = set()


def heard() -> bool:
    """Whether logging was set up to hear the ``mcpnb`` logger: a handler up its line other than
    the ``NullHandler`` mcpnb puts there (which keeps Python's last resort from printing it)."""
    log: logging.Logger | None = logger
    while log is not None:
        if any(not isinstance(h, logging.NullHandler) for h in log.handlers):
            return True
        log = log.parent if log.propagate else None
    return False


def unheard(message: str) -> None:
    """``message`` on stderr where nothing hears the ``mcpnb`` logger: a bug in the person's own
    callback, or a question nobody could answer in a script, is not to pass unseen."""
    import sys

    if not heard():
        print(f"mcpnb: {message}", file=sys.stderr, flush=True)


#: State changes kept once a flood of other lines has pushed them out of the log's last lines.
STATES_KEPT = 100


class EventLog:
    """A bounded history of events plus fan-out to subscribers (a failing subscriber is only logged).

    The last ``maxlen`` events of every kind, and before them the last :data:`STATES_KEPT` state
    changes that have left those: a server that dumps a long traceback on stderr (an old SDK server
    answering the era probe wrote ~95 lines on each connect) pushed out of a 200-line log the lines
    that said when it connected, crashed and came back.
    """

    states_kept = STATES_KEPT

    def __init__(self, maxlen: int = 200) -> None:
        self._recent: deque[ConnectionEvent] = deque(maxlen=maxlen)
        self._states: deque[ConnectionEvent] = deque(maxlen=self.states_kept)  # older than _recent's
        self._subscribers: list[Subscriber] = []

    @property
    def history(self) -> list[ConnectionEvent]:
        """The events kept, oldest first."""
        return [*self._states, *self._recent]

    def _keep(self, event: ConnectionEvent) -> None:
        recent = self._recent
        if len(recent) == recent.maxlen and recent[0].kind == "state":
            self._states.append(recent[0])  # about to be pushed out
        recent.append(event)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` for every future event; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: ConnectionEvent) -> None:
        self._keep(event)
        logger.log(log_level(event), "%s", event)
        self.deliver(self._subscribers, event)

    def deliver(self, callbacks: Iterable[Subscriber], event: ConnectionEvent) -> None:
        """Call each of ``callbacks`` with ``event`` (:func:`call_each`), a failure noted in this
        log too (the traceback is on the logger): a name and a type, no message, which may hold
        what the callback's own code knows (a webhook's token)."""
        for said in call_each(list(callbacks), event):
            self._keep(ConnectionEvent(event.server, "subscriber", said))
