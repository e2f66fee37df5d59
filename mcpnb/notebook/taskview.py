"""How a task looks: one text line for terminals and logs, HTML for static notebooks, a live widget,
and the output of the cell that started it (:class:`TaskCell`), which ends as the task's last word.

The widget follows the handle's listener calls, which arrive on the runtime thread; setting widget
traits there is fine (ipykernel sends comm messages from any thread). The Cancel button's click
runs on the kernel thread and must not block it, so it only schedules the cancel on the runtime loop.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mcpnb.client.tasks.summary import (
    describe_handle,
    message_of,
    outcome_text,
    seconds,
    status_text,
    ttl_text,
)
from mcpnb.notebook.accessibility import FOCUS_HERE, WARNING_BUTTON, live, mark_root, page_aids
from mcpnb.notebook.cell.capture import CellUI, Mode
from mcpnb.notebook.frontend import current_kernel

if TYPE_CHECKING:
    from mcpnb.client.tasks.handle import TaskHandle

#: A status's mark: a rule beside its word, which stays in the theme's text colour (no one colour reads
#: 4.5:1 on both JupyterLab's light and dark backgrounds: "cancelled" in #6e7781 read 4.2 and 3.5).
_COLORS = {
    "working": "#1f6feb",
    "input_required": "#bf8700",
    "completed": "#1a7f37",
    "failed": "#cf222e",
    "cancelled": "#6e7781",
}


def _status_style(color: str) -> str:
    return f"border-left:4px solid {color};padding-left:4px"


def handle_html(handle: TaskHandle) -> str:
    """Static HTML (what nbconvert and GitHub show when no widget can render). It carries the live
    view's classes (``mcpnb-task``, ``mcpnb-task-status``), so what finds one finds the other."""
    status = status_text(handle)
    color = _COLORS.get(status, "#6e7781")
    rows = [
        ("task", html.escape(handle.task_id or "(answered at once, no task)")),
        ("status", f'<b class="mcpnb-task-status" style="{_status_style(color)}">{html.escape(status)}</b>'),
        ("message", html.escape(message_of(handle))),
        ("elapsed", seconds(handle.elapsed)),
    ]
    rows = [(k, v) for k, v in rows if v or k != "message"]  # an empty row says nothing
    if ttl_text(handle) and not handle.state.terminal:
        rows.append(("TTL left", ttl_text(handle)))
    if not (handle.state.terminal or handle.expired):  # a saved notebook keeps this copy: not current
        when = datetime.now().strftime("%H:%M:%S")
        rows.append(
            ("as of", f"{when}, when this output was made (a live view follows the task; this copy does not)")
        )
    outcome = outcome_text(handle)
    if outcome:
        rows.append(("outcome", html.escape(outcome)))
    body = "".join(
        # every cell left-aligned: JupyterLab's tables align a td right ("completed" drifted right)
        f'<tr><th style="text-align:left;padding-right:1em">{k}</th><td style="text-align:left">{v}</td></tr>'
        for k, v in rows
    )
    title = html.escape(handle.label)
    return f'<div class="mcpnb-task"><b>Task {title}</b><table>{body}</table></div>'


def final_bundle(handle: TaskHandle) -> dict[str, Any]:
    """A task's output for good, once it ended: its last state, then its result when one landed.

    No widget: the task has nothing left to follow or cancel, and a saved notebook reopened later
    (JupyterLab keeps no widget state by default), nbconvert and GitHub all show this HTML alike.
    """
    plain, shown = describe_handle(handle), handle_html(handle)
    result = handle.landed
    if result is not None:
        from mcpnb.notebook.render import bundle

        drawn = bundle(result)
        text = str(drawn.get("text/plain", ""))
        plain += "\n" + text
        shown += str(drawn.get("text/html") or f"<pre>{html.escape(text)}</pre>")
    # it replaces the live view, focus and all: a keyboard user's focus (on Cancel, or on the
    # status that took it) comes here, not to <body> (the accessibility script hands it over)
    return {"text/plain": plain, "text/html": f'<div class="{FOCUS_HERE}" tabindex="-1">{shown}</div>'}


def _ended(handle: TaskHandle) -> bool:
    """Nothing more will change: the task ended here, or the server no longer has it."""
    return handle.done or handle.expired


def _cell_id(kernel: Any) -> str | None:
    """The request (cell execution) ``kernel`` is handling in this context."""
    parent = kernel.get_parent("shell") if kernel is not None else None
    return ((parent or {}).get("header") or {}).get("msg_id")


class _Shown:
    """A display bundle as an object ``display`` and a display handle's ``update`` take."""

    def __init__(self, bundle: dict[str, Any]) -> None:
        self.bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.bundle


class _ShownInCell:
    """A handle's ``_ipython_display_`` once a cell's output follows it: nothing more in that cell
    (the cell's value, as in ``h = %mcp call ... --task`` then ``h``, would be the same task twice),
    a view of its own anywhere else (``h`` in a later cell)."""

    def __init__(self, handle: TaskHandle, cell_id: str | None) -> None:
        self.handle, self.cell_id = handle, cell_id

    def __call__(self) -> None:
        if self.cell_id is not None and _cell_id(current_kernel()) == self.cell_id:
            return
        from IPython.display import display

        display(handle_bundle(self.handle), raw=True)


def _line(text: str) -> dict[str, str]:
    """One line of words as a display bundle (a task's place in its cell, before and instead of it)."""
    return {"text/plain": text, "text/html": f"<div>{html.escape(text)}</div>"}


class TaskCell(CellUI):
    """The cell a task was started (or attached) in.

    :meth:`follow` shows the task's live view there with a display id and, once the task ends,
    replaces it with :func:`final_bundle`: a saved notebook keeps the task's last status and result,
    not the status it had when the cell ran (an execute_result has no display id to update). Each
    question the task asks gets an output of its own, as every call's does (:class:`CellUI`).
    """

    def __init__(self, mode: Mode = "widget") -> None:
        super().__init__(mode)
        self.cell_id = _cell_id(self.kernel)
        self._place: Any = None  # the task's output (a display handle), once it has one
        self._what = ""  # what the place was held for ("probe.slow_task")

    def reserve(self, what: str, *, attaching: bool = False) -> None:
        """Hold the task's place in the cell before the task starts: a question its server asks at
        once then shows below the task, not above it (it comes on mcpnb's thread, maybe before the
        task's view could be shown)."""
        self._what = what
        if self.kernel is not None:
            starting = f"following {what}…" if attaching else f"starting {what} as a task…"
            self._place = self.run(_display, _Shown(_line(starting)))

    def withdraw(self, said: str) -> None:
        """The task did not start (the error, shown below, says why): its place says so in a line
        (``said``: "did not start"), where a blank output stayed in the cell and the saved notebook."""
        if self._place is not None:
            self.run(self._place.update, _Shown(_line(f"✗ {self._what} {said} (the error is below)")))
            self._place = None

    def follow(self, handle: TaskHandle) -> bool:
        """Show ``handle`` in this cell, live, and its last word when it ends; False (nothing shown)
        without a Jupyter kernel, where what is printed stays and the cell's value shows the task."""
        if self.kernel is None:
            return False
        handle._ipython_display_ = _ShownInCell(handle, self.cell_id)  # type: ignore[attr-defined]
        if _ended(handle):  # a server that answered at once: the last word from the start
            self._put(_Shown(final_bundle(handle)))
            return True
        view: TaskView | None = None
        with contextlib.suppress(ImportError):  # no ipywidgets: the static copy, updated at the end
            view = self.run(TaskView, handle)
        shown = self._put(_Shown(_static_bundle(handle) | (view.bundle() if view is not None else {})))
        finished = threading.Lock()  # the ending is shown once: it may be heard on two threads at once

        listening: list[Any] = []

        def changed(task: TaskHandle) -> None:
            if not _ended(task) or not finished.acquire(blocking=False):
                return
            for stop in listening:
                stop()
            # Under the request the kernel handles now, not this cell's: nbclient (a notebook run
            # headless) reads only the running cell's messages and applies an update to the output
            # of any cell by its display id, as JupyterLab does, which routes it by the id alone.
            contextvars.Context().run(shown.update, _Shown(final_bundle(task)))
            if view is not None:
                view.close()  # replaced: its widgets would only hold comms open

        listening.append(handle.add_listener(changed))
        changed(handle)  # it may have ended while its view was being shown
        return True

    def _put(self, obj: Any) -> Any:
        """Show ``obj`` in the task's place (the one :meth:`reserve` held, or a new output)."""
        if self._place is None:
            self._place = self.run(_display, obj)
        else:
            self.run(self._place.update, obj)
        return self._place


def _display(obj: Any) -> Any:
    from IPython.display import display

    return display(obj, display_id=True)


def _static_bundle(handle: TaskHandle) -> dict[str, Any]:
    return {"text/plain": describe_handle(handle), "text/html": handle_html(handle)}


def handle_bundle(handle: TaskHandle) -> dict[str, Any]:
    """text/plain and text/html always; the live widget too when a kernel can show it."""
    bundle = _static_bundle(handle)
    if current_kernel() is not None:
        try:
            view = TaskView(handle)
        except ImportError:
            return bundle
        bundle.update(view.bundle())
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
        self.cancel_button = w.Button(description="Cancel", icon="stop", style=WARNING_BUTTON)
        self.cancel_button.on_click(self._on_cancel)
        self.widget = w.VBox(
            [
                w.HBox([self.title, self.status]),
                self.message,
                w.HBox([self.bar, self.times]),
                self.cancel_button,
                *page_aids(),
            ]
        )
        mark_root(self.widget)
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
        word = f'<span style="{_status_style(color)};font-weight:bold">{html.escape(h.state.status)}</span>'
        # said as it changes; once the task ended (Cancel gone) it takes the focus Cancel had
        self.status.value = live(word, focus=h.state.terminal)
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

    def bundle(self) -> dict[str, Any]:
        """The widget's display data, without its ``text/plain`` (the caller says the task in words)."""
        shown = self.widget._repr_mimebundle_()
        return {k: v for k, v in shown.items() if k != "text/plain"} if isinstance(shown, dict) else {}

    def close(self) -> None:
        self._remove()
        for item in (self.title, self.status, self.message, self.bar, self.times, self.cancel_button):
            item.close()
        for box in self.widget.children:
            box.close()
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
