"""OpenAPI 3.0's ``nullable: true``, which servers generated from OpenAPI write, read as the
JSON Schema a validator knows: the argument check before sending, the toolbox's specs and its
signatures all take ``null`` where the server's schema says it may be null, and none refuses what
another advertised (a strict OpenAI spec said ``["string", "null"]`` and the check then refused
the model's ``null``).
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.schemarefs import Schema, read_through

#: The keywords whose value maps names to schemas (a property named ``nullable`` is no keyword).
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
#: The keywords whose value is data, never a schema: left as they are.
_DATA = frozenset({"default", "const", "enum", "examples", "example"})


def allows_null(spec: Any, root: Schema | None = None, *, openapi: bool = True) -> bool:
    """Whether ``spec`` says in so many words that ``null`` is a valid value: a ``null`` type,
    ``const``/``enum`` value or ``anyOf`` option, or (``openapi``) OpenAPI 3.0's ``nullable: true``,
    which servers generated from OpenAPI write and Gemini's dialect speaks.

    (An empty schema accepts null too, but says nothing about it: that case is "no".) With
    ``openapi=False`` the JSON Schema reading alone.
    """
    done: dict[str, bool] = {}

    def read(spec: Any, inside: frozenset[str]) -> bool:
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
        return any(takes(option, inside) for key in ("anyOf", "oneOf") for option in spec.get(key) or [])

    def takes(spec: Any, inside: frozenset[str]) -> bool:
        # a reference followed once, and not into itself (a server's "A is an A or null")
        if root is None:
            return read(spec, inside)
        return read_through(spec, root, read, lambda _ref: False, inside, done)

    return takes(spec, frozenset())


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


def openapi_nulls(schema: Any) -> Any:
    """``schema`` with :func:`openapi_null` applied at every depth (properties, items, options,
    ``$defs``); the same object when it says ``nullable`` nowhere."""
    if not _mentions(schema):
        return schema
    return _walk(schema)


def _mentions(node: Any) -> bool:
    if isinstance(node, dict):
        return "nullable" in node or any(_mentions(v) for k, v in node.items() if k not in _DATA)
    return isinstance(node, list) and any(_mentions(v) for v in node)


def _walk(node: Any) -> Any:
    if isinstance(node, list):
        return [_walk(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: value
        if key in _DATA
        else {name: _walk(sub) for name, sub in value.items()}
        if key in _SCHEMA_MAPS and isinstance(value, dict)
        else _walk(value)
        for key, value in node.items()
    }
    return openapi_null(out)
