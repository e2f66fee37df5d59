"""OpenAI strict mode (Structured Outputs for function calling) applied to an input schema.

OpenAI documents what ``strict: true`` takes (guides "Function calling" → strict mode, and
"Structured Outputs" → supported schemas): ``additionalProperties: false`` on every object, every
property listed in ``required`` (an optional field becomes required and nullable), a root that is an
object and not ``anyOf``, the keywords ``type``, ``properties``, ``required``, ``items``, ``enum``,
``const``, ``anyOf``, ``$ref``/``$defs``, ``description``, ``title``, string ``pattern`` and ``format``
(date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid), number ``minimum``/``maximum``/
``exclusive*``/``multipleOf``, array ``minItems``/``maxItems``; ``allOf``, ``not``, ``if``/``then``/
``else``, ``dependentRequired`` and ``dependentSchemas`` are not supported; at most 10 levels of
nesting and 5000 properties.

What cannot be expressed blocks strict mode for that tool, and :func:`make_strict` says which
keyword and where: an open object (``additionalProperties`` true or a schema, or an object without
``properties``: strict mode needs every key declared), ``patternProperties``, the unsupported
composition keywords, tuple arrays, and a schema with no ``type`` (``{}``, a lone ``description``,
the ``items: {}`` the normal form gives an array without items): OpenAI answers "schema must have a
'type' key" unless the node says what it is some other way (``anyOf``, ``$ref``, ``enum``,
``const``). Every other keyword is removed, since strict mode refuses what it does not list (a
server's ``x-`` extension included): the constraints among them (``minLength``, ``uniqueItems``, an
unlisted ``format`` …) and a ``default`` are said in the ``description`` instead ("(maxLength: 2)"),
so the model still reads them (a country code of two letters, what null means for an optional
field). The argument check before sending still enforces every constraint, so the model hears about
a violation as an error result. ``oneOf`` becomes ``anyOf`` for the same reason.
"""

from __future__ import annotations

from mcpnb.client.toolbox.nulls import allows_null, openapi_null
from mcpnb.client.toolbox.schema import Schema, described, in_words, map_subschemas_at

_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
#: The keywords strict mode takes. Any other is refused ("In context=('properties', 'x'),
#: 'propertyNames' is not permitted"), a server's ``x-`` extension or OpenAPI's ``nullable`` as much
#: as ``minLength``, so the rest are removed (the constraints among them said in words; ``nullable:
#: true`` as a ``null`` type first, :func:`~mcpnb.client.toolbox.nulls.openapi_null`).
_KEPT = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "oneOf", "$ref", "$defs", "definitions", "description", "title", "pattern", "format", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip
_BLOCKERS = {
    "allOf": "not supported in strict mode",
    "not": "not supported in strict mode",
    "if": "not supported in strict mode",
    "then": "not supported in strict mode",
    "else": "not supported in strict mode",
    "dependentRequired": "not supported in strict mode",
    "dependentSchemas": "not supported in strict mode",
    "patternProperties": "strict mode needs every key declared in properties",
    "unevaluatedProperties": "strict mode needs every key declared in properties",
    "prefixItems": "tuple arrays are not supported in strict mode",
    "additionalItems": "tuple arrays are not supported in strict mode",
    "contains": "not supported in strict mode",
}
#: Any one of these says what a value is; a schema with none of them has no type for strict mode.
_TYPED = ("type", "anyOf", "oneOf", "$ref", "enum", "const")
MAX_DEPTH = 10
MAX_PROPERTIES = 5000


class NotStrict(Exception):
    """Why a schema cannot be strict: the keyword and where it sits."""

    def __init__(self, keyword: str, path: str, why: str) -> None:
        self.keyword, self.path, self.why = keyword, path, why
        self.short = f"{keyword} at {path or 'the top level'}"
        super().__init__(f"{keyword!r} at {path or 'the top level'} ({why})")


def make_strict(schema: Schema) -> tuple[Schema, NotStrict | None]:
    """The strict form of a normalised input schema, or the schema unchanged and why it cannot be."""
    if "anyOf" in schema or "oneOf" in schema:
        return schema, NotStrict("anyOf", "", "the root of a strict schema must be a plain object")
    counter = [0]
    try:
        return _strict(schema, "", 0, counter), None
    except NotStrict as blocked:
        return schema, blocked


def _strict(spec: Schema, path: str, depth: int, counter: list[int]) -> Schema:
    spec = openapi_null(spec)  # refused as a keyword, so said as a null type
    for key, why in _BLOCKERS.items():
        if key in spec and not (key == "unevaluatedProperties" and spec[key] is False):
            raise NotStrict(key, path, why)
    if isinstance(spec.get("items"), list):
        raise NotStrict("items", path, "tuple arrays are not supported in strict mode")
    if not any(key in spec for key in _TYPED):
        raise NotStrict("type", path, "strict mode needs a type on every schema")
    dropped = [k for k in spec if k not in _KEPT or (k == "format" and spec[k] not in _FORMATS)]
    out = {k: v for k, v in spec.items() if k not in dropped}
    if notes := in_words(spec, [k for k in dropped if k != "unevaluatedProperties"]):  # false: closed
        out["description"] = described(out.get("description"), notes)
    if "oneOf" in out:
        out["anyOf"] = [*out.get("anyOf", []), *out.pop("oneOf")]
    if _is_object(out):
        if depth >= MAX_DEPTH:
            raise NotStrict("properties", path, f"more than {MAX_DEPTH} levels of nesting")
        extra = out.get("additionalProperties")
        props = out.get("properties")
        if extra not in (False, None) or (not isinstance(props, dict) and extra is not False):
            raise NotStrict(
                "additionalProperties", path, "an open object: strict mode needs every key declared"
            )
        if not isinstance(props, dict):
            props = {}
        counter[0] += len(props)
        if counter[0] > MAX_PROPERTIES:
            raise NotStrict("properties", path, f"more than {MAX_PROPERTIES} properties in all")
        required = set(out.get("required") or [])
        new_props = {}
        for key, sub in props.items():
            where = f"{path}.{key}" if path else f"properties.{key}"
            converted = _strict(sub if isinstance(sub, dict) else {}, where, depth + 1, counter)
            new_props[key] = converted if key in required else _nullable(converted)
        rest = {k: v for k, v in out.items() if k != "properties"}
        out = map_subschemas_at(rest, lambda sub, at: _strict(sub, _join(path, at), depth + 1, counter))
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False
        return out
    child_depth = depth + (1 if "items" in out else 0)
    return map_subschemas_at(out, lambda sub, at: _strict(sub, _join(path, at), child_depth, counter))


def _join(path: str, at: str) -> str:
    return f"{path}.{at}" if path else at


def _is_object(spec: Schema) -> bool:
    kind = spec.get("type")
    return (
        kind == "object"
        or (isinstance(kind, list) and "object" in kind)
        or (kind is None and "properties" in spec)
    )


def _nullable(spec: Schema) -> Schema:
    """``spec`` that also accepts ``null`` (how strict mode spells "optional")."""
    if allows_null(spec) or not spec:
        return spec
    kind = spec.get("type")
    if isinstance(kind, (str, list)) and "enum" not in spec and "const" not in spec and "anyOf" not in spec:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        return {**spec, "type": [*kinds, "null"]}
    if isinstance(spec.get("anyOf"), list) and len(spec) == 1:
        return {"anyOf": [*spec["anyOf"], {"type": "null"}]}
    described = {k: spec[k] for k in ("description", "title") if k in spec}
    inner = {k: v for k, v in spec.items() if k not in described}
    return {**described, "anyOf": [inner, {"type": "null"}]}
