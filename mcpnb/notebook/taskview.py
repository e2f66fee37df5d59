"""How a task looks: one text line for terminals and logs, HTML for static notebooks, a live widget.

The widget follows the handle's listener calls, which arrive on the runtime thread; setting widget
traits there is fine (ipykernel sends comm messages from any thread). The Cancel button's click
runs on the kernel thread and must not block it, so it only schedules the cancel on the runtime loop.
"""

from __future__ import annotations

import html
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mcpnb.client.tasks.summary import describe_handle, message_of, outcome_text, seconds
from mcpnb.notebook.frontend import current_kernel

if TYPE_CHECKING:
    from mcpnb.client.tasks.handle import TaskHandle

_COLORS = {
    "working": "#1f6feb",
    "input_required": "#bf8700",
    "completed": "#1a7f37",
    "failed": "#cf222e",
    "cancelled": "#6e7781",
}


def handle_html(handle: TaskHandle) -> str:
    """Static HTML (what nbconvert and GitHub show when no widget can render)."""
    color = _COLORS.get(handle.state.status, "#6e7781")
    rows = [
        ("task", html.escape(handle.task_id or "(answered at once, no task)")),
        ("status", f'<b style="color:{color}">{html.escape(handle.state.status)}</b>'),
        ("message", html.escape(message_of(handle))),
        ("elapsed", seconds(handle.elapsed)),
    ]
    if handle.ttl_left is not None and not handle.state.terminal:
        rows.append(("TTL left", seconds(handle.ttl_left)))
    if not handle.state.terminal:  # a saved notebook keeps this copy: it must not read as current
        when = datetime.now().strftime("%H:%M:%S")
        rows.append(
            ("as of", f"{when}, when this output was made (a live view follows the task; this copy does not)")
        )
    outcome = outcome_text(handle)
    if outcome:
        rows.append(("outcome", html.escape(outcome)))
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:1em">{k}</th><td>{v}</td></tr>' for k, v in rows
    )
    title = html.escape(handle.label)
    return f"<div><b>Task {title}</b><table>{body}</table></div>"


def handle_bundle(handle: TaskHandle) -> dict[str, Any]:
    """text/plain and text/html always; the live widget too when a kernel can show it."""
    bundle: dict[str, Any] = {"text/plain": describe_handle(handle), "text/html": handle_html(handle)}
    if current_kernel() is not None:
        try:
            view = TaskView(handle)
        except ImportError:
            return bundle
        widget_bundle = view.widget._repr_mimebundle_()
        if isinstance(widget_bundle, dict):
            bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
    return bundle


class TaskView:
    """A live ipywidget for a task: status, message, progress, elapsed, TTL left, Cancel.

    Creating it starts the handle's polling; it stops updating once the task ended (its result is
    then one ``handle.result()`` away).
    """

    def __init__(self, handle: TaskHandle, *, watch: bool = True) -> None:
        import ipywidgets as w

        self.handle = handle
        self.title = w.HTML()
        self.status = w.HTML()
        self.message = w.Label()
        self.bar = w.FloatProgress(min=0.0, max=1.0, value=0.0, layout=w.Layout(width="240px"))
        self.times = w.Label()
        self.cancel_button = w.Button(description="Cancel", icon="stop", button_style="warning")
        self.cancel_button.on_click(self._on_cancel)
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.status]),
                self.message,
                w.HBox([self.bar, self.times]),
                self.cancel_button,
            ]
        )
        for name, item in (
            ("task", self.widget),
            ("task-status", self.status),
            ("task-cancel", self.cancel_button),
        ):
            item.add_class(f"mcpnb-{name}")
        self._remove = handle.add_listener(lambda _h: self.update())
        self.update()
        if watch and not handle.done:
            handle.watch()

    def update(self) -> None:
        """Copy the handle's last known state into the widgets."""
        h = self.handle
        color = _COLORS.get(h.state.status, "#6e7781")
        self.title.value = f"<b>{html.escape(h.label)}</b>&nbsp;"
        self.status.value = (
            f'<span style="color:{color};font-weight:bold">{html.escape(h.state.status)}</span>'
        )
        outcome = outcome_text(h)
        self.message.value = " — ".join(x for x in (message_of(h), outcome) if x)
        known = bool(h.progress is not None and h.progress[1])
        if known:
            self.bar.value = max(0.0, min(1.0, h.progress[0] / h.progress[1]))  # type: ignore[index]
        elif h.state.status in ("completed", "failed"):
            self.bar.value = 1.0  # ended, with no progress reported: a full bar in the outcome's colour
        # a cancelled task keeps the bar where it stopped (none when it never said): not a full one
        self.bar.layout.display = None if known or h.status in ("completed", "failed") else "none"
        if h.state.terminal:
            self.bar.bar_style = {"completed": "success", "failed": "danger"}.get(h.status, "warning")
        times = f"elapsed {seconds(h.elapsed)}"
        if h.ttl_left is not None and not h.state.terminal:
            times += f" · TTL left {seconds(h.ttl_left)}"
        self.times.value = times
        self.cancel_button.disabled = h.state.terminal or not h.task_id or h.failure is not None
        self.cancel_button.layout.display = "none" if h.state.terminal else None  # nothing left to stop
        if h.done or h.failure is not None:
            self._remove()

    def _on_cancel(self, _button: Any) -> None:
        self.cancel_button.disabled = True
        self.cancel_button.description = "Cancelling…"
        future = self.handle.cancel_soon()

        def finished(f: Any) -> None:
            self.cancel_button.description = "Cancel"
            if f.exception() is not None:
                self.message.value = f"cancel failed: {f.exception()}"
                self.cancel_button.disabled = False
            self.update()

        future.add_done_callback(finished)

    def close(self) -> None:
        self._remove()
        self.widget.close()

    def text(self) -> str:
        return describe_handle(self.handle)

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = self.widget._repr_mimebundle_()
        bundle = dict(bundle) if isinstance(bundle, dict) else {}
        bundle["text/plain"] = self.text()
        return bundle
