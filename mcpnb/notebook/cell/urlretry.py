"""The −32042 answer ("open this URL first") in a notebook: the consent panel, then "retry the call".

The server refused the call until the person visits a page (a login, a consent screen). The panel
shows which server asks and the full URL (never opened by itself). In a cell that awaits (a
top-level ``%mcp call`` on ipykernel >= 7.4) the cell waits for the person, like a form: Run All
holds until they retry (the cell's result is then the retried call's) or decline. Elsewhere the
cell goes on; a click on Retry then lets go at once (as the explorer's Call does: the kernel stays
free, and a question the retried call asks is answered under the panel), and the retry's result, or
why there is none, shows in an output of its own under the panel when it lands.

Either way the panel has an output of its own, with a display id: once it has ended (retried,
declined, interrupted, withdrawn) that output becomes its record (:mod:`mcpnb.notebook.forms.record`),
which a saved notebook keeps; a widget view there said "model not found" once the notebook was
reopened.

A cell that waits for the person holds the kernel as a form does, so it is withdrawn as a form is
(:mod:`mcpnb.notebook.forms.rerun`): when its cell runs again, or when another page runs a cell while
its own page is silent (reloaded during Run All: the panel is in an output no page shows, and the
kernel stayed busy for good, ``[*]`` with nothing on screen, until an interrupt). The call is not
retried, the cell's value is None, the panel's record says why and the run that withdrew it says so
at its top.
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import McpnbError, UrlRequiredError
from mcpnb.client.runtime import STARTED
from mcpnb.notebook.cell.capture import CellUI, Mode, no_widgets
from mcpnb.notebook.cell.live import AWAITING, ClickedUI, FailedNote, LiveCall
from mcpnb.notebook.frontend import current_kernel, on_kernel_thread

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool

_ERROR = "color:var(--jp-error-color1,#c62828)"


def url_retry(
    pool: Pool,
    error: UrlRequiredError,
    arguments: dict[str, Any] | None,
    *,
    mode: Mode,
    timeout: float | None = None,
) -> Any:
    """Where a person can click: the panel (awaiting cells wait for the retried result or a no).

    Otherwise (headless, text mode) the error stands: it says what to do.
    """
    ui = CellUI(mode, awaiting=AWAITING.get())
    if ui.mode != "widget" or not error.elicitations:
        raise error
    retry = UrlRetry(pool, error, arguments, timeout=timeout, ui=ui)
    if ui.awaiting:
        return retry.wait()
    retry.show()
    return retry


def consent_panel(
    error: UrlRequiredError, *, on_done: Callable[[Any], None], on_retry: Callable[[], Any]
) -> Any:
    """The consent panel for the first page a −32042 answer asks to open: its URL, its message and
    the server asking, with Retry (:func:`retry_when_done` makes it retry by itself)."""
    from mcpnb.notebook.forms import UrlConsent

    first = error.elicitations[0]
    return UrlConsent.retry_panel(
        str(first.get("url", "")),
        message=first.get("message"),
        server=error.server,
        on_done=on_done,
        on_retry=on_retry,
    )


def retry_when_done(pool: Pool, error: UrlRequiredError, panel: Any) -> None:
    """Retry as a click on Retry would once the server has said every page the error names is done
    (``notifications/elicitation/complete``, MCP 2025-11-25: a client "MAY wait for this notification
    to automatically retry"); Retry stays for a server that never says so. A page without an
    ``elicitationId`` cannot be said done: then only the person retries.

    Called once whoever clicks Retry is whole (the panel's owner has its panel); the retry itself
    runs later on the kernel's thread, where clicks run, never within this call. The panel stops
    waiting once it has ended (:meth:`~mcpnb.notebook.forms.UrlConsent.stop_waiting`)."""
    ids = [e.get("elicitationId") for e in error.elicitations]
    if not ids or not all(isinstance(i, str) and i for i in ids):
        return
    try:
        pages = pool.connection(error.server).pages
    except Exception:  # the server went away meanwhile: the person's Retry says so
        return
    left, lock = set(ids), threading.Lock()

    def heard(said: str) -> None:
        with lock:
            last = left == {said}
            left.discard(said)
        if last:
            on_kernel_thread(panel.page_done, later=True)

    panel.stop_waiting_with(
        [
            pages.when_done(elicitation_id, functools.partial(heard, elicitation_id))
            for elicitation_id in set(ids)
        ]
    )


class _Said:
    """A display bundle as an object ``display`` and a display handle's ``update`` take."""

    def __init__(self, bundle: dict[str, str]) -> None:
        self.bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return self.bundle


def _run_id() -> str | None:
    """The msg_id of the request whose run this context belongs to (None outside a kernel)."""
    kernel = current_kernel()
    parent = kernel.get_parent("shell") if kernel is not None else None
    return ((parent or {}).get("header") or {}).get("msg_id")


class _AwaitedChoice:
    """The −32042 panel as :func:`~mcpnb.notebook.forms.rerun.watch_rerun` sees a form, while a cell
    waits on the person's next choice (``decided``): open until Retry, Decline or Cancel is clicked.
    A retry whose call failed opens a new choice, so "completed" clicked before does not count as
    an answer here, as it would on the panel (whose ``outcome`` then stays "accept")."""

    def __init__(self, panel: Any, decided: concurrent.futures.Future[str]) -> None:
        self.panel, self.decided = panel, decided
        self.server, self.message = panel.server, panel.message

    @property
    def outcome(self) -> str | None:
        """The choice once made (None: the cell still waits for it)."""
        return self.decided.result() if self.decided.done() else None

    def finish(self, _stopped: Any, note: str) -> None:
        """Freeze the panel saying why it went, as an interrupt leaves it: what it said before
        (a page completed, a retry the server refused) stays on its record, every button off."""
        for button in self.panel.buttons.values():
            button.disabled = True
        self.panel.finish_retry(False, note, final=True)

    def said_when_withdrawn(self, where: str, when: str) -> str:
        """The line the run that withdrew it shows (:mod:`~mcpnb.notebook.forms.rerun`'s wording)."""
        return (
            f"The page {self.server} asked you to open {where} was withdrawn {when}: "
            "the call was not retried."
        )


class UrlRetry:
    """The consent panel for a −32042 error, with a button that calls again.

    With ``ui`` (the calling cell) it shows itself there (:meth:`show`, or :meth:`wait` in a cell that
    awaits): the panel in an output of its own, which becomes its record once it ends, and a retried
    call's result in another. Without, it is displayed as any object is, the result under the panel.
    """

    def __init__(
        self,
        pool: Pool,
        error: UrlRequiredError,
        arguments: dict[str, Any] | None,
        *,
        timeout: float | None = None,
        ui: CellUI | None = None,
    ) -> None:
        self.pool, self.error, self.arguments, self.timeout = pool, error, arguments, timeout
        self.ui = ui
        self.result: Any = None
        # What the person chose (on the kernel thread) for the cell that waits (in the magic's
        # thread). A click can land before the cell starts waiting for it (the panel shows first,
        # or Retry comes back after a failed retry): it is kept, never dropped.
        self._lock = threading.Lock()
        self._decided: concurrent.futures.Future[str] | None = None
        self._early: str | None = None
        self.panel = consent_panel(error, on_done=self._answered, on_retry=self._retry_clicked)
        self._in_cell = False  # shown by :meth:`show`: the panel in an output of its own
        self._shown_in: str | None = None  # the run whose output that is
        self._box: Any = None  # the panel with the result under it, for a display without ``ui``
        self._asking: Any = None  # in the box: what a retried call shows before its result
        self._in_box: dict[str, Any] = {}  # by slot, in the order they came
        retry_when_done(pool, error, self.panel)  # last: a retry may run once this is whole

    @property
    def result_view(self) -> Any:
        """Where a retry's result shows under the panel when there is no cell to show it in."""
        if self._box is None:
            import ipywidgets as w

            view = w.HTML()
            view.add_class("mcpnb-retry-result")
            self._asking = w.VBox()  # a retried call's questions and progress
            self._box = w.VBox([self.panel.widget, self._asking, view])
        return self._box.children[2]

    @property
    def widget(self) -> Any:
        """The panel with :attr:`result_view` under it."""
        _ = self.result_view  # made on first use
        return self._box

    def show(self) -> None:
        """Show the panel in the calling cell, in an output of its own that becomes its record."""
        assert self.ui is not None
        self.ui.show("ask", self.panel.widget, no_widgets(self.panel, "↗", "asks you to open a page"))
        self.panel.record_into(self.ui.place_of(self.panel.widget))
        self._in_cell, self._shown_in = True, self.ui.run(_run_id)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if not self._in_cell:
            return self.widget._repr_mimebundle_(**kwargs)
        if self.panel.ended:  # its widgets are closed: what it said
            return self.panel.record()
        return self.panel.widget._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:
        """Nothing more in the run whose output shows the panel (``r = %mcp call ...`` then ``r``
        would show it twice); elsewhere, the panel (or its record, once it ended)."""
        if self._shown_in is not None and self._shown_in == _run_id():
            return
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)

    def __repr__(self) -> str:
        return str(self.error)

    # ------------------------------------------------------------------ an awaiting cell
    def wait(self) -> Any:
        """Show the panel in the calling cell and wait (in the magic's worker thread) for the person.

        Returns the retried call's result, or None when they declined or cancelled. An interrupt
        of the cell cancels the wait.
        """
        assert self.ui is not None
        self.show()
        self.ui.asked.set()
        while True:
            decided = self._next_decision()
            started = STARTED.get()
            if started is not None:
                started.append(decided)  # the cell's interrupt cancels it
            watch = self._watch(decided)
            try:
                choice = decided.result()
            except concurrent.futures.CancelledError:
                note = "No longer waiting: the cell was interrupted."
                self.ui.run(self.panel.finish_retry, False, note, final=True)  # ended: its record stays
                raise
            finally:
                watch.close()  # a retried call's own questions are watched on their own
            if choice != "retry":
                return None
            done, result = self._call_again()
            if done:
                return result

    def _watch(self, decided: concurrent.futures.Future[str]) -> Any:
        """Withdraw the panel, as a form that holds the kernel is withdrawn, while the cell waits on
        ``decided``: its cell ran again, or another page ran a cell while its own page was silent."""
        from mcpnb.client.elicitation.outcome import FormOutcome
        from mcpnb.notebook.forms.rerun import watch_rerun

        assert self.ui is not None
        waiting = _AwaitedChoice(self.panel, decided)
        stopped = FormOutcome("cancel", None)
        return self.ui.run(watch_rerun, waiting, stopped, self._gave_up, holds_kernel=True)

    def _gave_up(self, outcome: Any) -> None:
        """Withdrawn (on the kernel thread): the waiting cell goes on without a call."""
        self._decide(outcome.action)

    def _next_decision(self) -> concurrent.futures.Future[str]:
        """What the waiting cell waits on next: already settled by a click that came first."""
        with self._lock:
            self._decided = concurrent.futures.Future()
            if self._early is not None:
                self._decided.set_result(self._early)
                self._early = None
            return self._decided

    def _decide(self, choice: str) -> None:
        with self._lock:
            if self._decided is not None and not self._decided.done():
                self._decided.set_result(choice)
            else:
                self._early = choice

    def _answered(self, outcome: Any) -> None:
        """Decline or Cancel (a click on the kernel thread): the waiting cell goes on without a call."""
        if outcome.action != "accept" and self.ui is not None and self.ui.awaiting:
            self._decide(outcome.action)

    def _retry_clicked(self) -> None:
        if self.ui is not None and self.ui.awaiting:
            self._decide("retry")  # the cell's worker thread calls again
            return
        self.retry()

    def _call_again(self) -> tuple[bool, Any]:
        """(finished, result) of calling again from the awaiting cell; its forms show in that cell."""
        from mcpnb.notebook.cell.live import call_in_cell

        try:
            result = call_in_cell(
                self.pool, self.error.server, self.error.tool, self.arguments, timeout=self.timeout
            )
        except UrlRequiredError:
            self.panel.finish_retry(
                False, "The server still asks for the page: complete it there, then retry."
            )
            return False, None
        except McpnbError as exc:
            self.panel.finish_retry(False, f"The retry failed: {exc}", final=True)
            raise
        self.result = result
        failed = getattr(result, "is_error", False)
        self.panel.finish_retry(
            True, "The tool reported an error: see below." if failed else "Done: the result is below."
        )
        return True, result

    # ------------------------------------------------------------------ a cell that has ended
    def retry(self) -> LiveCall | None:
        """Send the same call again (after the person visited the page); its result shows below.

        The click lets go at once, as the explorer's Call does: a click runs on the kernel's
        thread, and a call that waited there held the kernel (no other cell ran) and never heard a
        click on its own questions (widget messages come on that same thread), so a retried call
        that asked a form waited for the elicitation timeout. Its questions ask under the panel,
        and its result, or why there is none, shows there when it lands. Returns the
        :class:`~mcpnb.notebook.cell.live.LiveCall` under way (None: it could not start).
        """
        from mcpnb.notebook.cell.live import call_in_cell

        try:
            return call_in_cell(
                self.pool,
                self.error.server,
                self.error.tool,
                self.arguments,
                timeout=self.timeout,
                ui=self._retry_ui(),
                let_go=True,
            )
        except Exception as exc:  # it could not start (the server went away): said under the panel
            said = f"{self.error.tool}() on {self.error.server!r} could not be called again: {exc}"
            self._landed(FailedNote(said, exc))
            return None

    def _retry_ui(self) -> _UnderPanel:
        """Where the retried call asks: the calling cell's outputs when the panel is in one (made in
        that cell's context, so its displays go there), else the box under the panel."""
        from mcpnb.notebook.settings import get_settings

        mode = get_settings().elicitation
        if self._in_cell and self.ui is not None:
            return self.ui.run(_UnderPanel, self, mode)
        return _UnderPanel(self, mode)

    def _landed(self, shown: Any) -> None:
        """The retried call ended (on the runtime thread): the panel says how, the result or the
        error shows under it. A server that still asks for the page gets Retry offered again."""
        from mcpnb.client.results import ToolResult

        if isinstance(shown, ToolResult):
            self.panel.finish_retry(
                True, "The tool reported an error:" if shown.is_error else "Done: the result is below."
            )
            self._show_result(shown)
            self.result = shown  # last: whoever waits on it finds the panel and the view said
            return
        if isinstance(shown.error, UrlRequiredError):
            self.panel.finish_retry(
                False, "The server still asks for the page: complete it there, then retry."
            )
            return
        self.panel.finish_retry(False, "The retry failed.", final=True)
        said = f"<span style='{_ERROR}'>{html.escape(str(shown))}</span>"
        self._show_result(_Said({"text/plain": str(shown), "text/html": said}))

    def _show_in_box(self, slot: str, shown: Any) -> None:
        """A retried call's question or progress bar, between the panel and the result view."""
        _ = self.widget  # the box, made on first use
        with self._lock:
            if slot == "ask":
                slot = f"ask {len(self._in_box)}"
            self._in_box[slot] = shown
            self._asking.children = tuple(self._in_box.values())

    def _show_result(self, shown: Any) -> None:
        """Under the panel: an output of the calling cell of its own, or the box's result view."""
        if self._in_cell and self.ui is not None:
            self.ui.show("result", shown)
        else:
            self.result_view.value = shown._repr_mimebundle_()["text/html"]


class _UnderPanel(ClickedUI):
    """Where a retried call asks and reports once the panel's cell has ended: the person who
    clicked Retry is asked in widgets, under the panel; its result goes to :meth:`UrlRetry._landed`."""

    def __init__(self, retry: UrlRetry, mode: Mode) -> None:
        self.retry = retry
        super().__init__(mode)

    def show(self, slot: str, obj: Any, plain: str | None = None) -> None:
        if slot == "result":
            self.retry._landed(obj)
        elif self.retry._in_cell:
            super().show(slot, obj, plain)  # an output of the calling cell of its own
        else:
            self.retry._show_in_box(slot, obj)
