"""An MCP App drawn in a notebook: the tool's ``ui://`` page in a sandboxed frame, live.

The page talks JSON-RPC over ``postMessage``; ``app_view.js`` (an anywidget module: widget code
without a JupyterLab extension of our own) passes it to the kernel, where
:class:`~mcpnb.client.app_host.AppHost` answers on the pool's runtime thread: the page's calls go to
its own server while the cell that drew it has long finished. What the page asks of the person
(a link to open, a message meant for a model) shows under the frame; nothing is opened for it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from mcpnb.client.app_host import AppHost, Note
from mcpnb.client.apps import AppPage, page_from, view_uri
from mcpnb.client.errors import McpnbError
from mcpnb.client.files import File
from mcpnb.client.results import ToolResult
from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.frontend import current_kernel
from mcpnb.notebook.settings import get_settings

if TYPE_CHECKING:
    from mcpnb.notebook.cell.capture import CellUI

T = TypeVar("T")

_CSS = """
.mcpnb-app { display: flex; flex-direction: column; gap: 4px; max-width: 100%; }
.mcpnb-app-head { display: flex; align-items: center; gap: 8px; }
.mcpnb-app-title { font-size: 12px; color: var(--jp-ui-font-color2, #6e7781); }
.mcpnb-app-exit { display: none; margin-left: auto; }
.mcpnb-app:fullscreen { padding: 8px; background: var(--jp-layout-color0, #fff); }
.mcpnb-app:fullscreen .mcpnb-app-exit { display: inline-block; }
.mcpnb-app:fullscreen .mcpnb-app-frame { flex: 1; height: auto !important; }
.mcpnb-app-frame { width: 100%; border: 0; background: transparent; }
.mcpnb-app-bordered .mcpnb-app-frame { border: 1px solid var(--jp-border-color1, #d0d7de);
  border-radius: 6px; background: var(--jp-layout-color0, #fff); }
.mcpnb-app-notes { font-size: 12px; color: var(--jp-ui-font-color1, #1f2328); }
.mcpnb-app-note { padding: 1px 0; overflow-wrap: anywhere; }
.mcpnb-app-refused { color: var(--jp-error-color1, #cf222e); }
.mcpnb-app-reach { color: var(--jp-warn-color1, #9a6700); }
"""

#: Pages ``AppView.drawn`` keeps (each holds its page's HTML and what the page did).
_KEPT_DRAWN = 20
#: Notes shown under a page, the latest (``AppView.notes`` holds more, a tool's calls as one).
_NOTES_SHOWN = 20
#: Notes kept for Python (``AppView.notes``), the newest.
NOTES_KEPT = 1000


def _widget_class() -> type:
    """The anywidget class, made on first use: anywidget (and ipywidgets) load only when a page is
    drawn, never at ``%load_ext mcpnb``."""
    global _AppWidget
    if _AppWidget is None:
        import anywidget
        import traitlets as t

        class AppWidget(anywidget.AnyWidget):  # type: ignore[misc]
            _esm = Path(__file__).with_name("app_view.js")
            _css = _CSS
            document = t.Unicode("").tag(sync=True)
            policy = t.Unicode("").tag(sync=True)
            label = t.Unicode("").tag(sync=True)
            border = t.Bool(True).tag(sync=True)
            height = t.Int(320).tag(sync=True)
            max_height = t.Int(2000).tag(sync=True)
            notes = t.List(t.Dict()).tag(sync=True)

            def __repr__(self) -> str:  # the text/plain of the output: a saved notebook, a terminal
                return f"{self.label}: its page shows where widgets do (JupyterLab, Notebook 7, VS Code)"

        _AppWidget = AppWidget
    return _AppWidget


_AppWidget: type | None = None


class AppView:
    """A tool's page, drawn; it answers the page for as long as the kernel runs.

    ``AppView.drawn`` lists the latest pages made in this kernel, newest last (``%mcp call`` draws
    one a cell never holds: ``AppView.drawn[-1].calls`` is what its page has called since).

    ``AppView(pool, result)`` draws the page of the tool that made ``result`` (a ``pool.call``
    result) with that result in it; ``AppView(pool, "server.tool")`` (or a ``ToolInfo``) draws the
    page alone, for a page that calls its tools itself. ``arguments`` are the call's, handed to the
    page as the extension asks. The page is read from the tool's server now: a ``ValueError`` says
    why it cannot be (no page, not an MCP App page). Display it as any output. What the page did
    stays here: :attr:`calls` (each result, as ``pool.call`` returns it), :attr:`messages`,
    :attr:`context`, :attr:`logs`, :attr:`downloads`, :attr:`notes`.
    """

    #: the latest pages made in this kernel, newest last (at most ``_KEPT_DRAWN``)
    drawn: ClassVar[list[AppView]] = []

    def __init__(
        self,
        pool: Any,
        target: Any,
        arguments: Mapping[str, Any] | None = None,
        *,
        page: AppPage | None = None,
        tool: ToolInfo | None = None,
    ) -> None:
        self.pool = pool
        self.result = target if isinstance(target, ToolResult) else None
        if tool is None:
            server, name = _named(target)
            known = target if isinstance(target, ToolInfo) else pool.cached_tool(server, name)
            tool = _found(server, name, known or pool.tools(server))
        self.tool = tool
        uri = _page_uri(tool)
        self.arguments = dict(arguments or {})
        self.page = page or page_from(self.tool.server, uri, list(pool.read(self.tool.server, uri)))
        self.cancelled: str | None = None  # why the call ended without a result, if it did
        self.notes: list[Note] = []
        # the cell that draws the page: a form a tool the page calls asks for shows there, as a
        # task's later question does (it was answered by the policy, declined or "no back-channel")
        self._cell = contextvars.copy_context()
        self._called: dict[str | None, int] = {}
        self._hosts: dict[str, AppHost] = {}
        if self.page.reaches:
            said = ", ".join(self.page.reaches)
            self.notes.append(Note("reach", f"its server lets this page reach beyond mcpnb: {said}"))
        for refused in self.page.refused:
            self.notes.append(Note("refused", f"left out of the page's policy: {refused}"))
        self.widget = _widget_class()(
            document=self.page.document,
            policy=self.page.policy,
            label=f"{self.tool.server}.{self.tool.name} · {uri} (an MCP App, sandboxed)",
            border=self.page.prefers_border is not False,
            notes=[_note_state(n) for n in self.notes],
        )
        self.widget.on_msg(self._from_page)
        AppView.drawn[:] = [*AppView.drawn[-(_KEPT_DRAWN - 1) :], self]

    @classmethod
    async def aopen(cls, pool: Any, target: Any, arguments: Mapping[str, Any] | None = None) -> AppView:
        """``AppView(...)`` from a coroutine (the pool's runtime thread included, where the
        synchronous reads cannot run): the tool and its page are awaited."""
        tool, page = await _aread(pool, target)
        return cls(pool, target, arguments, page=page, tool=tool)

    # what the page did, across every view of it (a widget displayed twice draws two pages)
    @property
    def calls(self) -> list[Any]:
        return [call for host in self._hosts.values() for call in host.calls]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [m for host in self._hosts.values() for m in host.messages]

    @property
    def context(self) -> dict[str, Any] | None:
        said = [host.context for host in self._hosts.values() if host.context is not None]
        return said[-1] if said else None

    @property
    def logs(self) -> list[dict[str, Any]]:
        return [entry for host in self._hosts.values() for entry in host.logs]

    @property
    def downloads(self) -> list[File]:
        """Files the page offered (``ui/download-file``): ``.name``, ``.mime``, ``.data()``."""
        return [file for host in self._hosts.values() for file in host.downloads]

    def deliver(self, outcome: Any) -> None:
        """What became of the call, for a page drawn before its result (``%mcp call`` draws it
        while the tool runs): a result, an exception, a :class:`~mcpnb.notebook.cell.LiveCall`
        whose result lands later (a person was asked in the cell), a ``TaskHandle`` (the result
        when the task ends), or None (never made). Each drawn page hears it as ``tool-result``
        or ``tool-cancelled``."""
        if outcome is None:  # a URL page the call needed was declined: it was never made
            outcome = "the call was not made (the page it needed was declined)"
        if _is_task(outcome):
            self._on_runtime(self._follow(outcome))
            return
        follow = getattr(outcome, "add_done_callback", None)
        if follow is not None and not isinstance(outcome, ToolResult):
            follow(lambda f: self.deliver(f.result() if not f.cancelled() and not f.exception() else _why(f)))
            return
        self._on_runtime(self._land(outcome))

    async def _follow(self, handle: Any) -> None:
        """A task's page (``%mcp call --task``) hears the result when the task ends, or why there
        is none: cancelled, or gone from the server. Following it runs where the task's polls do
        (mcpnb's thread), so the page hears it once."""
        heard = False

        def changed(task: Any) -> None:
            nonlocal heard
            if heard:
                return
            from mcpnb.client.tasks.errors import TaskExpiredError

            if task.landed is not None:
                outcome: Any = task.landed
            elif task.status == "cancelled":
                outcome = "the task was cancelled"
            elif isinstance(task.failure, TaskExpiredError):  # a lost connection is tried again
                outcome = task.failure
            else:
                return
            heard = True
            stop()
            self.deliver(outcome)

        stop = handle.add_listener(changed)
        changed(handle)  # it may have ended already: a server may answer a task at once
        handle.watch()

    async def _land(self, outcome: Any) -> None:
        if isinstance(outcome, ToolResult):
            self.result = outcome
            for host in self._hosts.values():
                host.deliver(outcome)
            return
        self.cancelled = outcome if isinstance(outcome, str) else _why(outcome)
        for host in self._hosts.values():
            host.cancel(self.cancelled)

    def _from_page(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A message from one drawn page (kernel thread): answered on the runtime thread, where
        the pool's connections live, in order with what :meth:`deliver` hands the pages; the
        kernel goes on meanwhile."""
        if isinstance(content, dict) and isinstance(content.get("view"), str):
            self._on_runtime(self._receive(content["view"], content))

    async def _receive(self, view: str, content: dict[str, Any]) -> None:
        host = self._hosts.get(view)
        if host is None:
            host = self._hosts[view] = AppHost(
                self.pool,
                self.tool,
                self.page,
                self.arguments,
                self.result,
                send=lambda message: self.widget.send({"view": view, "message": message}),
                note=self._note,
                context=content.get("context"),
                asking=lambda: self._cell.run(self.pool.asking_context, later=True),
            )
            if self.cancelled is not None:
                host.cancel(self.cancelled)
        await host.receive(content.get("message"))

    def _on_runtime(self, coro: Any) -> None:
        try:
            self.pool.runtime.hand_over(coro)
        except RuntimeError:  # the pool was closed (a kernel shutting down): the page hears nothing
            self._note(Note("refused", "mcpnb's runtime is closed: the page's requests go unanswered"))

    def _note(self, note: Note) -> None:
        """Show ``note`` under the page. A page that calls its tools on every event (a log tool,
        a poll) would bury the rest: calls keep one line per tool, the last call and a count; the
        model context one line, the newest (a viewer sets it at every scroll)."""
        if note.kind == "call":
            self._called[note.tool] = self._called.get(note.tool, 0) + 1
            count = self._called[note.tool]
            if count > 1:
                note = Note("call", f"{note.text} · {count} calls", tool=note.tool)
            self.notes = [n for n in self.notes if not (n.kind == "call" and n.tool == note.tool)]
        elif note.kind == "context":  # each update replaces the last: the newest is what counts
            self.notes = [n for n in self.notes if n.kind != "context"]
        self.notes.append(note)
        del self.notes[:-NOTES_KEPT]  # a page that logs at every event, for as long as it is open
        self.widget.notes = [_note_state(n) for n in self.notes[-_NOTES_SHOWN:]]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)

    def __repr__(self) -> str:
        return f"<AppView {self.tool.server}.{self.tool.name} {self.page.uri}>"


def draws_page(tool: ToolInfo) -> bool:
    """Whether a call of ``tool`` gets its page drawn (``%mcp call``, the explorer): it has one,
    and ``%config Mcp.draw_pages`` is on."""
    return view_uri(tool) is not None and get_settings().draw_pages


# A call about to be made (``%mcp call``, a model's call run by a toolbox): its page is displayed
# before the call is sent, as the extension draws it while the tool runs; the page hears the call's
# arguments at once and, through :meth:`AppView.deliver`, its result (or why there is none) when it
# lands. None where no page is drawn: no page, pages off, no kernel to show widgets. A page that
# cannot be read is said in one line, and the call goes on all the same. ``cell``: the calling cell,
# for a page drawn from mcpnb's runtime thread (a toolbox's calls run there).
def page_for_call(pool: Any, tool: ToolInfo, arguments: Mapping[str, Any]) -> AppView | None:
    if not _drawn_here(tool):
        return None
    try:
        return _displayed(AppView(pool, tool, arguments))
    except (McpnbError, ValueError) as exc:
        return _not_drawn(tool, exc, print)


async def apage_for_call(
    pool: Any, tool: ToolInfo, arguments: Mapping[str, Any], *, cell: CellUI | None = None
) -> AppView | None:
    if not _drawn_here(tool):
        return None
    in_cell = cell.run if cell is not None else _now
    try:
        tool, page = await _aread(pool, tool)
        return in_cell(lambda: _displayed(AppView(pool, tool, arguments, page=page, tool=tool)))
    except (McpnbError, ValueError) as exc:
        return _not_drawn(tool, exc, cell.print if cell is not None else print)


async def _aread(pool: Any, target: Any) -> tuple[ToolInfo, AppPage]:
    """The tool ``target`` names and its page, awaited (on any loop, mcpnb's own included)."""
    server, name = _named(target)
    known = target if isinstance(target, ToolInfo) else pool.cached_tool(server, name)
    tool = _found(server, name, known or await pool.atools(server))
    uri = _page_uri(tool)
    return tool, page_from(server, uri, list(await pool.aread(server, uri)))


def _now(fn: Callable[[], T]) -> T:
    return fn()


def _drawn_here(tool: ToolInfo) -> bool:
    return draws_page(tool) and current_kernel() is not None


def _displayed(view: AppView) -> AppView:
    from IPython.display import display

    display(view)
    return view


def _not_drawn(tool: ToolInfo, exc: BaseException, say: Callable[[str], Any]) -> None:
    say(f"{tool.server}.{tool.name}'s page (an MCP App) could not be drawn: {exc}")


def _is_task(outcome: Any) -> bool:
    from mcpnb.client.tasks import TaskHandle

    return isinstance(outcome, TaskHandle)


def _why(outcome: Any) -> str:
    """Why a call ended without a result, in the words ``tool-cancelled`` carries."""
    if hasattr(outcome, "cancelled") and callable(outcome.cancelled):  # a future
        outcome = None if outcome.cancelled() else outcome.exception()
    if outcome is None:
        return "the call was cancelled"
    if isinstance(outcome, KeyboardInterrupt):
        return "the call was interrupted"
    return f"the call failed: {outcome}" if str(outcome) else f"the call failed ({type(outcome).__name__})"


def _named(target: Any) -> tuple[str, str]:
    """(server, tool) of a result, a ToolInfo or ``"server.tool"``."""
    if isinstance(target, str):
        server, _, name = target.partition(".")
        return server, name
    if isinstance(target, ToolInfo):
        return target.server, target.name
    return target.server, target.tool


def _found(server: str, name: str, tools: Any) -> ToolInfo:
    """The tool named ``name``: ``tools`` is that tool already (the pool's cache had it) or the
    server's list to find it in."""
    if isinstance(tools, ToolInfo):
        return tools
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        raise ValueError(f"{server!r} has no tool {name!r}")
    return tool


def _page_uri(tool: ToolInfo) -> str:
    uri = view_uri(tool)
    if uri is None:
        raise ValueError(f"{tool.server}.{tool.name} has no page (no _meta.ui.resourceUri)")
    return uri


def _note_state(note: Note) -> dict[str, Any]:
    return {"kind": note.kind, "text": note.text, "url": note.url, "download": note.download}
