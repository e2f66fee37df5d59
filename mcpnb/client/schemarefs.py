"""Local ``$ref``s of a JSON Schema (``#/$defs/Order``), followed where a schema is read.

The SDK writes a pydantic model as a reference into ``$defs``: a form's fields, ``.df``'s column
schemas and the toolbox's specs all need what it points to. One small module, so reading a
result's schema does not import the toolbox.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]


def pointer(root: Schema, ref: str) -> Schema | None:
    """The object a local JSON pointer (``#/$defs/Order``) names in ``root``; None for a remote
    reference or one that names nothing (or no object)."""
    if not ref.startswith("#"):
        return None  # a remote reference: nothing here to follow
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, dict) else None


def deref(spec: Any, root: Schema) -> Schema:
    """``spec`` itself, or what its ``$ref`` points to (a chain followed, a cycle stopped), with
    ``spec``'s own keywords beside the reference winning (a ``description``, a ``default``). A
    reference that cannot be followed stays in the result; anything but an object is ``{}``."""
    if not isinstance(spec, dict):
        return {}
    seen: set[str] = set()
    while isinstance(spec.get("$ref"), str) and spec["$ref"] not in seen:
        seen.add(spec["$ref"])
        target = pointer(root, spec["$ref"])
        if target is None:
            break
        spec = {**target, **{k: v for k, v in spec.items() if k != "$ref"}}
    return spec
