"""``%mcp explore``: pick a server and a tool, fill a form made from its input schema, call it.

The form is the same one elicitation uses (defaults, required marks, inline errors); a tool's
schema may be richer than an elicitation's, and what the form cannot show as a widget becomes a
JSON editor. Each Call runs on the kernel thread, like a cell would, and the result replaces the last.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

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
        self.status = w.HTML()
        self.result_view = w.HTML()
        self.result: Any = None
        self.form: Any = None
        for name, item in (("call", self.call_button), ("result", self.result_view), ("status", self.status)):
            item.add_class(f"mcpnb-explore-{name}")
        self.server_pick.observe(lambda _c: self._load_tools(), names="value")
        self.tool_pick.observe(lambda _c: self._load_form(), names="value")
        self.call_button.on_click(lambda _b: self.form.edits.then(self.call) if self.form else self.call())
        self.widget = w.VBox(
            [
                w.HBox([self.server_pick, self.tool_pick]),
                self.about,
                self.form_box,
                w.HBox([self.call_button, self.status]),
                self.result_view,
            ]
        )
        self.widget.add_class("mcpnb-explorer")
        self._load_tools()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    @property
    def tool(self) -> Any:
        return self._tools.get(self.tool_pick.value)

    def _load_tools(self) -> None:
        self._tools = {t.name: t for t in self.pool.tools(self.server_pick.value)}
        self.tool_pick.options = sorted(self._tools)
        self._load_form()

    def _load_form(self) -> None:
        from mcpnb.notebook.forms import ElicitationForm

        tool = self.tool
        self.result_view.value = self.status.value = ""
        if tool is None:
            self.form_box.children, self.about.value = (), "<i>this server has no tools</i>"
            return
        title = html.escape(tool.title or tool.name)
        self.about.value = f"<b>{title}</b><div>{html.escape(tool.description or '')}</div>"
        self.form = ElicitationForm(
            tool.input_schema, message=None, server=tool.server, on_done=lambda _o: None
        )
        inputs = [c.box for c in self.form.controls.values()]  # no header, buttons or status: ours
        self.form_box.children = (*inputs, self.form.status)

    def call(self) -> Any:
        """What the Call button does: validate, call, show the result (or the error)."""
        tool = self.tool
        arguments = self.form.check() if self.form is not None else {}
        if tool is None or arguments is None:
            return None
        self.status.value = "<i>calling…</i>"
        try:
            self.result = self.pool.call(tool.server, tool.name, arguments)
        except Exception as exc:  # shown where the person looks; the notebook keeps running
            self.status.value = (
                f"<span style='color:var(--jp-error-color1,#c62828)'>{html.escape(str(exc))}</span>"
            )
            return None
        self.status.value = (
            f"{'✗ error' if self.result.is_error else '✓'} in {self.result.elapsed * 1000:.0f} ms"
        )
        self.result_view.value = self.result._repr_mimebundle_()["text/html"]
        return self.result
