"""Checking a person's answers against the form's schema, with messages a person understands.

``jsonschema`` does the checking (imported on first use, or ahead by :func:`prewarm`); the formats
forms use most (email, uri, date, date-time) are checked by our own rules so results do not vary with
whichever optional format packages happen to be installed.
"""

from __future__ import annotations

import contextlib
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

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


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    """Our own checkers: jsonschema's depend on optional packages, so results would vary by install."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    checker.checks("email")(_check_email)
    checker.checks("uri")(_check_uri)
    checker.checks("date")(_check_date)
    checker.checks("date-time")(_check_datetime)
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
    errors: dict[str, str] = {}
    try:
        validator = _validator(json.dumps(schema, sort_keys=True, default=str))
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
