"""JSON Schema plumbing every provider conversion shares: walking subschemas, inlining ``$ref``,
the normal form of a tool's ``inputSchema``, and what "may be null" means.

Servers write input schemas in every draft and style (pydantic's ``anyOf [X, null]``, zod's draft-07
``$schema``, hand-written ``$defs``). Each provider accepts a different subset, so the conversions
start from one normal form: every non-recursive ``$ref`` replaced by what it points to (first, so a
root that is only a ``$ref`` keeps its target's properties), ``type: object``, ``properties`` present,
``additionalProperties: false`` unless the server said otherwise, and every array with ``items``.

The root holds no ``allOf``, ``anyOf``, ``oneOf`` or ``not``: OpenAI refuses them at the top level
even without strict mode, Anthropic refuses the first three, and either refuses the whole request, so
one such tool would break every tool sent with it. A root ``allOf`` is merged into the root
(properties and ``required`` united); the properties of ``anyOf``/``oneOf`` options join the root's,
not required, and what the options ask for is said in words in the root's ``description`` so a model
still learns it. The argument check before sending (against the server's own schema) enforces it.

An array without ``items`` gets ``items: {}`` (any value, which is what no ``items`` means): OpenAI
refuses an array schema without ``items`` even outside strict mode.
"""

from __future__ import annotations

import copy
import json
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
    schema, recursive = inline_refs(schema)
    schema = _with_items(schema)
    schema, notes = _lift_composition(schema)
    schema.pop("title", None)  # "ui_searchArguments": the generator's name for it, noise for a model
    if notes:
        schema["description"] = " ".join([str(schema.get("description") or ""), *notes]).strip()
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    schema.setdefault("additionalProperties", False)
    return schema, recursive


def _with_items(schema: Schema) -> Schema:
    """``schema`` with ``items: {}`` on every array that has no ``items``."""
    out = map_subschemas(schema, _with_items)
    kind = out.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in out:
        out["items"] = {}
    return out


_COMPOSITION = ("allOf", "anyOf", "oneOf", "not")


def _lift_composition(schema: Schema) -> tuple[Schema, list[str]]:
    """``schema`` without ``allOf``/``anyOf``/``oneOf``/``not``, and the sentences that say what they
    asked for and the merged schema cannot (see the module docstring)."""
    out = {k: v for k, v in schema.items() if k not in _COMPOSITION}
    notes: list[str] = []
    for part in schema.get("allOf") if isinstance(schema.get("allOf"), list) else []:
        if isinstance(part, dict):
            flat, more = _lift_composition(part)
            _merge_part(out, flat)
            notes += more
    for key, says in (("anyOf", "at least one of"), ("oneOf", "exactly one of")):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict)]
        if not options:
            continue
        props = out.setdefault("properties", {})
        for option in options:
            for name, sub in (option.get("properties") or {}).items():
                props.setdefault(name, sub)
        notes.append(f"Give {says}: {'; '.join(_say(o, props) for o in options)}.")
    if isinstance(schema.get("not"), dict):
        notes.append(f"Do not give: {_say(schema['not'], {})}.")
    return out, notes


def _merge_part(out: Schema, part: Schema) -> None:
    """An ``allOf`` part into the root: properties and ``required`` united, the rest only if unset."""
    for key, value in part.items():
        if key == "properties" and isinstance(value, dict):
            props = out.setdefault("properties", {})
            for name, sub in value.items():
                mine = props.get(name)
                props[name] = sub if mine is None or mine == sub else {"allOf": [mine, sub]}
        elif key == "required" and isinstance(value, list):
            out["required"] = [*(out.get("required") or []), *value]
            out["required"] = list(dict.fromkeys(out["required"]))
        else:
            out.setdefault(key, value)


def _say(option: Schema, props: dict[str, Any]) -> str:
    """One option in words: its required keys when that is all it asks, else its compact JSON."""
    lifted = all(props.get(k) == v for k, v in (option.get("properties") or {}).items())
    rest = set(option) - {"required", "properties", "type"}
    required = option.get("required")
    if lifted and not rest and option.get("type", "object") == "object" and required:
        return " and ".join(str(r) for r in required)
    return json.dumps(option, separators=(",", ":"))


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
