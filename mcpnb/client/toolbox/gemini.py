"""A tool's parameters for a Gemini function declaration: the ``Schema`` dialect when it can say
them, else JSON Schema in the subset Gemini documents.

Gemini's ``FunctionDeclaration.parameters`` is not JSON Schema but Google's ``Schema`` object: one
``type`` (``STRING``, ``INTEGER`` …), ``nullable`` instead of a ``null`` type, ``anyOf``, ``enum`` of
strings only, ``format`` limited per type (``enum``/``date-time`` for strings, ``int32``/``int64``,
``float``/``double``), ``properties``/``required``/``items``, the usual bounds, and no references.
The API refuses any other key ("Unknown name … Cannot find field"), so the conversion is explicit:

- ``type: [X, "null"]`` and ``anyOf [X, {type: null}]`` become ``X`` with ``nullable: true``, and
  OpenAPI's own ``nullable: true`` stays as it is (in ``parametersJsonSchema``: a ``null`` type);
- ``oneOf`` becomes ``anyOf``, ``const`` a one-value ``enum``, ``allOf`` is merged (the normal form's
  :func:`~mcpnb.client.toolbox.schema.merge`: the stricter bound wins, properties are merged);
- what the subset cannot say (a ``default``, an unlisted ``format``, a non-string ``enum``,
  ``exclusiveMinimum``, ``patternProperties`` beside ``properties``, what two ``allOf`` parts said
  that no one keyword can) moves into the ``description`` so the model still reads it, and the
  argument check enforces it before anything is sent.

Some parameters the dialect cannot say at all, and the API refuses the attempt: an object without
``properties`` (an open map, a free-form ``{"type": "object"}``: "properties: should be non-empty
for OBJECT type"), an array without ``items`` ("items: missing field"), a tuple, a value with no type,
and a recursive ``$ref`` (the dialect has no references). Such a tool's declaration carries
``parametersJsonSchema`` instead, the declaration's JSON Schema alternative to ``parameters`` (the two
are mutually exclusive). Gemini publishes what its JSON Schema support covers only for
``responseJsonSchema`` ("not all features are supported … only the following properties": ``$id``,
``$defs``, ``$ref``, ``$anchor``, ``type``, ``format``, ``title``, ``description``, ``enum`` of strings
and numbers, ``items``, ``prefixItems``, ``minItems``, ``maxItems``, ``minimum``, ``maximum``,
``anyOf``, ``oneOf`` read as ``anyOf``, ``properties``, ``additionalProperties``, ``required``,
``propertyOrdering``; "if ``$ref`` is set on a sub-schema, no other properties, except … those
starting as a ``$``"), and ``parametersJsonSchema`` is read by the same model, so the normal form is
lowered to that list the same way: the rest said in the description, ``const`` an ``enum``, a draft-07
tuple ``prefixItems``, ``definitions`` ``$defs``, and a ``$ref`` with siblings wrapped in a one-option
``anyOf`` so both still apply.

JSON Schema also allows ``true`` and ``false`` as subschemas (``"screenshot_id": true``: any value),
which Google's API refuses with a 400 for the whole request (``Invalid value at '…properties[N].value'
(…Schema), true``), so one such tool would break every tool sent with it. Both lowerings start from
the schema with them lowered (:func:`no_booleans`): ``true`` is ``{}``, ``false`` removes what it
allowed (a property, an option, array items from a position on); ``additionalProperties`` keeps its
boolean, the form every dialect of it takes.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.toolbox.nulls import openapi_null
from mcpnb.client.toolbox.schema import Schema, described, in_words, map_subschemas, merge, merge_parts

_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
#: Keywords the dialect holds as they are (``type``, ``format``, ``enum`` and the subschemas are
#: converted on their own).
_DIALECT = ("title", "pattern", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength",
            "minProperties", "maxProperties", "required")  # fmt: skip
#: What Gemini documents its JSON Schema as supporting (see the module docstring).
_JSON = frozenset({
    "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
    "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
    "additionalProperties", "required", "propertyOrdering",
})  # fmt: skip


class Inexpressible(Exception):
    """A schema the ``Schema`` dialect cannot say (see the module docstring)."""


def declaration_parameters(schema: Schema) -> dict[str, Schema]:
    """The parameters part of a function declaration for a normalised input schema (camelCase keys,
    as the REST API spells them): ``parameters`` in the ``Schema`` dialect, ``parametersJsonSchema``
    when the dialect cannot say them, nothing for a function without parameters."""
    if (
        not schema["properties"]
        and schema.get("additionalProperties") is False
        and "patternProperties" not in schema
    ):
        return {}  # a function without parameters leaves them unset
    schema = no_booleans(schema)
    try:
        return {"parameters": to_gemini(schema)}
    except Inexpressible:
        return {"parametersJsonSchema": to_json_subset(_defs_spelled(schema))}


def no_booleans(spec: Schema) -> Schema:
    """``spec`` with no ``true``/``false`` where a subschema reaches Gemini as one (``properties``,
    ``items``, ``prefixItems``, ``anyOf``/``oneOf``, ``$defs``); ``additionalProperties`` keeps its
    boolean (its documented form, in both lowerings), and keywords said in words keep theirs (``not
    false`` reads better than any object). ``true`` (any value) becomes ``{}``; ``false`` (no value)
    removes what it stood for: a property (and its ``required`` entry, which no value could meet),
    an ``anyOf``/``oneOf`` option, the items from its position on (``maxItems``); a ``$defs`` entry
    that must stay becomes ``{"not": {}}``, said in words by the JSON lowering. The argument check,
    against the server's own schema, still refuses what ``false`` refused."""
    out = map_subschemas({**spec}, no_booleans)
    gone: set[str] = set()
    if isinstance(out.get("properties"), dict):
        gone = {k for k, v in out["properties"].items() if v is False}
        out["properties"] = {k: _any(v) for k, v in out["properties"].items() if v is not False}
        if gone and isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in gone]
    for key in ("anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            kept = [_any(o) for o in out[key] if o is not False]
            if kept:
                out[key] = kept
            else:  # no option can hold: nothing is valid, which JSON Schema says as not-anything
                del out[key]
                out["not"] = {}
    tuple_key = "items" if isinstance(out.get("items"), list) else "prefixItems"
    prefix = out.get(tuple_key) if isinstance(out.get(tuple_key), list) else None
    ends = next((i for i, o in enumerate(prefix or []) if o is False), None)
    if prefix is not None and ends is not None:  # no value at that position: the array ends before it
        prefix = prefix[:ends]
        out[tuple_key] = [_any(o) for o in prefix]
        _at_most(out, len(prefix))
        out.pop("additionalItems" if tuple_key == "items" else "items", None)
    elif prefix is not None:
        out[tuple_key] = [_any(o) for o in prefix]
    rest = "additionalItems" if tuple_key == "items" else "items"
    if out.get(rest) is False:  # nothing past the tuple (every item, without one)
        del out[rest]
        _at_most(out, len(prefix or []))
    elif out.get(rest) is True:
        out[rest] = {}
    for key in ("$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _any(v) for k, v in out[key].items()}
    return out


def _any(sub: Any) -> Any:
    """A boolean subschema as an object: ``true`` is ``{}`` (anything), ``false`` ``{"not": {}}``."""
    if sub is True:
        return {}
    if sub is False:
        return {"not": {}}
    return sub


def _at_most(spec: Schema, count: int) -> None:
    """``spec`` (an array) holds at most ``count`` items."""
    limit = spec.get("maxItems")
    spec["maxItems"] = min(limit, count) if isinstance(limit, int) and not isinstance(limit, bool) else count


def to_gemini(spec: Any) -> Schema:
    """One (sub)schema in Gemini's ``Schema`` dialect, or :class:`Inexpressible`."""
    if not isinstance(spec, dict):
        raise Inexpressible(spec)
    if "$ref" in spec:  # recursive (the others were inlined): Gemini's dialect has no references
        raise Inexpressible("$ref")
    spec = _common(spec)
    if "oneOf" in spec:
        spec["anyOf"] = [*spec.get("anyOf", []), *spec.pop("oneOf")]
    nullable = spec.pop("nullable", None) is True  # OpenAPI's own keyword: the dialect's too
    options = spec.get("anyOf")
    if isinstance(options, list):
        real = [o for o in options if not _is_null(o)]
        nullable = len(real) < len(options)
        if len(real) == 1 and isinstance(real[0], dict):
            del spec["anyOf"]
            inner = to_gemini(merge(spec, real[0]))  # both apply; the outer description wins
            if nullable:
                inner["nullable"] = True
            return inner
        spec["anyOf"] = real
    kind = spec.get("type")
    if isinstance(kind, list):
        real_kinds = [k for k in kind if k != "null"]
        nullable = nullable or len(real_kinds) < len(kind)
        if len(real_kinds) == 1:
            spec["type"] = real_kinds[0]
        else:
            del spec["type"]
            if real_kinds:
                spec["anyOf"] = [{"type": k} for k in real_kinds]
    if isinstance(spec.get("enum"), list):
        values = spec["enum"]
        if None in values:
            nullable = True
            spec["enum"] = values = [v for v in values if v is not None]
        if values and all(isinstance(v, str) for v in values):
            spec.setdefault("type", "string")
    if isinstance(spec.get("items"), list) or "prefixItems" in spec:
        raise Inexpressible("a tuple")
    out: Schema = {}
    kind = spec.pop("type", None)
    if isinstance(kind, str):
        out["type"] = kind.upper()
    if spec.get("format") in _FORMATS.get(out.get("type", ""), ()):
        out["format"] = spec.pop("format")
    if isinstance(spec.get("enum"), list) and spec["enum"] and all(isinstance(v, str) for v in spec["enum"]):
        out["enum"] = spec.pop("enum")
    elif spec.get("enum") == []:
        del spec["enum"]  # only null was listed: said by nullable
    for key in _DIALECT:
        if key in spec:
            out[key] = spec.pop(key)
    if isinstance(spec.get("properties"), dict):
        out["properties"] = {k: to_gemini(v) for k, v in spec.pop("properties").items()}
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    if isinstance(spec.get("items"), dict):
        out["items"] = to_gemini(spec.pop("items"))
    if isinstance(spec.get("anyOf"), list):
        out["anyOf"] = [to_gemini(o) for o in spec.pop("anyOf")]
    description = described(spec.pop("description", None), in_words(spec, list(spec)))
    if description:
        out["description"] = description
    if nullable:
        out["nullable"] = True
    if out.get("type") == "OBJECT" and not out.get("properties"):
        raise Inexpressible("an object without properties")
    if out.get("type") == "ARRAY" and "items" not in out:
        raise Inexpressible("an array without items")
    if "type" not in out and "anyOf" not in out:
        raise Inexpressible("a value without a type")
    return out


def to_json_subset(spec: Any) -> Any:
    """One (sub)schema in the JSON Schema subset Gemini documents (see the module docstring)."""
    if not isinstance(spec, dict):
        return spec
    spec = openapi_null(_common(spec))  # no ``nullable`` in the JSON Schema it reads: a null type
    if isinstance(spec.get("items"), list):  # a draft-07 tuple, as 2020-12 spells it
        spec["prefixItems"] = spec.pop("items")
        if "additionalItems" in spec:
            spec["items"] = spec.pop("additionalItems")
    if isinstance(spec.get("patternProperties"), dict) and "additionalProperties" in spec:
        spec["additionalProperties"] = _or_patterns(spec["additionalProperties"], spec["patternProperties"])
    kept = {k for k in spec if k in _JSON}
    if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in spec.get("enum") or []):
        kept.discard("enum")  # "enum (for strings and numbers)": the others are said in words
    out = map_subschemas({k: v for k, v in spec.items() if k in kept}, to_json_subset)
    notes = in_words(spec, [k for k in spec if k not in kept])
    if "$ref" in out and any(not k.startswith("$") for k in out):  # "no other properties" beside it
        ref = {"$ref": out.pop("$ref")}
        if "anyOf" in out or "oneOf" in out:  # the wrapper's own anyOf is taken: say these instead
            notes += in_words(out, ["anyOf", "oneOf"])
            out.pop("anyOf", None)
            out.pop("oneOf", None)
        out["anyOf"] = [ref]
    description = described(out.get("description"), notes)
    if description:
        out["description"] = description
    return out


def _or_patterns(extra: Any, patterns: dict[str, Any]) -> Any:
    """``additionalProperties`` once ``patternProperties`` are gone (said in words): a key that
    matched a pattern is now an "other" key, so the other keys may be what any pattern allowed too
    (else a closed object would refuse the very keys its description offers)."""
    options = [o for o in (extra, *patterns.values()) if o is not False]
    if any(o is True or o == {} for o in options):
        return True
    return {"anyOf": options} if len(options) > 1 else options[0] if options else False


def _common(spec: Schema) -> Schema:
    """What both lowerings do first: the node's ``allOf`` merged into it, ``const`` as an ``enum``."""
    spec = dict(merge_parts(spec))
    if "const" in spec and "enum" not in spec:
        spec["enum"] = [spec.pop("const")]
    return spec


def _defs_spelled(schema: Schema) -> Schema:
    """``schema`` with draft-07 ``definitions`` as ``$defs`` (the only spelling Gemini lists), and its
    references pointing there."""
    if not isinstance(schema.get("definitions"), dict):
        return schema

    def point(node: Schema) -> Schema:
        out = map_subschemas(node, point)
        if isinstance(out.get("$ref"), str) and out["$ref"].startswith("#/definitions/"):
            out["$ref"] = "#/$defs/" + out["$ref"].removeprefix("#/definitions/")
        return out

    moved = point(schema)
    moved["$defs"] = {**moved.pop("definitions"), **moved.get("$defs", {})}
    return moved


def _is_null(option: Any) -> bool:
    return isinstance(option, dict) and option.get("type") == "null" and len(option) == 1
