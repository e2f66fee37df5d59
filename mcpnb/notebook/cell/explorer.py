"""``%mcp explore``: pick a server and a tool, fill a form made from its input schema, call it.

The form is the same one elicitation uses (defaults, required marks, inline errors); a tool's
schema may be richer than an elicitation's, and what the form cannot show as a widget becomes a
JSON editor. Each Call (the button, or Enter in a one-line field) runs as a cell's call would,
and the result replaces the last. The click lets go at once (a long tool must not hold the
kernel, and the notebook's cells keep running); while the call runs, Call becomes Stop, which
cancels it on the server (Enter then does nothing: it is no Stop). A tool that asks the
person (a form, a URL, a sampling reply) asks inside the explorer: a click has no cell output to
show it in. A tool that first wants a page opened (−32042) shows it there as a link, with a Retry
that calls again. A tool that can run as a task (``execution.taskSupport``) offers "as a task"
(ticked and fixed where it must): the task's live view shows under Call, Stop cancels the task,
and its result lands like a call's.

Secrets stay out of the widget state a saved notebook may keep (JupyterLab's "save widget state",
nbclient's ``store_widget_state``): a secret argument (``format: password``, ``writeOnly``, a
secret-looking name such as ``password`` or ``api_key``) is emptied once its call is sent, as a
sign-in page empties a password box, and the form says so; a −32042 Retry sends it again from
memory, never from a widget. A form replaced by another tool's is closed, and a question the call
asks ends as its record (what was sent, secrets masked), its widgets closed.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import UrlRequiredError
from mcpnb.notebook.accessibility import WARNING_BUTTON, live, mark_root, page_aids
from mcpnb.notebook.cell.capture import CellUI, Mode
from mcpnb.notebook.cell.live import ClickedUI

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool


class ToolExplorer:
    """Server and tool pickers, the tool's form, a Call button and the result."""

    def __init__(self, pool: Pool, server: str | None = None) -> None:
        import ipywidgets as w

        self.pool = pool
        servers = [row.name for row in pool.status() if row.state == "connected"]
        if not servers:
            raise ValueError("no connected server to explore: %mcp connect (or %mcp serve probe-kit) first")
        self.server_pick = w.Dropdown(options=servers, value=server or servers[0], description="server")
        self.tool_pick = w.Dropdown(options=[], description="tool")
        self.about = w.HTML()
        self.form_box = w.VBox()
        self.call_button = w.Button(description="Call", button_style="primary", tooltip="Send tools/call")
        self.as_task = w.Checkbox(description="as a task", indent=False, layout=w.Layout(width="auto"))
        self.status = w.HTML()
        self.asking = w.VBox()  # what the call under way shows: a server's question, its progress
        self._shown: dict[str, Any] = {}
        self.result_view = w.HTML()
        self.result: Any = None
        self.page: Any = None  # the AppView of the last call, for a tool with a page
        self.form: Any = None
        #: the secret arguments of the last call sent, for a −32042 Retry only (never in a widget)
        self._sent_secrets: dict[str, Any] = {}
        self._records: list[Any] = []  # the questions' records shown under Call, closed when replaced
        self._consent_panel: Any = None  # the last call's −32042 panel, which may retry by itself
        self.running: Any = None  # the LiveCall (or _Task) under way, which Stop cancels
        self.task: Any = None  # the TaskHandle of the last call run as a task
        for name, item in (
            ("call", self.call_button),
            ("task", self.as_task),
            ("result", self.result_view),
            ("status", self.status),
        ):
            item.add_class(f"mcpnb-explore-{name}")
        self.server_pick.observe(lambda _c: self._load_tools(), names="value")
        self.tool_pick.observe(lambda _c: self._load_form(), names="value")
        self.call_button.on_click(lambda _b: self._clicked())
        self.widget = w.VBox(
            [
                w.HBox([self.server_pick, self.tool_pick]),
                self.about,
                self.form_box,
                w.HBox([self.call_button, self.as_task]),
                self.status,  # a line of its own: beside "as a task", "✓ in 5 s" read as the task's
                self.asking,
                self.result_view,
                *page_aids(),
            ]
        )
        self.widget.add_class("mcpnb-explorer")
        mark_root(self.widget)
        self._load_tools()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # a sentence, where a saved notebook showed "VBox(children=(…"
            bundle = {**bundle, "text/plain": self.text()}
        return bundle

    def text(self) -> str:
        """What the explorer is, in words: its server, its tool and how the last call went."""
        from mcpnb.client.printable import printable
        from mcpnb.notebook.forms.record import text_of

        tool = self.tool_pick.value
        said = f"mcpnb tool explorer (%mcp explore) on server {self.server_pick.value}"
        said += f", tool {tool}" if tool else ", no tool"
        last = " ".join(text_of(self.status.value).split())
        said += f"; last call: {last}" if last else "; no call yet"
        return printable(said + ". It needs a live kernel with ipywidgets to use.")

    @property
    def tool(self) -> Any:
        return self._tools.get(self.tool_pick.value)

    def _load_tools(self) -> None:
        self._tools = {t.name: t for t in self.pool.tools(self.server_pick.value)}
        names = sorted(self._tools)
        self.tool_pick.options = names  # ipywidgets leaves nothing picked after new options
        if names and self.tool_pick.value is None:
            self.tool_pick.value = names[0]  # its observer loads the form
        else:
            self._load_form()

    def _load_form(self) -> None:
        from mcpnb.notebook.forms import ElicitationForm

        tool = self.tool
        self.result_view.value = self.status.value = ""
        self._forget_consent()  # its Retry would call this other tool
        old, self.form, self._sent_secrets = self.form, None, {}
        if tool is None:
            self.form_box.children, self.about.value = (), "<i>this server has no tools</i>"
            self._close_form(old)
            return
        title = html.escape(tool.title or tool.name)
        self.about.value = f"<b>{title}</b><div>{html.escape(tool.description or '')}</div>"
        self.form = ElicitationForm(
            tool.form_schema,
            message=None,
            server=tool.server,
            on_done=lambda _o: None,
            enter_accepts=True,  # Enter in a one-line field is Call, as in a search box
            on_enter=self._entered,
        )
        inputs = [c.box for c in self.form.controls.values()]  # no header, buttons or status: ours
        self.form_box.children = (*inputs, *self._secret_note(), self.form.status)
        self._close_form(old)
        support = tool.task_support
        self.as_task.layout.display = None if support in ("optional", "required") else "none"
        self.as_task.value = self.as_task.disabled = support == "required"
        self.as_task.tooltip = (
            "this tool runs only as a task"
            if support == "required"
            else "start it as a task: a live view with Cancel, the kernel free meanwhile"
        )

    def _secret_note(self) -> list[Any]:
        """A line that says what happens to the form's secret fields, where it has any."""
        import ipywidgets as w

        secret = self.form.secret_fields(doubtless=True) if self.form is not None else []
        if not secret:
            return []
        names = ", ".join(f"<code>{html.escape(name)}</code>" for name in secret)
        note = w.HTML(
            f"<div style='color:var(--jp-ui-font-color2,#666);font-size:0.9em'>🔒 {names}: emptied once "
            "the call is sent, so the notebook never keeps it; type it again to call again.</div>"
        )
        note.add_class("mcpnb-explore-secret-note")
        return [note]

    @staticmethod
    def _close_form(form: Any) -> None:
        """Close a replaced form's widgets: what was typed into them (a password too) leaves the
        kernel and the frontend's widget state with them, not only the screen."""
        from mcpnb.notebook.forms.record import close_tree

        if form is not None:
            close_tree(form.widget)  # its fields, its status line and its hidden buttons

    def _clicked(self) -> None:
        if self.running is not None and not self.running.done():
            self.running.cancel()  # Stop: the server is told; the outcome shows as it lands
        elif self.form is not None:
            self.form.edits.then(self.call)
        else:
            self.call()

    def _entered(self) -> None:
        """Enter in the form (its fields settled): Call, unless a call is under way (Enter is no
        Stop: a second Enter while the first call runs must not cancel it)."""
        if self.running is None or self.running.done():
            self.call()

    def call(self, *, again: bool = False) -> Any:
        """What the Call button does: validate, start the call, show its result when it lands.

        Returns the :class:`~mcpnb.notebook.cell.LiveCall` under way (``.result()`` waits for it),
        or None when nothing was sent (the form has errors, the call could not start). Once sent,
        the form's secret fields are emptied (see the module). ``again`` (a −32042 Retry): secret
        fields left empty take what the last call sent.
        """
        from mcpnb.notebook.cell.live import call_in_cell
        from mcpnb.notebook.settings import get_settings

        tool = self.tool
        if self.form is None:
            arguments: dict[str, Any] | None = {}
        else:
            arguments = self.form.check(self._sent_secrets if again else None)
        if tool is None or arguments is None:
            return None
        self._drop_shown()
        self.result_view.value = ""
        self.status.value = live("<i>calling…</i>")
        ui = _InExplorer(self, get_settings().elicitation)
        self._hold(True)  # another Call, or another tool, would hide what this call shows
        try:
            if self.as_task.value and self.as_task.layout.display != "none":
                self.running = self._start_task(tool, arguments, ui)
            else:
                self.running = call_in_cell(
                    self.pool, tool.server, tool.name, arguments, info=tool, ui=ui, let_go=True
                )
                self._draw_page(tool, arguments, self.running)
        except Exception as exc:  # shown where the person looks; the notebook keeps running
            self.show(exc)
            return None
        if self.form is not None:  # sent: out of the widgets, kept only for a Retry
            secret = self.form.secret_fields(doubtless=True)  # a key or a page token stays for the next call
            self._sent_secrets = {k: arguments[k] for k in secret if k in arguments}
            self.form.forget_secrets(doubtless=True)
        return self.running

    def _forget_consent(self) -> None:
        """The last call's −32042 panel no longer retries by itself: a new call, or another tool."""
        if self._consent_panel is not None:
            self._consent_panel.stop_waiting()
            self._consent_panel = None

    def _drop_shown(self) -> None:
        """A new call: the last one's questions, progress and page go (its records closed)."""
        from mcpnb.notebook.forms.record import close_tree

        self._shown.clear()
        self.asking.children = ()
        self._forget_consent()
        records, self._records = self._records, []
        for record in records:
            close_tree(record)

    def _start_task(self, tool: Any, arguments: dict[str, Any], ui: CellUI) -> _Task:
        """``tasks`` for this call: its live view under Call; the result shows when it ends. The
        task's questions come to the explorer, like a call's."""
        from mcpnb.client.interaction import CallContext
        from mcpnb.notebook.taskview import TaskView

        handle = self.pool.start_task(tool.server, tool.name, arguments, context=CallContext(ui=ui))
        self.task = handle
        self.keep_in_view("task", TaskView(handle).widget)
        self.status.value = live(f"<i>running as task {html.escape(handle.task_id or '')}…</i>")

        async def outcome() -> None:
            try:
                result: Any = await handle.wait()
            except Exception as exc:  # cancelled, expired, failed to follow: said in the status
                result = exc
            self.show(result)

        return _Task(handle, self.pool.runtime.hand_over(outcome()))

    def _hold(self, held: bool) -> None:
        """While a call runs: the pickers wait, and Call is Stop."""
        self.server_pick.disabled = self.tool_pick.disabled = held
        button = self.call_button
        button.description, button.button_style, button.tooltip = (
            ("Stop", "", "cancel the call (the server is told)")
            if held
            else ("Call", "primary", "Send tools/call")
        )
        # Stop in a warning colour its white label reads on (ipywidgets' orange: 2.7:1)
        button.style.button_color = WARNING_BUTTON["button_color"] if held else None
        button.style.text_color = WARNING_BUTTON["text_color"] if held else None

    def show(self, result: Any) -> None:
        """The call's outcome in place of the last: a result, or why the call did not finish.
        Call comes back last, once all of it shows."""
        from mcpnb.client.results import ToolResult

        error = result if isinstance(result, BaseException) else getattr(result, "error", None)
        if isinstance(error, UrlRequiredError):  # −32042: open a page first, then Retry calls again
            self._consent(error)
        elif not isinstance(result, ToolResult):
            self._said(str(result))
        else:
            self.result = result
            self.result_view.value = result._repr_mimebundle_()["text/html"]  # before the ✓ that says so
            self.status.value = live(
                f"{'✗ error' if result.is_error else '✓'} in {result.elapsed * 1000:.0f} ms"
            )
        self._hold(False)

    def _draw_page(self, tool: Any, arguments: dict[str, Any], running: Any) -> None:
        """A tool with a page of its own (an MCP App): the page, drawn as the call starts (as
        ``%mcp call`` draws it), handed the result when it lands. Read on the runtime thread."""
        from mcpnb.notebook.render.app_view import AppView, draws_page

        if not draws_page(tool):
            return

        async def draw() -> None:
            try:
                view = await AppView.aopen(self.pool, tool, arguments)
            except Exception as exc:  # the result shows all the same; why the page does not
                self._said(f"its page (an MCP App) could not be drawn: {exc}")
                return
            self.page = view
            self.keep_in_view("page", view.widget)
            view.deliver(running)

        self.pool.runtime.hand_over(draw())

    def _consent(self, error: UrlRequiredError) -> None:
        """The page the server wants opened first, as a link, under the Call button; Retry calls
        again with the form as it is then (a click cannot be made to wait on it, so nothing waits)."""
        from mcpnb.notebook.cell.urlretry import consent_panel, retry_when_done

        if not error.elicitations:
            self._said(str(error))
            return

        def answered(outcome: Any) -> None:
            if outcome.action != "accept":
                self.status.value = live("<i>not called again: the page was declined</i>")

        panel = consent_panel(error, on_done=answered, on_retry=lambda: self.call(again=True))
        self.status.value = live("<i>the server asks you to open a page first (below)</i>")
        self.keep_in_view("ask", panel.widget)
        self._consent_panel = panel
        retry_when_done(self.pool, error, panel)

    def _said(self, problem: str) -> None:
        self.status.value = live(
            f"<span style='color:var(--jp-error-color1,#c62828)'>{html.escape(problem)}</span>", alert=True
        )

    def keep_in_view(self, slot: str, widget: Any) -> None:
        """A server's question or a progress bar of the call under way, under the Call button; a
        task's live view heads them (its question may come first: the task is followed at once)."""
        self._shown[slot] = widget
        self._arrange()

    def _arrange(self) -> None:
        heads = sorted(self._shown, key=lambda shown: shown != "task")
        self.asking.children = tuple(self._shown[shown] for shown in heads)

    def place_of(self, widget: Any) -> Any:
        """Where a question shown under Call leaves its record once it ends (what was asked and
        sent, secrets masked): its widgets are then closed, and nothing typed into them stays in
        a widget state. None for anything else (a progress bar, a page: as they were)."""
        if self._shown.get("ask") is widget:
            return _Spot(self, "ask", widget)
        return None

    def _replace(self, slot: str, widget: Any, bundle: dict[str, Any]) -> None:
        import ipywidgets as w

        if self._shown.get(slot) is not widget:  # a new call came first: nothing to put back
            return
        record = w.HTML(bundle.get("text/html", ""))
        record.add_class("mcpnb-explore-record")
        self._records.append(record)
        self._shown[slot] = record
        self._arrange()


class _Task:
    """The explorer's handle on a task under way: what Stop cancels (without blocking the click),
    and the runtime's hand-over that shows the task's outcome when it ends (held here)."""

    def __init__(self, handle: Any, following: Any) -> None:
        self.handle = handle
        self.following = following

    def done(self) -> bool:
        return bool(self.handle.state.terminal)

    def cancel(self) -> None:
        self.handle.cancel_soon()


class _Spot:
    """A question's place under Call, as a display handle is a question's place in a cell: its
    record replaces it (``forms.record.Recorded``), which then closes the question's widgets."""

    def __init__(self, explorer: ToolExplorer, slot: str, widget: Any) -> None:
        self.explorer, self.slot, self.widget = explorer, slot, widget

    def update(self, bundle: dict[str, Any], raw: bool = False) -> None:
        self.explorer._replace(self.slot, self.widget, bundle)


class _InExplorer(ClickedUI):
    """Where a call started by the Call button asks and reports: inside the explorer."""

    def __init__(self, explorer: ToolExplorer, mode: Mode) -> None:
        self.explorer = explorer
        super().__init__(mode)

    def show(self, slot: str, obj: Any, plain: str | None = None) -> None:
        """Into the explorer's own widgets (``plain``, for a frontend without widgets, is moot: the
        explorer needs them)."""
        if slot == "result":
            self.explorer.show(obj)
            return
        self.explorer.keep_in_view(slot, obj)
        if slot == "ask":
            self.explorer.status.value = live("<i>waiting for your answer below…</i>")

    def place_of(self, obj: Any) -> Any:
        """A question under Call ends as its record there (:meth:`ToolExplorer.place_of`)."""
        return self.explorer.place_of(obj)
