"""A server's word that a page it asked the person to open is done (``notifications/elicitation/complete``).

MCP 2025-11-25, URL-mode elicitation: once the interaction on the page is over (a sign-in, a
consent), a server may say so, naming the ``elicitationId`` it asked with; a client may then retry
the call it refused with −32042 on its own, and must ignore ids it does not know or already saw
completed. The notification comes on the connection's loop, at any time after the question (even
before the panel that waits for it is drawn, when the page was quick): so the ids said done are
kept for a while, and a waiter that comes later hears at once. 2026-07-28 has no such notification.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

KEPT = 64  # ids said done that are remembered for a waiter still to come; older ones are forgotten


class PageCompletions:
    """The pages one server said are done, and who waits to hear of which (any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: OrderedDict[str, None] = OrderedDict()
        self._waiting: dict[str, list[Callable[[], None]]] = {}

    def complete(self, elicitation_id: str) -> bool:
        """The server says the page asked with ``elicitation_id`` is done: tell whoever waits for it,
        once. False where that id was said done already (the spec's "ignore it")."""
        with self._lock:
            if elicitation_id in self._done:
                return False
            self._done[elicitation_id] = None
            while len(self._done) > KEPT:
                self._done.popitem(last=False)
            waiting = self._waiting.pop(elicitation_id, [])
        for hear in waiting:
            hear()
        return True

    def asked(self, elicitation_ids: Iterable[Any]) -> None:
        """A new −32042 names these pages: a word that they were done, heard before, was for an
        earlier asking (a server may ask for the same page again, with the same id) and does not
        count for this one."""
        with self._lock:
            for elicitation_id in elicitation_ids:
                if isinstance(elicitation_id, str):
                    self._done.pop(elicitation_id, None)

    def when_done(self, elicitation_id: str, hear: Callable[[], None]) -> Callable[[], None]:
        """Call ``hear`` (on the thread that says so) when the page is said done, at once where it
        was already; returns a function that stops waiting."""
        with self._lock:
            if elicitation_id not in self._done:
                self._waiting.setdefault(elicitation_id, []).append(hear)
                return lambda: self._forget(elicitation_id, hear)
        hear()
        return lambda: None

    def _forget(self, elicitation_id: str, hear: Callable[[], None]) -> None:
        with self._lock:
            waiting = self._waiting.get(elicitation_id, [])
            if hear in waiting:
                waiting.remove(hear)
            if not waiting:
                self._waiting.pop(elicitation_id, None)
