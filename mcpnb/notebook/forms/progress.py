"""Progress and log notifications, shown under the calling cell (widgets) or printed (text).

Updates arrive on the runtime's background thread. Setting widget traits from there is fine (the
comm send is thread-safe enough in ipykernel); a lock keeps our own bookkeeping consistent, and
updates are throttled because a chatty server must not flood the frontend with comm messages.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from mcpnb.client.printable import printable
from mcpnb.notebook.accessibility import live
from mcpnb.notebook.forms.record import RECORD_CLASS, Recorded, text_of
from mcpnb.notebook.render.html import esc

#: A level's mark: a rule beside its line, whose words stay in the theme's text colour (no one colour
#: reads 4.5:1 on both JupyterLab's light and dark backgrounds).
_LEVEL_COLOURS = {
    "debug": "#888",
    "info": "var(--jp-border-color1,#bdbdbd)",
    "notice": "#1565c0",
    "warning": "#e65100",
    "error": "#c62828",
    "critical": "#b71c1c",
    "alert": "#b71c1c",
    "emergency": "#b71c1c",
}


_GREY = "color:var(--jp-ui-font-color2,#666)"
_LOG_LINE = "font-family:var(--jp-code-font-family,monospace);font-size:0.9em;line-height:1.4"


def _pct(progress: float, total: float | None) -> float | None:
    if total is None or total <= 0:
        return None
    return max(0.0, min(100.0, 100.0 * progress / total))


def _elapsed(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {int(seconds % 60)} s"


class _Throttled:
    """Pushes to the frontend at most every ``min_interval``; a held-back update lands by a timer.

    Subclasses hold ``_lock`` while they call :meth:`_due` and define ``_push`` (called under it).
    """

    #: Seconds between two frontend updates.
    min_interval = 0.1

    def _init_throttle(self) -> None:
        self._lock = threading.Lock()
        self._last_push = 0.0
        self._timer: threading.Timer | None = None
        self.finished = False

    def _due(self, now: bool = False) -> bool:
        """Whether to push now (under ``_lock``); if not, a timer pushes the latest state soon."""
        at = time.monotonic()
        if now or at - self._last_push >= self.min_interval:
            self._last_push = at
            return True
        if self._timer is None:
            self._timer = threading.Timer(self.min_interval, self._flush)
            self._timer.daemon = True
            self._timer.start()
        return False

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            if not self.finished:
                self._last_push = time.monotonic()
                self._push()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _push(self) -> None:
        raise NotImplementedError


class ProgressView(_Throttled, Recorded):
    """A progress bar with the server's message; collapsed to one line when the call ends (and, in
    an output of its own, :meth:`record_into`, that line becomes the output for good)."""

    def __init__(self, description: str = "", *, started: float | None = None) -> None:
        """``started``: when the call began (``time.monotonic()``); the bar shows at the first
        notification, which may come long after, and "done in" is the call's time, not the bar's."""
        import ipywidgets as w

        self._init_throttle()
        self._start = time.monotonic() if started is None else started
        self._state: tuple[float, float | None, str | None] = (0.0, None, None)
        self.bar = w.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info", description=description)
        self.label = w.HTML("")
        self.widget = w.HBox([self.bar, self.label], layout=w.Layout(align_items="center"))
        self.widget.add_class("mcpnb-progress")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def update(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Record a progress notification; pushes to the frontend at most every ``min_interval``."""
        with self._lock:
            if self.finished:
                return
            self._state = (float(progress), float(total) if total is not None else None, message)
            if self._due(now=total is not None and progress >= total):
                self._push()

    def _push(self) -> None:
        progress, total, message = self._state
        pct = _pct(progress, total)
        if pct is None:
            # no total: a full, pale bar and the count, rather than a bar that lies
            self.bar.max = 1.0
            self.bar.value = 1.0
            self.bar.bar_style = ""
            count = f"{progress:g}" if progress else ""  # a task's status message alone has no count
        else:
            self.bar.max = 100.0
            self.bar.value = pct
            self.bar.bar_style = "info"
            count = f"{pct:.0f}% ({progress:g}/{total:g})"
        text = " · ".join(p for p in (count, _elapsed(time.monotonic() - self._start)) if p)
        if message:
            text += f" · {esc(message)}"
        self.label.value = live(f"<span>{text}</span>")  # a screen reader hears it, politely

    def done(self, ok: bool = True, message: str | None = None) -> None:
        """Collapse to a one-line summary: a finished bar is noise above the result. It keeps how
        far the server got and what it said last (``message``: the caller's own last word)."""
        with self._lock:
            if self.finished:
                return
            self.finished = True
            self._stop_timer()
            took = _elapsed(time.monotonic() - self._start)
            self.bar.layout.display = "none"
            progress, total, said = self._state
            count = f"{progress:g}/{total:g}" if total is not None else (f"{progress:g}" if progress else "")
            words = [f"{'✓ done' if ok else '✗ stopped'} in {took}", count, said or "", message or ""]
            line = " · ".join(esc(w) for w in words if w)
            self.label.value = live(f'<span style="{_GREY}">{line}</span>')
        self._ended()

    def record(self) -> dict[str, str]:
        """The bar's last line: done or stopped, how far, the server's last message."""
        return {
            "text/plain": printable(text_of(self.label.value)),
            "text/html": f'<div class="mcpnb-progress {RECORD_CLASS}">{self.label.value}</div>',
        }


class TextProgress:
    """A text bar for consoles and stdin-only frontends: prints at most every ``step`` % or ``interval`` s."""

    def __init__(
        self,
        print_fn: Callable[..., None] = print,
        *,
        step: float = 10.0,
        interval: float = 1.0,
        width: int = 20,
        started: float | None = None,
    ) -> None:
        self.print_fn = print_fn
        self.step = step
        self.interval = interval
        self.width = width
        self._lock = threading.Lock()
        self._start = time.monotonic() if started is None else started  # as ProgressView's
        self._last_time: float | None = None
        self._last_pct: float | None = None
        self._last_line: str | None = None
        self.finished = False

    def line(self, progress: float, total: float | None, message: str | None) -> str:
        pct = _pct(progress, total)
        if pct is None:
            # no total: no bar to fill (a row of "?" read as text the terminal could not show)
            head = f"[{'working':^{self.width}}]" + (f" {progress:g}" if progress else "")
        else:
            filled = round(self.width * pct / 100)
            head = f"[{'#' * filled}{'.' * (self.width - filled)}] {pct:3.0f}%"
        return f"{head}{' ' + printable(message) if message else ''}"

    def update(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        with self._lock:
            if self.finished:
                return
            now = time.monotonic()
            pct = _pct(progress, total)
            due = (
                self._last_time is None
                or (pct is not None and self._last_pct is not None and pct - self._last_pct >= self.step)
                or (pct is not None and pct >= 100 and self._last_pct != pct)
                or now - self._last_time >= self.interval
            )
            line = self.line(progress, total, message)
            if not due or line == self._last_line:
                return
            self._last_time, self._last_pct, self._last_line = now, pct, line
            self.print_fn(line)

    def done(self, ok: bool = True, message: str | None = None) -> None:
        with self._lock:
            if self.finished:
                return
            self.finished = True
            took = _elapsed(time.monotonic() - self._start)
            self.print_fn(
                f"{'done' if ok else 'stopped'} in {took}{' · ' + printable(message) if message else ''}"
            )


def format_log(level: str, logger: str | None, data: Any) -> str:
    """One log notification as a line: ``[warning] db: connection slow``."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return printable(f"[{level}]{' ' + logger + ':' if logger else ''} {text}")


def _log_row(level: str, logger: str | None, data: Any) -> str:
    colour = _LEVEL_COLOURS.get(level, "inherit")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    who = f"<b>{esc(logger)}</b> " if logger else ""
    return (
        f"<div style='{_LOG_LINE};border-left:3px solid {colour};padding-left:4px'>"
        f"[{esc(level)}] {who}{esc(text)}</div>"
    )


class LogView(_Throttled):
    """Server log notifications in a collapsed section under the result; hidden until the first one.

    The section opens and closes with a button that says which it does ("Show server log (3)"): an
    Accordion's title took no keyboard focus and had no button role, and ipywidgets sets no
    ``aria-expanded``, so the words carry the state.

    Each line is rendered once, and the frontend hears of new lines at most every ``min_interval``:
    a server logging thousands of lines must not resend the whole log with each one.
    """

    max_entries = 500

    def __init__(self, title: str = "Server log") -> None:
        import ipywidgets as w

        self._init_throttle()
        self.title = title
        self.entries: list[tuple[str, str | None, Any]] = []
        self._rows: list[str] = []  # each entry's HTML, made once
        self.dropped = 0
        self.body = w.HTML("", layout=w.Layout(display="none"))
        self.toggle = w.Button(
            description=f"Show {title[:1].lower()}{title[1:]}", layout=w.Layout(width="auto")
        )
        self.toggle.add_class("mcpnb-log-toggle")
        self.toggle.on_click(lambda _b: self._open(not self.open))
        self.widget = w.VBox([self.toggle, self.body], layout=w.Layout(display="none"))
        self.widget.add_class("mcpnb-log")

    @property
    def open(self) -> bool:
        """Whether the log's lines are shown."""
        return self.body.layout.display != "none"

    def _open(self, show: bool) -> None:
        self.body.layout.display = None if show else "none"
        self._name_toggle()

    def _name_toggle(self) -> None:
        n = len(self.entries) + self.dropped
        verb = "Hide" if self.open else "Show"
        self.toggle.description = f"{verb} {self.title[:1].lower()}{self.title[1:]} ({n})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def add(self, level: Any = "info", logger: str | None = None, data: Any = None) -> None:
        """Append a notification; accepts the SDK's ``LoggingMessageNotificationParams`` as ``level``."""
        if not isinstance(level, str) and hasattr(level, "level"):
            params = level
            level, logger, data = str(params.level), getattr(params, "logger", None), params.data
        with self._lock:
            self.entries.append((str(level), logger, data))
            self._rows.append(_log_row(str(level), logger, data))
            excess = len(self.entries) - self.max_entries
            if excess > 0:
                del self.entries[:excess], self._rows[:excess]
                self.dropped += excess
            if self._due():
                self._push()

    def _push(self) -> None:
        head = (
            f"<div style='opacity:.8'>… {self.dropped} earlier entries dropped</div>" if self.dropped else ""
        )
        self.body.value = head + "".join(self._rows)
        self._name_toggle()
        self.widget.layout.display = None

    def flush(self) -> None:
        """Show what is held back now (the call ended: no need to wait for the timer)."""
        with self._lock:
            self._stop_timer()
            self._last_push = time.monotonic()
            self._push()

    def text(self) -> str:
        """The log as plain lines, for text frontends and tests."""
        return "\n".join(format_log(level, logger, data) for level, logger, data in self.entries)
