"""NotebookInteraction: a server's questions answered by a person in the calling cell.

Widget mode shows a form (or a URL-consent or sampling panel) in the cell and waits for the click;
the click is handled on the kernel thread and handed to the runtime loop. Text mode asks on stdin.
Without a cell to ask in, or headless (nbclient, papermill), or with answers given with the call,
the policy of the base class applies. Each question is bounded by the interaction's timeout, and by
the call that asked it: once that call ends (interrupted, timed out, failed or finished), its questions
still open stop waiting, say so, and send nothing more (:meth:`CellUI.waiting`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mcpnb.client.interaction import (
    ELICITATION_ENV,
    CallContext,
    Interaction,
    policy_from_env,
    reject_sampling,
)
from mcpnb.client.printable import printable
from mcpnb.notebook.cell.capture import CellUI, no_widgets
from mcpnb.notebook.cell.live import asking_ui, why_ended
from mcpnb.notebook.frontend import on_kernel_thread
from mcpnb.notebook.settings import get_settings

T = TypeVar("T")


def _asks_a_person() -> bool:
    """``Mcp.elicitation`` asks a person (a form, stdin) rather than naming a policy itself."""
    return get_settings().elicitation in ("widget", "text")


def _cell(call: CallContext | None) -> CellUI | None:
    ui = call.ui if call is not None else None
    return ui if isinstance(ui, CellUI) and ui.asks_people else None


class NotebookInteraction(Interaction):
    """Asks the person in the cell that made the call; falls back to the policy otherwise."""

    waits_for_a_person = True  # a form or a stdin prompt: a flood of them is capped (asking.py)

    def code_context(self, *, awaited: bool = False, later: bool = False) -> CallContext:
        """A call from code asks in the cell that made it, as a ``%mcp`` call does: a form where the
        cell awaits the call (``await pool.acall(...)``), on stdin where it blocks in it
        (``pool.call``, ``tools.run_all(reply)``), since such a cell never sees a click; nobody
        there, as under nbclient: the policy, with why. A task's questions (``later``) come after
        the cell has ended, when the kernel is free for a click: a form in that cell, as
        ``%mcp call --task`` shows them."""
        mode = get_settings().elicitation
        if later:
            from mcpnb.notebook.taskview import TaskCell  # a task's questions: each in an output of its own

            return CallContext(ui=TaskCell(mode))
        ui = asking_ui(mode, awaited=awaited)
        # the call ends (an interrupt of the awaiting cell, say): its questions still open stop
        return CallContext(ui=ui, on_end=lambda error: ui.end_questions(why_ended(error)))

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        from mcp.types import ElicitResult

        ui = _cell(call)
        if ui is None or (call is not None and call.answers is not None):
            return await super().elicit(server, params, self._with_cell_policy(call))
        url = getattr(params, "mode", "form") == "url"
        if ui.mode == "text":
            from mcpnb.notebook.forms import FormOutcome, ask_text, ask_url_text

            console = _Console(ui)
            ask: Callable[[], Any] = (
                functools.partial(
                    ask_url_text, params.url, params.message, server, console.input, console.print
                )
                if url
                else functools.partial(
                    ask_text,
                    params.requested_schema or {},
                    message=params.message,
                    server=server,
                    input_fn=console.input,
                    print_fn=console.print,
                    secret_input_fn=console.secret_input,
                )
            )
            outcome = await _ask_text(console, ask, FormOutcome("cancel", None))
        else:
            from mcpnb.notebook.forms import ElicitationForm, UrlConsent

            def build(done: Callable[[Any], None]) -> Any:
                if url:
                    return UrlConsent(params.url, message=params.message, server=server, on_done=done)
                schema = params.requested_schema or {}
                return ElicitationForm(
                    schema, message=params.message, server=server, on_done=done, enter_accepts=True
                )

            outcome = await self._ask_widget(ui, build, "cancel")
        return ElicitResult(action=outcome.action, content=None if url else outcome.content)

    async def confirm(
        self, question: str, details: str, call: CallContext, *, yes: str, no: str
    ) -> tuple[bool | None, str]:
        ui = _cell(call)
        if ui is None:
            return await super().confirm(question, details, call, yes=yes, no=no)
        try:
            if ui.mode == "text":
                from mcpnb.notebook.forms import ask_confirm_text

                console = _Console(ui)

                ask_yes = functools.partial(
                    ask_confirm_text,
                    question,
                    details,
                    yes=yes,
                    no=no,
                    input_fn=console.input,
                    print_fn=console.print,
                )
                return await asyncio.wait_for(_ask_text(console, ask_yes, False), self.timeout), ""
            from mcpnb.notebook.forms import ConfirmPanel

            def build(done: Callable[[Any], None]) -> Any:
                return ConfirmPanel(question, details, yes=yes, no=no, on_done=done)

            outcome = await asyncio.wait_for(self._ask_widget(ui, build, "cancel"), self.timeout)
        except TimeoutError:
            return None, f"nobody answered within {self.timeout:g} s"
        return outcome.action == "accept", ""

    async def sample(self, server: str, params: Any, call: CallContext | None) -> Any:
        ui = _cell(call)
        if ui is None:
            cell = call.ui if call is not None and isinstance(call.ui, CellUI) else None
            if cell is None or not cell.why_nobody_asked:
                return await super().sample(server, params, call)
            # why nobody was asked; what follows its colon is advice for forms (answers=, defaults)
            why = cell.why_nobody_asked.split(":")[0]
            return reject_sampling(server, call, why, person_there=cell.stdin_allowed)
        if ui.mode == "text":
            from mcpnb.notebook.forms import SamplingOutcome, ask_sampling_text

            console = _Console(ui)
            ask_reply = functools.partial(
                ask_sampling_text, params, server=server, input_fn=console.input, print_fn=console.print
            )
            outcome = await _ask_text(console, ask_reply, SamplingOutcome("reject", ""))
        else:
            from mcpnb.notebook.forms import SamplingPanel

            outcome = await self._ask_widget(
                ui, lambda done: SamplingPanel(params, server=server, on_done=done), "reject"
            )
        return outcome.to_result()

    async def draw_page(self, pool: Any, tool: Any, arguments: Mapping[str, Any], call: CallContext) -> Any:
        """The page of a model's call (``tools.run_all(reply)``), in the cell that ran it, as
        ``%mcp call`` draws its own: a saved notebook, nbclient included, keeps what it showed."""
        if not isinstance(call.ui, CellUI):
            return None
        from mcpnb.notebook.render.app_view import apage_for_call

        return await apage_for_call(pool, tool, arguments, cell=call.ui)

    def _with_cell_policy(self, call: CallContext | None) -> CallContext | None:
        """Headless cells use the configured policy (``decline`` or ``defaults``).

        Where ``Mcp.elicitation`` asks a person (``widget``, ``text``) and nobody can answer (nbclient,
        papermill, a thread of one's own), ``$MCPNB_ELICITATION`` is read at each question, as plain
        Python reads it: the decline said "set MCPNB_ELICITATION=defaults", and a notebook that did
        so (``%env``, ``os.environ``, a papermill parameter) was declined all the same, since
        ``Mcp.elicitation`` had taken the variable's value once, before it was set."""
        ui = call.ui if call is not None else None
        if (
            isinstance(ui, CellUI)
            and ui.mode in ("decline", "defaults")
            and call is not None
            and not call.policy
        ):
            call.policy, call.policy_reason = ui.mode, ui.why_nobody_asked
            if ui.mode == "decline" and _asks_a_person() and policy_from_env() == "defaults":
                why = ui.why_nobody_asked.split(":")[0]  # its advice is to set what is set
                call.policy, call.policy_reason = "defaults", f"{why}, and ${ELICITATION_ENV} is 'defaults'"
        return call

    async def _ask_widget(
        self, ui: CellUI, build: Callable[[Callable[[Any], None]], Any], give_up: str
    ) -> Any:
        """Show a widget in the calling cell and wait for its answer (clicks come on the kernel thread).

        The cell running again (its output, and the form, cleared) withdraws it: ``give_up`` answers.
        So does a run from another page while the cell awaits the answer and its page is silent (it
        was reloaded or closed: :mod:`mcpnb.notebook.forms.rerun`). So does the end of the call that
        asked (:meth:`CellUI.waiting`): the form freezes and says why, and a click sends nothing.
        """
        from mcpnb.notebook.forms import FormOutcome, SamplingOutcome
        from mcpnb.notebook.forms.rerun import watch_rerun

        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Any] = loop.create_future()
        stopped = SamplingOutcome("reject", "") if give_up == "reject" else FormOutcome("cancel", None)

        def done(outcome: Any) -> None:
            loop.call_soon_threadsafe(lambda: answered.done() or answered.set_result(outcome))

        panel = ui.run(build, done)
        ui.show("ask", panel.widget, no_widgets(panel, "✎", "asks for input"))
        panel.record_into(ui.place_of(panel.widget))  # answered, its output becomes the record
        ui.asked.set()
        rerun = ui.run(watch_rerun, panel, stopped, done, holds_kernel=ui.awaiting)

        def freeze(why: str) -> None:
            if getattr(panel, "outcome", None) is None:  # a click that came first stands
                ui.run(panel.finish, stopped, f"no longer waiting: {why}")
                done(stopped)

        forget = ui.waiting(lambda why: on_kernel_thread(lambda: freeze(why), ui.kernel))
        try:
            return await answered
        except BaseException:  # timeout or interrupt: freeze the form so nobody answers into the void
            ui.run(panel.finish, stopped, "no longer waiting for an answer")
            raise
        finally:
            forget()
            rerun.close()


#: One reader of the kernel's stdin at a time: two threads polling one zmq socket are not safe,
#: and a second prompt would take the first one's answer (two calls that ask at once in one cell).
_STDIN = threading.Lock()
#: How long the end of a call waits for its question's thread to stop reading stdin; ipykernel
#: polls the socket every 10 ms, so this bounds only a thread that never runs Python again.
_LETTING_GO = 1.0


class _Withdrawn(BaseException):
    """Raised in a text question's thread when its call has ended. ipykernel's ``raw_input`` lets it
    through within one 10 ms poll of the stdin socket: it catches only ``KeyboardInterrupt`` (which
    it would report as "Interrupted by user") and ``Exception`` (which it logs and polls on)."""


async def _ask_text(console: _Console, ask: Callable[[], T], stopped: T) -> T:
    """``ask()`` on stdin in a daemon thread of its own, until it answers or the call that asked ends
    (interrupted, timed out, answered otherwise): then ``stopped``, said in the cell.

    The thread stops reading the kernel's stdin at once (:meth:`_Console.withdraw`). Left reading
    (``asyncio.to_thread``), it took the answer to the next ``input()`` or ``getpass()`` of another
    cell, which hung with no prompt while what was typed (a password too) went to the server; and
    the executor joined it at exit, so the kernel could not shut down without a SIGTERM. The prompt
    on screen cannot be taken back: what is typed there is dropped (the kernel flushes it before its
    next ``input_request``)."""
    ui, loop = console.ui, asyncio.get_running_loop()
    answered: asyncio.Future[tuple[bool, Any]] = loop.create_future()
    ended: asyncio.Future[str] = loop.create_future()

    def settle(future: asyncio.Future[Any], value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: the kernel is going
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(value))

    def run() -> None:
        try:
            outcome: tuple[bool, Any] = (True, ask())
        except BaseException as exc:  # handed to the asking coroutine, never lost
            outcome = (False, exc)
        settle(answered, outcome)

    def stop(why: str) -> None:
        console.withdraw(why)
        ui.print(f"✗ no longer waiting: {why} (an answer typed now is not sent)")
        settle(ended, why)

    forget = ui.waiting(stop)  # before the thread starts: a call already ended asks nothing
    threading.Thread(target=run, name="mcpnb-text-question", daemon=True).start()
    try:
        await asyncio.wait({answered, ended}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        forget()
        if not answered.done():  # a timeout or a cancel: the thread stops reading stdin too
            console.withdraw("no longer waiting for an answer")
    if ended.done() or not answered.done():
        return stopped
    ok, value = answered.result()
    if not ok:
        raise value
    return value


def _interrupt(thread_id: int, exc: type[BaseException] | None) -> None:
    """Raise ``exc`` in thread ``thread_id`` when it next runs Python; ``None`` takes back one not
    raised yet (the C API's ``PyThreadState_SetAsyncExc``)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None
    )


class _Console:
    """The cell's stdin and stdout for one text question; quiet once the question was given up (its
    call ended, a timeout): a read then ends the question as a person gone would (``EOFError``),
    and prints go nowhere. A read in progress is interrupted (:meth:`withdraw`)."""

    def __init__(self, ui: CellUI) -> None:
        self.ui = ui
        self.given_up: str | None = None
        self._state = threading.Lock()
        self._reader: int | None = None  # the thread inside the kernel's raw_input, while it is
        self._interrupted = False

    def input(self, prompt: str) -> str:
        return self._read(self.ui.input, prompt)

    def secret_input(self, prompt: str) -> str:
        return self._read(self.ui.secret_input, prompt)

    def print(self, *args: Any, **kwargs: Any) -> None:
        """A line of the question (the server's words in it): never an escape sequence for the terminal."""
        if not self._over():
            self.ui.print(*(printable(str(a)) for a in args), **kwargs)

    def withdraw(self, why: str) -> None:
        """Give the question up: a read of the kernel's stdin in progress ends within one poll
        (:class:`_Withdrawn` raised in its thread), waited for here (bounded), so the socket is free
        before the next cell can ask; the terminal's reads stop with the call (:mod:`.terminal`)."""
        with self._state:
            self.given_up = self.given_up or why
            reader = self._reader if not self._interrupted else None
            if reader is not None:
                self._interrupted = True
                _interrupt(reader, _Withdrawn)
        if reader is not None and reader != threading.get_ident():
            end = time.monotonic() + _LETTING_GO
            while time.monotonic() < end:
                with self._state:
                    if self._reader != reader:
                        return
                time.sleep(0.002)

    def _over(self) -> bool:
        return self.given_up is not None or self.ui.ended is not None

    def _read(self, read: Callable[[str], str], prompt: str) -> str:
        while not _STDIN.acquire(timeout=0.05):  # another question reads: wait, unless given up
            if self._over():
                raise EOFError
        try:
            answer = self._read_alone(read, printable(prompt))
        except _Withdrawn:
            raise EOFError from None
        finally:
            _STDIN.release()
        if self._over():  # typed after the question was given up: dropped
            raise EOFError
        return answer

    def _read_alone(self, read: Callable[[str], str], prompt: str) -> str:
        """``read(prompt)``, interruptible by :meth:`withdraw` only while inside it (in the kernel;
        a terminal read stops by itself when the call ends). An interrupt sent as the read was
        returning is taken back, so it never lands outside :meth:`_read`."""
        me = threading.get_ident()
        with self._state:
            if self._over():
                raise EOFError
            if self.ui.kernel is not None:
                self._reader = me
        try:
            return read(prompt)
        finally:
            with self._state:
                self._reader = None
                if self._interrupted:
                    _interrupt(me, None)
