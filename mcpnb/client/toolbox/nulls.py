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

from mcpnb.client.schemarefs import Schema, deref

__all__ = ["allows_null", "drop_optional_nulls", "openapi_null"]


def allows_null(spec: Any, root: Schema | None = None, *, openapi: bool = True) -> bool:
    """Whether ``spec`` says in so many words that ``null`` is a valid value: a ``null`` type,
    ``const``/``enum`` value or ``anyOf`` option, or (``openapi``) OpenAPI 3.0's ``nullable: true``,
    which servers generated from OpenAPI write and Gemini's dialect speaks.

    (An empty schema accepts null too, but says nothing about it: that case is "no".) With
    ``openapi=False`` the JSON Schema reading alone, the one the argument check before sending
    makes (it refuses ``null`` under ``{"type": "string", "nullable": true}``).
    """
    spec = deref(spec, root or {}) if root is not None else spec
    if not isinstance(spec, dict):
        return False
    if openapi and spec.get("nullable") is True:
        return True
    kind = spec.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in spec and spec["const"] is None:
        return True
    if isinstance(spec.get("enum"), list) and None in spec["enum"]:
        return True
    return any(
        allows_null(option, root, openapi=openapi)
        for key in ("anyOf", "oneOf")
        for option in spec.get(key) or []
    )


def openapi_null(spec: Schema) -> Schema:
    """``spec`` with OpenAPI's ``nullable`` said the JSON Schema way (for a target that takes no
    ``nullable`` key and would drop it): ``nullable: true`` as a ``null`` type (or ``anyOf`` option),
    ``nullable: false`` (the default) gone."""
    if "nullable" not in spec:
        return spec
    out = {k: v for k, v in spec.items() if k != "nullable"}
    if spec["nullable"] is not True or allows_null(out):
        return out
    kind = out.get("type")
    if isinstance(kind, (str, list)) and not {"enum", "const", "anyOf", "oneOf"} & set(out):
        return {**out, "type": [*([kind] if isinstance(kind, str) else kind), "null"]}
    said = {k: out.pop(k) for k in ("description", "title") if k in out}
    return {**said, "anyOf": [out, {"type": "null"}]}


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
            # the JSON Schema reading: the argument check refuses null under OpenAPI's nullable
            if (
                item is None
                and key not in required
                and sub is not None
                and not allows_null(sub, root, openapi=False)
            ):
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
