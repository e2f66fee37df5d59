"""One merger for every ``allOf`` and every ``$ref`` with siblings (both parts apply, nothing lost),
and what each provider's form cannot hold said in words: from real servers' tools to the specs, and
rule by rule on schemas written out in full."""

from __future__ import annotations

import json
import warnings
from typing import Annotated

import jsonschema
import pytest
from google.genai import types as genai
from pydantic import BaseModel, Field
from shapes_server import create_server

from mcpnb.client.toolbox import StrictModeWarning
from mcpnb.client.toolbox.gemini import declaration_parameters
from mcpnb.client.toolbox.schema import merge, normal_form
from mcpnb.client.toolbox.strict import make_strict

from .conftest import gemini_exactly


def _specs(box, fmt, strict=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictModeWarning)
        return box.specs(fmt, strict=strict)


def _params(box, name):
    """The parameters schema each API gets for one tool (Gemini's dialect or its JSON Schema)."""
    gemini = _specs(box, "gemini").spec(name)
    gemini_exactly(genai.FunctionDeclaration, gemini)
    return {
        "openai": _specs(box, "openai").spec(name)["function"]["parameters"],
        "strict": _specs(box, "openai", True).spec(name)["function"],
        "anthropic": _specs(box, "anthropic").spec(name)["input_schema"],
        "gemini": gemini.get("parameters") or gemini["parametersJsonSchema"],
    }


# ---------------------------------------------------------------- a real server's pydantic $ref
class Place(BaseModel):
    """A place."""

    city: str = Field(description="City name")
    country: str | None = Field(None, min_length=2, max_length=2)


def test_a_pydantic_ref_with_sibling_keywords_keeps_what_its_target_asks_for_every_api(pool):
    """pydantic writes a field's own ``json_schema_extra`` beside the model's ``$ref``
    (``{"$ref": "#/$defs/Place", "required": ["country"]}``): both apply, so ``city`` stays required
    (the sibling's ``required`` replaced the target's, and the city was lost)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("trips", log_level="WARNING")

    @server.tool()
    def ship(
        dest: Annotated[Place, Field(description="Where to (customs needs the country)",
                                     json_schema_extra={"required": ["country"]})],
    ) -> str:  # fmt: skip
        return dest.city

    pool.connect("trips", server=server)
    box = pool.functions("trips")
    raw = box.tools[0].input_schema["properties"]["dest"]
    assert raw == {
        "$ref": "#/$defs/Place",
        "description": "Where to (customs needs the country)",
        "required": ["country"],
    }  # fmt: skip  (what the SDK sends)
    params = _params(box, "mcp__trips__ship")
    for api in ("openai", "anthropic", "gemini"):
        dest = params[api]["properties"]["dest"]
        assert sorted(dest["required"]) == ["city", "country"], api
        assert dest["description"] == "Where to (customs needs the country)", api  # the sibling's
    assert params["gemini"]["properties"]["dest"]["properties"]["country"]["maxLength"] == 2
    with pytest.raises(jsonschema.ValidationError):  # what the spec says, the server's schema says
        jsonschema.validate({"dest": {"country": "FR"}}, params["anthropic"])


# ---------------------------------------------------------------- allOf on a hand-written server
ALL_OF = {
    "type": "object",
    "properties": {
        "box": {
            "type": "object",
            "allOf": [
                {"properties": {"w": {"type": "number", "maximum": 3}}},
                {"properties": {"w": {"minimum": 1}}, "required": ["w"]},
            ],
        },
        "code": {"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "b$"}]},
    },
    "allOf": [
        {"properties": {"n": {"type": "integer", "maximum": 10}}, "required": ["n"]},
        {"properties": {"n": {"minimum": 1, "maximum": 5, "description": "How many"}}},
    ],
}
ROOT_IF = {
    "type": "object",
    "properties": {"kind": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "string"}},
    "allOf": [
        {"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["a"]}},
        {"if": {"properties": {"kind": {"const": "b"}}}, "then": {"required": ["b"]}},
    ],
}


@pytest.fixture
def merged(pool):
    pool.connect("m", server=create_server({"all_of": ALL_OF, "root_if": ROOT_IF}))
    return pool.functions("m")


def test_a_property_two_allof_parts_give_keeps_both_constraints_for_every_api(merged):
    """At the root a property two parts gave became ``allOf [both]`` (which strict mode refuses), and
    Gemini's parameters kept the first part's bound (``maximum: 10``) or, nested, only the later
    property (``w`` without a type: the whole tool fell back to JSON Schema). Merged, the stricter
    bound wins everywhere."""
    params = _params(merged, "mcp__m__all_of")
    for api in ("openai", "anthropic"):
        props = params[api]["properties"]
        assert props["n"] == {"type": "integer", "maximum": 5, "minimum": 1, "description": "How many"}
        assert props["box"]["properties"]["w"] == {"type": "number", "maximum": 3, "minimum": 1}
        assert props["box"]["required"] == ["w"] and params[api]["required"] == ["n"]
        # two patterns: no one keyword says both, so the second stays, alone, in an allOf
        assert props["code"] == {"type": "string", "pattern": "^a", "allOf": [{"pattern": "b$"}]}
    gemini = params["gemini"]["properties"]
    assert gemini["n"] == {"type": "INTEGER", "maximum": 5, "minimum": 1, "description": "How many"}
    assert gemini["box"] == {"type": "OBJECT", "required": ["w"],
                             "properties": {"w": {"type": "NUMBER", "maximum": 3, "minimum": 1}}}  # fmt: skip
    assert gemini["code"] == {"type": "STRING", "pattern": "^a", "description": '(also {"pattern":"b$"})'}
    strict = params["strict"]
    assert strict["parameters"]["properties"]["n"]["maximum"] == 5
    assert strict["strict"] is False and "allOf" in json.dumps(strict["parameters"]["properties"]["code"])


def test_two_root_allof_parts_that_cannot_merge_are_said_not_dropped(merged):
    """Two ``if``/``then`` pairs cannot share the root: the first stays a keyword, the second is
    said in the description (it used to vanish)."""
    schema = _params(merged, "mcp__m__root_if")["anthropic"]
    assert schema["if"] == {"properties": {"kind": {"const": "a"}}} and schema["then"] == {"required": ["a"]}
    assert schema["description"] == (
        'Also: {"if":{"properties":{"kind":{"const":"b"}}},"then":{"required":["b"]}}.'
    )
    assert "allOf" not in schema


# ---------------------------------------------------------------- words name the provider's keys
def test_words_for_a_root_anyof_name_the_keys_the_provider_sees(pool):
    """Keys a provider refuses are renamed in ``properties``; the words that say what a root
    ``anyOf``/``oneOf`` asks named the server's keys, which the model cannot send."""
    either = {
        "type": "object",
        "properties": {"user id": {"type": "string"}, "e.mail": {"type": "string"}},
        "anyOf": [{"required": ["user id"]}, {"required": ["e.mail"]}],
        "oneOf": [
            {"required": ["user id"], "properties": {"user id": {"minLength": 3}}},
            {"required": ["e.mail"]},
        ],
    }
    pool.connect("k", server=create_server({"either": either}))
    box = pool.functions("k")
    for fmt, path in (("anthropic", ("input_schema",)), ("gemini", ("parameters",))):
        schema = _specs(box, fmt).spec("mcp__k__either")[path[0]]
        user, mail = schema["properties"]
        assert user.startswith("user_id_") and (
            mail == "e.mail" if fmt == "anthropic" else mail.startswith("e_mail_")
        )
        assert schema["description"].startswith(f"Give at least one of: {user}; {mail}. ")
        assert (
            f'{{"required":["{user}"],"properties":{{"{user}":{{"minLength":3}}}}}}' in schema["description"]
        )
        assert "user id" not in schema["description"]
    call = box.entries("gemini")
    gemini_keys = call["mcp__k__either"].keys
    assert set(gemini_keys.values()) == {"user id", "e.mail"}  # and the way back is kept


# ---------------------------------------------------------------- Gemini
def test_gemini_parameters_say_pattern_properties_beside_real_properties(toolbox):
    """The shapes server's ``by_pattern``: ``id`` plus any ``x-`` key. The dialect has no
    ``patternProperties``: they were dropped without a word."""
    spec = _specs(toolbox, "gemini").spec("mcp__shapes__by_pattern")
    assert spec["parameters"] == {
        "type": "OBJECT",
        "properties": {"id": {"type": "STRING"}},
        "description": '(keys matching ^x-: {"type":"string"})',
    }


JSON_ONLY = {  # an open map sends it to parametersJsonSchema; the rest is what Gemini does not list
    "type": "object",
    "definitions": {
        "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {
            "$ref": "#/definitions/Node", "description": "A kid"}}}}
    },
    "properties": {
        "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        "code": {"type": "string", "minLength": 2, "pattern": "^[A-Z]+$"},
        "mode": {"const": "fast"},
        "flag": {"enum": [True, False, None]},
        "tree": {"$ref": "#/definitions/Node", "description": "The tree"},
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "uniqueItems": True},
        "head": {"type": "object", "properties": {"id": {"type": "string"}}, "patternProperties": {"^x-": {}},
                 "x-ui": {"widget": "table"}},
        "not_b": {"type": "string", "not": {"const": "b"}},
    },
}  # fmt: skip
GEMINI_JSON = {"$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
               "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
               "additionalProperties", "required", "propertyOrdering"}  # fmt: skip


def _keywords(schema):
    """Every keyword of ``schema`` and its subschemas (not property names or definition names)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _keywords(sub)
            elif key not in ("enum", "required"):
                yield from _keywords(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item)


def _refs(schema):
    """Every subschema of ``schema`` that holds a ``$ref``."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            yield schema
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def test_gemini_json_schema_holds_only_what_gemini_documents_and_says_the_rest(pool):
    """``parametersJsonSchema`` went out as the normal form: ``minLength``, ``const``, ``not``, a
    draft-07 tuple, ``definitions`` and a ``$ref`` with a sibling, none of which Gemini lists."""
    by_pattern = {
        "type": "object",
        "patternProperties": {"^x-": {"type": "integer"}},
    }  # closed by the normal form
    pool.connect("j", server=create_server({"json_only": JSON_ONLY, "by_pattern": by_pattern}))
    spec = _specs(pool.functions("j"), "gemini").spec("mcp__j__json_only")
    gemini_exactly(genai.FunctionDeclaration, spec)
    schema = spec["parametersJsonSchema"]
    assert set(_keywords(schema)) <= GEMINI_JSON, set(_keywords(schema)) - GEMINI_JSON
    props = schema["properties"]
    assert props["meta"] == {"type": "object", "additionalProperties": {"type": "string"}}  # as it was
    assert props["code"] == {"type": "string", "description": '(minLength: 2; pattern: "^[A-Z]+$")'}
    assert props["mode"] == {"enum": ["fast"]}
    assert props["flag"] == {"description": "(one of true, false, null)"}
    # "if $ref is set on a sub-schema, no other properties": the sibling wraps it, both still apply
    kid = {"description": "A kid", "anyOf": [{"$ref": "#/$defs/Node"}]}
    assert props["tree"]["description"] == "The tree" and props["tree"]["properties"]["kids"]["items"] == kid
    assert all(set(ref) == {"$ref"} for ref in _refs(schema)) and "Node" in schema["$defs"]
    assert props["pair"] == {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                             "description": "(uniqueItems: true)"}  # fmt: skip
    assert props["head"]["description"] == "(keys matching ^x-: {})"  # x-ui: for another reader
    closed = _specs(pool.functions("j"), "gemini").spec("mcp__j__by_pattern")["parametersJsonSchema"]
    assert closed["additionalProperties"] == {"type": "integer"}  # was false: it refused every x- key
    assert closed["description"] == '(keys matching ^x-: {"type":"integer"})'
    jsonschema.validate({"x-a": 1}, closed)
    assert props["not_b"]["description"] == '(not {"const":"b"})'
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate({"tree": {"kids": [{"kids": []}]}, "pair": ["a", 1]}, schema)


def test_a_tuple_goes_to_gemini_as_json_schema_not_as_an_array_of_its_first_item():
    """The dialect has no tuples: draft-07's ``items: [string, integer]`` became ``items: string``,
    and 2020-12's ``prefixItems`` beside ``items`` was dropped, leaving only the rest's type."""
    pair = [{"type": "string"}, {"type": "integer"}]
    schema, _ = normal_form({"type": "object", "properties": {
        "old": {"type": "array", "items": pair, "additionalItems": False},
        "new": {"type": "array", "prefixItems": pair, "items": {"type": "boolean"}},
    }})  # fmt: skip
    out = declaration_parameters(schema)["parametersJsonSchema"]["properties"]
    assert out["old"] == {"type": "array", "prefixItems": pair, "maxItems": 2}  # 2020-12's (no boolean node)
    assert out["new"] == {"type": "array", "prefixItems": pair, "items": {"type": "boolean"}}


def test_gemini_nullable_keeps_the_option_s_bound_over_a_looser_outer_one():
    """``anyOf [X, null]`` becomes ``X`` with ``nullable``: the outer keywords were laid over the
    option, so a looser outer bound replaced the option's."""
    s = {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}], "maxLength": 10, "description": "S"}
    schema, _ = normal_form({"type": "object", "properties": {"s": s}})
    s = declaration_parameters(schema)["parameters"]["properties"]["s"]
    assert s == {"type": "STRING", "maxLength": 5, "nullable": True, "description": "S"}


# ---------------------------------------------------------------- OpenAI strict: only what it lists
def test_strict_specs_hold_no_keyword_strict_mode_does_not_list(toolbox):
    """OpenAI refuses any keyword strict mode does not list ("'propertyNames' is not permitted"):
    probe-kit's SEP-2243 tool sent its ``x-mcp-header`` through."""
    spec = _specs(toolbox, "openai", True).spec("mcp__probe__test_x_mcp_header")["function"]
    assert spec["strict"] is True
    assert spec["parameters"]["properties"]["region"] == {"type": "string", "description": "Where to run"}
    out, blocker = make_strict(normal_form({"type": "object", "properties": {
        "a": {"type": "string", "nullable": True, "contentMediaType": "text/markdown", "$anchor": "A"},
        "b": {"type": "object", "properties": {"c": {"type": "integer"}}, "unevaluatedProperties": False},
    }, "required": ["a", "b"]})[0])  # fmt: skip
    assert blocker is None
    assert out["properties"]["a"] == {  # OpenAPI's nullable, refused as a keyword, as a null type
        "type": ["string", "null"],
        "description": '(contentMediaType: "text/markdown")',
    }
    assert out["properties"]["b"] == {"type": "object", "properties": {"c": {"type": ["integer", "null"]}},
                                      "required": ["c"], "additionalProperties": False}  # fmt: skip


# ---------------------------------------------------------------- the merger, rule by rule
@pytest.mark.parametrize(
    ("outer", "inner", "both"),
    [
        ({"type": "number"}, {"type": "integer"}, {"type": "integer"}),
        ({"type": ["string", "null"]}, {"type": ["string", "integer"]}, {"type": "string"}),
        ({"type": "string"}, {"type": "integer"}, {"type": "string", "allOf": [{"type": "integer"}]}),
        ({"enum": ["a", "b", "c"]}, {"enum": ["c", "b", 1]}, {"enum": ["b", "c"]}),
        ({"enum": [1]}, {"enum": [True]}, {"enum": [1], "allOf": [{"enum": [True]}]}),  # JSON: true is not 1
        ({"minimum": 1, "maxLength": 9}, {"minimum": 3, "maxLength": 4}, {"minimum": 3, "maxLength": 4}),
        ({"multipleOf": 2}, {"multipleOf": 6}, {"multipleOf": 6}),
        ({"multipleOf": 2}, {"multipleOf": 3}, {"multipleOf": 2, "allOf": [{"multipleOf": 3}]}),
        ({"required": ["a"]}, {"required": ["b", "a"]}, {"required": ["a", "b"]}),
        ({"description": "outer", "default": 1}, {"description": "inner", "default": 2, "title": "T"},
         {"description": "outer", "default": 1, "title": "T"}),  # annotations: the outer's word stands
        ({"additionalProperties": False}, {"additionalProperties": {"type": "string"}},
         {"additionalProperties": False}),
        ({"additionalProperties": {"type": "string"}}, {"additionalProperties": {"maxLength": 3}},
         {"additionalProperties": {"type": "string", "maxLength": 3}}),
        ({"not": {"const": "a"}}, {"not": {"const": "b"}},
         {"not": {"anyOf": [{"const": "a"}, {"const": "b"}]}}),  # not a and not b: not (a or b)
        ({"uniqueItems": False}, {"uniqueItems": True}, {"uniqueItems": True}),
        ({"items": {"type": "string"}}, {"items": {"maxLength": 3}},
         {"items": {"type": "string", "maxLength": 3}}),
        ({"prefixItems": [{}], "items": {"type": "string"}}, {"items": {"type": "integer"}},
         {"prefixItems": [{}], "items": {"type": "string"}, "allOf": [{"items": {"type": "integer"}}]}),
        ({"if": {"required": ["a"]}, "then": {"required": ["b"]}}, {"if": {"required": ["c"]}},
         {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "allOf": [{"if": {"required": ["c"]}}]}),
        ({"anyOf": [{"type": "string"}]}, {"anyOf": [{"type": "integer"}]},
         {"anyOf": [{"type": "string"}], "allOf": [{"anyOf": [{"type": "integer"}]}]}),
        ({"properties": {"a": {"type": "string"}}}, {"properties": {"a": False, "b": {}}},
         {"properties": {"a": False, "b": {}}}),
    ],
)  # fmt: skip
def test_merge_keeps_what_both_parts_ask(outer, inner, both):
    assert merge(outer, inner) == both


def test_a_ref_s_sibling_bound_cannot_loosen_its_target_and_sibling_properties_join_it():
    """Siblings of a ``$ref`` replaced the target's keywords of the same name: ``maximum: 200``
    beside a target of at most 100 allowed 200, sibling ``properties`` dropped the target's."""
    schema, _ = normal_form({
        "type": "object",
        "$defs": {"Small": {"type": "integer", "maximum": 100, "description": "small"},
                  "Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
        "properties": {
            "n": {"$ref": "#/$defs/Small", "maximum": 200, "description": "n"},
            "m": {"$ref": "#/$defs/Small", "maximum": 50},
            "item": {"$ref": "#/$defs/Base", "properties": {"extra": {"type": "boolean"}}},
        },
    })  # fmt: skip
    props = schema["properties"]
    assert props["n"] == {"type": "integer", "maximum": 100, "description": "n"}
    assert props["m"] == {"type": "integer", "maximum": 50, "description": "small"}
    extra, base = {"extra": {"type": "boolean"}}, {"id": {"type": "string"}}
    assert props["item"] == {"type": "object", "required": ["id"], "properties": {**extra, **base}}
