"""A tool whose ``inputSchema`` loops through ``$ref`` breaks nothing of the client (security sweep).

The server is hand-written (tests/servers/hostile_schema_server.py): ``loop`` is "an ``A``, and an
``A`` is an ``A`` or null", ``mutual`` two definitions that name each other, ``wide`` 40 definitions
that each name the next twice (followed naively, 2**40 paths), ``node`` a tree as pydantic writes one.
A call was refused with a RecursionError (or never answered, on the pool's loop: every other server
of the pool waited with it), a toolbox of such a tool could not be made, nor its signature said. Now
each reference is read once, one back into itself is not followed, and what the client cannot judge
of such a schema goes to the server as given.

The same schemas reach the client elsewhere: as an ``outputSchema`` whose structured content fails
it (the result's check froze the kernel), as a form's ``requestedSchema`` whose answers fail it
(their check froze it, on the runtime loop), and as an ``outputSchema`` of 20 objects a level that
``.df`` named 20**5 columns of (it never ended). A fanning-out schema is now not checked here (said
with the result), and ``.df`` names the shallowest columns, up to a budget.

Every reference look-up is counted, and a fanning-out schema compiled to check a value is refused
and kept (:func:`unwalked`): following all of ``wide``'s paths fails a test at once instead of
hanging it.
"""

from __future__ import annotations

import inspect
import json
import sys
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import mcpnb.client.schemacost as schemacost
import mcpnb.client.schemarefs as schemarefs
from mcpnb.client.arguments import type_names
from mcpnb.client.elicitation.answers import validate
from mcpnb.client.nullable import allows_null
from mcpnb.client.schemacheck import schema_problem
from mcpnb.client.texttypes import column_schemas
from mcpnb.client.toolbox.schema import normal_form
from mcpnb.client.toolbox.signatures import params
from mcpnb.client.toolbox.specs import StrictModeWarning
from mcpnb.notebook.render import bundle

HOSTILE = str(Path(__file__).resolve().parents[1] / "servers" / "hostile_schema_server.py")
#: Reference look-ups past which a test fails: reading each of ``wide``'s 41 definitions once takes
#: a few hundred; following its paths, 2**40.
LOOK_UPS = 20_000


@pytest.fixture
def bounded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``deref`` and ``pointer``, counted wherever mcpnb's modules hold them."""
    calls = [0]

    def counted(real: Any) -> Any:
        def look_up(*args: Any) -> Any:
            calls[0] += 1
            if calls[0] > LOOK_UPS:
                raise AssertionError("the schema's references were followed without end")
            return real(*args)

        return look_up

    reals = {schemarefs.deref: counted(schemarefs.deref), schemarefs.pointer: counted(schemarefs.pointer)}
    for module in [m for name, m in sys.modules.items() if name.startswith("mcpnb.")]:
        for name in ("deref", "pointer"):
            held = getattr(module, name, None)
            if held in reals:
                monkeypatch.setattr(module, name, reals[held])
    return calls


@pytest.fixture
def hostile(pool: Any, bounded: list[int]) -> Any:
    pool.connect("hs", command=sys.executable, args=[HOSTILE], tool_timeout=30)
    return pool


def _tool(pool: Any, name: str) -> Any:
    return next(t for t in pool.tools("hs") if t.name == name)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("loop", {"x": None}),
        ("loop", {"x": "s"}),
        ("mutual", {"x": 1}),
        ("mutual", {"x": []}),
        ("wide", {"x": "s"}),
        ("wide", {"x": 1}),  # a check would walk every path to refuse it: the server judges
        ("node", {"tree": {"name": "a", "children": [{"name": "b", "children": None}]}}),
    ],
)
def test_a_call_to_a_tool_whose_schema_loops_goes_to_the_server(
    hostile: Any, tool: str, arguments: dict[str, Any]
) -> None:
    if tool == "wide":  # checked, a bad value would hold the GIL in jsonschema-rs: no timeout could end it
        assert schemacost.fans_out(_tool(hostile, tool).input_schema)
    assert hostile.call("hs", tool, arguments).text == "ok"


def test_a_schema_that_fans_out_stalls_no_other_server_of_the_pool(hostile: Any) -> None:
    """The check ran on the pool's one loop: while it walked ``wide``'s paths, every other
    connection's call waited (on the old code the other server never answered)."""
    hostile.connect("other", command=sys.executable, args=[HOSTILE], tool_timeout=30)
    assert schemacost.fans_out(_tool(hostile, "wide").input_schema)  # else this would hang, not fail
    hostile.tools("other")
    with ThreadPoolExecutor(2) as calls:
        pending = calls.submit(hostile.call, "hs", "wide", {"x": 1})
        other = calls.submit(hostile.call, "other", "big", {"n": 3})
        assert other.result(timeout=60).text == "xxx"
        assert pending.result(timeout=60).text == "ok"


def test_a_signature_says_the_types_a_looping_schema_names(hostile: Any) -> None:
    said = {t.name: t.signature for t in hostile.tools("hs")}
    assert said["loop"] == "loop(x: null)"  # "an A or null": what the loop adds is said where it starts
    assert said["mutual"] == "mutual(x*: integer|string)"
    assert said["wide"] == "wide(x: string)"
    assert said["node"] == "node(tree: object)"


def test_a_toolbox_of_such_tools_is_made_and_its_functions_call_them(hostile: Any) -> None:
    box = hostile.functions("hs")
    assert set(box) >= {f"mcp__hs__{n}" for n in ("loop", "mutual", "wide", "node")}
    assert "x" in inspect.signature(box["mcp__hs__loop"]).parameters
    assert box["mcp__hs__wide"](x=1).text == "ok"
    reply = box.run({"type": "tool_use", "id": "t", "name": "mcp__hs__mutual", "input": {"x": 2}})
    assert reply["is_error"] is False and reply["content"][0]["text"] == "ok"


def _schemas(body: dict[str, Any]) -> list[Any]:
    """The JSON Schemas a spec carries (Gemini's own dialect, ``parameters``, is not one)."""
    inner = body.get("function", body)
    return [inner[k] for k in ("parameters", "input_schema", "parametersJsonSchema") if k in inner]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        here = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return here + [r for v in node.values() for r in _refs(v)]
    return [r for v in node for r in _refs(v)] if isinstance(node, list) else []


@pytest.mark.parametrize(
    ("fmt", "strict"),
    [
        ("openai", None),
        ("openai", True),
        ("openai-responses", None),
        ("openai-responses", True),
        ("anthropic", None),
        ("gemini", None),
    ],
)
def test_every_provider_gets_a_finite_valid_spec(hostile: Any, fmt: str, strict: bool | None) -> None:
    box = hostile.functions("hs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictModeWarning)  # a loop's "any value" cannot be strict
        specs = box.specs(fmt, strict=strict)
    assert len(json.dumps(specs)) < 20_000  # inlined, wide's 2**40 paths would never be written
    for name in ("loop", "mutual", "wide", "node"):
        body = specs.spec(f"mcp__hs__{name}")
        for schema in _schemas(body):
            Draft202012Validator.check_schema(schema)
            for ref in _refs(schema):  # every reference left points into the spec itself
                assert schemarefs.pointer(schema, ref) is not None, (name, ref)
            if name in ("loop", "mutual"):  # a loop that asks nothing of the value: any value
                assert _refs(schema) == [], (name, schema)
    if fmt == "anthropic":
        loop = specs.spec("mcp__hs__loop")["input_schema"]["properties"]["x"]
        assert loop == {"anyOf": [{}, {"type": "null"}]}
        node = specs.spec("mcp__hs__node")["input_schema"]
        assert _refs(node) and "$defs" in node  # a tree stays a tree: a reference to its node


def _beside(width: int) -> dict[str, Any]:
    """``wide`` again, each reference with a word beside it (so no two are written alike)."""
    defs: dict[str, Any] = {
        f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}", "description": side} for side in ("left", "right")]}
        for i in range(width)
    }
    return {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D0"}},
        "$defs": {**defs, f"D{width}": {"type": ["string", "null"]}},
    }


def test_references_written_with_words_beside_them_are_still_read_once(bounded: list[int]) -> None:
    schema = _beside(40)
    x = schema["properties"]["x"]
    assert type_names(x, schema) == ["string", "null"]
    assert allows_null(x, schema) is True
    assert [p.key for p in params(schema)] == ["x"]
    inlined, kept = normal_form(schema)
    assert kept and len(json.dumps(inlined)) < 20_000


@pytest.fixture
def unwalked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The schemas that fan out which something tried to compile to check a value, each refused:
    compiled, a value that fails one would hold the GIL for ever (the old code's test would hang,
    not fail). Empty, as it must be."""
    import jsonschema_rs

    from mcpnb.client.schemacheck import compiled

    refused: list[str] = []
    real = jsonschema_rs.validator_for

    def guarded(schema: Any, *args: Any, **kwargs: Any) -> Any:
        if schemacost.fans_out(schema):
            refused.append(json.dumps(schema)[:80])
            raise AssertionError("a schema that fans out was compiled to check a value")
        return real(schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema_rs, "validator_for", guarded)
    compiled.cache_clear()  # a validator compiled before the guard would not be asked
    yield refused
    compiled.cache_clear()


def test_a_result_whose_output_schema_fans_out_is_shown_unchecked_and_says_so(
    hostile: Any, unwalked: list[str]
) -> None:
    """Its check walked each of the 2**40 paths over structured content that fails them: the
    kernel froze as the result was shown. Now it is shown as sent, neither passed nor failed."""
    result = hostile.call("hs", "wide_out", {})
    assert result.data == {"x": 1}
    assert result.schema_valid is None and result.schema_error is None
    said = [w for w in result.warnings if "not checked against the tool's outputSchema" in w]
    assert len(said) == 1 and "past 10,000 subschemas at one place" in said[0], result.warnings
    shown = bundle(result)["text/plain"]
    assert f"⚠ {said[0]}" in shown and '"x": 1' in shown and "does not match" not in shown, shown
    assert said[0] in repr(result)
    schema = _tool(hostile, "wide_out").output_schema
    assert schema_problem({"x": 1}, schema).startswith(
        "cannot check against the schema: it applies past 10,000 subschemas at one place"
    )
    assert unwalked == []


@pytest.mark.parametrize(
    ("shape", "answer"), [("wide", {"x": 1}), ("wide", {"x": "s"}), ("loop", {"x": None})]
)
def test_a_form_whose_schema_loops_or_fans_out_is_answered_and_the_server_judges(
    hostile: Any, unwalked: list[str], shape: str, answer: dict[str, Any]
) -> None:
    """The answers given with the call were checked against the whole ``requestedSchema``, on
    the runtime loop: ``{"x": 1}`` against ``wide`` froze the kernel and every connection."""
    result = hostile.call("hs", "ask", {"shape": shape}, answers=answer)
    assert json.loads(result.text) == {"action": "accept", "content": answer}
    assert unwalked == []


def test_a_form_that_fans_out_is_still_checked_for_its_required_fields(unwalked: list[str]) -> None:
    """As a form whose schema cannot be compiled: what is required, and values JSON cannot carry."""
    schema = {**_beside(40), "required": ["x"]}
    assert schemacost.fans_out(schema)
    assert validate(schema, {"x": 1}) == {}
    assert validate(schema, {}) == {"x": "required"}
    assert validate(schema, {"x": object()}) == {"x": "expected a JSON value, not a object"}
    assert unwalked == []


def test_df_names_the_columns_of_a_schema_of_millions_so_far_as_it_can(hostile: Any) -> None:
    """20 objects a level, each the next: named to depth 5 as ``.df`` names nested keys, 20**5
    columns (10 a level took seconds; 20 never ended). Now the shallowest are named, the
    table's own among them, and a text column its schema declares stays text."""
    result = hostile.call("hs", "levels", {"n": 3})
    assert result.df["code"].tolist() == ["10001"] * 3  # declared a text: no number
    declared = column_schemas(_tool(hostile, "levels").output_schema, ["rows"])
    names = list(declared)
    top = ["code", *(f"p{j}" for j in range(20))]
    assert set(top + [f"p{j}.p{k}" for j in range(20) for k in range(20)]) <= set(names)
    assert names[:3] == ["code", "p0", "p0.p0"]  # in the object's order, each key after its parent
    assert [n for n in names if "." not in n] == top
    assert len(names) <= schemarefs.EXPANDED_LIMIT


#: Small schemas that loop back into themselves more than once at a level of the value: each level
#: of a value multiplies a check's paths (three ways back under ``items``; two under ``allOf``).
MULTIPLYING = {
    "three ways back": {
        "type": "array",
        "items": {"anyOf": [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]}, {"not": {"not": {"$ref": "#"}}}]},
    },
    "twice through another": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/X"}},
        "$defs": {
            "X": {"allOf": [{"$ref": "#/$defs/Y"}, {"$ref": "#/$defs/Y"}]},
            "Y": {"type": "object", "properties": {"a": {"$ref": "#/$defs/X"}}},
        },
    },
}


@pytest.mark.parametrize("name", list(MULTIPLYING))
def test_a_small_schema_that_loops_back_more_than_once_per_level_is_not_walked(name: str) -> None:
    """The review's and the real-schema survey's: 0.2 KB schemas whose error, for a value 18-20
    levels deep, took minutes to word (the GIL held). They are left to the server, as one that
    fans out is; a tree that meets itself once per level is still checked."""
    from mcpnb.client.schemacheck import schema_problem

    schema = MULTIPLYING[name]
    assert schemacost.fans_out(schema)
    value: Any = 1
    for _ in range(30):
        value = [value] if name == "three ways back" else {"a": value}
    if name != "three ways back":
        value = {"x": value}
    assert schema_problem(value, schema).startswith("cannot check against the schema")
    tree = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert not schemacost.fans_out(tree)
    assert "at $.kids[0].kids" in schema_problem({"kids": [{"kids": 1}]}, tree)


def test_a_reference_written_thousands_of_times_or_chained_thousands_deep_is_judged_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The late review's: one definition used from 3,000 properties (92 KB) took seconds to judge,
    each place it was written read anew (the GIL held); 3,000 references chained raised
    RecursionError. Steps are counted, not timed."""
    walked = 0
    real = schemacost._written

    def counted(node: Any, visit: Any) -> Any:
        nonlocal walked
        walked += 1
        if walked > 100_000:
            raise AssertionError("the references were read again and again")
        return real(node, visit)

    monkeypatch.setattr(schemacost, "_written", counted)
    many = {"type": "object", "properties": {f"p{i}": {"$ref": "#"} for i in range(3000)}}
    assert not schemacost.fans_out(many)  # a node with 3,000 kinds of child: a tree, checked
    chained = {
        "type": "object",
        "properties": {f"p{i}": {"$ref": f"#/properties/p{(i + 1) % 3000}"} for i in range(3000)},
    }
    assert schemacost.fans_out(chained)
