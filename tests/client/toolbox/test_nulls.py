"""A strict model's ``null`` for a field it leaves out, at every depth: inside ``Model | None``,
``list[Model] | None`` and a union of models (pydantic's ``anyOf``), as FastMCP and the SDK's
``MCPServer`` write them. Such a call was refused ("not valid under any of the schemas listed in
the 'anyOf'") although it is exactly what OpenAI's strict mode asks a model to send."""

from __future__ import annotations

import json
from typing import Literal

import jsonschema
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall
from pydantic import BaseModel

from mcpnb.client.toolbox.nulls import drop_optional_nulls


class Filter(BaseModel):
    field: str
    op: Literal["eq", "lt", "gt"] = "eq"
    value: str | int | None = None


class Page(BaseModel):
    size: int = 10
    cursor: str | None = None


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    name: str
    indoor: bool = True


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str
    breed: str = "mixed"


def search(
    q: str, filters: list[Filter] | None = None, page: Page | None = None, pet: Cat | Dog | None = None
) -> dict:
    return {
        "q": q,
        "filters": [f.model_dump() for f in filters or []],
        "page": page and page.model_dump(),
        "pet": pet and pet.model_dump(),
    }


def fastmcp_server():
    import fastmcp

    server = fastmcp.FastMCP("fm")
    server.tool(search)
    return server


def sdk_server():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sdk")
    server.tool()(search)
    return server


STRICT_CALL = {
    "q": "x",
    "filters": [{"field": "f", "op": None, "value": None}],
    "page": {"size": None, "cursor": None},
    "pet": {"kind": "dog", "name": "Rex", "breed": None},
}  # fmt: skip  (what a strict model sends for what it leaves out)


@pytest.mark.parametrize("make", [fastmcp_server, sdk_server], ids=["fastmcp", "mcpserver"])
def test_a_strict_call_with_nulls_in_optional_models_reaches_the_server_with_its_defaults(pool, make):
    pool.connect("s", server=make())
    toolbox = pool.functions()
    spec = toolbox.specs("openai", strict=True).spec("mcp__s__search")
    assert spec["function"]["strict"] is True
    jsonschema.validate(STRICT_CALL, spec["function"]["parameters"])  # what the model may send
    call = ChatCompletionMessageFunctionToolCall(
        id="c1", type="function", function={"name": "mcp__s__search", "arguments": json.dumps(STRICT_CALL)}
    )
    reply = toolbox.run(call)
    assert json.loads(reply["content"]) == {
        "q": "x",
        "filters": [{"field": "f", "op": "eq", "value": None}],  # value takes null: kept as sent
        "page": {"size": 10, "cursor": None},
        "pet": {"kind": "dog", "name": "Rex", "breed": "mixed"},
    }
    # a cat, through the same union: the option is the one whose fields these are
    cat = {
        **STRICT_CALL,
        "pet": {"kind": "cat", "name": "Tom", "indoor": None},
        "filters": None,
        "page": None,
    }
    reply = toolbox.run(
        {**call.model_dump(), "function": {"name": "mcp__s__search", "arguments": json.dumps(cat)}}
    )
    assert json.loads(reply["content"])["pet"] == {"kind": "cat", "name": "Tom", "indoor": True}


def test_a_null_the_schema_takes_stays_and_an_ambiguous_value_is_left_to_the_check():
    schema = {
        "type": "object",
        "properties": {
            "either": {
                "anyOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}, "n": {"type": "integer"}}},
                    {"type": "object", "properties": {"a": {"type": "integer"}, "m": {"type": "integer"}}},
                ]
            },
            "maybe": {
                "anyOf": [
                    {"type": "object", "properties": {"x": {"type": ["integer", "null"]}}},
                    {"type": "null"},
                ]
            },
        },
    }
    sent = {"either": {"a": None}, "maybe": {"x": None}}
    # two options fit {"a": ...}: nothing is guessed; x takes null: kept
    assert drop_optional_nulls(sent, schema, schema) == sent
    assert drop_optional_nulls({"either": {"a": 1, "n": None}}, schema, schema) == {"either": {"a": 1}}
