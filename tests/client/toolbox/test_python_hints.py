"""The tool functions' type hints are their signature's: ``typing.get_type_hints``, pydantic's
``validate_call`` and ``anthropic.beta_tool`` read ``__annotations__``, and an optional parameter
whose default is None says it takes None (PEP 484 has no implicit Optional)."""

from __future__ import annotations

import inspect
import typing
from typing import Any, Literal

import pydantic
import pytest
from anthropic import beta_tool

from mcpnb.client.results import ToolResult


def test_type_hints_are_the_signature_s(toolbox):
    search = toolbox["mcp__probe__ui_search"]
    hints = {"query": str, "limit": int, "category": str | None, "return": ToolResult}
    assert typing.get_type_hints(search) == hints
    assert typing.get_type_hints(search.acall) == hints
    assert typing.get_type_hints(search.arguments) == {**hints, "return": dict[str, Any]}
    for function in toolbox.values():  # every tool of probe-kit, server-everything, time, shapes
        sig = inspect.signature(function)
        assert typing.get_type_hints(function) == {
            **{p.name: p.annotation for p in sig.parameters.values()},
            "return": ToolResult,
        }, function.flat_name


def test_an_optional_parameter_without_a_default_says_it_takes_none(toolbox):
    book = toolbox["mcp__shapes__book_trip"]
    hints = typing.get_type_hints(book)
    assert hints["max_stops"] == int | None and hints["filter_id_"] == str | None  # were `int = None`
    assert hints["stops"] == list[dict] | None
    assert hints["seat"] == Literal["window", "aisle", None]  # already said it
    assert hints["budget"] is float  # its default is 1000, not None
    assert hints["traveller"] is dict  # required
    assert "max_stops (int | None, keyword-only, optional)" in book.__doc__


def test_pydantic_validate_call_checks_and_calls(toolbox):
    search = pydantic.validate_call(toolbox["mcp__probe__ui_search"])
    result = search(query="login", limit="2")  # lax mode: "2" is 2
    assert isinstance(result, ToolResult) and not result.is_error
    with pytest.raises(pydantic.ValidationError, match="limit"):
        search(query="login", limit="many")


def test_anthropic_beta_tool_reads_the_tool_function(toolbox):
    tool = beta_tool(toolbox["mcp__probe__ui_search"]).to_dict()
    assert tool["name"] == "ui_search"
    schema = tool["input_schema"]
    assert set(schema["properties"]) == {"query", "limit", "category"}
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"]["type"] == "integer"
