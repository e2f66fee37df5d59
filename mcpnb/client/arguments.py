"""Check call arguments against the tool's ``inputSchema`` before anything is sent.

A server's own error for a bad argument is often a stack trace or a generic "invalid params"; the
schema knows exactly which field is wrong, so we say it first and send nothing. A compiled check
(``jsonschema-rs``) passes good arguments in microseconds; ``jsonschema``, which words the errors a
person reads, is imported only when a call is wrong, never when the extension loads.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from mcpnb.client.errors import ArgumentsError, did_you_mean_text
from mcpnb.client.schemacheck import schema_key

_MAX_ERRORS = 3


def signature(tool: Any) -> str:
    """``add(a*: integer, b*: integer)``: what a person needs to fix a call, in one line."""
    props = tool.input_schema.get("properties") or {}
    required = set(tool.required)
    parts = []
    for name in tool.parameters:
        spec = props.get(name) if isinstance(props.get(name), dict) else {}
        kind = type_names(spec)
        parts.append(name + ("*" if name in required else "") + (f": {'|'.join(kind)}" if kind else ""))
    return f"{tool.name}({', '.join(parts)})"


def type_names(spec: dict[str, Any]) -> list[str]:
    """The JSON types ``spec`` names, through ``type`` lists and ``anyOf``/``oneOf`` options."""
    kind = spec.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in spec.get(key) or []:
            if isinstance(option, dict):
                found += [k for k in type_names(option) if k not in found]
    return found


def _coerce(args: Mapping[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """Typed ``007`` or ``true`` for a field that only takes text becomes the text that was typed."""
    out = dict(args)
    for key, raw in getattr(args, "raw", {}).items():
        spec = props.get(key)
        if not isinstance(spec, dict):
            continue
        kinds = type_names(spec)
        value = out[key]
        if "string" in kinds and not _matches_any(value, kinds):
            out[key] = raw
    return out


def _matches_any(value: Any, kinds: list[str]) -> bool:
    checks = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "string": isinstance(value, str),
    }
    return any(checks.get(k, False) for k in kinds)


def check_arguments(tool: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments to send (typed text coerced where the schema wants text), or an :class:`ArgumentsError`
    that names the field, the problem and the tool's signature."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    values = _coerce(args, props) if getattr(args, "raw", None) else dict(args)
    if props and not schema.get("additionalProperties"):
        for key in values:
            if key not in props:
                raise ArgumentsError(
                    f"{tool.server}.{tool.name}: unknown argument {key!r}{_line(args, key)}"
                    f"{did_you_mean_text(key, props)}\n  {signature(tool)}"
                )
    if _passes(tool, values):
        return values
    problems = _problems(values, schema)
    if problems:
        where = f"{tool.server}.{tool.name}"
        lines = [f"{where}: {_describe(e, args)}" for e in problems[:_MAX_ERRORS]]
        if len(problems) > _MAX_ERRORS:
            lines.append(f"… and {len(problems) - _MAX_ERRORS} more")
        raise ArgumentsError("\n".join([*lines, f"  {signature(tool)}", "  (nothing was sent)"]))
    return values


def _passes(tool: Any, values: dict[str, Any]) -> bool:
    """The fast verdict: the tool's compiled check, once per tool list (False: ask :func:`_problems`)."""
    check = tool.argument_check
    with contextlib.suppress(Exception):  # values it cannot read (a datetime, say): jsonschema decides
        return check is not None and check.is_valid(values)
    return False


def _problems(values: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    """The schema's complaints about ``values``, most useful first; none for a broken schema.

    Valid arguments (the common case: every call) never get here: the tool's compiled check
    (:attr:`~mcpnb.client.toolinfo.ToolInfo.argument_check`) passed them. ``jsonschema`` runs only
    to word the errors, or for a schema ``jsonschema-rs`` cannot compile.
    """
    if not schema:
        return []
    try:
        errors = list(_validator(schema_key(schema)).iter_errors(values))
    except Exception:  # a broken schema is the server's problem: let the server judge the call
        return []
    return sorted(errors, key=lambda e: (list(e.absolute_path), e.validator != "required"))


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)


def _line(args: Mapping[str, Any], key: str) -> str:
    line = getattr(args, "lines", {}).get(key)
    return f" (line {line})" if line else ""


def _describe(error: Any, args: Mapping[str, Any]) -> str:
    path = list(error.absolute_path)
    if error.validator == "required" and not path:
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required argument {missing!r}"
    if not path:
        return error.message
    field = str(path[0])
    sub = "".join(f"[{json.dumps(p)}]" for p in path[1:])
    message = error.message if len(error.message) <= 200 else error.message[:199] + "…"
    return f"argument {field!r}{sub}{_line(args, field)}: {message}"


def checked_arguments(tool: Any, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """:func:`check_arguments` for code (``pool.call``): every error also says nothing was sent."""
    try:
        return check_arguments(tool, arguments or {})
    except ArgumentsError as exc:
        text = str(exc)
        if "nothing was sent" not in text:
            text += "\n  (nothing was sent)"
        raise ArgumentsError(text) from None
