"""A JSON Schema as Gemini's function-declaration ``parameters``: the OpenAPI 3.0 ``Schema`` subset.

Gemini's ``FunctionDeclaration.parameters`` is not JSON Schema but Google's ``Schema`` object: one
``type`` (``STRING``, ``INTEGER`` …), ``nullable`` instead of a ``null`` type, ``anyOf``, ``enum`` of
strings only, ``format`` limited per type (``enum``/``date-time`` for strings, ``int32``/``int64``,
``float``/``double``), ``properties``/``required``/``items``, the usual bounds, and no references.
The SDK's pydantic model forbids any other key, so the conversion is explicit:

- ``type: [X, "null"]`` and ``anyOf [X, {type: null}]`` become ``X`` with ``nullable: true``;
- ``oneOf`` becomes ``anyOf``, ``const`` a one-value ``enum``, a single ``allOf`` part is merged;
- what the subset cannot say (a ``default``, an unlisted ``format``, a non-string ``enum``,
  ``exclusiveMinimum``) moves into the ``description`` so the model still reads it, and the
  argument check enforces it before anything is sent;
- ``$ref`` was inlined before (see :mod:`.schema`); a recursive one is cut to its target's type.
"""

from __future__ import annotations

import json
from typing import Any

from mcpnb.client.toolbox.schema import Schema, deref

_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
_NOTED = ("default", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems")


def to_gemini(spec: Any, root: Schema, depth: int = 0) -> Schema:
    """One (sub)schema in Gemini's ``Schema`` dialect (camelCase keys, as the REST API spells them)."""
    if not isinstance(spec, dict):
        return {}
    if "$ref" in spec:  # recursive: Gemini has no references, so the recursion stops here
        target = deref(spec, root)
        kind = target.get("type")
        cut: Schema = {"type": kind.upper()} if isinstance(kind, str) else {}
        cut["description"] = (
            str(target.get("description") or "") + " (recursive: same shape as above)"
        ).strip()
        return cut
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
            inner = to_gemini(spec, root, depth)
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
        out["properties"] = {k: to_gemini(v, root, depth + 1) for k, v in spec["properties"].items()}
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    if isinstance(spec.get("items"), dict):
        out["items"] = to_gemini(spec["items"], root, depth + 1)
    elif isinstance(spec.get("items"), list) and spec["items"]:
        out["items"] = to_gemini(spec["items"][0], root, depth + 1)
    if isinstance(spec.get("anyOf"), list):
        out["anyOf"] = [to_gemini(o, root, depth + 1) for o in spec["anyOf"]]
    description = str(spec.get("description") or "")
    if notes:
        description = f"{description} ({'; '.join(notes)})".strip()
    if description:
        out["description"] = description
    if nullable:
        out["nullable"] = True
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
