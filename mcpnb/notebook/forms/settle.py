"""A click must not overtake the last edit.

The widget frontend sends a model's newest value only once the kernel has answered the previous
update of that model (its message throttle: one update in flight per model), while a button's click
goes out at once. A person who changes a field and clicks within one kernel round trip would have
the click read the older value (seen in JupyterLab: a second radio choice, then Accept, sent the
first). So a click that reads a form runs once its fields have been quiet for :data:`SETTLE`
seconds, the click itself counting as the last edit (:data:`MAX_WAIT` at most): long enough for a
held-back value to arrive, too short for a person to notice. (A field typed into right after the
form appeared had its value arrive after the click, with no earlier edit to wait for: seen with
``%mcp explore``, where the click then said a required field was empty.)

The wait is on the kernel's loop, where the click's handler ran, so ``on_done`` callbacks keep
running on the kernel's thread (a form's owner may resolve an asyncio future there). A cell that
starts meanwhile runs the waiting clicks first: a synchronous cell (``h.result()``) blocks the loop,
and must not block the answer it waits for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from mcpnb.notebook.frontend import current_shell

SETTLE = 0.3
MAX_WAIT = 3.0

#: Clicks waiting for their fields to settle; a cell that starts runs them first.
_waiting: list[Callable[[], None]] = []


class Edits:
    """When a form's fields last changed; :meth:`then` runs a click's work once they have settled."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.changed_at = float("-inf")

    def touch(self, *_: Any) -> None:
        """A field changed (usable as a traitlets observer)."""
        self.changed_at = self._clock()

    def click(self, action: str, submit: Callable[[str], Any]) -> None:
        """A form button: ``accept`` sends what the fields hold, so it waits for them to settle;
        the other answers read no field and go at once."""
        if action == "accept":
            self.then(lambda: submit(action))
        else:
            submit(action)

    def then(self, work: Callable[[], Any]) -> None:
        """Run ``work`` on the running loop once the fields have been quiet for :data:`SETTLE` after
        this click (at once where no loop runs: no widget frontend, nothing in flight)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop, no widget frontend (plain Python, a test clicking): nothing in flight
            work()
            return
        started = self._clock()

        def once() -> None:
            if once in _waiting:
                _waiting.remove(once)
                work()

        def when_quiet() -> None:
            if once not in _waiting:  # a cell that started ran it already
                return
            # the click counts as the last edit: what was typed just before it may not have arrived
            # at all yet (the frontend holds it back behind the previous message), and then no edit
            # here says that anything is in flight
            quiet = self._clock() - max(self.changed_at, started)
            if quiet >= SETTLE or self._clock() - started >= MAX_WAIT:
                once()
            else:
                loop.call_later(SETTLE - quiet, when_quiet)

        _waiting.append(once)
        _run_before_cells()
        when_quiet()


def _run_waiting(*_: Any) -> None:
    while _waiting:
        _waiting[0]()


def settle_now() -> None:
    """Run the clicks still waiting for their fields now, on the kernel's thread: something is about
    to end their forms (the cell runs again), and a click that came first must still count."""
    _run_waiting()


def _run_before_cells() -> None:
    shell = current_shell()
    if shell is not None and _run_waiting not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", _run_waiting)
