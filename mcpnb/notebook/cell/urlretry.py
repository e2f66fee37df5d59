"""The −32042 answer ("open this URL first") in a notebook: the consent panel, then "retry the call".

The server refused the call until the person visits a page (a login, a consent screen). The panel
shows which server asks and the full URL (never opened by itself). In a cell that awaits (a
top-level ``%mcp call`` on ipykernel >= 7.4) the cell waits for the person, like a form: Run All
holds until they retry (the cell's result is then the retried call's) or decline. Elsewhere the
panel is the cell's output and the retry's result shows under it.
"""

from __future__ import annotations

import concurrent.futures
import html
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import McpnbError, UrlRequiredError
from mcpnb.client.runtime import STARTED
from mcpnb.notebook.cell.capture import CellUI, Mode
from mcpnb.notebook.cell.live import AWAITING

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
    return retry


def consent_panel(
    error: UrlRequiredError, *, on_done: Callable[[Any], None], on_retry: Callable[[], Any]
) -> Any:
    """The consent panel for the first page a −32042 answer asks to open: its URL, its message and
    the server asking, with Retry."""
    from mcpnb.notebook.forms import UrlConsent

    first = error.elicitations[0]
    return UrlConsent.retry_panel(
        str(first.get("url", "")),
        message=first.get("message"),
        server=error.server,
        on_done=on_done,
        on_retry=on_retry,
    )


class UrlRetry:
    """The consent panel for a −32042 error, with a button that calls again."""

    def __init__(
        self,
        pool: Pool,
        error: UrlRequiredError,
        arguments: dict[str, Any] | None,
        *,
        timeout: float | None = None,
        ui: CellUI | None = None,
    ) -> None:
        import ipywidgets as w

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
        self.result_view = w.HTML()
        self.result_view.add_class("mcpnb-retry-result")
        self.widget = w.VBox([self.panel.widget, self.result_view])

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return str(self.error)

    # ------------------------------------------------------------------ an awaiting cell
    def wait(self) -> Any:
        """Show the panel in the calling cell and wait (in the magic's worker thread) for the person.

        Returns the retried call's result, or None when they declined or cancelled. An interrupt
        of the cell cancels the wait.
        """
        assert self.ui is not None
        self.ui.show("ask", self.widget)
        self.ui.asked.set()
        while True:
            decided = self._next_decision()
            started = STARTED.get()
            if started is not None:
                started.append(decided)  # the cell's interrupt cancels it
            try:
                choice = decided.result()
            except concurrent.futures.CancelledError:
                self.ui.run(self.panel.finish_retry, False, "No longer waiting: the cell was interrupted.")
                raise
            if choice != "retry":
                return None
            done, result = self._call_again()
            if done:
                return result

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
    def retry(self) -> Any:
        """Send the same call again (after the person visited the page); its result shows below."""
        try:
            self.result = self.pool.call(
                self.error.server, self.error.tool, self.arguments, timeout=self.timeout
            )
        except UrlRequiredError:
            self.panel.finish_retry(
                False, "The server still asks for the page: complete it there, then retry."
            )
            return None
        except McpnbError as exc:
            self.panel.finish_retry(False, "The retry failed.", final=True)
            self.result_view.value = f"<span style='{_ERROR}'>{html.escape(str(exc))}</span>"
            return None
        failed = self.result.is_error
        self.panel.finish_retry(
            True, "The tool reported an error:" if failed else "Done: the result is below."
        )
        self.result_view.value = self.result._repr_mimebundle_()["text/html"]
        return self.result
