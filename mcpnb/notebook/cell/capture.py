"""CellUI: the calling cell, captured when a call starts, so answers and progress land there.

Server requests arrive on the runtime thread, long after the cell started and maybe after it ended.
ipykernel keeps the current cell (the parent message) in context variables, so the cell's context is
copied here, and everything shown for the call runs inside that copy: displays and stdin prompts go
to the calling cell, not to whichever cell happens to run.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from mcpnb.notebook.cell.terminal import TerminalReads
from mcpnb.notebook.frontend import current_kernel, current_shell

Mode = Literal["widget", "text", "decline", "defaults"]


def no_widgets(panel: Any, mark: str, asks: str) -> str:
    """A question's ``text/plain`` beside its widget: what a frontend that shows no widgets
    (``jupyter console``) prints instead. Who asks and what, in one line of the server's words made
    :func:`printable`, and how to answer there."""
    from mcpnb.client.printable import printable

    server = printable(str(getattr(panel, "server", None) or "The server"))
    message = " ".join(printable(str(getattr(panel, "message", "") or "")).split())
    return (
        f"{mark} {server} {asks}" + (f": {message}" if message else "") + "\n(this frontend shows no "
        'widgets: interrupt the cell, then %config Mcp.elicitation = "text" and run it again to answer here)'
    )


class CellUI:
    """Where one call asks and reports: display handles and stdin of the cell that made it."""

    def __init__(self, mode: Mode = "widget", *, awaiting: bool = False) -> None:
        self.started = time.monotonic()  # the call's start: progress shows its time, not the bar's
        self.kernel = current_kernel()
        self.context = contextvars.copy_context()
        self.awaiting = awaiting  # the cell awaits the call: widget clicks reach us while it waits
        self.stdin_allowed = self._stdin_allowed()
        self.why_nobody_asked = ""  # said with a question a policy answered in this cell
        self.mode: Mode = self._resolve(mode)
        self.asked = threading.Event()  # a person was asked (a synchronous cell then lets go)
        self._handles: dict[str, Any] = {}
        self._shown: dict[str, Any] = {}  # what each slot's output shows now
        self._questions = 0  # questions shown so far: each has an output of its own
        self._slots = threading.Lock()  # questions may come on two threads at once
        self.progress: Any = None
        #: Questions of this call still waiting for a person, each with how it stops (:meth:`waiting`).
        self._open: dict[int, Callable[[str], None]] = {}
        #: Why the call ended (None while it runs): a question asked after that stops at once.
        self.ended: str | None = None
        #: terminal IPython's reads (a kernel asks through its own input box): stopped when the
        #: call ends, no more reading stdin
        self._terminal = TerminalReads() if self.kernel is None else None

    def _stdin_allowed(self) -> bool:
        """False under nbclient/papermill: nobody is there to type, or to click."""
        if self.kernel is None:  # terminal IPython or plain Python: input() works on a terminal
            import sys

            return bool(sys.stdin and sys.stdin.isatty())
        parent = self.kernel.get_parent("shell") or {}
        return bool(parent.get("content", {}).get("allow_stdin", False))

    def _resolve(self, mode: Mode) -> Mode:
        if mode in ("decline", "defaults"):
            self.why_nobody_asked = f"Mcp.elicitation is {mode!r}"
            return mode
        if mode == "text" and self.kernel is not None and not made_in_a_cell(self.kernel):
            self.why_nobody_asked = (
                "the call came from a thread of its own, which may not ask on stdin, since its "
                "prompt would take the answer to a later cell's input(): set "
                '%config Mcp.elicitation = "widget" to be asked in a form, or give answers with '
                "the call (answers=...)"
            )
            return "decline"
        if not self.stdin_allowed:
            self.why_nobody_asked = _why_nobody_can_answer(self.kernel)
            return "decline"  # headless: the configured policy applies (MCPNB_ELICITATION=defaults)
        if mode == "widget" and _captured():
            self.why_nobody_asked = (
                "the cell's output is captured (%%capture), where a form would wait unseen: make "
                "the call outside %%capture, or give answers with the call (--answers VAR)"
            )
            return "decline"
        if mode == "widget" and self.kernel is None:
            return "text"  # terminal IPython: no widget frontend
        return mode

    @property
    def asks_people(self) -> bool:
        return self.mode in ("widget", "text")

    # ------------------------------------------------------------------ showing things in the cell
    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` as if in the calling cell (its displays and prompts go there)."""
        return self.context.copy().run(fn, *args, **kwargs)

    def show(self, slot: str, obj: Any, plain: str | None = None) -> None:
        """Show ``obj`` in this cell's ``slot``: one output for the progress bar and one for the
        result, each updated in place; a new output for each question (``"ask"``), under the ones
        before it. An answered question's output is its record (``forms.record``): one output for
        every question kept only the last one's record, and a second question asked while the
        first waited took the first's place on screen.

        ``plain``: the ``text/plain`` of a widget ``obj``, what a frontend without widgets shows
        (``jupyter console`` printed ``VBox(children=(HTML(value='<div …``, and a question's words
        and how to answer it were nowhere)."""
        if slot == "ask":
            with self._slots:
                self._questions += 1
                slot = f"ask {self._questions}"
        shown: Any = obj
        raw = plain is not None and callable(getattr(obj, "_repr_mimebundle_", None))

        def display() -> None:
            from IPython.display import display as show

            nonlocal shown
            if raw:
                shown = {**obj._repr_mimebundle_(), "text/plain": plain}
            handle = self._handles.get(slot)
            if handle is None:
                self._handles[slot] = show(shown, display_id=True, raw=raw)
            else:
                handle.update(shown, raw=raw)
            self._shown[slot] = obj

        self.run(display)

    def place_of(self, obj: Any) -> Any:
        """The display handle of the output that shows ``obj`` now (None: :meth:`show` put it in no
        output of this cell, as the explorer keeps its questions in a widget of its own). A form
        that ends replaces that output with its record (``forms.record``), which a saved notebook keeps."""
        for slot, shown in list(self._shown.items()):
            if shown is obj:
                return self._handles.get(slot)
        return None

    def print(self, *args: Any, **kwargs: Any) -> None:
        self.run(print, *args, flush=True, **kwargs)

    def input(self, prompt: str) -> str:
        """Ask on stdin in the calling cell (the kernel's input box, or the terminal: there the
        read stops when the call ends, :mod:`.terminal`, so it takes no line typed after)."""
        if self._terminal is not None:
            return self._terminal.read_line(prompt)
        return self.run(self.kernel.raw_input, prompt)

    def secret_input(self, prompt: str) -> str:
        if self._terminal is not None:
            return self._terminal.read_line(prompt, secret=True)
        return self.run(self.kernel.getpass, prompt)

    # ------------------------------------------------------------------ progress
    async def on_progress(self, value: float, total: float | None, message: str | None) -> None:
        """The call's ``on_progress``: a bar in the cell (a text bar without widgets)."""
        if self.progress is None:
            if self.mode == "widget":
                from mcpnb.notebook.forms import ProgressView

                self.progress = self.run(ProgressView, started=self.started)
                self.show("progress", self.progress.widget, "working… (a progress bar, where widgets show)")
                self.progress.record_into(self.place_of(self.progress.widget))  # its last line stays
            else:
                from mcpnb.notebook.forms import TextProgress

                self.progress = TextProgress(self.print, started=self.started)
        self.progress.update(value, total, message)

    # ------------------------------------------------------------------ the call's end
    def waiting(self, stop: Callable[[str], None]) -> Callable[[], None]:
        """Note a question that waits for a person; ``stop(why)`` ends it when the call ends first.

        A server's request may outlive the call that asked it: an interrupt cancels the call, but
        over stdio or SSE the question was pushed on the session's own task, so nothing cancels it,
        and the server says nothing either. Without this its form stayed live and a click sent an
        answer for a call already gone. Returns what forgets the question once it is answered.
        """
        with self._slots:
            key, why = id(stop), self.ended
            if why is None:
                self._open[key] = stop
        if why is not None:  # the call ended before the question was shown
            stop(why)

        def forget() -> None:
            with self._slots:
                self._open.pop(key, None)

        return forget

    def end_questions(self, why: str) -> None:
        """The call ended (``why``: "the call was interrupted"): every question still open stops."""
        if self._terminal is not None:  # a terminal read gives up, its echo back on: IPython's next
            self._terminal.stop()
        with self._slots:
            if self.ended is None:
                self.ended = why
            stops, self._open = list(self._open.values()), {}
        for stop in stops:
            stop(why)

    def finish(self, ok: bool) -> None:
        """The call ended: collapse the bar (the server's log lines show with the result)."""
        if self.progress is not None:
            self.progress.done(ok)


def made_in_a_cell(kernel: Any) -> bool:
    """The call was made by a cell's code: its context carries the kernel's parent request (a
    cell's task, what it awaits in a thread of its own (:func:`.asynccell.off_loop`), a coroutine
    mcpnb runs for it on its own loop). A thread of the person's own
    (``threading.Thread(target=lambda: pool.call(...))``) starts with an empty context: the cell
    that started it may have ended, and a prompt from there would take the answer meant for a
    later cell's ``input()``. Without that context variable (an older ipykernel): the kernel's
    thread, or a thread a cell awaits."""
    parent = getattr(kernel, "_shell_parent", None)
    if isinstance(parent, contextvars.ContextVar):
        try:
            parent.get()
        except LookupError:
            return False
        return True
    from mcpnb.notebook.cell.live import AWAITING

    return threading.current_thread() is threading.main_thread() or AWAITING.get()


def _captured() -> bool:
    """``%%capture`` holds the cell's displays (``capture_output`` swaps the shell's publisher)."""
    from IPython.core.displaypub import CapturingDisplayPublisher

    shell = current_shell()
    return shell is not None and isinstance(getattr(shell, "display_pub", None), CapturingDisplayPublisher)


def nobody_watches(kernel: Any) -> bool:
    """The cell was run where nobody is there at all (nbclient, papermill, nbconvert --execute): its
    execute request allows no input. Not a widget's callback (a ``comm_msg``, a person clicked),
    nor a kernel whose request is not known: there someone may be watching."""
    parent = (kernel.get_parent("shell") if kernel is not None else None) or {}
    executes = (parent.get("header") or {}).get("msg_type") == "execute_request"
    return executes and not (parent.get("content") or {}).get("allow_stdin", False)


def _why_nobody_can_answer(kernel: Any) -> str:
    """Why a question found nobody to ask where the frontend allows no stdin: a widget's callback
    (the parent is the click's ``comm_msg``, no cell), or a run with nobody there (nbclient)."""
    parent = (kernel.get_parent("shell") if kernel is not None else None) or {}
    if (parent.get("header") or {}).get("msg_type") == "comm_msg":
        return (
            "the call was made in a widget's callback (on_click, observe): its output goes to no "
            "cell, and a wait there holds the kernel the answer's click needs: make the call in a "
            "cell (await pool.acall(...)), or give answers with the call (answers=...)"
        )
    return (
        "nobody can answer in this run, as under nbclient or papermill: "
        "give answers with the call (--answers VAR), or set MCPNB_ELICITATION=defaults"
    )
