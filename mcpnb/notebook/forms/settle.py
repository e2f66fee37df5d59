"""A click must not overtake the last edit.

The widget frontend sends a model's newest value only once the kernel has answered the previous
update of that model (its message throttle: one update in flight per model), while a button's click
goes out at once. A person who changes a field and clicks within one kernel round trip would have
the click read the older value (seen in JupyterLab: a second radio choice, then Accept, sent the
first). So a click that reads a form runs once its fields have been quiet for :data:`SETTLE`
seconds (:data:`MAX_WAIT` at most): long enough for a held-back value to arrive, too short for a
person to notice.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

SETTLE = 0.3
MAX_WAIT = 3.0


class Edits:
    """When a form's fields last changed; :meth:`then` runs a click's work once they have settled."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.changed_at = float("-inf")

    def touch(self, *_: Any) -> None:
        """A field changed (usable as a traitlets observer)."""
        self.changed_at = self._clock()

    def then(self, work: Callable[[], Any]) -> None:
        """Run ``work`` now if the fields are quiet, else on a timer thread once they are.

        A timer, not the kernel's loop: a cell run right after the click may block that loop
        (``h.result()``), and the click must land all the same. ``work`` runs in the click's
        context variables, so what it shows goes where the click's handler would have shown it.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop, no widget frontend (plain Python, a test clicking): nothing in flight
            work()
            return
        context = contextvars.copy_context()
        started = self._clock()

        def when_quiet() -> None:
            quiet = self._clock() - self.changed_at
            if quiet >= SETTLE or self._clock() - started >= MAX_WAIT:
                context.run(work)
                return
            timer = threading.Timer(SETTLE - quiet, when_quiet)
            timer.daemon = True
            timer.start()

        when_quiet()
