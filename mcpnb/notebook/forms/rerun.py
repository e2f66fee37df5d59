"""A form is withdrawn when its own cell runs again, or when the page that showed it is gone.

A person who runs a cell again (Shift+Enter, Run All) while its form waits sees the form vanish:
JupyterLab clears the cell's output as it sends the new ``execute_request``, and ipywidgets tells the
kernel nothing when a view goes. The kernel then waits for an answer nobody can give, the new run
queued behind it (``[*]``), until an interrupt, which drops the queued run too. A cell that let go
(a :class:`~mcpnb.notebook.cell.live.LiveCall`) leaves its question waiting out the timeout instead.

The new request is the signal. ipykernel hands each shell message to a coroutine the moment it
arrives; an ``execute_request`` that finds a cell running waits there for the shell's lock.
JupyterLab and Notebook 7 put the cell's id in the request's metadata (``cellId``). So
:func:`watch_rerun` wraps the receive callback of the stream that feeds the main shell: it reads
each message as it arrives (never consumes, delays or reorders one) and, when an
``execute_request``'s ``cellId`` is the cell of a waiting form, withdraws that form. The form
freezes and the question is answered as nobody choosing: ``cancel`` for a form (the elicitation
spec's "dismissed without making an explicit choice"), ``reject`` for a sampling request, a no for
mcpnb's own yes/no. The call then ends as it would after that answer, the connection stays up, the
queued run runs (and asks afresh), and a line at its top says what became of the earlier form (the
earlier run's own output is no longer shown anywhere).

Only the same cell counts within one page. Run All queues every cell below the one that asks;
withdrawing its form then would make a notebook with a question impossible to run top to bottom. A
later question of a run that was already superseded (a tool asking again after the withdrawn
answer) is withdrawn at once.

**Another page.** A page reloaded during Run All (or closed, and the notebook opened again) leaves
the rest of its queue in the kernel: the cell below asks into an output no page shows, and the
person's new run waits behind it, the kernel busy for good. Each page speaks with a session id of
its own (the ``session`` of every message's header; a reload makes a new one), and everything a
page sends the shell carries it: its runs, and the widget manager's messages (typing into a form,
a click, the requests a page makes when it connects). A live page that nobody touches sends
nothing, so silence is all the kernel can tell: a form that holds the kernel in a run of page A is
withdrawn when page B runs a cell and A has sent nothing since B was first heard from; and a
question of A's queue asked while such a request of B waits behind it is withdrawn at once (so A's
lost queue runs through). Each withdrawn form says why (:data:`PAGE_NOTE`), and B's run says so at
its top. With two windows open on one notebook (or a console on the notebook's kernel), a form
waiting in the first is withdrawn when the second runs a cell and the first has sent nothing since
the second connected: to the kernel that is what a reload looks like. That run would otherwise wait,
unseen and unexplained, for an answer in a window the person may not be looking at; the form says
why, and running its cell again asks again. Once the first window has spoken after the second
appeared (typing into the form, running anything), the second's runs wait behind its forms as
before (as Run All's cells wait in one page). So do they once a person has typed into the form or
clicked it in the second window (it restores the form's live widgets from the kernel when it opens
the saved notebook): a teacher's laptop tab that answers there shows the form, and a run there
withdrew the answer half typed in it, saying the form's page was gone. Only a person's messages to
the form's widgets count (a value changed, a click), not the state every page asks for as it
opens. A question that does not hold the kernel (a cell that let go, a task's question) is left to
its page. The −32042 panel ("open this page, then retry") that a cell waits on is watched as a form
is (:mod:`mcpnb.notebook.cell.urlretry`): withdrawn, it is not retried.

A request without a cell id (a frontend that sends none) withdraws by page only; a kernel whose
internals are not the ones read here (another ipykernel) keeps the old behaviour: nothing is
wrapped and nothing is withdrawn. What was sent before the watch began (it starts with the first
form) counts as heard before any page that speaks after it.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from mcpnb.notebook.frontend import current_kernel, wrap_shell_feed
from mcpnb.notebook.render.html import esc

log = logging.getLogger(__name__)

#: What a withdrawn form says under its buttons (seen only by a frontend that kept the output).
NOTE = "withdrawn: this cell ran again"
#: ... when another page ran a cell (seen only where the page that showed it still shows it).
PAGE_NOTE = (
    "withdrawn: the page that showed it was reloaded or closed (or sat idle), and another page ran a cell"
)
_MARK = "_mcpnb_rerun_watch"
#: Cells, pages and requests remembered (a notebook has far fewer; a bound all the same).
_KEPT = 4096
#: How much of a question a withdrawal line quotes.
_QUOTED = 80

Why = Literal["rerun", "page"]

_lock = threading.Lock()
_asking: list[_Asking] = []
#: The newest ``execute_request`` seen per cell id: an older run that asks is superseded.
_newest: OrderedDict[str, str] = OrderedDict()
#: What the run that withdrew a form says at its top, by its request's msg_id.
_notes: OrderedDict[str, list[str]] = OrderedDict()
#: Shell messages seen so far: the order in which pages were heard from.
_heard = 0
#: Each page (session id): when it was first and last heard from (0: before the watch began).
_pages: OrderedDict[str, list[int]] = OrderedDict()
#: Each ``execute_request`` seen: when it arrived and from which page (in arrival order).
_requests: OrderedDict[str, tuple[int, str]] = OrderedDict()


class _Asking:
    """A form that waits in one run of one cell of one page."""

    def __init__(
        self,
        cell: str | None,
        request: str,
        page: str,
        holds_kernel: bool,
        withdraw: Callable[[str, Why], None],
        widgets: frozenset[str] = frozenset(),
    ) -> None:
        self.cell, self.request, self.page = cell, request, page
        self.holds_kernel, self.withdraw = holds_kernel, withdraw
        #: The comm ids of the form's widgets, and when a person last spoke to one, from any page.
        self.widgets, self.touched = widgets, 0


class Watch:
    """A waiting form's place in the watch; :meth:`close` once the wait is over, however it ended."""

    def __init__(self, asking: _Asking | None = None) -> None:
        self._asking = asking

    @property
    def watching(self) -> bool:
        """Whether a re-run of the form's cell (or a run from another page) could withdraw it
        (False: not in a kernel that allows it, no cell id nor page, or already withdrawn or closed)."""
        with _lock:
            return self._asking is not None and self._asking in _asking

    def close(self) -> None:
        with _lock:
            if self._asking in _asking:
                _asking.remove(self._asking)
        self._asking = None


def watch_rerun(
    panel: Any, stopped: Any, done: Callable[[Any], None], *, holds_kernel: bool = False
) -> Watch:
    """Withdraw ``panel`` if its cell runs again before it is answered (or, where the form
    ``holds_kernel``: its run waits for it, another page runs a cell while its own page is silent):
    freeze it with ``stopped`` and hand ``stopped`` to ``done``, as the panel's own button would.

    ``panel``: a form or panel, as this module reads one: ``outcome`` (not None once answered),
    ``finish(stopped, note)``, ``server`` and ``message``; one that says itself what became of it
    has ``said_when_withdrawn(where, when)`` (the −32042 panel a cell waits on).

    Call it in the asking cell's context (``CellUI.run``), from any thread; the withdrawal runs on
    the kernel's thread, where clicks run. Outside a kernel that allows it, a no-op :class:`Watch`.
    """
    kernel = current_kernel()
    request = _request_of(kernel)
    if request is None or not install(kernel):
        return Watch()
    cell, msg_id, page = request
    context = contextvars.copy_context()  # the asking cell's: the frozen form's updates go with it
    asking = _Asking(
        cell,
        msg_id,
        page,
        holds_kernel,
        lambda by, why: context.copy().run(_withdraw, panel, stopped, done, by, why),
        _comm_ids(panel),
    )
    with _lock:
        by, why = _withdrawn_before_asked(asking)
        if by is None:
            _asking.append(asking)
    if by is not None:  # nobody will see this form either: it goes at once
        kernel.io_loop.add_callback(asking.withdraw, by, why)
        return Watch()
    return Watch(asking)


def _comm_ids(panel: Any) -> frozenset[str]:
    """The comm ids of every widget in ``panel``'s tree (a form's ``widget``; the −32042 wait's
    ``panel.widget``): a message to one is a person at the form, in whichever page shows it."""
    from mcpnb.notebook.forms.record import widget_tree

    root = getattr(panel, "widget", None) or getattr(getattr(panel, "panel", None), "widget", None)
    return frozenset(w.model_id for w in widget_tree(root) if isinstance(getattr(w, "model_id", None), str))


def _request_of(kernel: Any) -> tuple[str | None, str, str] | None:
    """The cell id (None: none sent), msg_id and page (session id) of the ``execute_request`` that
    this context belongs to; None outside one, or with neither a cell id nor a page to go by."""
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell") or {}
    except Exception:
        return None
    header = parent.get("header") or {}
    cell = (parent.get("metadata") or {}).get("cellId")
    cell = cell if isinstance(cell, str) and cell else None
    page = str(header.get("session") or "")
    if header.get("msg_type") != "execute_request" or (cell is None and not page):
        return None
    return cell, str(header.get("msg_id", "")), page


def _withdrawn_before_asked(asking: _Asking) -> tuple[str | None, Why | None]:
    """(the request to say it in, why) when a question is to go as soon as it is asked: its run
    was superseded by a later run of its cell, or it holds the kernel while a run of a newer page
    waits behind it. Under ``_lock``."""
    newest = _newest.get(asking.cell) if asking.cell is not None else None
    if newest is not None and newest != asking.request:
        return newest, "rerun"
    if asking.holds_kernel:
        arrived = _requests.get(asking.request, (0, ""))[0]  # 0: before the watch began
        for msg_id, (tick, page) in _requests.items():  # in arrival order: the first queued
            if tick > arrived and _left_behind(asking.page, page):
                return msg_id, "page"
    return None, None


def _left_behind(old: str, new: str, touched: int = 0) -> bool:
    """Page ``old`` has sent nothing since page ``new`` was first heard from, nor has anyone at its
    form since (``touched``: when a person last spoke to the form's widgets). Under ``_lock``."""
    if not old or not new or old == new:
        return False
    first_new = _pages[new][0] if new in _pages else 0
    last_old = _pages[old][1] if old in _pages else 0
    return first_new > max(last_old, touched)


def _heard_from(page: str) -> int:
    """Note a message from ``page``; its place in the order of messages. Under ``_lock``."""
    global _heard
    _heard += 1
    if page:
        seen = _pages.setdefault(page, [_heard, _heard])
        seen[1] = _heard
        _pages.move_to_end(page)
        _bound(_pages)
    return _heard


def _bound(kept: OrderedDict[str, Any]) -> None:
    while len(kept) > _KEPT:
        kept.popitem(last=False)


def _withdraw(panel: Any, stopped: Any, done: Callable[[Any], None], by: str, why: Why) -> None:
    """Freeze the panel and answer for nobody; say so at the top of the run ``by`` (the re-run, or
    the other page's run)."""
    if getattr(panel, "outcome", None) is not None:  # answered meanwhile (a click that came first)
        return
    panel.finish(stopped, NOTE if why == "rerun" else PAGE_NOTE)
    done(stopped)
    line = _said(panel, stopped, why)
    with _lock:
        notes = _notes.setdefault(by, [])
        if line not in notes:
            notes.append(line)
        _bound(_notes)


def _said(panel: Any, stopped: Any, why: Why) -> str:
    """One line for the output of the run that withdrew it: what was withdrawn, why, and what the
    server was told."""
    from mcpnb.notebook.forms.panels import ConfirmPanel, SamplingPanel

    server = getattr(panel, "server", None) or "The server"
    if why == "rerun":
        where, when = "in this cell's previous run", "when the cell ran again"
    else:
        where = f"in a run from another page{_quote(getattr(panel, 'message', None))}"
        when = "when this page ran a cell: that page was reloaded or closed (or sat idle)"
    said = getattr(panel, "said_when_withdrawn", None)  # a panel that words it (−32042's, urlretry)
    if callable(said):
        return str(said(where, when))
    if isinstance(panel, SamplingPanel):
        return (
            f"The reply {server} asked for {where} was withdrawn {when}: "
            "the request was rejected, nothing was sent."
        )
    if isinstance(panel, ConfirmPanel):
        return f"The question {where} was withdrawn {when}: taken as a no."
    told = f'{server} was told "{stopped.action}", nothing was sent.'
    return f"The form {server} asked for {where} was withdrawn {when}: {told}"


def _quote(message: Any) -> str:
    """` ("What is it?")`: which question went, for a person who never saw it (one line, short)."""
    if not isinstance(message, str) or not message.strip():
        return ""
    text = " ".join(message.split())
    return f' ("{text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"}")'


# ---------------------------------------------------------------------------- the kernel's side
def install(kernel: Any = None) -> bool:
    """Watch the main shell's incoming requests (once per kernel); whether the watch is in place.

    ``%load_ext mcpnb`` starts it: a run that arrives before the first form is asked (Shift+Enter
    twice, the form not drawn yet) must be seen, or that form waits with the re-run queued behind
    it. The main shell's feed is wrapped (:func:`~mcpnb.notebook.frontend.wrap_shell_feed`); a
    kernel without it is left alone.
    """
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None:
        return False
    with _lock:
        if _MARK in vars(kernel):
            return True
        if getattr(kernel, "session", None) is None:
            return False

        def noticing(original: Callable[..., Any]) -> Callable[..., Any]:
            def on_recv(msg: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    _notice(kernel, msg)
                except Exception:  # the message itself goes on as it came, whatever happened here
                    log.debug("mcpnb could not read a shell message", exc_info=True)
                return original(msg, *args, **kwargs)

            return on_recv

        wrapped = wrap_shell_feed(kernel, noticing)
        if wrapped is None:
            return False
        setattr(kernel, _MARK, wrapped)
    shell = getattr(kernel, "shell", None)
    if shell is not None and _say_at_top not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", _say_at_top)
    return True


def uninstall(kernel: Any = None) -> None:
    """Give the stream its own callback back (if nothing replaced ours since) and forget the forms."""
    global _heard
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None or _MARK not in vars(kernel):
        return
    stream, original, ours = vars(kernel).pop(_MARK)
    if getattr(stream, "_recv_callback", None) is ours:
        stream._recv_callback = original
    shell = getattr(kernel, "shell", None)
    if shell is not None and _say_at_top in shell.events.callbacks["pre_run_cell"]:
        shell.events.unregister("pre_run_cell", _say_at_top)
    with _lock:
        for kept in (_asking, _newest, _notes, _pages, _requests):
            kept.clear()
        _heard = 0


def _notice(kernel: Any, msg: list[Any]) -> None:
    """An arriving shell message: its page was heard from; a run withdraws the forms it supersedes."""
    session = kernel.session
    copy = all(isinstance(part, bytes) for part in msg)
    _idents, frames = session.feed_identities(msg, copy=copy)
    if len(frames) < 5:
        return
    # signature checked; content=False keeps the digest unrecorded, so the dispatch still accepts it
    parsed = session.deserialize(frames, content=False, copy=copy)
    header = parsed["header"]
    page = str(header.get("session") or "")
    with _lock:
        tick = _heard_from(page)
    if header.get("msg_type") == "comm_msg" and _asking:  # a form waits: was a person at it?
        _touched(session.unpack(parsed["content"]), tick)
    if header.get("msg_type") != "execute_request":
        return
    if session.unpack(parsed["content"]).get("silent"):
        return
    cell = (parsed.get("metadata") or {}).get("cellId")
    cell = cell if isinstance(cell, str) and cell else None
    msg_id = str(header.get("msg_id", ""))
    with _lock:
        _requests[msg_id] = (tick, page)
        _bound(_requests)
        if cell is not None:
            _newest[cell] = msg_id
            _newest.move_to_end(cell)
            _bound(_newest)
        withdrawn = [(a, why) for a in _asking if (why := _why_withdrawn(a, cell, msg_id, page))]
        for asking, _why in withdrawn:
            _asking.remove(asking)
    if withdrawn:
        from mcpnb.notebook.forms.settle import settle_now

        settle_now()  # an Accept clicked before the re-run still counts
        for asking, why in withdrawn:
            asking.withdraw(msg_id, why)


def _touched(content: Any, tick: int) -> None:
    """A widget message: where it is a person's (a value changed, a click or Enter) at a waiting
    form's widget, that form was seen at ``tick``, whichever page sent it. The ``request_state`` a
    page sends for every widget as it opens (a reloaded page too) is nobody at the form."""
    data = content.get("data") if isinstance(content, dict) else None
    if not isinstance(data, dict) or data.get("method") not in ("update", "custom"):
        return
    comm = content.get("comm_id")
    with _lock:
        for asking in _asking:
            if comm in asking.widgets:
                asking.touched = tick


def _why_withdrawn(asking: _Asking, cell: str | None, msg_id: str, page: str) -> Why | None:
    """Why run ``msg_id`` (of ``cell``, from ``page``) withdraws ``asking``, if it does. Under ``_lock``."""
    if asking.request == msg_id:
        return None
    if cell is not None and asking.cell == cell:
        return "rerun"
    if asking.holds_kernel and _left_behind(asking.page, page, asking.touched):
        return "page"
    return None


def _say_at_top(*_: Any) -> None:
    """At the start of a run that withdrew a form (``pre_run_cell``): say so, in that run's output."""
    kernel = current_kernel()
    request = _request_of(kernel)
    if request is None:
        return
    with _lock:
        lines = _notes.pop(request[1], None)
    if not lines:
        return
    from IPython.display import display

    html = "".join(f'<div class="mcpnb-withdrawn">⊘ {esc(line)}</div>' for line in lines)
    display({"text/plain": "\n".join(f"⊘ {line}" for line in lines), "text/html": html}, raw=True)
