"""Every tool of probe-kit, server-everything, mcp-server-time and the shapes server, as specs for each
API, checked with that API's own SDK types and against its documented name and schema rules."""

from __future__ import annotations

import re
import warnings

import jsonschema
import pytest
from anthropic.types import ToolParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter
from shapes_server import create_server

from mcpnb.client.toolbox import StrictModeWarning

from .conftest import exactly, gemini_exactly

SERVERS = ("probe", "everything", "time", "shapes")
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # "a-z, A-Z, 0-9, underscores and dashes, max 64"
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # Anthropic "Define tools"
ANTHROPIC_KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")  # the API's input_schema.properties check
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")  # FunctionDeclaration.name
GEMINI_KEY = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")  # "Parameter names must start with …"


def _specs(toolbox, fmt, strict=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictModeWarning)
        return toolbox.specs(fmt, strict=strict)


def test_every_server_is_in_the_toolbox(toolbox):
    assert {t.server for t in toolbox.tools} == set(SERVERS)
    assert len([t for t in toolbox.tools if t.server == "everything"]) >= 10


@pytest.mark.parametrize("strict", [None, False, True])
def test_openai_chat_specs_validate_with_the_sdk_types(toolbox, strict):
    adapter = TypeAdapter(ChatCompletionToolParam)
    specs = _specs(toolbox, "openai", strict)
    assert len(specs) == len(toolbox)
    for spec in specs:
        exactly(adapter, spec)
        function = spec["function"]
        assert OPENAI_NAME.match(function["name"]), function["name"]
        assert function["parameters"]["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(function["parameters"])
        assert ("strict" in function) == (strict is not None)


@pytest.mark.parametrize("strict", [None, True])
def test_openai_responses_specs_validate_with_the_sdk_types(toolbox, strict):
    adapter = TypeAdapter(FunctionToolParam)
    for spec in _specs(toolbox, "openai-responses", strict):
        exactly(adapter, spec)
        assert OPENAI_NAME.match(spec["name"])
        assert isinstance(spec["strict"], bool)  # a required field in the Responses API


def test_anthropic_specs_validate_with_the_sdk_types(toolbox):
    adapter = TypeAdapter(ToolParam)
    for spec in _specs(toolbox, "anthropic"):
        exactly(adapter, spec)
        assert ANTHROPIC_NAME.match(spec["name"])
        assert all(ANTHROPIC_KEY.match(k) for k in spec["input_schema"]["properties"]), spec
        jsonschema.Draft202012Validator.check_schema(spec["input_schema"])


def test_gemini_specs_validate_with_the_sdk_types(toolbox):
    for spec in _specs(toolbox, "gemini"):
        declaration = gemini_exactly(genai.FunctionDeclaration, spec)
        assert GEMINI_NAME.match(declaration.name)
        params = declaration.parameters
        if params is not None:
            assert params.type == genai.Type.OBJECT
            assert all(GEMINI_KEY.match(k) for k in params.properties or {})
            assert not {"$ref", "$defs"} & _keys(spec)  # as keys: a description may mention them
        elif (schema := declaration.parameters_json_schema) is not None:  # what the dialect cannot say
            assert schema["type"] == "object" and all(GEMINI_KEY.match(k) for k in schema["properties"])
            jsonschema.Draft202012Validator.check_schema(schema)
    wrapped = genai.Tool.model_validate({"function_declarations": list(_specs(toolbox, "gemini"))})
    assert len(wrapped.function_declarations) == len(toolbox)


def _keys(value):
    """Every dictionary key anywhere inside ``value``."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _objects(schema):
    """Every object schema inside ``schema`` (through properties, items, anyOf, $defs)."""
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        yield schema
    for key in ("properties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            yield from _objects(sub)
    for sub in schema.get("anyOf") or []:
        yield from _objects(sub)
    yield from _objects(schema.get("items"))


NOT_IN_STRICT = {"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "oneOf",
                 "default", "minLength", "maxLength", "patternProperties", "$schema"}  # fmt: skip


def _keywords(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key not in ("properties", "$defs", "enum", "const"):
                yield key
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _keywords(sub)
            elif isinstance(value, (dict, list)) and key not in ("enum", "const"):
                yield from _keywords(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keywords(item)


def test_strict_specs_follow_openais_strict_rules_and_say_which_cannot(toolbox):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StrictModeWarning)
        specs = toolbox.specs("openai", strict=True)
    not_strict = {s["function"]["name"] for s in specs if not s["function"]["strict"]}
    warned = {str(w.message).split(" ")[0] for w in caught if w.category is StrictModeWarning}
    assert not_strict == warned  # every tool that is not strict was named in a warning
    # probe-kit's free-form objects, its 2020-12 fixture (a top-level allOf and if/then/else) and the
    # shapes server's blockers cannot be strict; the rest can (the shapes server's allOf is merged)
    assert {"mcp__probe__gen_mock", "mcp__probe__genui", "mcp__probe__json_schema_2020_12_tool",
            "mcp__shapes__label_map", "mcp__shapes__by_pattern"} == not_strict  # fmt: skip
    combined = specs.spec("mcp__shapes__combined")["function"]["parameters"]["properties"]["a"]
    assert combined == {"type": ["integer", "null"], "minimum": 1}  # allOf [integer, minimum 1]
    for spec in specs:
        function = spec["function"]
        if not function["strict"]:
            continue
        params = function["parameters"]
        assert "anyOf" not in params
        for obj in _objects(params):
            assert obj["additionalProperties"] is False, (function["name"], obj)
            assert set(obj["required"]) == set(obj["properties"]), (function["name"], obj)
        assert not NOT_IN_STRICT & set(_keywords(params)), function["name"]


def test_the_strict_warning_names_the_keyword_that_blocks(toolbox):
    with pytest.warns(StrictModeWarning) as caught:
        toolbox.specs("openai-responses", strict=True)
    said = {str(w.message).split(" ")[0]: str(w.message) for w in caught}
    assert "'additionalProperties' at properties.schema" in said["mcp__probe__gen_mock"]
    assert "'patternProperties' at the top level" in said["mcp__shapes__by_pattern"]
    assert "'if' at the top level" in said["mcp__probe__json_schema_2020_12_tool"]  # its allOf is merged


def test_strict_keeps_what_a_valid_call_sends_valid(toolbox):
    """Strict mode changes the schema's form, not what it accepts from a call that fills every field:
    the arguments a strict model sends (nulls for the optional fields) validate against it."""
    specs = {s["function"]["name"]: s["function"] for s in _specs(toolbox, "openai", True)}
    book = specs["mcp__shapes__book_trip"]["parameters"]
    sent = {
        "traveller": {"name": "Ada", "age": None, "tags": None},
        "origin": {"city": "Lyon", "country": None},
        "stops": None, "class": None, "seat": None, "budget": None, "notes": None,
        "max-stops": None, "filter[id]": None,
    }  # fmt: skip
    jsonschema.validate(sent, book)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**sent, "extra": 1}, book)


def test_recursive_schema_keeps_its_defs_for_openai_and_for_gemini_s_json_schema(toolbox):
    openai = next(s for s in _specs(toolbox, "openai", True) if s["function"]["name"] == "mcp__shapes__tree")
    params = openai["function"]["parameters"]
    assert openai["function"]["strict"] is True and "Node" in params["$defs"]
    node = params["$defs"]["Node"]
    assert node["additionalProperties"] is False and set(node["required"]) == {"label", "children"}
    jsonschema.validate({"root": {"label": "a", "children": [{"label": "b", "children": None}]}}, params)
    gemini = next(s for s in _specs(toolbox, "gemini") if s["name"] == "mcp__shapes__tree")
    assert "parameters" not in gemini  # the Schema dialect has no references
    schema = gemini["parametersJsonSchema"]
    assert schema["properties"]["root"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    jsonschema.validate({"root": {"label": "a", "children": [{"label": "b"}]}}, schema)


def test_gemini_dialect_details(toolbox):
    spec = next(s for s in _specs(toolbox, "gemini") if s["name"] == "mcp__shapes__book_trip")
    props = spec["parameters"]["properties"]
    seat = {
        "type": "STRING",
        "enum": ["window", "aisle"],
        "nullable": True,
        "description": "Seat wish, null for none",
    }
    assert props["seat"] == seat
    assert props["notes"] == {"type": "STRING", "nullable": True}  # anyOf [string, null]
    assert props["traveller"]["properties"]["age"] == {"type": "INTEGER", "nullable": True}  # a type list
    assert props["origin"]["description"] == "Where the trip starts"  # the $ref's sibling wins
    assert props["origin"]["properties"]["city"]["description"] == "City name"  # ...and the target is inlined
    assert "default: 1000" in props["budget"]["description"]  # what the dialect cannot say is still said
    quarter = next(s for s in _specs(toolbox, "gemini") if s["name"].endswith("_4094d71b"))
    assert quarter["parameters"]["properties"]["quarter"] == {
        "type": "INTEGER",
        "description": "(one of 1, 2, 3, 4)",
    }
    no_params = next(s for s in _specs(toolbox, "gemini") if s["name"] == "mcp__everything__get-tiny-image")
    assert not {"parameters", "parametersJsonSchema"} & set(no_params)  # Gemini: a function without
    # parameters leaves them unset


def test_descriptions_are_left_out_when_empty_and_root_schemas_are_normalised(toolbox):
    for spec in _specs(toolbox, "anthropic"):
        assert isinstance(spec.get("description", ""), str)
        schema = spec["input_schema"]
        assert schema["type"] == "object" and isinstance(schema["properties"], dict)
        assert "$schema" not in schema and "title" not in schema
    shapes = {s["name"]: s for s in _specs(toolbox, "anthropic")}
    assert "description" not in shapes["mcp__shapes__x_y_ec078714"]  # optional in every API
    assert shapes["mcp__probe__ui_search"]["input_schema"]["additionalProperties"] is False


def test_unknown_format_and_strict_for_another_api_say_what_to_do(toolbox):
    with pytest.raises(ValueError, match="did you mean 'openai'"):
        toolbox.specs("opnai")
    for said, meant in [("claude", "anthropic"), ("Google", "gemini"), ("responses", "openai-responses")]:
        with pytest.raises(ValueError, match=f"unknown format '{said}'; did you mean '{meant}'"):
            toolbox.specs(said)  # a model's or company's name for its API
    with pytest.raises(ValueError, match="mcpnb does not make 'anthropic' strict specs yet"):
        toolbox.specs("anthropic", strict=True)


def test_the_servers_instructions_are_there_for_a_system_prompt(peers):
    """server-everything writes instructions for the model; mcp-server-time writes none."""
    everything = peers.functions("everything", "time").instructions
    assert everything.startswith("## everything\n") and "Everything Server" in everything
    assert "## time" not in everything
    assert peers.functions("time").instructions == ""


# ---------------------------------------------------------------- input schemas providers trip on
ROOT_REF = {
    "type": "object",
    "$ref": "#/$defs/In",
    "$defs": {"In": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
}
ODD = {
    "root_ref": ROOT_REF,
    "root_anyof": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    },
    "root_oneof": {
        "type": "object",
        "description": "Find a user.",
        "oneOf": [
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"properties": {"first": {"type": "string"}, "last": {"type": "string"}},
             "required": ["first", "last"]},
            {"properties": {"id": {"type": "string"}}, "required": ["id"]},  # not just `required`: JSON
        ],
    },
    "root_allof": {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "allOf": [
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
        ],
    },
    "root_not": {"type": "object", "properties": {"a": {"type": "string"}}, "not": {"required": ["a"]}},
    "free_map": {"type": "object", "additionalProperties": {"type": "string"}},
    "nested_free": {"type": "object", "properties": {"meta": {"type": "object"}}},
    "untyped": {"type": "object", "properties": {"value": {"description": "anything"}},
                "required": ["value"]},
    "no_items": {"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]},
}  # fmt: skip


@pytest.fixture
def odd(pool):
    pool.connect("odd", server=create_server(ODD))
    return pool.functions("odd")


def _check_with_every_sdk(specs_by_format):
    """Every spec validates with its SDK's types; OpenAI's and Anthropic's roots are plain objects."""
    for fmt, specs in specs_by_format.items():
        for spec in specs:
            if fmt == "openai":
                exactly(TypeAdapter(ChatCompletionToolParam), spec)
                root = spec["function"]["parameters"]
            elif fmt == "anthropic":
                exactly(TypeAdapter(ToolParam), spec)
                root = spec["input_schema"]
            else:
                gemini_exactly(genai.FunctionDeclaration, spec)
                root = spec.get("parameters") or spec.get("parametersJsonSchema") or {"type": "OBJECT"}
            assert root["type"].lower() == "object", spec
            assert not {"allOf", "anyOf", "oneOf", "not", "$ref", "enum"} & set(root), spec


def _odd_specs(odd, strict=None):
    return {
        "openai": _specs(odd, "openai", strict),
        "anthropic": _specs(odd, "anthropic"),
        "gemini": _specs(odd, "gemini"),
    }


def test_a_root_ref_keeps_its_parameters_for_every_api(odd):
    specs = _odd_specs(odd, strict=True)
    _check_with_every_sdk(specs)
    openai = specs["openai"].spec("mcp__odd__root_ref")["function"]
    assert openai["strict"] is True
    assert openai["parameters"] == {"type": "object", "properties": {"q": {"type": "string"}},
                                    "required": ["q"], "additionalProperties": False}  # fmt: skip
    anthropic = specs["anthropic"].spec("mcp__odd__root_ref")["input_schema"]
    assert anthropic["properties"] == {"q": {"type": "string"}} and anthropic["required"] == ["q"]
    gemini = specs["gemini"].spec("mcp__odd__root_ref")["parameters"]
    assert gemini == {"type": "OBJECT", "properties": {"q": {"type": "STRING"}}, "required": ["q"]}
    assert [p.name for p in odd.short.root_ref.params] == ["q"]  # the Python function has it too


def test_root_composition_is_merged_or_said_in_words_for_every_api(odd):
    """OpenAI refuses anyOf/oneOf/allOf/not at the top level ("schema must have type 'object' and not
    have …") even without strict mode, Anthropic refuses the first three; either refuses the request."""
    specs = _odd_specs(odd)
    _check_with_every_sdk(specs)
    schemas = {s["name"].removeprefix("mcp__odd__"): s["input_schema"] for s in specs["anthropic"]}
    anyof = schemas["root_anyof"]
    assert set(anyof["properties"]) == {"a", "b"} and "required" not in anyof
    assert anyof["description"] == "Give at least one of: a; b."
    oneof = schemas["root_oneof"]
    assert oneof["properties"] == {"id": {"type": "integer"}, "first": {"type": "string"},
                                   "last": {"type": "string"}}  # fmt: skip
    assert oneof["description"] == (
        "Find a user. Give exactly one of: id; first and last; "
        '{"properties":{"id":{"type":"string"}},"required":["id"]}.'
    )
    allof = schemas["root_allof"]
    assert allof["properties"] == {"a": {"type": "string"}, "b": {"type": "integer"}}
    assert allof["required"] == ["a", "b"] and allof["description"] == "Give at least one of: a; b."
    assert schemas["root_not"]["description"] == "Do not give: a."
    openai = specs["openai"].spec("mcp__odd__root_oneof")["function"]["parameters"]
    assert openai["description"].startswith("Find a user. Give exactly one of:")
    gemini = specs["gemini"].spec("mcp__odd__root_allof")[
        "parameters"
    ]  # was left out: no top-level properties
    assert gemini["required"] == ["a", "b"] and set(gemini["properties"]) == {"a", "b"}


def test_gemini_gets_json_schema_for_what_its_dialect_cannot_say(odd):
    """An open map root, a free-form object ("properties: should be non-empty for OBJECT type"), an
    array without items ("items: missing field"), a value without a type: ``parametersJsonSchema``
    instead of parameters lost or refused."""
    specs = _specs(odd, "gemini")
    _check_with_every_sdk({"gemini": specs})
    for name in ("free_map", "nested_free", "no_items", "untyped"):
        spec = specs.spec(f"mcp__odd__{name}")
        assert "parameters" not in spec, name
        declaration = genai.FunctionDeclaration.model_validate(spec)
        assert (
            declaration.parameters_json_schema
            == _specs(odd, "anthropic").spec(f"mcp__odd__{name}")["input_schema"]
        )
    assert specs.spec("mcp__odd__free_map")["parametersJsonSchema"]["additionalProperties"] == {
        "type": "string"
    }
    assert specs.spec("mcp__odd__no_items")["parametersJsonSchema"]["properties"]["tags"] == {
        "type": "array",
        "items": {},
    }
    assert "parameters" in specs.spec("mcp__odd__root_anyof")  # what the dialect can say stays in it


def test_an_array_without_items_gets_items_and_a_value_without_a_type_is_not_strict(odd):
    """OpenAI answers "array schema missing items" even without strict mode, and "schema must have a
    'type' key" in strict mode."""
    plain = _specs(odd, "openai").spec("mcp__odd__no_items")["function"]["parameters"]
    assert plain["properties"]["tags"] == {"type": "array", "items": {}}
    assert _specs(odd, "anthropic").spec("mcp__odd__no_items")["input_schema"]["properties"]["tags"] == {
        "type": "array",
        "items": {},
    }
    with pytest.warns(StrictModeWarning) as caught:
        specs = odd.specs("openai", strict=True)
    said = {str(w.message).split(" ")[0]: str(w.message) for w in caught}
    assert "'type' at properties.value" in said["mcp__odd__untyped"]
    assert "'type' at properties.tags.items" in said["mcp__odd__no_items"]
    assert specs.spec("mcp__odd__untyped")["function"]["strict"] is False
    assert specs.spec("mcp__odd__no_items")["function"]["strict"] is False
    assert specs.spec("mcp__odd__root_anyof")["function"]["strict"] is True  # said in words, so strict
