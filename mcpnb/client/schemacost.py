"""Whether checking a value against a server's JSON Schema could take for ever (:func:`fans_out`).

A validator walks every path a schema gives it to the value, the GIL held: a hostile server's 40
definitions each "the next or the next" are 2**40 paths at one place, a loop met twice at a level
doubles with each level of the value, and a reference the client cannot follow as the validator
does hides either. Such a schema is not checked here (arguments, results, a form's answers): the
server judges those values. Three measures, each linear in the schema's size: :func:`place_size`,
:func:`loops_multiply`, :func:`_unfollowable`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from mcpnb.client.schemarefs import (
    DATA_KEYWORDS,
    DEFINITION_KEYWORDS,
    DESCEND,
    DESCEND_BY_NAME,
    EXPANDED_LIMIT,
    Schema,
    locate,
    pointer,
)


def loops_multiply(schema: Any, budget: int = 5 * EXPANDED_LIMIT) -> bool:
    """Whether a reference that loops is met twice or more at one place of the value, each level
    down: then checking a value costs that many times more per level of its depth (three ways back
    to the root under ``items``, ``anyOf``/``allOf``/``not``, made a 40-byte value 20 levels deep
    take minutes to word its error, the GIL held), though the schema is small. A tree (a node's
    ``children`` are nodes) meets its reference once per level: not this. A reference met again
    at the same place of the value, not one level down, counts too (it loops without reading the
    value), and so do places written apart that one part of a value can be at once: ``a`` and
    ``a.a`` (a value 24 deep is reached 2**17 ways), ``properties/a`` beside a pattern ``^a$``, an
    ``items`` beside another schema's ``prefixItems`` (a 100-byte schema, a 16-deep value: 12 s).
    ``budget``: steps, past which the answer is yes."""
    root = schema if isinstance(schema, dict) else {}
    steps = 0

    def met(
        node: Any,
        target: str,
        place: tuple[_Step, ...],
        following: frozenset[str],
        found: list[tuple[_Step, ...]],
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
            if k in DATA_KEYWORDS or k in DEFINITION_KEYWORDS:
                continue
            if k in DESCEND_BY_NAME and isinstance(v, dict):
                for name, sub in v.items():
                    met(sub, target, (*place, _step(k, name, node)), following, found)
            elif k in DESCEND and isinstance(v, list):
                for n, sub in enumerate(v):
                    met(sub, target, (*place, _step(k, n, node)), following, found)
            elif k in DESCEND:
                met(v, target, (*place, _step(k, None, node)), following, found)
            else:
                met(v, target, place, following, found)

    def charge(n: int = 1) -> None:
        nonlocal steps
        steps += n
        if steps > budget:
            raise _Exhausted

    try:
        # the references that can lead back to themselves (only they loop), each read once: one
        # written 3,000 times was read 3,000 times (seconds, the GIL held)
        groups, edges = _loops_first(root, _Visits(budget))
        looping = [ref for group in groups for ref in group if len(group) > 1 or ref in edges[ref]]
        for target in looping:
            found: list[tuple[_Step, ...]] = []
            met(pointer(root, target), target, (), frozenset({target}), found)
            if () in found or _overlap(found, charge):
                return True
    except _Exhausted:
        return True
    return False


#: One step down the value, as :func:`loops_multiply` compares them: the kind of part (``o`` a
#: property's value, ``a`` an item, ``n`` a property's name), which one (a name or an index; None
#: for any), the schema object that wrote it, how it chooses (``named``, ``pattern``, ``rest``:
#: what the same object's named ones leave, as ``additionalProperties`` and ``items`` after
#: ``prefixItems`` do; ``any``), and a pattern's own text (else None).
_Step = tuple[str, Any, int, str, Any]
_STEPS: dict[str, tuple[str, str]] = {
    "properties": ("o", "named"),
    "patternProperties": ("o", "pattern"),
    "additionalProperties": ("o", "rest"),
    "unevaluatedProperties": ("o", "rest"),
    "propertyNames": ("n", "any"),
    "prefixItems": ("a", "named"),
    "additionalItems": ("a", "rest"),
    "unevaluatedItems": ("a", "rest"),
    "contains": ("a", "any"),
}


def _step(keyword: str, which: Any, owner: dict[str, Any]) -> _Step:
    if keyword == "items":  # a list names positions; one schema is every item the list leaves
        kind, how = ("a", "named") if which is not None else ("a", "rest")
    else:
        kind, how = _STEPS[keyword]
    return kind, which if how == "named" else None, id(owner), how, which if how == "pattern" else None


def _coincide(a: _Step, b: _Step) -> bool:
    """Whether one part of a value can be reached by both steps (a property ``a`` by
    ``properties/a`` and a pattern ``^a$``; never by two names, nor by a name and what the same
    object's names leave, nor by a name and a pattern it does not match: ``child`` and ``^x-``,
    a tree with extensions, is not a loop met twice)."""
    if a[0] != b[0] or (a[1] is not None and b[1] is not None and a[1] != b[1]):
        return False
    for name, pattern in ((a, b), (b, a)):
        named_only = name[3] == "named" and pattern[3] == "pattern" and isinstance(name[1], str)
        if named_only and not _may_match(pattern[4], name[1]):
            return False
    return a[2] != b[2] or {a[3], b[3]} not in ({"rest", "named"}, {"rest", "pattern"})


#: A name the two regex engines read alike (the Python ``jsonschema`` fallback's ``re`` and
#: jsonschema-rs's): ``$`` matches before a final line break in ``re`` only, and classes differ
#: past ASCII.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]*")


def _may_match(pattern: Any, name: str) -> bool:
    """Whether ``pattern`` may match ``name``, read by the validator's own regex engine (Python's
    ``re`` backtracks for ever on ``^(a+)+$`` and a name of 40 ``a``s and a ``!``, the GIL held,
    where the validator's stops); a pattern it cannot read may match anything. Where the engines
    may differ (a name with a line break or past ASCII, a POSIX class ``[[:digit:]]``), it may: a
    check that falls back to ``jsonschema`` reads patterns with ``re`` (``^a$`` matches ``a\n``)."""
    validator = _pattern_validator(pattern) if isinstance(pattern, str) else None
    if validator is None or not _PLAIN_NAME.fullmatch(name) or "[:" in pattern:
        return True
    try:
        return bool(validator.is_valid(name))
    except Exception:  # a pattern the engine gives up on: it may match
        return True


@lru_cache(maxsize=256)
def _pattern_validator(pattern: str) -> Any:
    import jsonschema_rs  # imported by the check this judges anyway

    try:
        return jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    except Exception:  # not a pattern it reads
        return None


def _overlap(found: list[tuple[_Step, ...]], charge: Callable[[int], None]) -> bool:
    """Whether one place of ``found`` can be the start of (or the same as) another: then a level of
    the value can be reached two ways, and the next level four. Places are sorted into groups step
    by step, each group one name (and the steps that may be any), so a tree of 3,000 kinds of child
    is 3,000 groups of one, not 4.5 million pairs; ``charge`` counts the work."""

    def clash(group: list[int], depth: int) -> bool:
        charge(len(group))
        ended = [i for i in group if len(found[i]) == depth]
        for e in ended:
            for i in group:
                charge(1)
                if i != e and all(_coincide(found[e][d], found[i][d]) for d in range(depth)):
                    return True
        named: dict[tuple[str, Any], list[int]] = {}
        anyone: dict[str, list[int]] = {}
        for i in group:
            if len(found[i]) > depth:
                kind, which = found[i][depth][:2]
                if which is None:
                    anyone.setdefault(kind, []).append(i)
                else:
                    named.setdefault((kind, which), []).append(i)
        subgroups = [ids + anyone.get(kind, []) for (kind, _), ids in named.items()]
        subgroups += [ids for kind, ids in anyone.items() if not any(k == kind for k, _ in named)]
        return any(len(sub) > 1 and clash(sub, depth + 1) for sub in subgroups)

    return clash(list(range(len(found))), 0)


#: Keywords that give a subschema a name a reference may use.
_ANCHORS = frozenset({"$anchor", "$dynamicAnchor", "$recursiveAnchor"})
#: A reference that starts with a scheme (``https:``, ``urn:``) is absolute; any other is read
#: against the document's own name.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: Keywords whose object's keys are names (of properties, definitions), not keywords.
_NAMED = DESCEND_BY_NAME | DEFINITION_KEYWORDS | {"dependentSchemas"}


def _unfollowable(schema: Any) -> bool:
    """Whether ``schema`` names a part of itself in a way :func:`pointer` does not read as the
    validator does: a ``$dynamicRef`` or ``$recursiveRef``; a ``$ref`` by anchor, by escaped name
    (``#/$defs/A%20B``), relative to the document (``""``, ``json-schema:///#``: jsonschema-rs's
    own name for it) or by an ``$id`` or anchor the schema gives; or an ``$id`` below the root
    (beneath it ``#/...`` names a part of that subschema, not of the root); or a ``#/...`` that
    names nothing here (or no schema: a number), followed from the targets too (one written as
    data, under ``enum``, is read where a reference names it). Counted from what the
    pointer finds instead, ``anyOf: [{"$dynamicRef": "#n"}] * 2`` or ``[{"$ref":
    "json-schema:///#"}] * 2`` per level was judged a tree, and a 14-deep value took 4-20 s to
    check. A reference elsewhere (``https://...``) the validator refuses to fetch: left to it. None
    of the survey's 3,958 real schemas writes any of these."""
    root = schema if isinstance(schema, dict) else {}
    draft4 = any(f"draft-0{n}" in str(root.get("$schema", "")) for n in (3, 4))
    ids = {"$id", "id"} if draft4 else {"$id"}
    naming = ids | _ANCHORS
    named = False  # an $id or anchor given: a reference by it may be local
    others: list[str] = []
    local: list[str] = []

    def odd(node: Any, top: bool) -> bool:
        nonlocal named
        if isinstance(node, list):
            return any(odd(v, False) for v in node)
        if not isinstance(node, dict):
            return False
        read.add(id(node))
        for k, v in node.items():
            if k in DATA_KEYWORDS:
                continue
            if k in ("$dynamicRef", "$recursiveRef") and isinstance(v, str):
                return True
            if k in ids and isinstance(v, str) and not top:
                return True
            named = named or (k in naming and isinstance(v, str | bool))
            if k == "$ref" and isinstance(v, str) and v != "#":
                if not v.startswith("#/"):
                    others.append(v)
                elif "%" in v:
                    return True
                else:
                    local.append(v)
            if k in _NAMED and isinstance(v, dict):  # its keys are names, not keywords
                if any(odd(sub, False) for sub in v.values()):
                    return True
            elif odd(v, False):
                return True
        return False

    read: set[int] = set()  # the objects walked: a reference into data is walked from its target
    if odd(schema, True):
        return True
    checked: set[str] = set()
    while local:  # what each local reference names, and what that names in turn
        ref = local.pop()
        if ref in checked:
            continue
        checked.add(ref)
        target = locate(root, ref)[1]
        if not isinstance(target, dict | bool):
            return True  # names nothing here (or no schema): counted as nothing, it may hide anything
        if isinstance(target, dict) and id(target) not in read and odd(target, False):
            return True
    return any(named or ref.startswith("json-schema:") or not _SCHEME.match(ref) for ref in others)


#: How :func:`place_size` reads a keyword's subschemas: by the part of the value they reach, or
#: not at all (data, definitions); any other keyword's apply where they are written (``allOf``,
#: ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``, ``dependentSchemas``, unknown ones).
_ROLES: dict[str, str] = {
    **dict.fromkeys(DATA_KEYWORDS | DEFINITION_KEYWORDS | {"$ref"}, "skip"),
    "properties": "properties",
    "patternProperties": "patternProperties",
    "additionalProperties": "rest",
    "unevaluatedProperties": "any key",
    "propertyNames": "names",
    "prefixItems": "items",
    "items": "items",
    "additionalItems": "items",
    "contains": "any item",
    "unevaluatedItems": "any item",
}


#: Keywords that need to know what the other subschemas at their place evaluated.
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})


def place_size(schema: Any, limit: int = EXPANDED_LIMIT) -> int:
    """The most schema nodes a validator may apply at one place of a value (the value itself, or
    one property's value, or one item), never past ``limit + 1``: what applies at a place is added
    up (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``, a ``$ref``'s target,
    each as often as written there; twice beside ``unevaluatedProperties`` or ``unevaluatedItems``,
    which apply them again), a property or an item moves to another place (the worst one
    counted, not their sum, as one part of a value is one place). ``wide``'s 40 definitions each
    "the next or the next" are 2**40 nodes at ``x``; the Kubernetes Deployment, 3,395 nodes once
    its references are read where they stand, is at most 3 at one place.

    It bounds the work of checking a value by its size (a bigger schema asks a bigger value, which
    the sender had to write) apart from loops, which :func:`loops_multiply` judges. Each reference
    is read once: a definition met again (in place) adds what it counted; references that loop
    into each other count each as all of them together, from wherever the loop is entered (the
    loop entered 2**11 ways at one place counts 2**11 times the loop, which reading it from inside
    would have lost). Linear in the schema's size: past a budget of steps the answer is over."""
    cap = limit + 1
    root = schema if isinstance(schema, dict) else {}
    visit = _Visits(5 * limit)
    value: dict[str, tuple[int, int]] = {}  # reference: (nodes here, most at a place below)
    memo: dict[tuple[int, int], tuple[int, int]] = {}
    reading: tuple[int, frozenset[str]] = (0, frozenset())  # the loop read, and its references

    def worst(node: Any) -> int:
        here, below = read(node)
        return max(here, below)

    def read(node: Any) -> tuple[int, int]:
        """(nodes applied at ``node``'s place, most applied at one place below it)."""
        if isinstance(node, list):  # a list of subschemas applied here (allOf, anyOf, ...)
            visit(node)
            parts = [read(v) for v in node]
            return min(cap, sum(p[0] for p in parts)), min(cap, sum(p[1] for p in parts))
        if not isinstance(node, dict):
            return 0, 0
        key = (id(node), reading[0])
        if key in memo:
            return memo[key]
        visit(node)
        ref = node.get("$ref")
        own = 0 if isinstance(ref, str) and len(node) == 1 else 1  # a bare $ref stands for its target
        here = below = 0  # what its in-place subschemas apply, here and below
        if isinstance(ref, str) and ref not in reading[1]:
            here, below = value.get(ref, (0, 0))
        named = rest = patterns = any_key = names = 0
        positions = items = any_item = 0
        for k, v in node.items():
            if not isinstance(v, dict | list):
                continue  # a word, a number, or a schema true or false: nothing to apply
            role = _ROLES.get(k, "here")
            if role == "here":
                sub_here, sub_below = read(v)
                here, below = here + sub_here, below + sub_below
            elif role == "properties" and isinstance(v, dict):
                named = max([0, *(worst(sub) for sub in v.values())])
            elif role == "patternProperties" and isinstance(v, dict):
                patterns = sum(worst(sub) for sub in v.values())
            elif role == "rest":
                rest = worst(v)
            elif role == "any key":
                any_key += worst(v)
            elif role == "names":
                names = worst(v)
            elif role == "items" and isinstance(v, list):
                positions = max([positions, *(worst(sub) for sub in v)])
            elif role == "items":
                items = max(items, worst(v))
            elif role == "any item":
                any_item += worst(v)
        if _UNEVALUATED & node.keys():
            # the validator applies the in-place subschemas again to learn which parts they
            # evaluated: k such levels nested under anyOf are 2**k (24 levels, 49 nodes: 18 s)
            here, below = 2 * here, 2 * below
        # a property is a named one or one they leave, and any pattern may match it too; an item
        # is at a position or after them; what applies to any property or item applies besides
        down = max(max(named, rest) + patterns + any_key, names, max(positions, items) + any_item)
        memo[key] = min(cap, own + here), min(cap, below + down)
        return memo[key]

    try:
        groups, edges = _loops_first(root, visit)
        for n, refs in enumerate(groups, 1):
            targets = [t for t in (pointer(root, ref) for ref in refs) if t is not None]
            if len(refs) == 1 and refs[0] not in edges[refs[0]]:
                reading = (0, frozenset())  # a reference that does not loop: its target as it stands
                value[refs[0]] = read(targets[0]) if targets else (0, 0)
                continue
            reading = (n, frozenset(refs))  # a loop: each of its references read up to the loop's own
            counts = [read(t) for t in targets]
            together = min(cap, sum(c[0] for c in counts)), min(cap, sum(max(c) for c in counts))
            value.update(dict.fromkeys(refs, together))
        reading = (0, frozenset())
        return min(cap, worst(schema))
    except _Exhausted:
        return cap


class _Visits:
    """Counts the nodes a walk reads: each the first time is free (a schema's size bounds those),
    again (in another loop, under another reference) charged, past ``spare`` plus four times the
    distinct ones :class:`_Exhausted`. So a walk is linear in the schema's size, however its
    references nest."""

    def __init__(self, spare: int) -> None:
        self.seen: set[int] = set()
        self.again = 0
        self.spare = spare

    def __call__(self, node: Any) -> None:
        if id(node) not in self.seen:
            self.seen.add(id(node))
            return
        self.again += 1
        if self.again > self.spare + 4 * len(self.seen):
            raise _Exhausted


def _written(node: Any, visit: _Visits) -> list[str]:
    """The ``$ref``s written in ``node`` (each as often as written), its definitions' not (only
    those its own subschemas use where they stand), each node read counted by ``visit``; without
    recursion."""
    found: list[str] = []
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            visit(node)
            todo.extend(node)
        elif isinstance(node, dict):
            visit(node)
            if isinstance(node.get("$ref"), str):
                found.append(node["$ref"])
            todo.extend(v for k, v in node.items() if k not in DATA_KEYWORDS and k not in DEFINITION_KEYWORDS)
    return found


def _loops_first(root: Schema, visit: _Visits) -> tuple[list[list[str]], dict[str, list[str]]]:
    """The references ``root`` reaches, grouped by the loops they make (each group references that
    lead back to each other, or one alone), every group after the groups it leads to (Tarjan's
    strongly connected components, without recursion: references may chain thousands deep); and
    the references each one's target writes."""
    edges: dict[str, list[str]] = {}

    def out(ref: str) -> Iterator[str]:
        if ref not in edges:
            edges[ref] = _written(pointer(root, ref), visit)
        return iter(edges[ref])

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in dict.fromkeys(_written(root, visit)):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, out(start))]
        while work:
            ref, todo = work[-1]
            for nxt in todo:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, out(nxt)))
                    break
                if nxt in on_stack:
                    low[ref] = min(low[ref], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[ref])
                if low[ref] == index[ref]:
                    group: list[str] = []
                    while not group or group[-1] != ref:
                        group.append(stack.pop())
                        on_stack.discard(group[-1])
                    groups.append(group)
    return groups, edges


class _Exhausted(Exception):
    """:func:`loops_multiply` or :func:`place_size` ran out of steps."""


_VERDICTS: dict[int, tuple[Any, bool]] = {}


def fans_out(schema: Any) -> bool:
    """Whether a check of a value against ``schema`` may follow too many of its paths (a hostile
    server's 2**40), and the client leaves the value to the server: past :data:`EXPANDED_LIMIT`
    nodes at one place of the value (:func:`place_size`), a loop met twice at a level of it
    (:func:`loops_multiply`), or a part named as the client cannot follow (:func:`_unfollowable`).
    Counted place by place, not over the whole schema (:func:`expanded_size`, 4,823 for GitHub's
    issue timeline: 2x headroom), the largest of 3,958 real schemas is 96 (tests/client/
    test_real_schemas.py). Kept per schema object (a tool's, asked on every call), with the schema
    itself, so its ``id`` cannot be reused while known."""
    known = _VERDICTS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    try:
        verdict = _unfollowable(schema) or place_size(schema) > EXPANDED_LIMIT or loops_multiply(schema)
    except (RecursionError, _Exhausted):  # nested thousands deep: no validator walks that either
        verdict = True
    if len(_VERDICTS) >= 512:
        _VERDICTS.clear()
    _VERDICTS[id(schema)] = (schema, verdict)
    return verdict
