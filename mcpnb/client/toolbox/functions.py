"""One MCP tool as a plain Python function: real signature, docstring, checked arguments.

A real function (not an object with ``__call__``) because that is what ``help()``, IPython's ``f?``
and its keyword-argument completion understand. It checks its arguments against the tool's
``inputSchema`` before anything is sent (the same check ``%mcp call`` makes) and returns the
:class:`~mcpnb.client.results.ToolResult`; ``f.acall(...)`` is the coroutine twin for ``await``.
"""

from __future__ import annotations

import inspect
import keyword
import re
from typing import TYPE_CHECKING, Any, Protocol

from mcpnb.client.results import ToolResult
from mcpnb.client.toolbox.schema import normal_form
from mcpnb.client.toolbox.signatures import Param, docstring, params, signature

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.toolinfo import ToolInfo


class ToolFunction(Protocol):
    """What :func:`make_function` returns: a function with the tool it calls attached."""

    tool: ToolInfo
    server: str
    flat_name: str
    params: list[Param]

    def __call__(self, *args: Any, **kwargs: Any) -> ToolResult: ...

    async def acall(self, *args: Any, **kwargs: Any) -> ToolResult: ...

    def arguments(self, *args: Any, **kwargs: Any) -> dict[str, Any]: ...


class Binder:
    """Turns ``f(*args, **kwargs)`` into the argument dict the server expects (keys as in its schema)."""

    def __init__(self, name: str, found: list[Param]) -> None:
        self.name = name
        self.params = found
        self.positional = [p for p in found if not p.keyword_only]
        self.by_name = {p.name: p for p in found} | {p.key: p for p in found}

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if len(args) > (n := len(self.positional)):
            raise TypeError(
                f"{self.name}() takes {n} positional argument{'s' if n != 1 else ''} "
                f"but {len(args)} {'was' if len(args) == 1 else 'were'} given"
            )
        values: dict[str, Any] = {}
        for param, value in zip(self.positional, args, strict=False):
            values[param.key] = value
        for name, value in kwargs.items():
            param = self.by_name.get(name)
            key = param.key if param is not None else name  # unknown: the schema check says so
            if key in values:
                raise TypeError(f"{self.name}() got multiple values for argument {name!r}")
            values[key] = value
        # None for an optional parameter that does not take null means "not given": the server's
        # default applies (the signature shows None as the default of such parameters)
        nullable = {p.key for p in self.params if p.nullable or p.required}
        return {k: v for k, v in values.items() if v is not None or k in nullable or k not in self.by_name}


def python_name(tool_name: str) -> str:
    """``get-sum`` → ``get_sum``: the tool's name as an identifier, for ``__name__`` (and the
    attribute ``toolbox.short.get_sum``); a keyword gets PEP 8's trailing underscore (``class_``),
    as ``toolbox.short.class`` cannot be written."""
    name = re.sub(r"\W", "_", tool_name) or "tool"
    if keyword.iskeyword(name):
        return name + "_"
    return "_" + name if name[0].isdigit() else name


def returns_text(tool: ToolInfo) -> str:
    out = tool.output_schema
    shape = ""
    if isinstance(out, dict):
        props = out.get("properties") if isinstance(out.get("properties"), dict) else None
        shape = f" Structured content: an object with {', '.join(props)}." if props else ""
    return (
        f"ToolResult: what {tool.server}.{tool.name} returned (.data the structured content, .text the "
        f"text, .is_error whether the tool failed).{shape}"
    )


def make_function(pool: Pool, tool: ToolInfo) -> ToolFunction:
    """The function for ``tool`` on ``pool``: calling it sends ``tools/call`` after the schema check."""
    from mcpnb.client.arguments import check_arguments

    schema, _ = normal_form(tool.input_schema)
    found = params(schema)
    name = python_name(tool.name)
    binder = Binder(name, found)
    doc = docstring(tool.description or tool.title or "", found, returns_text(tool))

    def arguments(*args: Any, **kwargs: Any) -> dict[str, Any]:
        """The arguments a call with these values would send, checked (``ArgumentsError`` if not)."""
        return check_arguments(tool, binder.bind(args, kwargs))

    def call(*args: Any, **kwargs: Any) -> ToolResult:
        return pool.call(tool.server, tool.name, arguments(*args, **kwargs))

    async def acall(*args: Any, **kwargs: Any) -> ToolResult:
        return await pool.acall(tool.server, tool.name, arguments(*args, **kwargs))

    return dressed(call, acall, arguments, tool, found, doc)


def annotations_of(sig: inspect.Signature) -> dict[str, Any]:
    """``__annotations__`` that say what ``sig`` says: ``typing.get_type_hints``, pydantic's
    ``validate_call`` and the SDKs' tool decorators (``anthropic.beta_tool``) read them, not the
    signature, and the ``(*args, **kwargs)`` of the function underneath is no tool's."""
    found = {
        p.name: p.annotation for p in sig.parameters.values() if p.annotation is not inspect.Parameter.empty
    }
    if sig.return_annotation is not inspect.Signature.empty:
        found["return"] = sig.return_annotation
    return found


def dressed(
    call: Any, acall: Any, arguments: Any, tool: ToolInfo, found: list[Param], doc: str
) -> ToolFunction:
    """``call`` as a :class:`ToolFunction`: named, documented and signed as the tool, with its
    coroutine twin ``acall`` and its argument check ``arguments`` attached."""
    name = python_name(tool.name)
    sig = signature(found, ToolResult)
    for fn, doc_text in ((call, doc), (acall, f"Coroutine twin of {name}(): await it.\n\n{doc}")):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc_text
        fn.__signature__ = sig
        fn.__annotations__ = annotations_of(sig)
    arguments.__signature__ = sig.replace(return_annotation=dict[str, Any])
    arguments.__annotations__ = annotations_of(arguments.__signature__)
    attrs = {"tool": tool, "server": tool.server, "flat_name": tool.flat_name, "params": found}
    for key, value in attrs.items():
        setattr(call, key, value)
        setattr(acall, key, value)
    call.acall = acall
    call.arguments = arguments
    return call  # type: ignore[no-any-return]
