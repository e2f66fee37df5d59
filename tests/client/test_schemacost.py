"""Which schemas ``fans_out`` leaves to the server, counted place by place of the value.

``fans_out`` counted the whole schema, its references read where they stand, against 10,000 nodes:
GitHub's issue timeline (4,823) had 2x headroom, and a real schema a little bigger would have lost
its check for nothing, though a validator applies at most 96 of its nodes at one place of a value.
Now the nodes that apply at one place are counted (``allOf``/``anyOf``/``oneOf``/``not``/
``if``-``then``-``else``/``$ref`` added up, a property or an item another place, the worst one
counted). Each shape below is one a check cannot finish (seconds to minutes for a value of a few
hundred bytes, the GIL held): all still caught, and some the old count let through.

No validator is run on a shape before ``fans_out`` is asserted of it: on the old code the
assertion fails instead of the test hanging.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpnb.client import schemacost, schemarefs
from mcpnb.client.schemacheck import schema_problem


def _chain(n: int, step: Any, last: Any = None) -> dict[str, Any]:
    """``x`` is ``D0``, each ``Di`` is ``step`` of a reference to the next, ``Dn`` is ``last``."""
    return {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D0"}},
        "$defs": {
            **{f"D{i}": step({"$ref": f"#/$defs/D{i + 1}"}) for i in range(n)},
            f"D{n}": last if last is not None else {"type": "string"},
        },
    }


#: Shapes whose nodes at one place of the value multiply with each definition: 2**40 (3**30) at one
#: place, the same place or one a few levels down the value.
MULTIPLIED = {
    "the next or the next": _chain(40, lambda r: {"anyOf": [r, r]}),
    "anyOf of anyOf": _chain(
        40, lambda r: {"anyOf": [{"anyOf": [r, {"type": "null"}]}, {"oneOf": [{"allOf": [r]}]}]}
    ),
    "if, then and else": _chain(30, lambda r: {"if": r, "then": r, "else": r}),
    "not, and the same": _chain(40, lambda r: {"allOf": [{"not": r}, r]}),
    "each item two ways": _chain(40, lambda r: {"anyOf": [{"items": r}, {"items": r}]}),
    "the next or the next in items": _chain(40, lambda r: {"type": "array", "items": {"anyOf": [r, r]}}),
    "a property in both": _chain(
        40, lambda r: {"allOf": [{"properties": {"a": r}}, {"properties": {"a": r}}]}
    ),
    "a property and its pattern": _chain(
        40, lambda r: {"properties": {"a": r}, "patternProperties": {"^a": r}}
    ),
    "wide and deep": _chain(
        20, lambda r: {"anyOf": [{"items": {"anyOf": [r, r]}}, {"properties": {"a": {"allOf": [r, r]}}}]}
    ),
    "one definition 101 times at a place": _chain(
        1, lambda r: {"anyOf": [r] * 101}, last={"allOf": [{"maximum": i} for i in range(100)]}
    ),
    # the old count read the loop R-A once, from inside it: entered 2**11 ways at x, it counted
    # 2**11 nodes, and a check of {"x": [10**9]} took over 100 s (2,048 times 2,500 maximums)
    "a loop entered 2**11 ways at a place": {
        "type": "object",
        "properties": {"t": {"$ref": "#/$defs/R"}, "x": {"$ref": "#/$defs/D0"}},
        "$defs": {
            "R": {
                "anyOf": [
                    {"type": "array", "items": {"$ref": "#/$defs/A"}},
                    {"allOf": [{"maximum": i} for i in range(2500)]},
                ]
            },
            "A": {"type": "array", "items": {"$ref": "#/$defs/R"}},
            **{f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 2} for i in range(11)},
            "D11": {"$ref": "#/$defs/A"},
        },
    },
}

ROOT = {"$ref": "#"}
#: Small schemas that loop back into themselves through places written apart that one part of a
#: value can be at once: a value reached two ways at each level (``a`` and ``a.a``: Fibonacci ways).
#: Each a 100-byte schema whose check of a 16- to 24-deep value took 12 to 20 s or more.
LOOPS_OVERLAP = {
    "a and a.a": {"type": "object", "properties": {"a": {"allOf": [ROOT, {"properties": {"a": ROOT}}]}}},
    "items and another's prefixItems": {"type": "array", "allOf": [{"items": ROOT}, {"prefixItems": [ROOT]}]},
    "a property and its pattern": {
        "type": "object",
        "properties": {"a": ROOT},
        "patternProperties": {"^a$": ROOT},
    },
    "a property and another's rest": {
        "type": "object",
        "allOf": [{"properties": {"a": ROOT}}, {"additionalProperties": ROOT}],
    },
}

#: References the client cannot follow as the validator does (its pointer would count another part,
#: or nothing): each "the same twice" per level of an array, 14-16 deep took 4-20 s.
UNFOLLOWABLE = {
    "$dynamicRef": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$dynamicAnchor": "n",
        "type": "array",
        "items": {"anyOf": [{"$dynamicRef": "#n"}, {"$dynamicRef": "#n"}]},
    },
    "$recursiveRef": {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": True,
        "type": "array",
        "items": {"anyOf": [{"$recursiveRef": "#"}, {"$recursiveRef": "#"}]},
    },
    "the document by jsonschema-rs's name for it": {
        "type": "array",
        "items": {"anyOf": [{"$ref": "json-schema:///#"}, {"$ref": "json-schema:///"}]},
    },
    "the document by its $id": {
        "$id": "https://x.test/s",
        "type": "array",
        "items": {"anyOf": [{"$ref": "https://x.test/s"}, {"$ref": "s"}]},
    },
    "an anchor": {
        "$defs": {
            "n": {"$anchor": "n", "type": "array", "items": {"anyOf": [{"$ref": "#n"}, {"$ref": "#n"}]}}
        },
        "$ref": "#n",
    },
    "an $id below the root": {
        "properties": {
            "x": {"$id": "https://x.test/inner", **_chain(40, lambda r: {"anyOf": [r, r]})},
        },
        "$defs": {f"D{i}": {"type": "string"} for i in range(41)},  # what the root's pointer finds
    },
    "an escaped name": {
        "properties": {"x": {"$ref": "#/$defs/D%30"}},
        "$defs": {"D%30": {"type": "string"}, **_chain(40, lambda r: {"anyOf": [r, r]})["$defs"]},
    },
}


@pytest.mark.parametrize("name", list(MULTIPLIED))
def test_nodes_that_multiply_at_one_place_are_left_to_the_server(name: str) -> None:
    schema = MULTIPLIED[name]
    assert schemacost.place_size(schema) > schemarefs.EXPANDED_LIMIT
    assert schemacost.fans_out(schema)
    value = {"x": [10**9]} if name.startswith("a loop") else {"x": 10**9}
    assert schema_problem(value, schema).startswith("cannot check against the schema")


@pytest.mark.parametrize("name", list(LOOPS_OVERLAP))
def test_a_loop_that_reaches_one_part_of_the_value_two_ways_is_left_to_the_server(name: str) -> None:
    schema = LOOPS_OVERLAP[name]
    assert schemacost.loops_multiply(schema)
    assert schemacost.fans_out(schema)
    value: Any = 1
    for _ in range(24):
        value = [value] if "items" in name else {"a": value}
    assert schema_problem(value, schema).startswith("cannot check against the schema")


@pytest.mark.parametrize("name", list(UNFOLLOWABLE))
def test_a_reference_the_client_cannot_follow_as_the_validator_does_is_left_to_the_server(name: str) -> None:
    schema = UNFOLLOWABLE[name]
    assert schemacost.fans_out(schema)
    value: Any = 1
    for _ in range(24):
        value = [value]
    assert schema_problem(value, schema).startswith("cannot check against the schema")


#: Loops that meet a part of the value once per level, each written apart from the others (a
#: schema's ``additionalProperties`` is what its ``properties`` leave; its ``items`` what its
#: ``prefixItems`` leave): checked, a 30-deep value placed at once. A step of the value, and where
#: the 1 at its bottom is said to fail.
TREES = {
    "named children": (
        {
            "type": "object",
            "properties": {"left": ROOT, "right": ROOT, "kids": {"type": "array", "items": ROOT}},
        },
        lambda v: {"left": v},
        "$" + ".left" * 30,
    ),
    "a map of nodes beside its named ones": (
        {"type": "object", "properties": {"meta": ROOT}, "additionalProperties": ROOT},
        lambda v: {"meta": v},
        "$" + ".meta" * 30,
    ),
    "the first item and the rest": (
        {"type": "array", "prefixItems": [ROOT], "items": ROOT},
        lambda v: [v],
        "$" + "[0]" * 30,
    ),
}


@pytest.mark.parametrize("name", list(TREES))
def test_a_tree_whose_parts_are_each_reached_once_is_checked(name: str) -> None:
    schema, step, where = TREES[name]
    assert not schemacost.fans_out(schema)
    value: Any = 1
    for _ in range(30):
        value = step(value)
    said = schema_problem(value, schema)
    assert said.startswith(f"at {where}:"), said


def test_a_schema_of_millions_of_nodes_written_out_but_few_at_a_place_is_checked() -> None:
    """Twelve objects a level, each the next level, five levels: 12**5 nodes once its references
    are read where they stand (the old count: left to the server), one at any place of a value."""
    schema = _chain(
        5,
        lambda r: {"type": "object", "properties": {f"p{j}": r for j in range(12)}},
        last={"type": "integer"},
    )
    assert schemarefs.expanded_size(schema) > schemarefs.EXPANDED_LIMIT
    assert schemacost.place_size(schema) <= 2
    assert not schemacost.fans_out(schema)
    said = schema_problem({"x": {"p3": {"p0": {"p11": {"p2": {"p5": "seven"}}}}}}, schema)
    assert said.startswith("at $.x.p3.p0.p11.p2.p5:"), said


def test_references_chained_thousands_deep_without_a_loop_are_read_without_recursion() -> None:
    """3,000 definitions each the next: 3,001 nodes at one place, read in one pass (the old count
    recursed through each and raised RecursionError, judged to fan out; jsonschema-rs compiles and
    checks it in 0.13 s)."""
    schema = _chain(3000, lambda r: {"allOf": [r]})
    assert schemacost.place_size(schema) == 3001
    assert not schemacost.fans_out(schema)


def test_a_definition_nested_in_hundreds_of_others_is_judged_in_steps_linear_in_its_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """400 references each into a level of one 400-deep object, all applied at the root: each
    level is read again under each reference (80,000 readings of 800 nodes). Readings past the
    first are counted against a budget linear in the schema's size, and past it the schema is
    left to the server."""
    node: Any = {"type": "string"}
    for _ in range(400):
        node = {"properties": {"a": node}}
    schema = {
        "properties": {"r": node},
        "allOf": [{"$ref": "#/properties/r" + "/properties/a" * i} for i in range(400)],
    }
    readings = 0
    real = schemacost._Visits.__call__

    def counted(self: Any, node: Any) -> None:
        nonlocal readings
        readings += 1
        real(self, node)

    monkeypatch.setattr(schemacost._Visits, "__call__", counted)
    assert schemacost.fans_out(schema)
    assert readings <= 5 * schemarefs.EXPANDED_LIMIT + 5 * 2_000


def _through_a_list(n: int) -> dict[str, Any]:
    """``x`` is item 0 of ``H``'s ``anyOf``, each item "the next item or the next item": named by
    index into a list, which the client's pointer could not follow (counted as nothing)."""
    h = {"anyOf": [{"anyOf": [{"$ref": f"#/$defs/H/anyOf/{i + 1}"}] * 2} for i in range(n)]}
    h["anyOf"].append({"type": "string"})
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/H/anyOf/0"}}, "$defs": {"H": h}}


#: References through a list's items (RFC 6901 reads ``/3`` as the fourth item, as the validator
#: does), each "the next or the next" 40 times: 2**40 at ``x``, once judged 0 nodes (a check froze
#: the kernel past 40 s).
THROUGH_LISTS = {
    "a definition's anyOf": _through_a_list(40),
    "the root's anyOf": {
        "anyOf": [
            {
                "not": {},
                "anyOf": [{"anyOf": [{"$ref": f"#/anyOf/0/anyOf/{i + 1}"}] * 2} for i in range(40)]
                + [{"type": "integer"}],
            },
            {"$ref": "#/anyOf/0/anyOf/0"},
        ]
    },
    "an unknown keyword's list": {
        "x-list": [{"anyOf": [{"$ref": f"#/x-list/{i + 1}"}] * 2} for i in range(40)] + [{"type": "integer"}],
        "$ref": "#/x-list/0",
    },
}


@pytest.mark.parametrize("name", list(THROUGH_LISTS))
def test_a_reference_through_a_list_is_counted_where_it_leads(name: str) -> None:
    schema = THROUGH_LISTS[name]
    assert schemacost.place_size(schema) > schemarefs.EXPANDED_LIMIT
    assert schemacost.fans_out(schema)
    value = {"x": 10**9} if "properties" in schema else 10**9
    assert schema_problem(value, schema).startswith("cannot check against the schema")


def test_a_pointer_reads_list_items_as_rfc_6901_does() -> None:
    root = {"anyOf": [{"type": "string"}, {"type": "integer"}], "$defs": {"0": {"type": "null"}}}
    assert schemarefs.pointer(root, "#/anyOf/1") == {"type": "integer"}
    assert schemarefs.pointer(root, "#/$defs/0") == {"type": "null"}  # an object's key, not an index
    for ref in ("#/anyOf/01", "#/anyOf/-1", "#/anyOf/2", "#/anyOf/+1", "#/anyOf/-"):
        assert schemarefs.pointer(root, ref) is None, ref


#: Local references that name nothing here (or no schema): the client counts nothing behind them,
#: and cannot say what the validator makes of them.
NOWHERE = {
    "no such definition": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/N"}] * 2}},
    "an index with a leading zero": {"anyOf": [{"type": "string"}], "$ref": "#/anyOf/00"},
    "past the list's end": {"anyOf": [{"type": "string"}], "$ref": "#/anyOf/1"},
    "a number, not a schema": {"properties": {"a": {"maximum": 3}}, "$ref": "#/properties/a/maximum"},
    # the target's own reference (#/enum/1) names nothing: read from the target, not skipped as data
    "a reference inside a target written as data": {
        "anyOf": [
            {"enum": [{"anyOf": [{"$ref": f"#/enum/{i + 1}"}] * 2} for i in range(40)]},
            {"$ref": "#/anyOf/0/enum/0"},
        ]
    },
}


@pytest.mark.parametrize("name", list(NOWHERE))
def test_a_local_reference_that_names_nothing_is_left_to_the_server(name: str) -> None:
    assert schemacost.fans_out(NOWHERE[name])


def test_a_reference_to_a_boolean_schema_is_checked() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Any"}, "b": {"$ref": "#/$defs/No"}},
        "$defs": {"Any": True, "No": False},
    }
    assert not schemacost.fans_out(schema)
    said = schema_problem({"a": 1, "b": 2}, schema)
    assert said is not None and said.startswith("at $.b:"), said


def _unevaluated(k: int, keyword: str = "anyOf") -> dict[str, Any]:
    """``k`` levels, each "the level below or a property of its own", no property left unevaluated:
    49 nodes at a place for ``k`` = 24, whose check took 18 s (each level's options are applied
    again to learn what they evaluated)."""
    s: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}}
    for i in range(k):
        s = {keyword: [s, {"properties": {f"p{i}": {}}}], "unevaluatedProperties": False}
    return s


@pytest.mark.parametrize(
    "schema",
    [
        _unevaluated(24),
        _unevaluated(30, "allOf"),
        {
            "$defs": {
                **{
                    f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}, {}], "unevaluatedItems": False}
                    for i in range(30)
                },
                "D30": {"type": "array"},
            },
            "$ref": "#/$defs/D0",
        },
    ],
    ids=["anyOf", "allOf", "unevaluatedItems by reference"],
)
def test_unevaluated_parts_nested_under_in_place_options_are_left_to_the_server(schema: Any) -> None:
    assert schemacost.place_size(schema) > schemarefs.EXPANDED_LIMIT
    assert schemacost.fans_out(schema)
    assert schema_problem({"a": "x", "zz": 1}, schema).startswith("cannot check against the schema")


def test_a_few_levels_of_unevaluated_parts_are_checked() -> None:
    schema = _unevaluated(3)
    assert schemacost.place_size(schema) <= 2**5
    assert not schemacost.fans_out(schema)
    said = schema_problem({"a": 1, "p1": 0, "zz": 1}, schema)
    assert said is not None and "zz" in said, said


def test_a_tree_with_extensions_by_pattern_is_checked() -> None:
    """A node's ``child`` and its ``x-`` extensions are each a node: no property is both, so each
    part of a value is reached once (the old comparison took ``child`` for a possible ``^x-``)."""
    schema = {
        "$defs": {
            "N": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/N"}, "n": {"type": "integer"}},
                "patternProperties": {"^x-": {"$ref": "#/$defs/N"}},
            }
        },
        "$ref": "#/$defs/N",
    }
    assert not schemacost.loops_multiply(schema)
    assert not schemacost.fans_out(schema)
    value: Any = {"n": "one"}
    for _ in range(30):
        value = {"child": value}
    said = schema_problem(value, schema)
    assert said is not None and said.startswith("at $" + ".child" * 30 + ".n:"), said


@pytest.mark.parametrize("pattern", ["^ch", "(", "^(c+)+$"])
def test_a_name_a_pattern_may_match_still_meets_the_loop_twice(pattern: str) -> None:
    """``child`` matched by the pattern (or a pattern the engine cannot read: it may match) is
    reached both ways at each level. ``^(c+)+$`` is read without backtracking for ever (40 ``c``s
    and an ``x``: Python's ``re`` would take hours)."""
    schema = {
        "type": "object",
        "properties": {"child": ROOT},
        "patternProperties": {pattern: ROOT},
    }
    if pattern == "^(c+)+$":
        schema["properties"] = {"c" * 40 + "x": ROOT}
        assert not schemacost.loops_multiply(schema)
    else:
        assert schemacost.loops_multiply(schema)
        assert schemacost.fans_out(schema)


@pytest.mark.parametrize(
    ("name", "pattern"), [("a\n", "^a$"), ("1", "^[[:digit:]]$"), ("é", "^\\w$"), ("a b", "^a b$")]
)
def test_where_the_regex_engines_may_differ_a_name_may_match(name: str, pattern: str) -> None:
    """Python's ``re`` (the ``jsonschema`` fallback's) reads ``^a$`` as matching ``a`` and a line
    break, which jsonschema-rs's engine does not: a loop through ``properties`` and such a pattern
    doubled with each level of a value on the fallback (16 deep: 4 s) though judged a tree."""
    schema = {"type": "object", "properties": {name: ROOT}, "patternProperties": {pattern: ROOT}}
    assert schemacost.loops_multiply(schema)
    assert schemacost.fans_out(schema)
