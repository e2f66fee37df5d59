"""Checking a person's answers against the form's schema, with messages a person understands.

``jsonschema-rs`` checks, compiled once per form: microseconds, so answers given in code are checked
on the runtime loop without stalling other connections, and no form waits for ``jsonschema``'s
import (seconds where ``rfc3987-syntax`` is installed, as JupyterLab's own dependencies install it).
The formats forms use most (email, uri, date, date-time) are checked by our own rules, so a person
reads the same verdict, and the same hint, whichever validator version is installed.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

from mcpnb.client.schemacheck import compiled, schema_key
from mcpnb.client.schemacost import fans_out

if TYPE_CHECKING:
    from mcpnb.client.elicitation.fields import Field

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")

FORMAT_HINTS = {
    "email": "an email address, like name@example.com",
    "uri": "a full URL, like https://example.com/page",
    "date": "a date, like 2024-12-31",
    "date-time": "a date and time, like 2024-12-31T23:59:00Z",
}


def _check_email(value: object) -> bool:
    return not isinstance(value, str) or bool(_EMAIL.match(value))


def _check_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    from urllib.parse import urlsplit

    if any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return bool(parts.scheme and _SCHEME.match(parts.scheme) and (parts.netloc or parts.path))


def _check_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    from datetime import date

    if not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _check_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    from datetime import datetime

    if not _DATETIME.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_FORMATS = {"email": _check_email, "uri": _check_uri, "date": _check_date, "date-time": _check_datetime}


_CHECKERS = tuple(_FORMATS.items())


def _json_native(value: object) -> bool:
    """Whether a value is one JSON can carry (answers given in code may hold a ``date``, say)."""
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_native(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_native(v) for k, v in value.items())
    return False


def _fmt_num(x: Any) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


#: Messages for the validators that only need the schema's value said back.
_BOUNDS = {
    "pattern": "must match the pattern {val}",
    "minimum": "must be at least {num}",
    "maximum": "must be at most {num}",
    "exclusiveMinimum": "must be more than {num}",
    "exclusiveMaximum": "must be less than {num}",
    "multipleOf": "must be a multiple of {num}",
    "minLength": "must be at least {val} character{s}",
    "maxLength": "must be at most {val} character{s}",
    "minItems": "choose at least {val}",
    "maxItems": "choose at most {val}",
}


def _message(error: Any, schema: dict[str, Any]) -> str:
    """A sentence a person understands, for the keywords forms trip over most."""
    kind = error.kind.name
    detail = error.kind.as_dict()
    if kind == "format":
        fmt = detail.get("format", "")
        return f"expected {FORMAT_HINTS.get(fmt) or 'a valid ' + str(fmt)}"
    if kind in _BOUNDS:
        val = next(iter(detail.values()), "")
        number = _fmt_num(val) if isinstance(val, int | float) else val
        return _BOUNDS[kind].format(val=val, num=number, s="s" if val != 1 else "")
    if kind in ("enum", "const", "oneOf", "anyOf") and not list(error.instance_path):
        return "not one of the allowed values"
    if kind in ("oneOf", "anyOf"):  # titled choices are a list of consts: name them, as enum's message does
        consts = _choices(schema, list(error.schema_path))
        if consts:
            return f"{json.dumps(error.instance)} is not one of {' or '.join(json.dumps(c) for c in consts)}"
        return "not one of the allowed values"
    if kind == "type":
        return "expected " + " or ".join(map(str, detail.get("types", ())))
    return str(error.message)


def _choices(schema: Any, path: list[Any]) -> list[Any]:
    """The ``const`` of every branch of the ``oneOf``/``anyOf`` at ``path``; empty unless all have one."""
    node = schema
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return []
    if not isinstance(node, list) or not all(isinstance(b, dict) and "const" in b for b in node):
        return []
    return [b["const"] for b in node]


def _required_missing(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, str]:
    required = schema.get("required")
    if not isinstance(required, list):
        return {}
    return {r: "required" for r in required if isinstance(r, str) and r not in content}


def validate(schema: Any, content: Any) -> dict[str, str]:
    """Field name → first problem, ``""`` for problems of the whole answer; empty when valid.

    A schema that cannot be compiled (unknown types, bad patterns) is only checked for required
    fields: the server validates again, and a person must never be stuck in front of a form. So is
    one that fans out (:func:`~mcpnb.client.schemacost.fans_out`; MCP asks for flat fields, a
    hostile server may send 2**40 paths): over an answer that fails it the validator followed each
    path holding the GIL, and the kernel froze, on the runtime loop with every connection.
    """
    if not isinstance(schema, dict):
        return {}
    if not isinstance(content, dict):
        return {"": "expected an object"}
    foreign = {k: _not_json(schema, k, v) for k, v in content.items() if not _json_native(v)}
    readable = {k: v for k, v in content.items() if k not in foreign}
    if fans_out(schema):
        return {**_required_missing(schema, content), **foreign}
    try:
        check = compiled(schema_key(schema), checkers=_CHECKERS)
        if not foreign and check.is_valid(readable):
            return {}
        found = sorted(check.iter_errors(readable), key=lambda e: len(e.instance_path))
    except Exception:
        return {**_required_missing(schema, content), **foreign}
    return _worded(found, schema, content, foreign)


def _not_json(schema: dict[str, Any], name: str, value: object) -> str:
    """What to say of a value JSON cannot carry: the field's type, and the Python type given."""
    fields = schema.get("properties")
    prop = fields.get(name) if isinstance(fields, dict) else None
    types = prop.get("type") if isinstance(prop, dict) else None
    wanted = " or ".join(map(str, types)) if isinstance(types, list) else types or "a JSON value"
    return f"expected {wanted}, not a {type(value).__name__}"


def _worded(
    found: list[Any], schema: dict[str, Any], content: dict[str, Any], first: dict[str, str]
) -> dict[str, str]:
    """One message per field from the validator's errors, shallowest first, ``first`` ahead of them."""
    errors = dict(first)
    for error in found:
        path = list(error.instance_path)
        if error.kind.name == "required" and not path:
            for name, msg in _required_missing(schema, content).items():
                errors.setdefault(name, msg)
            continue
        key = str(path[0]) if path else ""
        if key in errors:
            continue
        msg = _message(error, schema)
        if len(path) > 1:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])
            msg = f"at {where.lstrip('.')}: {msg}"
        errors[key] = msg
    return errors


def validate_field(f: Field, value: Any, root: Any = None) -> str | None:
    """The problem with one field's value, if any (used to re-ask on the text fallback).

    ``root`` is the whole schema, so local ``$ref``s into ``$defs`` still resolve.
    """
    defs = {k: root[k] for k in ("$defs", "definitions") if isinstance(root, dict) and k in root}
    schema = {**defs, "type": "object", "properties": {f.name: f.schema}}
    return validate(schema, {f.name: value}).get(f.name)


def parse_number(text: str, *, whole: bool) -> tuple[Any, str | None]:
    """(value, problem) for a number as a person types it: an integer stays exact however long,
    ``1e3`` is a whole number, ``12abc`` is not a number (a number box quietly read it as 12)."""
    from decimal import Decimal, InvalidOperation

    text = text.strip()
    try:
        return int(text), None
    except ValueError:
        pass
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite():
        return None, f"not a number: {text!r}" if not whole else f"not a whole number: {text!r}"
    if whole:
        if number != number.to_integral_value():
            return None, f"not a whole number: {text!r}"
        return int(number), None
    if math.isinf(float(number)):
        return None, f"too large for a number: {text!r}"
    return float(number), None
