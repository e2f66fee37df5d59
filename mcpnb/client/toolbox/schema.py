"""JSON Schema plumbing every provider conversion shares: walking subschemas, inlining ``$ref``,
and the normal form of a tool's ``inputSchema``.

Servers write input schemas in every draft and style (pydantic's ``anyOf [X, null]``, zod's draft-07
``$schema``, hand-written ``$defs``). Each provider accepts a different subset, so the conversions
start from one normal form: every non-recursive ``$ref`` replaced by what it points to (first, so a
root that is only a ``$ref`` keeps its target's properties), ``type: object``, ``properties`` present,
``additionalProperties: false`` unless the server said otherwise, and every array with ``items``.

Every ``allOf``, and every ``$ref`` with sibling keywords, is merged by one merger (:func:`merge`):
both parts apply (JSON Schema 2020-12), so properties are merged property by property, ``required``
united, bounds tightened, types and enums intersected, and what two parts say that no single keyword
can (two ``pattern``s, two ``anyOf``s) stays, alone, in an ``allOf`` of what is left. One schema per
node is what every provider reads best: OpenAI's strict mode refuses ``allOf``, Gemini's dialect has
none, and a model reads one ``maximum`` more easily than two parts.

The root holds no ``allOf``, ``anyOf``, ``oneOf`` or ``not``: OpenAI refuses them at the top level
even without strict mode, Anthropic refuses the first three, and either refuses the whole request, so
one such tool would break every tool sent with it. A root ``allOf`` is merged into the root; the
properties of ``anyOf``/``oneOf`` options join the root's, not required, and what the options (and
anything left of an ``allOf``) ask for is said in words in the root's ``description`` so a model
still learns it, naming the property keys as the provider sees them. The argument check before
sending (against the server's own schema) enforces it.

An array without ``items`` gets ``items: {}`` (any value, which is what no ``items`` means): OpenAI
refuses an array schema without ``items`` even outside strict mode. A key the root requires but does
not describe becomes a property of any value (:func:`_undeclared`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from mcpnb.client.schemarefs import EXPANDED_LIMIT, PART_KEYWORDS, Schema, expanded_size, pointer

#: Keywords whose value is a map of subschemas, a list of subschemas, or one subschema.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
#: Where :func:`map_subschemas_at` says a subschema describes a part of the value (a property, an
#: item), not the value itself (an ``anyOf`` option, an ``allOf`` part).
_PART = re.compile(rf"({'|'.join(sorted(PART_KEYWORDS))})\b")
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

    Sibling keywords next to a ``$ref`` apply as well as the target (JSON Schema 2020-12): the two are
    merged (:func:`merge`), the siblings' annotations (a ``description``, a ``default``) winning. A
    reference back into itself cannot be inlined: it stays, and so do ``$defs``/``definitions``;
    one back into itself before any part of the value (a property, an item) is any value
    (``{}``): ``A`` as "an ``A`` or null" asks nothing, and a provider may refuse such a loop,
    with every tool sent beside it (the argument check, against the server's schema, still runs).
    A schema whose references would unfold past :data:`~mcpnb.client.schemarefs.EXPANDED_LIMIT`
    nodes (a server's 40 definitions each "the next or the next": 2**40 paths) keeps all of them,
    as written: references are JSON Schema every provider's JSON Schema form takes (a recursive one
    needs them too), and inlined it would be a spec no request could carry.
    """
    if expanded_size(schema) > EXPANDED_LIMIT:
        return schema, True
    recursive = False

    def walk(node: Schema, stack: tuple[str, ...], here: frozenset[str]) -> Schema:
        # ``here``: the references entered since the walk last went into a part of the value
        nonlocal recursive
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = pointer(schema, ref)
            if target is None:
                return parts(node, stack, here)
            if ref in here:  # "an A is an A or null": the loop asks nothing of the value (any value)
                return parts({k: v for k, v in node.items() if k != "$ref"}, stack, here)
            if ref in stack:  # a tree's node inside a node: a reference, as every provider takes it
                recursive = True
                return dict(node)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return merge(parts(siblings, stack, here), walk(target, (*stack, ref), here | {ref}))
        return parts(node, stack, here)

    def parts(node: Schema, stack: tuple[str, ...], here: frozenset[str]) -> Schema:
        return map_subschemas_at(
            node, lambda sub, at: walk(sub, stack, frozenset() if _PART.match(at) else here)
        )

    out = walk(schema, (), frozenset())
    if not recursive:
        out.pop("$defs", None)
        out.pop("definitions", None)
    return out, recursive


# ---------------------------------------------------------------- one schema out of two (allOf, $ref)
#: Keywords that annotate: where two parts differ, the outer one's word stands (a ``$ref``'s sibling
#: ``description`` over its target's, a node's own over its ``allOf`` parts'); nothing is constrained.
ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "example", "$comment", "deprecated", "readOnly",
    "writeOnly", "$id", "$anchor", "$schema",
})  # fmt: skip
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_MAPS = ("properties", "patternProperties", "dependentSchemas")
#: Keywords that mean something only together (``items`` after ``prefixItems``, ``then`` under
#: ``if``): where both parts hold some of a group and they differ, the inner part's group is left.
_TOGETHER = (("prefixItems", "items", "additionalItems"), ("if", "then", "else"),
             ("contains", "minContains", "maxContains"))  # fmt: skip
_CONFLICT = object()


def merge(outer: Schema, inner: Schema) -> Schema:
    """One schema that asks what ``outer`` and ``inner`` both ask (``allOf: [outer, inner]``).

    Keyword by keyword: what one part alone says is kept; properties (and pattern properties) are
    merged property by property, ``required`` united, ``type`` and ``enum`` intersected, bounds
    tightened (the stricter wins), ``items`` and ``additionalProperties`` merged, two ``not``s made one
    (``not`` either), and ``outer``'s annotations win. What two parts say that one keyword cannot (two
    different ``pattern``s, two ``anyOf``s, types with nothing in common) is left in an ``allOf`` of
    ``inner``'s remainder, so nothing is lost and a reader sees exactly what could not be merged.

    One reading is deliberate: an ``additionalProperties: false`` closes the merged object, not the
    part it was written in (read strictly, such a part refuses every key the other part adds, which
    is never what its author meant).
    """
    out = dict(outer)
    left: Schema = {}
    grouped = {key for group in _TOGETHER for key in group}
    for group in _TOGETHER:
        mine = {k: outer[k] for k in group if k in outer}
        theirs = {k: inner[k] for k in group if k in inner}
        if not theirs or mine == theirs:
            continue
        if not mine:
            out.update(theirs)
            continue
        items = _both(mine["items"], theirs["items"]) if "items" in mine and "items" in theirs else _CONFLICT
        same_rest = all(mine.get(k) == theirs.get(k) for k in group if k != "items")
        if group[0] == "prefixItems" and same_rest and items is not _CONFLICT:  # same prefix: merge the rest
            out["items"] = items
        else:
            left.update(theirs)
    for key, value in inner.items():
        if key in grouped:
            continue
        if key not in out or _same(out[key]) == _same(value):  # as JSON: true is not 1
            out[key] = value
        elif key not in ANNOTATIONS:
            combined = _combine(key, out[key], value)
            if combined is _CONFLICT:
                left[key] = value
            else:
                out[key] = combined
    if left:
        out["allOf"] = [*(out.get("allOf") or []), left]
    return out


def merge_all_of(schema: Schema) -> Schema:
    """``schema`` with every ``allOf``, at every depth, merged into the schema that holds it (only
    what :func:`merge` cannot say in one keyword stays in an ``allOf``)."""
    return merge_parts(map_subschemas(schema, merge_all_of))


def merge_parts(schema: Schema) -> Schema:
    """One node's ``allOf`` merged into it (not the ``allOf``s below it)."""
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    out = {k: v for k, v in schema.items() if k != "allOf"}
    kept = []
    for part in parts:
        if isinstance(part, dict):
            out = merge(out, part)
        elif part is not True:  # ``true`` allows everything; ``false`` (nothing) stays as it is
            kept.append(part)
    if kept:
        out["allOf"] = [*(out.get("allOf") or []), *kept]
    return out


def _combine(key: str, mine: Any, theirs: Any) -> Any:
    """One value for ``key`` that asks what ``mine`` and ``theirs`` both ask, or ``_CONFLICT``."""
    if key == "type":
        return _types(mine, theirs)
    if key == "enum" and isinstance(mine, list) and isinstance(theirs, list):
        keys = {_same(v) for v in theirs}
        common = [v for v in mine if _same(v) in keys]
        return common or _CONFLICT  # nothing in common: unsatisfiable, left for a reader to see
    if key in _LOWER + _UPPER + ("multipleOf",) and _number(mine) and _number(theirs):
        if key in _LOWER:
            return max(mine, theirs)
        if key in _UPPER:
            return min(mine, theirs)
        big, small = max(mine, theirs), min(mine, theirs)
        return big if small and (big / small).is_integer() else _CONFLICT
    if key == "required" and isinstance(mine, list) and isinstance(theirs, list):
        return list(dict.fromkeys([*mine, *theirs]))
    if key == "dependentRequired" and isinstance(mine, dict) and isinstance(theirs, dict):
        return {k: list(dict.fromkeys([*mine.get(k, []), *theirs.get(k, [])])) for k in {**mine, **theirs}}
    if key in _MAPS and isinstance(mine, dict) and isinstance(theirs, dict):
        merged = {k: _both(mine[k], theirs[k]) if k in mine and k in theirs else v
                  for k, v in {**mine, **theirs}.items()}  # fmt: skip
        return _CONFLICT if _CONFLICT in merged.values() else merged
    if key in ("additionalProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems"):
        return _both(mine, theirs)
    if key == "not" and isinstance(mine, dict) and isinstance(theirs, dict):
        return {"anyOf": [mine, theirs]}  # not A and not B: not (A or B)
    if key == "allOf" and isinstance(mine, list) and isinstance(theirs, list):
        return [*mine, *theirs]
    if key in ("uniqueItems", "nullable") and isinstance(mine, bool) and isinstance(theirs, bool):
        return (mine or theirs) if key == "uniqueItems" else (mine and theirs)
    return _CONFLICT


def _both(mine: Any, theirs: Any) -> Any:
    """Two subschemas (objects or booleans) as one, or ``_CONFLICT``."""
    if mine is False or theirs is False:
        return False
    if mine is True or mine == {}:
        return theirs
    if theirs is True or theirs == {}:
        return mine
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return merge(mine, theirs)
    return _CONFLICT


def _types(mine: Any, theirs: Any) -> Any:
    """The types both allow (an integer is a number), or ``_CONFLICT`` when none."""
    if not all(isinstance(t, (str, list)) for t in (mine, theirs)):
        return _CONFLICT
    a = [mine] if isinstance(mine, str) else mine
    b = [theirs] if isinstance(theirs, str) else theirs
    other = {"integer": "number", "number": "integer"}
    both = list(dict.fromkeys(t if t in b else "integer" for t in a if t in b or other.get(t) in b))
    return _CONFLICT if not both else both[0] if len(both) == 1 else both


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(value: Any) -> str:
    """A key under which two JSON values are equal as JSON (``true`` is not ``1``)."""
    return json.dumps(value, sort_keys=True)


def normal_form(input_schema: Any, keys: dict[str, str] | None = None) -> tuple[Schema, bool]:
    """A tool's ``inputSchema`` as every conversion starts from it (a deep copy; the tool keeps its own).

    ``keys`` renames top-level property keys (server key → the provider's), in ``properties``,
    ``required`` and the words that say what the root's composition asked, so a model reads the keys
    it can send. Returns the schema and whether it is recursive (a ``$ref`` that could not be inlined).
    """
    keys = keys or {}
    schema: Schema = copy.deepcopy(input_schema) if isinstance(input_schema, dict) else {}
    schema.pop("$schema", None)
    schema, recursive = inline_refs(schema)
    schema = _with_items(merge_all_of(schema))
    schema, notes = _lift_composition(schema, keys)
    schema.pop("title", None)  # "ui_searchArguments": the generator's name for it, noise for a model
    if notes:
        schema["description"] = " ".join([str(schema.get("description") or ""), *notes]).strip()
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    schema["properties"] = {**schema["properties"], **_undeclared(schema)}
    schema.setdefault("additionalProperties", False)
    return _with_keys(schema, keys), recursive


#: What a key the root requires but does not describe says of itself (see :func:`_undeclared`).
UNDESCRIBED = "required by the tool, whose schema does not describe it"


def _undeclared(schema: Schema) -> dict[str, Schema]:
    """The keys the root ``required`` names that ``properties`` does not, as properties of any
    value. ``required: ["a", "b"]`` beside only ``a`` is a server's slip, but JSON Schema reads it
    plainly (``b`` must be there, any value will do): the signature, every spec and the argument check
    say so alike (strict mode cannot: a value of no type blocks it, and the table says where),
    where ``additionalProperties: false`` would make the tool uncallable and strict mode would drop
    ``b`` unseen."""
    props = schema["properties"]
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return {
        key: {"description": UNDESCRIBED} for key in required if isinstance(key, str) and key not in props
    }


def _with_keys(schema: Schema, keys: dict[str, str]) -> Schema:
    """``schema`` with its top-level ``properties`` and ``required`` under the keys ``keys`` gives."""
    if not keys:
        return schema
    out = dict(schema)
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {keys.get(k, k): v for k, v in schema["properties"].items()}
    if isinstance(schema.get("required"), list):
        out["required"] = [keys.get(k, k) for k in schema["required"]]
    return out


def _with_items(schema: Schema) -> Schema:
    """``schema`` with ``items: {}`` on every array that has no ``items``."""
    out = map_subschemas(schema, _with_items)
    kind = out.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in out:
        out["items"] = {}
    return out


_COMPOSITION = ("allOf", "anyOf", "oneOf", "not")


def _lift_composition(schema: Schema, keys: dict[str, str]) -> tuple[Schema, list[str]]:
    """``schema`` without ``allOf``/``anyOf``/``oneOf``/``not``, and the sentences that say what they
    asked for and the merged schema cannot (see the module docstring)."""
    out = {k: v for k, v in schema.items() if k not in _COMPOSITION}
    notes: list[str] = []
    for part in schema.get("allOf") if isinstance(schema.get("allOf"), list) else []:
        if isinstance(part, dict):  # what merge_all_of left: lifted, then merged again
            flat, more = _lift_composition(part, keys)
            out = merge(out, flat)
            notes += more
    for key, says in (("anyOf", "at least one of"), ("oneOf", "exactly one of")):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict)]
        if not options:
            continue
        props = out.setdefault("properties", {})
        for option in options:
            for name, sub in (option.get("properties") or {}).items():
                props.setdefault(name, sub)
        notes.append(f"Give {says}: {'; '.join(_say(o, props, keys) for o in options)}.")
    if isinstance(schema.get("not"), dict):
        notes.append(f"Do not give: {_say(schema['not'], {}, keys)}.")
    left = out.pop("allOf", None)  # two parts' conflicting keywords, which no root keyword can hold
    if isinstance(left, list) and left:
        notes.append(f"Also: {'; '.join(_say(p, {}, keys) for p in left if isinstance(p, dict))}.")
    return out, notes


def _say(option: Schema, props: dict[str, Any], keys: dict[str, str]) -> str:
    """One option in words: its required keys when that is all it asks, else its compact JSON (with
    the provider's property keys either way)."""
    lifted = all(props.get(k) == v for k, v in (option.get("properties") or {}).items())
    rest = set(option) - {"required", "properties", "type"}
    required = option.get("required")
    if lifted and not rest and option.get("type", "object") == "object" and required:
        return " and ".join(str(keys.get(r, r)) for r in required)
    return compact(_with_keys(option, keys))


def compact(value: Any) -> str:
    """``value`` as JSON without spaces: how a schema fragment is quoted in a description."""
    return json.dumps(value, separators=(",", ":"))


#: Dropped without a word: annotations a model can do without, what a form says its own way, and (by
#: their ``x-`` prefix) extensions meant for other readers (``x-mcp-header`` is for the client).
_QUIET = (ANNOTATIONS - {"default"}) | {"$defs", "definitions", "propertyOrdering"}


def in_words(spec: Schema, dropped: Iterable[str]) -> list[str]:
    """What the keywords ``dropped`` from ``spec`` (those a provider's form cannot hold) asked of the
    value, as short phrases for its description: a constraint the form loses is still read by the
    model, and the argument check (against the server's own schema) still enforces it."""
    notes = []
    for key in dropped:
        value = spec.get(key)
        if key not in spec or key in _QUIET or key.startswith("x-") or (key == "default" and value is None):
            continue
        if key == "enum" and isinstance(value, list):
            notes.append("one of " + ", ".join(json.dumps(v) for v in value))
        elif key == "const":
            notes.append(f"exactly {json.dumps(value)}")
        elif key == "patternProperties" and isinstance(value, dict):
            notes += [f"keys matching {pattern}: {compact(sub)}" for pattern, sub in value.items()]
        elif key == "additionalProperties" and isinstance(value, dict) and value:
            notes.append(f"other keys: {compact(value)}")
        elif key == "allOf" and isinstance(value, list):
            notes += [f"also {compact(part)}" for part in value]
        elif key == "not":
            notes.append(f"not {compact(value)}")
        elif key != "additionalProperties":  # true or false: nothing a model needs to be told
            notes.append(f"{key}: {compact(value)}")
    return notes


def described(description: Any, notes: list[str]) -> str:
    """A description followed by the phrases :func:`in_words` gave, in brackets."""
    text = str(description or "")
    return f"{text} ({'; '.join(notes)})".strip() if notes else text
