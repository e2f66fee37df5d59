"""Response helpers: every tool answers with the same three shapes.

A person reading a notebook needs a readable text fallback, a client that renders tables needs
``structuredContent`` that matches the published ``outputSchema``, and a failure should be an
``isError`` result with a sentence, not a traceback. Keeping the shapes in one place keeps the ~40
tools consistent.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import types


class ProbeError(Exception):
    """A failure a person can act on; its message becomes the ``isError`` text and ``_meta.error``
    (whose ``code`` is the class name in snake_case: ``probe_error``, ``path_refused``, ...)."""


@dataclass(frozen=True)
class Payload:
    """What a tool's logic returns: structured data plus its text rendering."""

    data: dict[str, Any]
    text: str


def text(value: str) -> types.TextContent:
    """One text content block."""
    return types.TextContent(type="text", text=value)


def content_only(tools: list[Any]) -> list[Any]:
    """Mark ``tools`` as answering with content blocks alone (no outputSchema: the conformance
    fixtures answer as the suite expects, not with probe-kit's structured results)."""
    for fn in tools:
        fn.structured_output = False
    return tools


def ok_text(text: str, meta: Mapping[str, Any] | None = None) -> types.CallToolResult:
    """A plain text result (for tools that have nothing tabular to say)."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], _meta=dict(meta or {}) or None
    )


def ok_structured(
    schema: Mapping[str, Any],
    data: Mapping[str, Any],
    text_fallback: str,
    meta: Mapping[str, Any] | None = None,
) -> types.CallToolResult:
    """A structured result with its text fallback. ``schema`` is the tool's published output schema.

    It is not validated here (``jsonschema`` is slow to import inside a kernel); the contract tests
    and the SDK client validate every result against the schema.
    """
    del schema  # documented on the tool; kept in the signature so call sites say which schema they meet
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text_fallback)],
        structured_content=dict(data),
        _meta=dict(meta or {}) or None,
    )


def error_response(
    message: str, *, hint: str | None = None, code: str = "tool_error", **detail: Any
) -> types.CallToolResult:
    """An ``isError`` result: one sentence saying what went wrong, and optionally what to try.

    The same facts go in ``_meta.error`` for programs (the design's machine-readable detail):
    ``{"code": "path_refused", "message": ..., "hint": ...}`` plus any ``detail`` given.
    """
    text = message if hint is None else f"{message}\nHint: {hint}"
    error = {"code": code, "message": message, **({"hint": hint} if hint else {}), **detail}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=True, _meta={"error": error}
    )


def error_code(exc: BaseException) -> str:
    """A stable snake_case code for an error: its ``code`` attribute, else its class name."""
    given = getattr(exc, "code", None)
    if isinstance(given, str):
        return given
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()


def from_error(exc: BaseException) -> types.CallToolResult:
    """The ``isError`` result for a :class:`ProbeError` (or any exception a tool turns into one)."""
    return error_response(str(exc), code=error_code(exc))


def text_table(records: Sequence[Mapping[str, Any]], columns: Sequence[str], *, limit: int = 50) -> str:
    """A small fixed-width table, so the text fallback reads like the DataFrame a notebook would show."""
    if not records:
        return "(none)"
    rows = [[_cell(r.get(c)) for c in columns] for r in records[:limit]]
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    if len(records) > limit:
        out.append(f"… {len(records) - limit} more")
    return "\n".join(out)


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def structured(
    schema: Mapping[str, Any],
) -> Callable[[Callable[..., Any]], Callable[..., types.CallToolResult]]:
    """Turn a function returning :class:`Payload` into an MCP tool function.

    The wrapper keeps the original signature (so ``MCPServer`` derives the same input schema), maps
    :class:`ProbeError` to :func:`error_response`, and marks the schema for the server to publish.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., types.CallToolResult]:
        def finish(payload: Any) -> types.CallToolResult:
            if isinstance(payload, types.CallToolResult):
                return payload
            return ok_structured(schema, payload.data, payload.text)

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def wrapper(*args: Any, **kwargs: Any) -> types.CallToolResult:
                try:
                    return finish(await fn(*args, **kwargs))
                except ProbeError as exc:
                    return from_error(exc)

        else:

            @functools.wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> types.CallToolResult:  # type: ignore[misc]
                try:
                    return finish(fn(*args, **kwargs))
                except ProbeError as exc:
                    return from_error(exc)

        wrapper.__annotations__ = {**fn.__annotations__, "return": types.CallToolResult}
        wrapper.__signature__ = inspect.signature(fn).replace(  # type: ignore[attr-defined]
            return_annotation=types.CallToolResult
        )
        wrapper.output_schema = dict(schema)  # type: ignore[attr-defined]
        return wrapper

    return decorate
