"""OpenAI strict mode, rule by rule, on schemas written out in full; and the schemas that cannot be
strict, each with the keyword that blocks it."""

from __future__ import annotations

import jsonschema
import pytest

from mcpnb.client.toolbox.nulls import drop_optional_nulls
from mcpnb.client.toolbox.schema import normal_form
from mcpnb.client.toolbox.strict import make_strict


def strict(schema):
    converted, blocker = make_strict(normal_form(schema)[0])
    assert blocker is None, blocker
    return converted


def test_optional_fields_become_required_and_nullable_in_every_spelling():
    out = strict(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "limit": {"type": "integer", "default": 5, "description": "How many"},
                "kind": {"type": "string", "enum": ["a", "b"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "maybe": {"type": ["string", "null"]},
            },
            "required": ["name"],
        }
    )
    props = out["properties"]
    assert out["required"] == ["name", "limit", "kind", "either", "maybe"]
    assert out["additionalProperties"] is False
    assert props["name"] == {"type": "string"}  # required: unchanged
    assert props["limit"] == {"type": ["integer", "null"], "description": "How many (default: 5)"}  # said
    assert props["kind"] == {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert props["maybe"] == {"type": ["string", "null"]}  # already nullable


def test_nested_objects_and_array_items_get_the_same_rules():
    out = strict(
        {
            "type": "object",
            "properties": {
                "who": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "number"}}},
                },
            },
        }
    )
    who, row = out["properties"]["who"], out["properties"]["rows"]["items"]
    assert who["additionalProperties"] is False and who["required"] == ["a", "b"]
    assert who["type"] == ["object", "null"]  # optional at the top, so nullable
    assert row == {"type": "object", "properties": {"x": {"type": ["number", "null"]}}, "required": ["x"],
                   "additionalProperties": False}  # fmt: skip


def test_refs_are_inlined_keywords_strict_mode_lacks_are_removed_and_oneof_becomes_anyof():
    out = strict(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"Id": {"type": "string", "minLength": 3, "format": "uri"}},
            "properties": {
                "id": {"$ref": "#/definitions/Id"},
                "when": {"type": "string", "format": "date-time"},
                "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3},
            },
            "required": ["id", "when", "pick", "tags"],
        }
    )
    assert "definitions" not in out and "$schema" not in out
    # minLength and an unsupported format removed, and said where the model reads them
    assert out["properties"]["id"] == {"type": "string", "description": '(minLength: 3; format: "uri")'}
    assert out["properties"]["when"] == {"type": "string", "format": "date-time"}  # a supported one stays
    assert out["properties"]["pick"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert out["properties"]["tags"] == {"type": "array", "items": {"type": "string"}, "maxItems": 3,
                                         "description": "(uniqueItems: true)"}  # fmt: skip


@pytest.mark.parametrize(
    ("schema", "keyword", "where"),
    [
        ({"properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}},
         "additionalProperties", "properties.m"),
        ({"properties": {"m": {"type": "object"}}}, "additionalProperties", "properties.m"),
        ({"properties": {"m": {"type": "object", "additionalProperties": True, "properties": {}}}},
         "additionalProperties", "properties.m"),
        ({"properties": {"a": {"type": "string"}}, "additionalProperties": True}, "additionalProperties", ""),
        ({"properties": {}, "patternProperties": {"^x": {}}}, "patternProperties", ""),
        ({"properties": {"a": {"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "b$"}]}}},
         "allOf", "properties.a"),  # two patterns: no one keyword says both
        ({"properties": {"a": {"not": {"type": "null"}}}}, "not", "properties.a"),
        ({"properties": {"a": {"if": {"type": "string"}, "then": {}}}}, "if", "properties.a"),
        ({"properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}, "items", "properties.a"),
        ({"properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}]}}},
         "prefixItems", "properties.a"),
        ({"properties": {"a": {"anyOf": [{"type": "object", "additionalProperties": True},
                                         {"type": "null"}]}}},
         "additionalProperties", "properties.a.anyOf[0]"),
        # OpenAI: "In context=('properties', 'value'), schema must have a 'type' key."
        ({"properties": {"value": {"description": "anything"}}}, "type", "properties.value"),
        ({"properties": {"value": {}}}, "type", "properties.value"),
        ({"properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {}}}}}},
         "type", "properties.a.items.b"),
        ({"properties": {"tags": {"type": "array"}}}, "type", "properties.tags.items"),  # items: {} added
    ],
)  # fmt: skip
def test_what_cannot_be_strict_says_which_keyword_and_where(schema, keyword, where):
    normal = normal_form({"type": "object", **schema})[0]
    out, blocker = make_strict(normal)
    assert blocker is not None and out is normal  # emitted as it was, non-strict
    assert blocker.keyword == keyword and blocker.path == where


def test_what_says_its_kind_without_a_type_can_be_strict():
    out = strict(
        {
            "type": "object",
            "properties": {
                "pick": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "mode": {"enum": ["a", "b"]},
                "fixed": {"const": "x"},
            },
            "required": ["pick", "one", "mode", "fixed"],
        }
    )
    assert out["properties"]["mode"] == {"enum": ["a", "b"]} and out["properties"]["fixed"] == {"const": "x"}


def test_too_deep_is_not_strict():
    schema = {"type": "string"}
    for _ in range(11):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    _, blocker = make_strict(normal_form(schema)[0])
    assert blocker is not None and "levels of nesting" in str(blocker)


def test_a_strict_model_s_nulls_for_optional_fields_are_dropped_before_sending():
    """Strict mode makes the model send null for what it leaves out; the server gets its defaults."""
    schema = normal_form(
        {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "limit": {"type": "integer", "default": 5},
                "category": {"anyOf": [{"type": "string"}, {"type": "null"}]},  # null is meaningful here
                "who": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                },
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "number"}}},
                },
            },
            "required": ["q"],
        }
    )[0]
    sent = {
        "q": None,
        "limit": None,
        "category": None,
        "who": {"name": "a", "age": None},
        "rows": [{"x": None}],
    }
    assert drop_optional_nulls(sent, schema, schema) == {
        "q": None,  # required: kept, so the argument check says it is wrong
        "category": None,
        "who": {"name": "a"},
        "rows": [{}],
    }
    strict_schema = strict(schema)
    jsonschema.validate(sent | {"q": "x"}, strict_schema)
