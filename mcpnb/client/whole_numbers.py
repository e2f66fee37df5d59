"""Whole floats sent as ints where a tool's schema wants an integer: ``30.0`` as ``30``.

A model's call (Gemini's SDKs give every number as a float), a pandas row of int and float
columns, a person's ``2.0``: the schema check passes them (JSON Schema counts 30.0 as an integer),
and a Python server then gets a float, a Go or Rust one refuses it.
"""

from __future__ import annotations

import re
from typing import Any


def whole_numbers(values: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``values`` with each whole float the schema wants as an ``integer`` (or that an ``enum`` or
    ``const`` lists as one) sent as an int: ``30.0`` as ``30``.

    JSON Schema counts ``30.0`` as an integer, so the check passes it, and the SDK writes it as
    ``30.0``: a Python server gets a float (``range(30.0)`` fails), Go's ``encoding/json`` and Rust's
    serde refuse it for an int field. Floats come from everywhere a value is made: Gemini's SDKs
    give every number of a call as a float (a protobuf ``Struct``), models write ``2.0``, a pandas
    row of int and float columns is all floats. As JSON the two are one number, so nothing the
    schema says changes; only how it is written does. Followed wherever the schema says what a
    value is: ``properties``, ``patternProperties``, ``additionalProperties``, ``items`` and
    tuples, ``anyOf``/``oneOf``/``allOf`` options and local ``$ref``s. The same dict when nothing
    changes (a call without floats costs one walk)."""
    if not _has_float(values):
        return values
    return _whole(values, [schema], schema)


def _has_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


def _whole(value: Any, specs: list[Any], root: dict[str, Any]) -> Any:
    seen: set[str] = set()
    views = [v for spec in specs for v in _views(spec, root, seen)]
    if not views:
        return value
    if type(value) is float:  # an int where a schema wants one and none takes any number
        wanted = any(_wants_int(v, value) for v in views) and not any(map(_takes_numbers, views))
        return int(value) if value.is_integer() and wanted else value
    if isinstance(value, dict):
        out = {k: _whole(v, _for_key(views, k), root) if _has_float(v) else v for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if isinstance(value, list):
        items = [_whole(v, _for_index(views, i), root) if _has_float(v) else v for i, v in enumerate(value)]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _views(spec: Any, root: dict[str, Any], seen: set[str]) -> list[dict[str, Any]]:
    """``spec`` and every schema that applies to the same value with it: its ``$ref``'s target and
    its ``anyOf``/``oneOf``/``allOf`` options, at any depth; a reference once for one value (``seen``:
    one back to itself would go on for ever, the data's own depth bounds the rest)."""
    if not isinstance(spec, dict):
        return []
    ref = spec.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return []
        seen.add(ref)
    from mcpnb.client.schemarefs import deref

    spec = deref(spec, root)
    found = [spec]
    for key in ("anyOf", "oneOf", "allOf"):
        for option in spec.get(key) if isinstance(spec.get(key), list) else []:
            found += _views(option, root, seen)
    return found


def _wants_int(spec: dict[str, Any], value: float) -> bool:
    kind = spec.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        return True
    listed = (
        spec.get("enum") if isinstance(spec.get("enum"), list) else [spec["const"]] if "const" in spec else []
    )
    return any(type(v) is int and v == value for v in listed)


def _takes_numbers(spec: dict[str, Any]) -> bool:
    """A schema for any number (``anyOf: [integer, number]``: a server typed ``int | float`` gets
    the float it was given)."""
    kind = spec.get("type")
    return kind == "number" or (isinstance(kind, list) and "number" in kind)


def _for_key(views: list[dict[str, Any]], key: str) -> list[Any]:
    """The subschemas that say what ``key``'s value is, in any of ``views``."""
    found = []
    for view in views:
        props = view.get("properties") if isinstance(view.get("properties"), dict) else {}
        patterns = view.get("patternProperties") if isinstance(view.get("patternProperties"), dict) else {}
        matched = [sub for pattern, sub in patterns.items() if _search(pattern, key)]
        if key in props:
            found.append(props[key])
        found += matched
        if key not in props and not matched:
            found.append(view.get("additionalProperties"))
    return found


def _search(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:  # a pattern Python cannot read (ECMA-262 syntax): no schema from it
        return False


def _for_index(views: list[dict[str, Any]], index: int) -> list[Any]:
    """The subschemas that say what item ``index`` of an array is, in any of ``views``: the
    tuple's (``prefixItems``, draft-07's ``items`` list) where it reaches, else ``items`` (after a
    draft-07 tuple, ``additionalItems``)."""
    found = []
    for view in views:
        items = view.get("items")
        prefix = view.get("prefixItems") if isinstance(view.get("prefixItems"), list) else None
        if isinstance(items, list):  # draft-07 tuple
            found.append(items[index] if index < len(items) else view.get("additionalItems"))
        elif prefix is not None and index < len(prefix):
            found.append(prefix[index])
        else:
            found.append(items)
    return found
