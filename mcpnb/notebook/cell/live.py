"""Calls made from a cell, so that a person can answer the server in that same cell.

When the cell awaits (ipykernel >= 7.4 with :mod:`.asynccell`), the call simply waits: widget clicks
reach the kernel meanwhile. A synchronous cell never sees a click while it blocks, so there, as soon
as the server asks for a person, the cell lets go and returns a :class:`LiveCall`; the result then
appears in the same output when the call ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import html
from typing import TYPE_CHECKING, Any

from mcpnb.client.interaction import CallContext
from mcpnb.client.transcript import Transcript
from mcpnb.notebook.cell.capture import CellUI, Mode, made_in_a_cell
from mcpnb.notebook.frontend import current_kernel
from mcpnb.notebook.settings import get_settings

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.results import ToolResult
    from mcpnb.client.toolinfo import ToolInfo

#: True while an awaiting cell runs the magic (set by :mod:`.asynccell`).
AWAITING: contextvars.ContextVar[bool] = contextvars.ContextVar("mcpnb_awaiting_cell", default=False)
#: How often a synchronous cell looks whether the server asked for a person.
_POLL = 0.05


def call_in_cell(
    pool: Pool,
    server: str,
    tool: str | None = None,
    arguments: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    answers: dict[str, Any] | None = None,
    mode: Mode | None = None,
    transcript: bool = False,
    info: ToolInfo | None = None,
    ui: CellUI | None = None,
    let_go: bool = False,
) -> ToolResult | LiveCall:
    """``pool.call`` for a notebook cell: forms, progress and logs show in this cell.

    ``transcript`` records the call's traffic; it shows (collapsed) under the result.
    ``info``: the tool, when the caller has looked it up already (no second lookup).
    ``ui``: where to ask and report instead of the running cell (a widget's own output).
    ``let_go``: return a :class:`LiveCall` at once (a widget's click must not hold the kernel).
    """
    server, tool, arguments = pool._target(server, tool, arguments)
    ui, ctx = _in_cell(mode, answers, transcript, awaiting=AWAITING.get(), ui=ui)
    call = pool.connection(server).call_tool(tool, arguments, timeout=timeout, context=ctx, info=info)
    hop = pool.runtime.hand_over(call)
    if let_go:
        return LiveCall(hop.future(), ui, server, tool)
    try:
        if ui.mode == "widget" and not ui.awaiting:
            while not hop.wait(_POLL):  # the call's end wakes this at once; a question, within _POLL
                if ui.asked.is_set():
                    return LiveCall(hop.future(), ui, server, tool)
        else:
            hop.wait()
        result = hop.outcome()
    except BaseException as exc:
        _ended(ui, exc)
        _keep_traffic(ui, ctx, exc)
        raise
    _ended(ui, None, ok=not result.is_error)
    return result


async def acall_in_cell(
    pool: Pool,
    server: str,
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    answers: dict[str, Any] | None = None,
    mode: Mode | None = None,
    transcript: bool = False,
    info: ToolInfo | None = None,
) -> ToolResult:
    """:func:`call_in_cell` for a cell that awaits (on the kernel's loop): forms are answered in place.

    ``info``: the tool, when the caller has looked it up already (no second lookup).
    """
    ui, ctx = _in_cell(mode, answers, transcript, awaiting=True)
    call = pool.connection(server).call_tool(tool, arguments, timeout=timeout, context=ctx, info=info)
    try:
        result = await pool.runtime.arun(call)  # an interrupt cancels it on the server
    except BaseException as exc:
        _ended(ui, exc)
        _keep_traffic(ui, ctx, exc)
        raise
    _ended(ui, None, ok=not result.is_error)
    return result


def _ended(
    ui: CellUI, error: BaseException | None, *, ok: bool = False, stopped: str = "interrupted"
) -> None:
    """The call ended (``error``: how it failed; None: it finished): its progress bar settles and its
    questions still open stop waiting, saying why (``stopped``: what a cancel of it was)."""
    ui.finish(error is None and ok)
    ui.end_questions(why_ended(error, stopped=stopped))


def why_ended(error: BaseException | None, *, stopped: str = "interrupted") -> str:
    """Why a call ended, as a question of it still open says it: "the call was interrupted"."""
    if error is None:
        return "the call has ended"
    if isinstance(error, (KeyboardInterrupt, asyncio.CancelledError, concurrent.futures.CancelledError)):
        return f"the call was {stopped}"
    if isinstance(error, TimeoutError):
        return "the call timed out"
    return "the call failed"


def asking_ui(mode: Mode, *, awaited: bool = False) -> CellUI:
    """Where a form of mcpnb's own goes (a ``require`` choice, a VS Code file's inputs), or a server's
    for a call made from code: this cell. A cell that does not await never sees a click while it
    blocks, so there the question is asked on stdin instead. ``awaited``: the cell awaits this
    (``await pool.acall(...)``), which lets a click through where the kernel allows it. A call from
    a thread of the person's own holds no cell, so a click gets through: a form, never stdin (its
    cell may have ended, and a prompt would take a later cell's answer)."""
    awaiting = AWAITING.get()
    if awaited and not awaiting:  # (asynccell imports this module: imported here, when needed)
        from mcpnb.notebook.cell.asynccell import supported

        awaiting = supported()
    kernel = current_kernel()
    if kernel is not None and not made_in_a_cell(kernel):
        # a thread of the person's own: its wait leaves the kernel free for a click, and it may
        # not ask on stdin (a text question there is declined, saying why: CellUI)
        return CellUI(mode, awaiting=awaiting)
    return CellUI("text" if mode == "widget" and not awaiting else mode, awaiting=awaiting)


def _keep_traffic(ui: CellUI, ctx: CallContext, error: BaseException) -> None:
    """A call that failed with ``--transcript`` shows what it recorded above its error, and the
    error carries it (``error.transcript``): a timeout's progress and cancel, or the answer that
    failed, are what a server author needed, and they were dropped with the result that never came."""
    transcript = ctx.transcript
    if transcript is None or not transcript.messages:
        return
    with contextlib.suppress(AttributeError, TypeError):  # an exception that takes no attributes
        error.transcript = transcript  # type: ignore[attr-defined]
    ui.show("transcript", transcript)


def _in_cell(
    mode: Mode | None,
    answers: dict[str, Any] | None,
    transcript: bool,
    *,
    awaiting: bool,
    ui: CellUI | None = None,
) -> tuple[CellUI, CallContext]:
    """The cell's UI (or ``ui``) and the call context that reaches it (forms, progress, the transcript)."""
    ui = ui or CellUI(mode or get_settings().elicitation, awaiting=awaiting)
    ctx = CallContext(
        answers=answers, ui=ui, on_progress=ui.on_progress, transcript=Transcript() if transcript else None
    )
    return ui, ctx


class ClickedUI(CellUI):
    """Where a call that a click started asks and reports (the explorer's Call, the −32042 panel's
    Retry once its cell has ended).

    The click's message is no cell, so a plain :class:`CellUI` would see no stdin and decline every
    question; but a person made it, so they are asked, in a widget form (unless the notebook's
    policy is ``decline`` or ``defaults``). Subclasses say where :meth:`show` puts things.
    """

    def _stdin_allowed(self) -> bool:
        return True

    def _resolve(self, mode: Mode) -> Mode:
        return super()._resolve(mode) if mode in ("decline", "defaults") else "widget"


class LiveCall:
    """A call waiting for a person's answer in its cell; the result shows there when it ends.

    ``await live`` (in a later cell) or ``live.result()`` gives the :class:`~mcpnb.client.results.ToolResult`
    once it is there; ``live.cancel()`` gives up (the server is told).
    """

    def __init__(self, future: concurrent.futures.Future[Any], ui: CellUI, server: str, tool: str) -> None:
        self._future, self._ui = future, ui
        self.server, self.tool = server, tool
        future.add_done_callback(self._landed)

    def _landed(self, future: concurrent.futures.Future[Any]) -> None:
        ok = not future.cancelled() and future.exception() is None
        error = concurrent.futures.CancelledError() if future.cancelled() else future.exception()
        _ended(self._ui, error, ok=ok and not future.result().is_error, stopped="cancelled")
        if ok:
            self._ui.show("result", future.result())
        else:
            error = None if future.cancelled() else future.exception()
            why = "cancelled" if error is None else str(error)
            self._ui.show(
                "result", FailedNote(f"{self.tool}() on {self.server!r} did not finish: {why}", error)
            )

    def done(self) -> bool:
        return self._future.done()

    def add_done_callback(self, fn: Any) -> None:
        """``fn(future)`` once the call ends (at once if it has), as a future's callback."""
        self._future.add_done_callback(fn)

    def result(self, timeout: float | None = None) -> ToolResult:
        """The result (waits; in the cell that asked, answer first: a waiting cell sees no clicks).

        Ctrl-C, or no result within ``timeout``, cancels the call on the server.
        """
        try:
            return self._future.result(timeout)
        except KeyboardInterrupt:
            self._future.cancel()
            raise
        except TimeoutError:
            if self._future.done():  # the call itself timed out (CallTimeoutError)
                raise
            self._future.cancel()
            raise TimeoutError(f"gave up waiting after {timeout} s; the call was cancelled") from None

    def __await__(self) -> Any:
        from mcpnb.client.bridge import await_in_ticks

        return await_in_ticks(self._future).__await__()

    def cancel(self) -> None:
        self._future.cancel()

    def __repr__(self) -> str:
        state = "done" if self.done() else "waiting for your answer above"
        return f"<LiveCall {self.server}.{self.tool}(): {state}; the result will show in this output>"

    def _repr_html_(self) -> str:
        return (
            f"<div class='mcpnb-live'>⏳ <b>{html.escape(self.tool)}()</b> on "
            f"{html.escape(self.server)} waits for your answer above; the result will appear here. "
            "<code>await</code> this object or call <code>.result()</code> later to get it.</div>"
        )


class FailedNote:
    """Why a call did not finish, in words (and the error itself, for a view that can do more)."""

    def __init__(self, text: str, error: BaseException | None = None) -> None:
        self.text, self.error = text, error

    def __repr__(self) -> str:
        return self.text
