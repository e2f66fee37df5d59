"""A finished form's output for good: static HTML and text that a saved notebook keeps.

JupyterLab saves no widget state by default. A form's output, reopened later (or on GitHub or
nbviewer, or after a kernel restart), said "Error displaying widget: model not found": the record
of what a server asked and what the person answered was gone, and so was a progress bar's last
word. So a panel shown in an output of its own (with a display id, :meth:`Recorded.record_into`)
replaces that output in place once it has ended, with ``text/html`` and ``text/plain`` of what was
asked and answered (secrets masked, as the live summary masks them), the way a task's output ends
as its last word (:func:`mcpnb.notebook.taskview.final_bundle`). Its widgets are then closed:
nothing on them can change any more, and nothing they held stays in a widget state a notebook
could save. While the panel is open it is the live widget, unchanged.
"""

from __future__ import annotations

import threading
from html.parser import HTMLParser
from typing import Any

from mcpnb.notebook.accessibility import FOCUS_HERE

#: The frame every panel has, for its record too (plain CSS: it must read without ipywidgets).
BOX_CSS = "border:1px solid var(--jp-border-color1,#ccc);padding:8px 12px;max-width:720px"
#: Marks an output as a record, not the live panel it replaced (the panel's own class stays on it,
#: so what finds one finds the other).
RECORD_CLASS = "mcpnb-record"

_lock = threading.Lock()  # shared: a panel's place and its ending may be heard on two threads at once


class Recorded:
    """Mixed into a panel that has a ``widget``: its output ends as :meth:`record`.

    The panel says when it has ended for good (:meth:`_ended`); whoever showed it says where
    (:meth:`record_into`). Whichever comes second leaves the record, once.
    """

    widget: Any
    _place: Any = None
    _over = False
    _recorded = False

    def record(self) -> dict[str, str]:
        """The panel as it ended: ``{"text/plain": ..., "text/html": ...}``."""
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        """Nothing more will change on this panel (its widgets may be closed: show :meth:`record`)."""
        return self._over

    def record_into(self, handle: Any) -> None:
        """``handle``: the display handle the panel's widget was shown with, whose output becomes
        the record once the panel ends (at once if it has). None (the panel lives inside another
        widget, which stays live, as in the tool explorer): nothing is replaced."""
        with _lock:
            self._place = handle
        self._leave_record()

    def _ended(self) -> None:
        """Nothing more will change on this panel: its output may become the record."""
        with _lock:
            self._over = True
        self._leave_record()

    def _leave_record(self) -> None:
        with _lock:
            if self._place is None or not self._over or self._recorded:
                return
            self._recorded = True
            place = self._place
        place.update(self.record(), raw=True)  # in place: outputs after it keep their order
        close_tree(self.widget)


def record_bundle(css_class: str, inner_html: str) -> dict[str, str]:
    """A record's bundle: ``inner_html`` in the panel's frame, and the same words as plain text."""
    # it takes the focus the panel it replaces had (a keyboard user carries on from here)
    shown = (
        f'<div class="{css_class} {RECORD_CLASS} {FOCUS_HERE}" tabindex="-1" style="{BOX_CSS}">'
        f"{inner_html}</div>"
    )
    return {"text/plain": text_of(inner_html), "text/html": shown}


def widget_tree(widget: Any) -> list[Any]:
    """``widget`` and every widget among its children, theirs and so on, each before its own."""
    found = []
    todo = [widget] if widget is not None else []
    while todo:
        found.append(todo.pop())
        todo.extend(reversed(getattr(found[-1], "children", None) or ()))
    return found


def close_tree(widget: Any) -> None:
    """Close ``widget`` and every widget inside it (children, layouts, styles): their comms go, and
    the frontend forgets their state, a field's value included."""
    from ipywidgets import Widget

    for each in reversed(widget_tree(widget)):  # the children before the box that holds them
        for part in ("layout", "style"):
            inner = getattr(each, part, None)
            if isinstance(inner, Widget):
                inner.close()
        if isinstance(each, Widget):
            each.close()


_BLOCKS = frozenset({"div", "p", "br", "tr", "li", "pre", "table", "ul", "ol"})


class _TextOf(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def text_of(markup: str) -> str:
    """The words of ``markup``, one block a line: a record's ``text/plain`` says what its HTML says,
    with no second rendering of each panel to keep in step (and to forget a mask in)."""
    parser = _TextOf()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)
