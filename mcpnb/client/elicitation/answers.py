"""Checking a person's answers against the form's schema, with messages a person understands.

Valid answers (the common case) are recognised by ``jsonschema-rs``, compiled; ``jsonschema`` only
words the problems of invalid ones. Its first import can take seconds (with ``rfc3987-syntax``
installed, as JupyterLab's own dependencies install it, it compiles a grammar), and answers given in
code are checked on the runtime loop, where seconds would stall every connection. It is imported
on first use, or ahead by :func:`prewarm` while a person reads a form. The formats forms use most
(email, uri, date, date-time) are checked by our own rules so results do not vary with whichever
optional format packages happen to be installed.
"""

from __future__ import annotations

import contextlib
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mcpnb.client.schemacheck import compiled, schema_key

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


def _format_keys(node: Any) -> int:
    """How many ``format`` keys a schema holds, at any depth."""
    if isinstance(node, dict):
        return sum((key == "format") + _format_keys(value) for key, value in node.items())
    if isinstance(node, list):
        return sum(_format_keys(item) for item in node)
    return 0


def _passes(schema: dict[str, Any], content: dict[str, Any]) -> bool:
    """The fast verdict, without ``jsonschema``: False means "let jsonschema say what is wrong".

    Formats are ours, so they are checked here, for a form's own fields; a format anywhere else
    (nested, or a field named ``format``) leaves the verdict to the full check.
    """
    try:
        if not compiled(schema_key(schema), formats=False).is_valid(content):
            return False
    except Exception:  # a schema jsonschema-rs refuses, values it cannot read: the full check decides
        return False
    fields = schema.get("properties")
    formats = {
        name: prop["format"]
        for name, prop in (fields.items() if isinstance(fields, dict) else ())
        if isinstance(prop, dict) and isinstance(prop.get("format"), str)
    }
    if len(formats) != _format_keys(schema):
        return False
    return all(_FORMATS.get(fmt, _any)(content[name]) for name, fmt in formats.items() if name in content)


def _any(value: object) -> bool:
    return True


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    """Our own checkers: jsonschema's depend on optional packages, so results would vary by install."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, check in _FORMATS.items():
        checker.checks(name)(check)
    return checker


@lru_cache(maxsize=128)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=_format_checker())


_prewarmed = False


def prewarm() -> None:
    """Import jsonschema on a daemon thread while the person reads the form.

    The import can take seconds (``rfc3987-syntax`` compiles a grammar); paying it on the Accept click
    would make the form feel broken.
    """
    import threading

    global _prewarmed
    if _prewarmed:
        return
    _prewarmed = True

    def load() -> None:
        with contextlib.suppress(Exception):  # validation reports its own problems later
            _format_checker()

    threading.Thread(target=load, name="mcpnb-jsonschema-import", daemon=True).start()


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


def _message(error: Any) -> str:
    """A sentence a person understands, for the validators forms trip over most."""
    v, val = error.validator, error.validator_value
    if v == "format":
        return f"expected {FORMAT_HINTS.get(val, val)}"
    if v in _BOUNDS:
        number = _fmt_num(val) if isinstance(val, int | float) else val
        return _BOUNDS[v].format(val=val, num=number, s="s" if val != 1 else "")
    if v in ("enum", "const", "oneOf", "anyOf") and not error.path:
        return "not one of the allowed values"
    if v == "type":
        return f"expected {val if isinstance(val, str) else ' or '.join(map(str, val))}"
    return str(error.message)


def _required_missing(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, str]:
    required = schema.get("required")
    if not isinstance(required, list):
        return {}
    return {r: "required" for r in required if isinstance(r, str) and r not in content}


def validate(schema: Any, content: Any) -> dict[str, str]:
    """Field name → first problem, ``""`` for problems of the whole answer; empty when valid.

    A schema ``jsonschema`` cannot use (unknown types, bad patterns) is only checked for required
    fields: the server validates again, and a person must never be stuck in front of a form.
    """
    if not isinstance(schema, dict):
        return {}
    if not isinstance(content, dict):
        return {"": "expected an object"}
    if _passes(schema, content):
        return {}
    return _worded(schema, content)


def _worded(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, str]:
    """:func:`validate` by ``jsonschema``, whose errors say which keyword failed and where."""
    errors: dict[str, str] = {}
    try:
        validator = _validator(schema_key(schema))
        found = sorted(validator.iter_errors(content), key=lambda e: (len(e.path), str(e.path)))
    except Exception:
        return _required_missing(schema, content)
    for error in found:
        if error.validator == "required" and not error.path:
            for name, msg in _required_missing(schema, content).items():
                errors.setdefault(name, msg)
            continue
        path = list(error.absolute_path)
        key = str(path[0]) if path else ""
        if key in errors:
            continue
        msg = _message(error)
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
