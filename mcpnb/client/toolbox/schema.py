"""JSON Schema plumbing every provider conversion shares: walking subschemas, inlining ``$ref``,
the normal form of a tool's ``inputSchema``, and what "may be null" means.

Servers write input schemas in every draft and style (pydantic's ``anyOf [X, null]``, zod's draft-07
``$schema``, hand-written ``$defs``). Each provider accepts a different subset, so the conversions
start from one normal form: ``type: object``, ``properties`` present, ``additionalProperties: false``
unless the server said otherwise, and every non-recursive ``$ref`` replaced by what it points to.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mcpnb.client.schemarefs import Schema, deref, pointer

#: Keywords whose value is a map of subschemas, a list of subschemas, or one subschema.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "additionalItems", "unevaluatedProperties", "unevaluatedItems",
)  # fmt: skip


def map_subschemas(schema: Schema, fn: Callable[[Schema], Schema]) -> Schema:
    """A copy of ``schema`` with ``fn`` applied to each direct subschema (never to data such as
    ``enum``, ``const`` or ``default``, which may hold dicts that only look like schemas)."""
    return map_subschemas_at(schema, lambda sub, _where: fn(sub))


def map_subschemas_at(schema: Schema, fn: Callable[[Schema, str], Schema]) -> Schema:
    """:func:`map_subschemas`, telling ``fn`` where each subschema sits (``anyOf[1]``, ``items`` …)."""
    out = dict(schema)
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {k: fn(v, f"{key}.{k}") if isinstance(v, dict) else v for k, v in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [fn(v, f"{key}[{i}]") if isinstance(v, dict) else v for i, v in enumerate(out[key])]
    for key in _SCHEMA_ONE:
        value = out.get(key)
        if isinstance(value, dict):
            out[key] = fn(value, key)
        elif key == "items" and isinstance(value, list):  # draft-07 tuple form
            out[key] = [fn(v, f"items[{i}]") if isinstance(v, dict) else v for i, v in enumerate(value)]
    return out


def inline_refs(schema: Schema) -> tuple[Schema, bool]:
    """``schema`` with every local ``$ref`` replaced by its target, and whether a recursive one stayed.

    Sibling keywords next to a ``$ref`` (a ``description``, a ``default``) win over the target's. A
    reference back into itself cannot be inlined: it stays, and so do ``$defs``/``definitions``.
    """
    recursive = False

    def walk(node: Schema, stack: tuple[str, ...]) -> Schema:
        nonlocal recursive
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = pointer(schema, ref)
            if target is None:
                return map_subschemas(node, lambda s: walk(s, stack))
            if ref in stack:
                recursive = True
                return dict(node)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**walk(target, (*stack, ref)), **map_subschemas(siblings, lambda s: walk(s, stack))}
            return merged
        return map_subschemas(node, lambda s: walk(s, stack))

    out = walk(schema, ())
    if not recursive:
        out.pop("$defs", None)
        out.pop("definitions", None)
    return out, recursive


def normal_form(input_schema: Any) -> tuple[Schema, bool]:
    """A tool's ``inputSchema`` as every conversion starts from it (a deep copy; the tool keeps its own).

    Returns the schema and whether it is recursive (a ``$ref`` that could not be inlined).
    """
    schema: Schema = copy.deepcopy(input_schema) if isinstance(input_schema, dict) else {}
    schema.pop("$schema", None)
    schema.pop("title", None)  # "ui_searchArguments": the generator's name for it, noise for a model
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    schema.setdefault("additionalProperties", False)
    return inline_refs(schema)


def allows_null(spec: Any, root: Schema | None = None) -> bool:
    """Whether ``spec`` says in so many words that ``null`` is a valid value.

    (An empty schema accepts null too, but says nothing about it: that case is "no".)
    """
    spec = deref(spec, root or {}) if root is not None else spec
    if not isinstance(spec, dict):
        return False
    kind = spec.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in spec and spec["const"] is None:
        return True
    if isinstance(spec.get("enum"), list) and None in spec["enum"]:
        return True
    return any(allows_null(option, root) for key in ("anyOf", "oneOf") for option in spec.get(key) or [])


def drop_optional_nulls(value: Any, spec: Any, root: Schema) -> Any:
    """``value`` without the ``null`` a model sent for an optional field that does not take null.

    Strict function calling makes every field required and nullable, so "not given" arrives as
    ``null``; a non-strict model does the same often enough. Dropping it lets the server's default
    apply instead of failing the schema. Recurses through nested objects and arrays.
    """
    spec = deref(spec, root)
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
