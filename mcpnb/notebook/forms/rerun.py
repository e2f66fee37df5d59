"""A form is withdrawn when its own cell runs again.

A person who runs a cell again (Shift+Enter, Run All) while its form waits sees the form vanish:
JupyterLab clears the cell's output as it sends the new ``execute_request``, and ipywidgets tells the
kernel nothing when a view goes. The kernel then waits for an answer nobody can give, the new run
queued behind it (``[*]``), until an interrupt, which drops the queued run too. A cell that let go
(a :class:`~mcpnb.notebook.cell.live.LiveCall`) leaves its question waiting out the timeout instead.

The new request is the signal. ipykernel hands each shell message to a coroutine the moment it
arrives; an ``execute_request`` that finds a cell running waits there for the shell's lock.
JupyterLab and Notebook 7 put the cell's id in the request's metadata (``cellId``). So
:func:`watch_rerun` wraps the receive callback of the stream that feeds the main shell: it reads
each ``execute_request`` as it arrives (never consumes, delays or reorders a message) and, when its
``cellId`` is the cell of a waiting form, withdraws that form. The form freezes and the question is
answered as nobody choosing: ``cancel`` for a form (the elicitation spec's "dismissed without making
an explicit choice"), ``reject`` for a sampling request, a no for mcpnb's own yes/no. The call then
ends as it would after that answer, the connection stays up, the queued run runs (and asks afresh),
and a line at its top says what became of the earlier form (the earlier run's own output is no
longer shown anywhere).

Only the same cell counts. Run All queues every cell below the one that asks; withdrawing its form
then would make a notebook with a question impossible to run top to bottom. A later question of a
run that was already superseded (a tool asking again after the withdrawn answer) is withdrawn at
once. A request without a cell id (a frontend that sends none), or a kernel whose internals are
not the ones read here (another ipykernel), keeps the old behaviour: nothing is wrapped and
nothing is withdrawn.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from mcpnb.notebook.frontend import current_kernel
from mcpnb.notebook.render.html import esc

log = logging.getLogger(__name__)

#: What a withdrawn form says under its buttons (seen only by a frontend that kept the output).
NOTE = "withdrawn: this cell ran again"
_MARK = "_mcpnb_rerun_watch"
#: Cells whose newest request is remembered (a notebook has far fewer; a bound all the same).
_KEPT = 4096

_lock = threading.Lock()
_asking: list[_Asking] = []
#: The newest ``execute_request`` seen per cell id: an older run that asks is superseded.
_newest: OrderedDict[str, str] = OrderedDict()
#: What the run that withdrew a form says at its top, by its request's msg_id.
_notes: OrderedDict[str, list[str]] = OrderedDict()


class _Asking:
    """A form that waits in one run of one cell."""

    def __init__(self, cell: str, request: str, withdraw: Callable[[str], None]) -> None:
        self.cell, self.request, self.withdraw = cell, request, withdraw


class Watch:
    """A waiting form's place in the watch; :meth:`close` once the wait is over, however it ended."""

    def __init__(self, asking: _Asking | None = None) -> None:
        self._asking = asking

    @property
    def watching(self) -> bool:
        """Whether a re-run of the form's cell would withdraw it (False: not in a kernel that
        allows it, no cell id, or already withdrawn or closed)."""
        with _lock:
            return self._asking is not None and self._asking in _asking

    def close(self) -> None:
        with _lock:
            if self._asking in _asking:
                _asking.remove(self._asking)
        self._asking = None


def watch_rerun(panel: Any, stopped: Any, done: Callable[[Any], None]) -> Watch:
    """Withdraw ``panel`` if its cell runs again before it is answered: freeze it with ``stopped``
    and hand ``stopped`` to ``done``, as the panel's own button would.

    Call it in the asking cell's context (``CellUI.run``), from any thread; the withdrawal runs on
    the kernel's thread, where clicks run. Outside a kernel that allows it, a no-op :class:`Watch`.
    """
    kernel = current_kernel()
    request = _request_of(kernel)
    if request is None or not install(kernel):
        return Watch()
    cell, msg_id = request
    context = contextvars.copy_context()  # the asking cell's: the frozen form's updates go with it
    asking = _Asking(cell, msg_id, lambda by: context.copy().run(_withdraw, panel, stopped, done, by))
    with _lock:
        newest = _newest.get(cell)
        superseded = newest is not None and newest != msg_id
        if not superseded:
            _asking.append(asking)
    if superseded:  # this run was superseded before it asked: nobody will see this form either
        kernel.io_loop.add_callback(asking.withdraw, newest)
        return Watch()
    return Watch(asking)


def _request_of(kernel: Any) -> tuple[str, str] | None:
    """The cell id and msg_id of the ``execute_request`` that this context belongs to."""
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell") or {}
    except Exception:
        return None
    header = parent.get("header") or {}
    cell = (parent.get("metadata") or {}).get("cellId")
    if header.get("msg_type") != "execute_request" or not isinstance(cell, str) or not cell:
        return None
    return cell, str(header.get("msg_id", ""))


def _withdraw(panel: Any, stopped: Any, done: Callable[[Any], None], by: str) -> None:
    """Freeze the panel and answer for nobody; say so at the top of the run ``by`` (the re-run)."""
    if getattr(panel, "outcome", None) is not None:  # answered meanwhile (a click that came first)
        return
    panel.finish(stopped, NOTE)
    done(stopped)
    line = _said(panel, stopped)
    with _lock:
        notes = _notes.setdefault(by, [])
        if line not in notes:
            notes.append(line)
        while len(_notes) > _KEPT:
            _notes.popitem(last=False)


def _said(panel: Any, stopped: Any) -> str:
    """One line for the re-run's output: what was withdrawn, and what the server was told."""
    from mcpnb.notebook.forms.panels import ConfirmPanel, SamplingPanel

    server = getattr(panel, "server", None) or "The server"
    if isinstance(panel, SamplingPanel):
        return (
            f"The reply {server} asked for in this cell's previous run was withdrawn when the cell ran "
            "again: the request was rejected, nothing was sent."
        )
    if isinstance(panel, ConfirmPanel):
        return (
            "The question in this cell's previous run was withdrawn when the cell ran again: taken as a no."
        )
    return (
        f"The form {server} asked for in this cell's previous run was withdrawn when the cell ran again: "
        f'{server} was told "{stopped.action}", nothing was sent.'
    )


# ---------------------------------------------------------------------------- the kernel's side
def install(kernel: Any = None) -> bool:
    """Watch the main shell's incoming requests (once per kernel); whether the watch is in place.

    The receive callback of the stream that feeds the main shell is wrapped: ipykernel 7 with
    subshells reads the inproc pair from its shell-channel thread, otherwise the shell stream
    itself; the stream reads its callback anew for each message, so setting it from any thread is
    safe. A kernel without these parts is left alone.
    """
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None:
        return False
    with _lock:
        if _MARK in vars(kernel):
            return True
        stream = _main_feed(kernel)
        original = getattr(stream, "_recv_callback", None)
        if not callable(original) or getattr(kernel, "session", None) is None:
            return False

        def on_recv(msg: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                _notice(kernel, msg)
            except Exception:  # the message itself goes on as it came, whatever happened here
                log.debug("mcpnb could not read a shell message", exc_info=True)
            return original(msg, *args, **kwargs)

        stream._recv_callback = on_recv
        setattr(kernel, _MARK, (stream, original, on_recv))
    shell = getattr(kernel, "shell", None)
    if shell is not None and _say_at_top not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", _say_at_top)
    return True


def uninstall(kernel: Any = None) -> None:
    """Give the stream its own callback back (if nothing replaced ours since) and forget the forms."""
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
        _asking.clear()
        _newest.clear()
        _notes.clear()


def _main_feed(kernel: Any) -> Any:
    """The ZMQ stream whose callback starts each message of the main shell, on the kernel's thread."""
    try:
        if getattr(kernel, "_supports_kernel_subshells", False):
            manager = kernel.shell_channel_thread.manager
            return manager.get_shell_channel_to_subshell_pair(None).to_stream
        return kernel.shell_stream
    except Exception:
        return None


def _notice(kernel: Any, msg: list[Any]) -> None:
    """An arriving shell message: a run of a cell with a waiting form withdraws that form."""
    session = kernel.session
    copy = all(isinstance(part, bytes) for part in msg)
    _idents, frames = session.feed_identities(msg, copy=copy)
    if len(frames) < 5:
        return
    header = session.unpack(frames[1] if copy else frames[1].bytes)
    if header.get("msg_type") != "execute_request":
        return
    # signature checked; content=False keeps the digest unrecorded, so the dispatch still accepts it
    parsed = session.deserialize(frames, content=False, copy=copy)
    cell = (parsed.get("metadata") or {}).get("cellId")
    if not isinstance(cell, str) or not cell:
        return
    if session.unpack(parsed["content"]).get("silent"):
        return
    msg_id = str(parsed["header"].get("msg_id", ""))
    with _lock:
        _newest[cell] = msg_id
        _newest.move_to_end(cell)
        while len(_newest) > _KEPT:
            _newest.popitem(last=False)
        withdrawn = [a for a in _asking if a.cell == cell and a.request != msg_id]
        for asking in withdrawn:
            _asking.remove(asking)
    if withdrawn:
        from mcpnb.notebook.forms.settle import settle_now

        settle_now()  # an Accept clicked before the re-run still counts
        for asking in withdrawn:
            asking.withdraw(msg_id)


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
