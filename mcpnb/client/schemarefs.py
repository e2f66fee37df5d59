"""Local ``$ref``s of a JSON Schema (``#/$defs/Order``), followed where a schema is read.

The SDK writes a pydantic model as a reference into ``$defs``: a form's fields, ``.df``'s column
schemas and the toolbox's specs all need what it points to. One small module, so reading a
result's schema does not import the toolbox.

A server's schema may loop (``A`` is "an ``A`` or null") or fan out (40 definitions each "the next
or the next": 2**40 paths), so every reader that follows references reads them by one policy
(:func:`read_through`), and a check that cannot help walking every path is not made on a schema
that has too many at one place of a value (:func:`mcpnb.client.schemacost.fans_out`): the server
judges those arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

Schema = dict[str, Any]
T = TypeVar("T")
#: A JSON Pointer's index into a list (RFC 6901): ``0`` or digits without a leading zero.
_INDEX = re.compile(r"0|[1-9][0-9]*")


def pointer(root: Schema, ref: str) -> Schema | None:
    """The object a local JSON pointer (``#/$defs/Order``) names in ``root``; None for a remote
    reference or one that names nothing (or no object)."""
    found, node = locate(root, ref)
    return node if found and isinstance(node, dict) else None


def locate(root: Schema, ref: str) -> tuple[bool, Any]:
    """Whether a local JSON pointer names something in ``root``, and what: a number names an item
    of a list as RFC 6901 reads it (``#/$defs/H/anyOf/3``; no sign, no leading zero), as the
    validator does. Read only by names, such a reference found nothing, and a 2**40 fan-out behind
    it was counted as no nodes at all."""
    if not ref.startswith("#"):
        return False, None  # a remote reference: nothing here to follow
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and _INDEX.fullmatch(part) and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


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


def read_through(
    spec: Any,
    root: Schema,
    read: Callable[[Schema, frozenset[str]], T],
    looped: Callable[[str], T],
    inside: frozenset[str] = frozenset(),
    done: dict[str, T] | None = None,
) -> T:
    """``read(spec, inside)`` of ``spec`` with its ``$ref`` followed (:func:`deref`), by the one
    policy every reader of a server's schema keeps, since a server's schema may loop or fan out:

    - a reference met inside itself is not followed again: ``looped(ref)`` stands for it (``A`` is
      "an ``A`` or null": read on, it never ends);
    - each reference as written (its target and the keywords beside it) is read once, and what it
      gave is kept in ``done`` for wherever it is met again (40 definitions each "the next or the
      next" are 2**40 paths: read once each, 41 readings).

    ``read`` reads a node's subschemas through this same function, passing on the ``inside`` it
    was given. For a question whose answer is a union over the schema's options (which types? may
    it be null?) nothing is lost: what a looped reference would add is counted where it was first
    read."""
    ref = spec.get("$ref") if isinstance(spec, dict) else None
    if not isinstance(ref, str):
        return read(deref(spec, root), inside)
    if ref in inside:
        return looped(ref)
    beside = {k: v for k, v in spec.items() if k != "$ref"}
    key = ref + json.dumps(beside, sort_keys=True, default=str) if beside else ref
    if done is not None and key in done:
        return done[key]
    value = read(deref(spec, root), inside | {ref})
    if done is not None:
        done[key] = value
    return value


#: Nodes past which a schema is too big to walk path by path: applied at one place of a value
#: (:mod:`~mcpnb.client.schemacost`), 40 definitions each "the next or the next" are 2**40
#: paths, which a validator takes for ever over a value that fails (jsonschema-rs wording the
#: errors of 2**14 paths took half a second); its references read where they stand
#: (:func:`expanded_size`), inlining makes a spec no model could be sent.
EXPANDED_LIMIT = 10_000
#: The keywords whose value is data, never a schema (a ``default`` may hold a ``$ref`` key).
DATA_KEYWORDS = frozenset({"default", "const", "enum", "examples", "example"})
#: Where definitions are kept: counted where they are used, not where they are written (a schema of
#: 5,000 fields written once in ``$defs`` and used once is 5,000 nodes, not 10,000).
DEFINITION_KEYWORDS = frozenset({"$defs", "definitions"})
#: Keywords that apply their subschemas to a part of the value (an item, a property's value): a
#: reference under them is met one level down the value, not at the same place.
DESCEND = frozenset(
    {
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
DESCEND_BY_NAME = frozenset({"properties", "patternProperties"})
#: Every keyword whose subschemas describe a part of the value, not the value itself (an ``anyOf``
#: option, an ``allOf`` part): the toolbox's inlining reads loops by it too.
PART_KEYWORDS = DESCEND | DESCEND_BY_NAME


def expanded_size(schema: Any, limit: int = EXPANDED_LIMIT) -> int:
    """How many nodes ``schema`` has once each local ``$ref`` is read where it stands, as a
    validator or inlining reads it (a reference back into itself counted once: a value's own depth
    bounds how often it is read); counted once per reference, so a fan-out of 2**40 paths costs 41
    steps, and never past ``limit + 1``."""
    root = schema if isinstance(schema, dict) else {}
    sizes: dict[str, int] = {}

    def size(node: Any, inside: frozenset[str]) -> int:
        if isinstance(node, list):
            return min(limit + 1, 1 + sum(size(v, inside) for v in node))
        if not isinstance(node, dict):
            return 0
        bare = isinstance(node.get("$ref"), str) and len(node) == 1  # it stands for its target alone
        count = (0 if bare else 1) + sum(
            size(v, inside)
            for k, v in node.items()
            if k not in DATA_KEYWORDS and k not in DEFINITION_KEYWORDS
        )
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in inside:
            if ref not in sizes:
                target = pointer(root, ref)
                sizes[ref] = 0 if target is None else size(target, inside | {ref})
            count += sizes[ref]
        return min(limit + 1, count)

    return size(schema, frozenset())
