"""What a model's ``null`` means: "not given", unless the schema says ``null`` is a value.

OpenAI's strict function calling makes every field required and writes an optional one as a union
with ``null`` (a non-strict model sends ``null`` for "no value" often enough too). The server's
schema says otherwise: an optional field with a default, which ``null`` fails. So before the
argument check, a ``null`` where the server's schema does not take one is dropped, at every depth:
inside nested objects and arrays, and inside the option of an ``anyOf``/``oneOf`` the value is
shaped like (pydantic's ``page: Page | None``, ``filters: list[Filter] | None``, ``Cat | Dog``).
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.nullable import allows_null, openapi_null
from mcpnb.client.schemarefs import Schema, deref

__all__ = ["allows_null", "drop_optional_nulls", "openapi_null"]


def drop_optional_nulls(value: Any, spec: Any, root: Schema) -> Any:
    """``value`` without the ``null`` a model sent for an optional field that does not take null;
    the server's default applies instead of the schema failing."""
    spec = _shaped_like(value, deref(spec, root), root)
    if isinstance(value, dict):
        props = spec.get("properties") if isinstance(spec.get("properties"), dict) else {}
        required = set(spec.get("required") or [])
        out = {}
        for key, item in value.items():
            sub = props.get(key)
            if item is None and key not in required and sub is not None and not allows_null(sub, root):
                continue
            out[key] = drop_optional_nulls(item, sub, root) if sub is not None else item
        return out
    if isinstance(value, list) and isinstance(spec.get("items"), dict):
        return [drop_optional_nulls(item, spec["items"], root) for item in value]
    return value


def _shaped_like(value: Any, spec: Any, root: Schema) -> Schema:
    """The schema that says what ``value``'s fields are: ``spec`` itself, or the one option of its
    ``anyOf``/``oneOf`` (``$ref``s followed) that an object (an array) of this shape can be; ``{}``
    when none or several can (then nothing is dropped: the argument check says what is wrong)."""
    if not isinstance(spec, dict):
        return {}
    options = [o for key in ("anyOf", "oneOf") for o in spec.get(key) or []]
    if not options or not isinstance(value, dict | list) or _fields_of(spec, value):
        return spec
    fitting = [o for o in (deref(o, root) for o in options) if isinstance(o, dict) and _fields_of(o, value)]
    if len(fitting) > 1 and isinstance(value, dict):  # Cat | Dog: the one whose fields these are
        fitting = [o for o in fitting if _keys_fit(o, value)]
    return _shaped_like(value, fitting[0], root) if len(fitting) == 1 else {}


def _fields_of(spec: Schema, value: dict | list) -> bool:
    """Whether ``spec`` describes ``value``'s own fields (an object's properties, an array's items)."""
    return isinstance(spec.get("properties" if isinstance(value, dict) else "items"), dict)


def _keys_fit(spec: Schema, value: dict) -> bool:
    """Every key of ``value`` is a property of ``spec``, and its ``const`` ones (a discriminator,
    ``kind: "cat"``) match."""
    props = spec["properties"]
    return all(
        key in props and (not isinstance(props[key], dict) or props[key].get("const", item) == item)
        for key, item in value.items()
    )
