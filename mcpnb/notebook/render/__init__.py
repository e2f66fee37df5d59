"""Rich display for mcpnb objects: results, tool listings, the status table, transcripts, tasks.

Every bundle carries ``text/plain`` (terminal IPython, logs) and ``text/html`` (JupyterLab), plus the
first image of a result under its own mime type. Only the standard library is imported here; pandas
loads when a table is actually drawn, so ``import mcpnb`` stays fast.

Client objects do not import this package: their ``_repr_mimebundle_`` goes through
:mod:`mcpnb.client.display`, which calls :func:`bundle` when a frontend asks.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from mcpnb.client.frames import NotTabularError, to_dataframe
from mcpnb.client.printable import printable
from mcpnb.client.toolinfo import ToolList
from mcpnb.notebook.render.defaults import DEFAULTS, RenderDefaults
from mcpnb.notebook.render.result import result_bundle
from mcpnb.notebook.render.status_table import status_bundle
from mcpnb.notebook.render.tool_list import tools_bundle

#: Client types by class name -> ``module:function`` that draws them (imported when first shown).
RENDERERS = {
    "ToolResult": "mcpnb.notebook.render.result:result_bundle",
    "StatusTable": "mcpnb.notebook.render.status_table:status_bundle",
    "ToolList": "mcpnb.notebook.render.tool_list:tools_bundle",
    "ToolInfo": "mcpnb.notebook.render.tool_card:tool_bundle",
    "Transcript": "mcpnb.notebook.render.transcript:transcript_bundle",
    "TaskHandle": "mcpnb.notebook.taskview:handle_bundle",
    "Toolbox": "mcpnb.notebook.render.function_table:toolbox_bundle",
    "ToolSpecs": "mcpnb.notebook.render.function_table:specs_bundle",
    "Resolution": "mcpnb.notebook.render.requirements_table:resolution_bundle",
    "ResourceContents": "mcpnb.notebook.render.resource:contents_bundle",
    "PromptMessages": "mcpnb.notebook.render.resource:messages_bundle",
    "LoadedSkill": "mcpnb.notebook.render.skill:skill_bundle",
}


def bundle(obj: Any) -> dict[str, Any]:
    """The display bundle of a client object (what :func:`mcpnb.client.display.mimebundle` asks for).

    A renderer that fails on what a server sent costs the drawing, never the data: the object is
    shown plainly with what went wrong (a resource with odd Markdown lost its whole display). The
    ``text/plain`` is made :func:`printable` here once more: a renderer that let a server's escape
    sequence through (or an error message that quotes one) still cannot reach a terminal with it."""
    shown = _drawn(obj)
    if isinstance(shown.get("text/plain"), str):
        shown["text/plain"] = printable(shown["text/plain"])
    return shown


def _drawn(obj: Any) -> dict[str, Any]:
    for cls in type(obj).__mro__:
        target = RENDERERS.get(cls.__name__)
        if target is not None:
            module, _, function = target.partition(":")
            try:
                return getattr(import_module(module), function)(obj)
            except Exception as exc:
                return _undrawn(obj, exc)
    return {"text/plain": repr(obj)}


#: Characters of an object's repr its plain fallback shows (a blob's base64 stays out of the file).
UNDRAWN_CHARS = 2000


def _undrawn(obj: Any, exc: Exception) -> dict[str, Any]:
    """``obj`` by its own repr (mcpnb's are clipped), else as Python shows any object, cut short,
    and why it is not drawn."""
    from mcpnb.notebook.render.html import esc

    try:
        plain = repr(obj)
    except Exception:  # the repr may be the renderer that failed
        plain = object.__repr__(obj)
    if len(plain) > UNDRAWN_CHARS:
        plain = f"{plain[:UNDRAWN_CHARS]}… ({len(plain) - UNDRAWN_CHARS:,} more characters)"
    note = f"mcpnb could not draw this {type(obj).__name__} ({type(exc).__name__}: {exc}); its data is intact"
    return {"text/plain": f"{plain}\n{note}", "text/html": f"<pre>{esc(plain)}</pre><div>{esc(note)}</div>"}


__all__ = [
    "DEFAULTS",
    "RENDERERS",
    "NotTabularError",
    "RenderDefaults",
    "ToolList",
    "bundle",
    "result_bundle",
    "status_bundle",
    "to_dataframe",
    "tools_bundle",
]
