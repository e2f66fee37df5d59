"""Local ``$ref``s of a JSON Schema (``#/$defs/Order``), followed where a schema is read.

The SDK writes a pydantic model as a reference into ``$defs``: a form's fields, ``.df``'s column
schemas and the toolbox's specs all need what it points to. One small module, so reading a
result's schema does not import the toolbox.

A server's schema may loop (``A`` is "an ``A`` or null") or fan out (40 definitions each "the next
or the next": 2**40 paths), so every reader that follows references reads them by one policy
(:func:`read_through`), and a check that cannot help walking every path is not made on a schema
that has too many (:func:`fans_out`): the server judges those arguments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

Schema = dict[str, Any]
T = TypeVar("T")


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


#: Nodes past which a schema, its references read where they stand, is too big to walk path by
#: path (:func:`fans_out`): 40 definitions each "the next or the next" are 2**40 paths, which a
#: validator takes for ever over a value that fails (jsonschema-rs wording the errors of 2**14 paths
#: took half a second), and inlining makes a spec no model could be sent.
EXPANDED_LIMIT = 10_000
#: The keywords whose value is data, never a schema (a ``default`` may hold a ``$ref`` key).
_DATA = frozenset({"default", "const", "enum", "examples", "example"})
#: Where definitions are kept: counted where they are used, not where they are written (a schema of
#: 5,000 fields written once in ``$defs`` and used once is 5,000 nodes, not 10,000).
_DEFINITIONS = frozenset({"$defs", "definitions"})
#: Keywords that apply their subschemas to a part of the value (an item, a property's value): a
#: reference under them is met one level down the value, not at the same place.
_DESCEND = frozenset(
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
_DESCEND_BY_NAME = frozenset({"properties", "patternProperties"})
#: Every keyword whose subschemas describe a part of the value, not the value itself (an ``anyOf``
#: option, an ``allOf`` part): the toolbox's inlining reads loops by it too.
PART_KEYWORDS = _DESCEND | _DESCEND_BY_NAME


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
            size(v, inside) for k, v in node.items() if k not in _DATA and k not in _DEFINITIONS
        )
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in inside:
            if ref not in sizes:
                target = pointer(root, ref)
                sizes[ref] = 0 if target is None else size(target, inside | {ref})
            count += sizes[ref]
        return min(limit + 1, count)

    return size(schema, frozenset())


def loops_multiply(schema: Any, budget: int = 5 * EXPANDED_LIMIT) -> bool:
    """Whether a reference that loops is met twice or more at one place of the value, each level
    down: then checking a value costs that many times more per level of its depth (three ways back
    to the root under ``items``, ``anyOf``/``allOf``/``not``, made a 40-byte value 20 levels deep
    take minutes to word its error, the GIL held), though the schema is small. A tree (a node's
    ``children`` are nodes) meets its reference once per level: not this. A reference met again
    at the same place of the value, not one level down, counts too (it loops without reading the
    value). ``budget``: steps, past which the answer is yes."""
    root = schema if isinstance(schema, dict) else {}
    steps = 0

    def met(
        node: Any,
        target: str,
        place: tuple[str, ...],
        following: frozenset[str],
        found: list[tuple[str, ...]],
    ) -> None:
        nonlocal steps
        steps += 1
        if steps > budget or len(found) > budget:
            raise _Exhausted
        if isinstance(node, list):
            for v in node:
                met(v, target, place, following, found)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref == target:
                found.append(place)
            elif ref not in following:
                met(pointer(root, ref), target, place, following | {ref}, found)
        for k, v in node.items():
            if k in _DATA or k in _DEFINITIONS:
                continue
            if k in _DESCEND_BY_NAME and isinstance(v, dict):
                for name, sub in v.items():
                    met(sub, target, (*place, f"{k}/{name}"), following, found)
            elif k in _DESCEND and isinstance(v, list):
                for n, sub in enumerate(v):
                    met(sub, target, (*place, f"{k}/{n}"), following, found)
            elif k in _DESCEND:
                met(v, target, (*place, k), following, found)
            else:
                met(v, target, place, following, found)

    def charged(refs: Iterator[str]) -> Iterator[str]:
        nonlocal steps
        for ref in refs:
            steps += 1
            if steps > budget:
                raise _Exhausted
            yield ref

    def loops(ref: str) -> bool:
        seen: set[str] = set()
        todo = list(written.get(ref, ()))
        while todo:
            nxt = todo.pop()
            if nxt == ref:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.extend(written.get(nxt, ()))
        return False

    try:
        # the references that can lead back to themselves (only they loop), each read once: one
        # written 3,000 times was read 3,000 times (seconds, the GIL held)
        written = {
            ref: set(charged(_all_refs(pointer(root, ref), definitions=False)))
            for ref in dict.fromkeys(charged(_all_refs(root)))
        }
        for target in [ref for ref in written if loops(ref)]:
            found: list[tuple[str, ...]] = []
            met(pointer(root, target), target, (), frozenset({target}), found)
            if () in found or len(found) != len(set(found)):
                return True
    except _Exhausted:
        return True
    return False


def _all_refs(node: Any, *, definitions: bool = True) -> Iterator[str]:
    """Every ``$ref`` written in ``node`` (each as often as written), its definitions' too unless
    ``definitions`` is False (then only those its own subschemas use where they stand)."""
    if isinstance(node, list):
        for v in node:
            yield from _all_refs(v, definitions=definitions)
    elif isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for k, v in node.items():
            if k not in _DATA and (definitions or k not in _DEFINITIONS):
                yield from _all_refs(v, definitions=definitions)


class _Exhausted(Exception):
    """:func:`loops_multiply` ran out of steps."""


_VERDICTS: dict[int, tuple[Any, bool]] = {}


def fans_out(schema: Any) -> bool:
    """Whether ``schema``, its references read where they stand, is past :data:`EXPANDED_LIMIT`
    nodes: then a check of a value against it may follow each of its paths (a hostile server's
    2**40), and the client leaves the value to the server. Kept per schema object (a tool's, asked
    on every call), with the schema itself, so its ``id`` cannot be reused while known."""
    known = _VERDICTS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    try:
        verdict = expanded_size(schema) > EXPANDED_LIMIT or loops_multiply(schema)
    except RecursionError:  # references chained thousands deep: no validator walks that either
        verdict = True
    if len(_VERDICTS) >= 512:
        _VERDICTS.clear()
    _VERDICTS[id(schema)] = (schema, verdict)
    return verdict
