"""A whole float where the tool's schema says ``integer`` is sent as an int, on every checked call
(``pool.call``, ``%mcp call``, a toolbox function, a model's call): JSON Schema counts ``30.0`` as an
integer, so the check passes it, and the server received ``30.0`` (Go's ``encoding/json`` and Rust's
serde refuse that for an int field; Python's ``range(30.0)`` fails). A pandas row of int and float
columns is all floats; Gemini's SDK gives every number as a float. The shapes server echoes what it
received as JSON text, so ``30`` and ``30.0`` read apart."""

from __future__ import annotations

import json
from typing import Any

import pytest
from servers.shapes_server import create_server  # tests/ is on sys.path

#: Every place an integer can be said: nested, in items, a tuple, a ``$ref``, ``anyOf``, a map's
#: values, pattern keys, an int ``enum``; beside numbers and values of any type, which keep their floats.
COUNTS = {
    "type": "object",
    "$defs": {"Count": {"type": "integer", "minimum": 0}},
    "properties": {
        "n": {"type": "integer"},
        "maybe": {"type": ["integer", "null"]},
        "ratio": {"type": "number"},
        "anything": {},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "pair": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "integer"}]},
        "old_pair": {"type": "array", "items": [{"type": "integer"}, {"type": "number"}]},
        "ref": {"$ref": "#/$defs/Count"},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "nullable_ref": {"anyOf": [{"$ref": "#/$defs/Count"}, {"type": "null"}]},
        "per_key": {"type": "object", "additionalProperties": {"type": "integer"}},
        "by_pattern": {
            "type": "object",
            "patternProperties": {"^n_": {"type": "integer"}},
            "additionalProperties": {"type": "number"},
        },
        "level": {"enum": [1, 2, 3]},
        "int_or_float": {"anyOf": [{"type": "integer"}, {"type": "number"}]},  # any number: kept
        "nested": {
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}}},
        },
    },
    "additionalProperties": False,
}
COUNTS["$defs"]["Row"] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "weight": {"type": "number"},
        "children": {"$ref": "#/$defs/Rows"},
    },
}
COUNTS["$defs"]["Rows"] = {"type": "array", "items": {"$ref": "#/$defs/Row"}}

SENT = {
    "n": 30.0,
    "maybe": 7.0,
    "ratio": 2.0,
    "anything": 3.0,
    "ids": [1.0, 2, 3.0],
    "pair": [1.0, 2.0],
    "old_pair": [1.0, 2.0],
    "ref": 4.0,
    "either": 5.0,
    "nullable_ref": 6.0,
    "per_key": {"a": 1.0},
    "by_pattern": {"n_a": 1.0, "w": 1.0},
    "level": 2.0,
    "nested": {"rows": [{"count": 1.0, "weight": 1.0, "children": [{"count": 2.0, "weight": 2.0}]}]},
    "int_or_float": 8.0,
}
#: What the server must receive, as JSON text writes it.
RECEIVED = (
    '{"n": 30, "maybe": 7, "ratio": 2.0, "anything": 3.0, "ids": [1, 2, 3], "pair": [1.0, 2], '
    '"old_pair": [1, 2.0], "ref": 4, "either": 5, "nullable_ref": 6, "per_key": {"a": 1}, '
    '"by_pattern": {"n_a": 1, "w": 1.0}, "level": 2, "nested": {"rows": [{"count": 1, "weight": 1.0, '
    '"children": [{"count": 2, "weight": 2.0}]}]}, "int_or_float": 8.0}'
)


@pytest.fixture
def counts(pool: Any) -> Any:
    pool.connect("shapes", server=create_server(extra={"counts": COUNTS}))
    return pool


def _arguments(result: Any) -> str:
    """The arguments the server received, as JSON text (``30`` or ``30.0``)."""
    return json.dumps(json.loads(result.text)["arguments"])


def test_pool_call_sends_whole_floats_as_ints_where_the_schema_says_integer(counts):
    assert _arguments(counts.call("shapes", "counts", SENT)) == RECEIVED


def test_a_models_call_and_a_toolbox_function_send_them_alike(counts):
    tools = counts.functions("shapes")
    reply = tools.run({"functionCall": {"name": "mcp__shapes__counts", "args": SENT}})
    assert json.dumps(reply["functionResponse"]["response"]["output"]["arguments"]) == RECEIVED
    assert _arguments(tools.short.counts(**SENT)) == RECEIVED


def test_a_pandas_row_of_ints_and_floats_sends_its_ints_as_ints(counts):
    pd = pytest.importorskip("pandas")
    row = pd.DataFrame([{"n": 3, "ratio": 0.5}]).iloc[0]  # a row of both: every value a float64
    assert type(row["n"]).__name__ == "float64"
    assert _arguments(counts.call("shapes", "counts", row)) == '{"n": 3, "ratio": 0.5}'


def test_what_is_not_whole_or_not_an_integer_is_left_to_the_check(counts):
    from mcpnb.client.errors import ArgumentsError

    with pytest.raises(ArgumentsError, match=r"30\.5 is not of type"):
        counts.call("shapes", "counts", {"n": 30.5})
    assert _arguments(counts.call("shapes", "counts", {"ratio": 1e20})) == '{"ratio": 1e+20}'
    # unchecked (validate=False) is sent exactly as given: the server judges it
    sent = counts.call("shapes", "counts", {"n": 30.0}, validate=False)
    assert _arguments(sent) == '{"n": 30.0}'
