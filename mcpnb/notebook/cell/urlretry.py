"""The −32042 answer ("open this URL first") in a notebook: the consent panel, then "retry the call".

The server refused the call until the person visits a page (a login, a consent screen). The panel
shows which server asks and the full URL (never opened by itself); after the visit, the retry
button sends the very same call again and its result shows below the panel.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import McpnbError, UrlRequiredError
from mcpnb.notebook.cell.capture import CellUI, Mode

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool


def url_retry(
    pool: Pool,
    error: UrlRequiredError,
    arguments: dict[str, Any] | None,
    *,
    mode: Mode,
    timeout: float | None = None,
) -> UrlRetry:
    """A :class:`UrlRetry` where a person can click; otherwise the error stands (it says what to do)."""
    if CellUI(mode).mode != "widget" or not error.elicitations:
        raise error
    return UrlRetry(pool, error, arguments, timeout=timeout)


class UrlRetry:
    """The consent panel for a −32042 error, with a button that calls again."""

    def __init__(
        self,
        pool: Pool,
        error: UrlRequiredError,
        arguments: dict[str, Any] | None,
        *,
        timeout: float | None = None,
    ) -> None:
        import ipywidgets as w

        from mcpnb.notebook.forms import UrlConsent

        self.pool, self.error, self.arguments, self.timeout = pool, error, arguments, timeout
        self.result: Any = None
        first = error.elicitations[0]
        self.panel = UrlConsent.retry_panel(
            str(first.get("url", "")),
            message=first.get("message"),
            server=error.server,
            on_done=lambda _outcome: None,
            on_retry=self.retry,
        )
        self.result_view = w.HTML()
        self.result_view.add_class("mcpnb-retry-result")
        self.widget = w.VBox([self.panel.widget, self.result_view])

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return str(self.error)

    def retry(self) -> Any:
        """Send the same call again (after the person visited the page)."""
        try:
            self.result = self.pool.call(
                self.error.server, self.error.tool, self.arguments, timeout=self.timeout
            )
        except UrlRequiredError:
            self.result_view.value = (
                "<i>The server still asks for the page; complete it there, then retry.</i>"
            )
            return None
        except McpnbError as exc:
            self.result_view.value = (
                f"<span style='color:var(--jp-error-color1,#c62828)'>{html.escape(str(exc))}</span>"
            )
            return None
        self.result_view.value = self.result._repr_mimebundle_()["text/html"]
        return self.result
