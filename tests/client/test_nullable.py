"""OpenAPI's ``nullable`` read as JSON Schema at every depth, and never where a name is a property's."""

from __future__ import annotations

from mcpnb.client.nullable import openapi_nulls


def test_nullable_becomes_a_null_type_at_every_depth_and_data_is_left_alone():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "nullable": True},
            "items": {"type": "array", "items": {"type": "integer", "nullable": True}},
            "nullable": {"type": "integer"},  # a property named so: not the keyword
        },
        "dependencies": {"nullable": {"required": ["a"]}},  # draft 7's map of names to schemas
        "default": {"nullable": True},  # data, not a schema
    }
    out = openapi_nulls(schema)
    assert out["properties"]["a"] == {"type": ["string", "null"]}
    assert out["properties"]["items"]["items"] == {"type": ["integer", "null"]}
    assert out["properties"]["nullable"] == {"type": "integer"}
    assert out["dependencies"] == {"nullable": {"required": ["a"]}}
    assert out["default"] == {"nullable": True}


def test_a_schema_that_says_nullable_nowhere_is_the_same_object():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert openapi_nulls(schema) is schema
