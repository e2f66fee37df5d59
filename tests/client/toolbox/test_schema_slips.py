"""Two things servers write that JSON Schema does not quite say: a ``required`` key with no property
(every place reads it as a property of any value, and the tool can be called), and OpenAPI 3.0's
``nullable: true`` (Gemini's dialect says it natively, OpenAI's strict mode as a null type)."""

from __future__ import annotations

import inspect
import json
import warnings
from typing import Any

import pytest
from google.genai import types as genai
from mcp import types
from mcp.server import Server
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter

from mcpnb.client.errors import ArgumentsError
from mcpnb.client.toolbox import StrictModeWarning
from mcpnb.client.toolbox.nulls import allows_null

from .conftest import exactly, gemini_exactly
from .test_dispatch import Api

SLIP = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}
NULLABLE = {
    "type": "object",
    "properties": {"a": {"type": "string", "nullable": True}, "n": {"type": "integer"}},
}
NULLABLE_OPEN = {  # an open map: Gemini gets parametersJsonSchema
    "type": "object",
    "properties": {"a": {"type": "string", "nullable": True}, "meta": {"type": "object"}},
}


def echo(schemas: dict[str, dict[str, Any]]) -> Server:
    """A low-level SDK server whose tools answer with the arguments they received, as JSON."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=n, input_schema=s) for n, s in schemas.items()]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        got = json.dumps(params.arguments or {}, sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=got)])

    return Server("slips", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture
def slips(pool):
    pool.connect("s", server=echo({"slip": SLIP, "nullable": NULLABLE, "nullable_open": NULLABLE_OPEN}))
    return pool.functions("s")


# ---------------------------------------------------------------- required, not described
def test_a_required_key_without_a_property_is_one_of_any_value_everywhere(slips):
    f = slips["mcp__s__slip"]
    assert str(inspect.signature(f)).split(" -> ")[0] == "(a: str, b: Any)"
    assert f("x", 3).text == '{"a": "x", "b": 3}'  # the server gets it: it asked for it
    with pytest.raises(ArgumentsError, match="missing required argument 'b'"):
        f.arguments(a="x")
    for fmt in ("openai", "anthropic"):
        spec = slips.specs(fmt).spec("mcp__s__slip")
        params = spec["function"]["parameters"] if fmt == "openai" else spec["input_schema"]
        assert set(params["properties"]) == {"a", "b"} and params["required"] == ["a", "b"]
        assert "does not describe it" in params["properties"]["b"]["description"]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        strict = slips.specs("openai", strict=True)
    assert any(
        w.category is StrictModeWarning
        and "mcp__s__slip cannot be strict for OpenAI: 'type' at properties.b" in str(w.message)
        for w in said
    )
    exactly(TypeAdapter(ChatCompletionToolParam), strict.spec("mcp__s__slip"))
    assert strict.spec("mcp__s__slip")["function"]["strict"] is False  # not strict, and not b dropped
    row = next(r for r in strict.rows() if r[0] == "mcp__s__slip")
    assert row[3:] == ["a*, b*", "no: type at properties.b"]
    assert next(r for r in slips.rows() if r[0] == "mcp__s__slip")[3:] == [
        "a*, b*",
        "no: type at properties.b",
    ]
    gemini_exactly(genai.FunctionDeclaration, slips.specs("gemini").spec("mcp__s__slip"))


@pytest.mark.parametrize("api", [Api("openai"), Api("anthropic"), Api("gemini")], ids=lambda a: a.fmt)
def test_a_model_s_call_with_the_undescribed_key_reaches_the_server(slips, api):
    reply = api.check(slips.run(api.call("mcp__s__slip", {"a": "x", "b": [1]})))
    assert not api.failed(reply) and '"b": [1]' in api.text(reply).replace('\\"', '"')
    missing = api.check(slips.run(api.call("mcp__s__slip", {"a": "x"})))
    assert api.failed(missing) and "missing required argument 'b'" in api.text(missing)


# ---------------------------------------------------------------- OpenAPI's nullable
def test_allows_null_reads_openapi_nullable():
    assert allows_null({"type": "string", "nullable": True})
    assert not allows_null({"type": "string", "nullable": False})
    assert not allows_null(
        {"type": "string", "nullable": True}, openapi=False
    )  # the argument check's reading
    assert allows_null({"anyOf": [{"type": "string", "nullable": True}]})


def test_nullable_is_gemini_s_own_keyword_and_a_null_type_for_strict_openai(slips):
    gemini = slips.specs("gemini").spec("mcp__s__nullable")
    gemini_exactly(genai.FunctionDeclaration, gemini)
    assert gemini["parameters"]["properties"]["a"] == {"type": "STRING", "nullable": True}  # no words
    subset = slips.specs("gemini").spec("mcp__s__nullable_open")["parametersJsonSchema"]
    assert subset["properties"]["a"] == {"type": ["string", "null"]}
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        strict = slips.specs("openai", strict=True).spec("mcp__s__nullable")["function"]
    assert not [w for w in said if "mcp__s__nullable " in str(w.message)]
    exactly(TypeAdapter(ChatCompletionToolParam), {"type": "function", "function": strict})
    assert strict["strict"] is True
    assert strict["parameters"]["properties"]["a"] == {"type": ["string", "null"]}


@pytest.mark.parametrize("api", [Api("openai"), Api("gemini")], ids=lambda a: a.fmt)
def test_a_model_s_null_for_an_optional_nullable_field_is_not_an_error(slips, api):
    """The server said null is a value there: it gets the null, not a dropped key."""
    reply = api.check(slips.run(api.call("mcp__s__nullable", {"a": None, "n": 1})))
    assert not api.failed(reply) and '{"a": null, "n": 1}' in api.text(reply).replace('\\"', '"')


REQUIRED_NULLABLE = {
    "type": "object",
    "properties": {"a": {"type": "string", "nullable": True}, "nullable": {"type": "integer"}},
    "required": ["a", "nullable"],
}


@pytest.mark.parametrize("api", [Api("openai"), Api("gemini")], ids=lambda a: a.fmt)
def test_a_required_nullable_field_takes_the_null_its_spec_advertised(pool, api):
    """Strict OpenAI said ["string", "null"] and Gemini nullable: true, then the argument check
    refused the model's null as JSON Schema reads the field ("null is not of type string"). (A
    property named ``nullable`` is a property, not the keyword.)"""
    pool.connect("s", server=echo({"req": REQUIRED_NULLABLE}))
    toolbox = pool.functions("s")
    reply = api.check(toolbox.run(api.call("mcp__s__req", {"a": None, "nullable": 2})))
    assert not api.failed(reply), api.text(reply)
    assert '{"a": null, "nullable": 2}' in api.text(reply).replace('\\"', '"')
    assert pool.call("s", "req", {"a": None, "nullable": 3}).text == '{"a": null, "nullable": 3}'
    with pytest.raises(ArgumentsError, match="nullable"):  # still a property, still an integer
        pool.call("s", "req", {"a": "x", "nullable": "three"})
