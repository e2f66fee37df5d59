"""A tool's parameters for a Gemini function declaration: the ``Schema`` dialect when it can say
them, else JSON Schema.

Gemini's ``FunctionDeclaration.parameters`` is not JSON Schema but Google's ``Schema`` object: one
``type`` (``STRING``, ``INTEGER`` …), ``nullable`` instead of a ``null`` type, ``anyOf``, ``enum`` of
strings only, ``format`` limited per type (``enum``/``date-time`` for strings, ``int32``/``int64``,
``float``/``double``), ``properties``/``required``/``items``, the usual bounds, and no references.
The SDK's pydantic model forbids any other key, so the conversion is explicit:

- ``type: [X, "null"]`` and ``anyOf [X, {type: null}]`` become ``X`` with ``nullable: true``;
- ``oneOf`` becomes ``anyOf``, ``const`` a one-value ``enum``, a single ``allOf`` part is merged;
- what the subset cannot say (a ``default``, an unlisted ``format``, a non-string ``enum``,
  ``exclusiveMinimum``) moves into the ``description`` so the model still reads it, and the
  argument check enforces it before anything is sent.

Some parameters the dialect cannot say at all, and the API refuses the attempt: an object without
``properties`` (an open map, a free-form ``{"type": "object"}``: "properties: should be non-empty
for OBJECT type"), an array without ``items`` ("items: missing field"), a value with no type, and a
recursive ``$ref`` (the dialect has no references). Such a tool's declaration carries
``parametersJsonSchema`` instead, the declaration's JSON Schema alternative to ``parameters`` (the two
are mutually exclusive): its normal form as it is, so no argument is silently lost.
"""

from __future__ import annotations

import json
from typing import Any

from mcpnb.client.toolbox.schema import Schema

_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
_NOTED = ("default", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems")


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
    try:
        return {"parameters": to_gemini(schema)}
    except Inexpressible:
        return {"parametersJsonSchema": schema}


def to_gemini(spec: Any) -> Schema:
    """One (sub)schema in Gemini's ``Schema`` dialect, or :class:`Inexpressible`."""
    if not isinstance(spec, dict):
        raise Inexpressible(spec)
    if "$ref" in spec:  # recursive (the others were inlined): Gemini's dialect has no references
        raise Inexpressible("$ref")
    spec = dict(spec)
    notes: list[str] = []
    if "const" in spec and "enum" not in spec:
        spec["enum"] = [spec.pop("const")]
    if "oneOf" in spec:
        spec["anyOf"] = [*spec.get("anyOf", []), *spec.pop("oneOf")]
    if isinstance(spec.get("allOf"), list):
        for part in spec.pop("allOf"):
            _merge_into(spec, part if isinstance(part, dict) else {})
    nullable = False
    options = spec.get("anyOf")
    if isinstance(options, list):
        real = [o for o in options if not _is_null(o)]
        nullable = len(real) < len(options)
        if len(real) == 1 and isinstance(real[0], dict):
            del spec["anyOf"]
            spec = {**real[0], **spec}  # the outer description/default win over the option's
            inner = to_gemini(spec)
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
            values = [v for v in values if v is not None]
        if values and all(isinstance(v, str) for v in values):
            spec["enum"] = values
            spec.setdefault("type", "string")
        else:
            del spec["enum"]
            if values:
                notes.append("one of " + ", ".join(json.dumps(v) for v in values))
    out: Schema = {}
    kind = spec.get("type")
    if isinstance(kind, str):
        out["type"] = kind.upper()
    for key in _NOTED:
        if key in spec and not (key == "default" and spec[key] is None):
            notes.append(f"{key}: {json.dumps(spec[key])}")
    fmt = spec.get("format")
    if fmt is not None and fmt not in _FORMATS.get(out.get("type", ""), ()):
        notes.append(f"format: {fmt}")
    elif fmt is not None:
        out["format"] = fmt
    if isinstance(spec.get("additionalProperties"), dict):
        values_kind = spec["additionalProperties"].get("type")
        notes.append(f"any keys, values of type {values_kind}" if values_kind else "any keys")
    for key in ("title", "pattern", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength",
                "minProperties", "maxProperties", "enum", "required"):  # fmt: skip
        if key in spec:
            out[key] = spec[key]
    if isinstance(spec.get("properties"), dict):
        out["properties"] = {k: to_gemini(v) for k, v in spec["properties"].items()}
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    if isinstance(spec.get("items"), dict):
        out["items"] = to_gemini(spec["items"])
    elif isinstance(spec.get("items"), list) and spec["items"]:
        out["items"] = to_gemini(spec["items"][0])
    if isinstance(spec.get("anyOf"), list):
        out["anyOf"] = [to_gemini(o) for o in spec["anyOf"]]
    description = str(spec.get("description") or "")
    if notes:
        description = f"{description} ({'; '.join(notes)})".strip()
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


def _is_null(option: Any) -> bool:
    return isinstance(option, dict) and option.get("type") == "null" and len(option) == 1


def _merge_into(spec: Schema, part: Schema) -> None:
    for key, value in part.items():
        if key == "properties" and isinstance(value, dict):
            spec["properties"] = {**spec.get("properties", {}), **value}
        elif key == "required" and isinstance(value, list):
            spec["required"] = [
                *spec.get("required", []),
                *[r for r in value if r not in spec.get("required", [])],
            ]
        else:
            spec.setdefault(key, value)
