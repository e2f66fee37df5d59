"""Names each provider refuses are rewritten deterministically (readable prefix + short hash), mapped
back when the model calls, and two tools that would share a name are an error naming both."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from shapes_server import LONG_NAME, create_server

from mcpnb.client.toolbox import NameCollisionError


def tag(original: str) -> str:
    """The documented suffix: ``_`` and the first 8 hex digits of the original's SHA-256."""
    return "_" + hashlib.sha256(original.encode()).hexdigest()[:8]


def test_illegal_and_long_names_get_a_readable_prefix_and_a_hash(toolbox):
    flat_long, flat_dot = f"mcp__shapes__{LONG_NAME}", "mcp__shapes__x.y"
    openai = toolbox.entries("openai")
    long_name = next(n for n, e in openai.items() if e.function.flat_name == flat_long)
    assert long_name == flat_long.replace(".", "_")[: 64 - 9] + tag(flat_long) and len(long_name) == 64
    assert "mcp__shapes__x_y" + tag(flat_dot) in openai
    assert long_name in toolbox.entries("anthropic")  # the same rule there: at most 64
    gemini = toolbox.entries("gemini")  # dots are legal for Gemini: only the length is a problem
    assert flat_dot in gemini
    assert flat_long[: 64 - 9] + tag(flat_long) in gemini
    assert "mcp__probe__ui_search" in openai and "mcp__probe__ui_search" in gemini  # legal names stay


def test_a_name_longer_than_anthropic_s_64_is_shortened_and_mapped_back(toolbox):
    """Anthropic documents tool names as ``^[a-zA-Z0-9_-]{1,64}$`` and refuses the whole request
    over one longer name ("tools.7.custom.name: String should match pattern …")."""
    flat_long = f"mcp__shapes__{LONG_NAME}"
    assert len(flat_long) > 64
    name = next(n for n, e in toolbox.entries("anthropic").items() if e.function.flat_name == flat_long)
    assert len(name) == 64 and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name)
    assert name == flat_long.replace(".", "_")[: 64 - 9] + tag(flat_long)
    assert toolbox.specs("anthropic").spec(flat_long)["name"] == name
    reply = toolbox.run({"type": "tool_use", "id": "t", "name": name, "input": {"quarter": 2}})
    assert not reply["is_error"]
    assert json.loads(reply["content"][0]["text"]) == {"tool": LONG_NAME, "arguments": {"quarter": 2}}


def test_the_same_tool_gets_the_same_name_in_every_toolbox(peers, toolbox):
    again = peers.functions("shapes")
    assert set(again.entries("openai")) <= set(toolbox.entries("openai"))


def test_property_keys_are_rewritten_and_mapped_back(toolbox):
    anthropic = toolbox.entries("anthropic")["mcp__shapes__book_trip"]
    assert anthropic.keys == {"filter_id_" + tag("filter[id]"): "filter[id]"}  # "max-stops" is legal there
    gemini = toolbox.entries("gemini")["mcp__shapes__book_trip"]
    assert gemini.keys == {
        "filter_id_" + tag("filter[id]"): "filter[id]",
        "max_stops" + tag("max-stops"): "max-stops",
    }
    sent = {"traveller": {"name": "Ada"}, "origin": {"city": "Lyon"}, "max_stops" + tag("max-stops"): 2}
    assert gemini.server_arguments(sent) == {
        "traveller": {"name": "Ada"},
        "origin": {"city": "Lyon"},
        "max-stops": 2,
    }


def test_a_renamed_tool_is_called_under_its_new_name(toolbox):
    name = "mcp__shapes__x_y" + tag("mcp__shapes__x.y")
    reply = toolbox.run({"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}})
    assert '"tool": "x.y"' in reply["content"]


def test_two_tools_under_one_provider_name_is_an_error_naming_both(pool):
    squatter = "x_y" + tag("mcp__shapes__x.y")  # a legal name equal to what x.y becomes for OpenAI
    pool.connect("shapes", server=create_server({squatter: {"type": "object", "properties": {}}}))
    toolbox = pool.functions("shapes")
    with pytest.raises(NameCollisionError) as caught:
        toolbox.specs("openai")
    assert "'mcp__shapes__x.y'" in str(caught.value) and f"'mcp__shapes__{squatter}'" in str(caught.value)
    assert toolbox.specs("gemini")  # Gemini keeps the dot: no collision there
    assert "mcp__shapes__x.y" in repr(toolbox)  # the table (flat names) still shows
    with pytest.raises(NameCollisionError):  # running a call needs the same map: same error, no guess
        toolbox.run({"type": "function_call", "call_id": "c", "name": "mcp__shapes__fail", "arguments": "{}"})


def test_two_property_keys_under_one_provider_key_is_an_error_naming_both(pool):
    squatter = "a_b" + tag("a.b")
    schema = {"type": "object", "properties": {"a.b": {"type": "string"}, squatter: {"type": "string"}}}
    pool.connect("shapes", server=create_server({"keys": schema}))
    toolbox = pool.functions("shapes")
    with pytest.raises(
        NameCollisionError, match=rf"mcp__shapes__keys: gemini property keys: 'a.b' and '{squatter}'"
    ):
        toolbox.specs("gemini")
    assert toolbox.specs("anthropic")  # dots are legal in Anthropic keys


def test_tools_named_like_the_mappings_methods_have_an_underscore(pool):
    """A key-value server's ``get`` and ``keys``: ``short.get(key="b")`` was the mapping's get, which
    quietly answered None. The tools are ``short.get_`` and ``short.keys_`` (as ``class_``), and the
    mapping stays one: ``dict(short)``, ``short.keys()``, ``==``."""
    from mcp.server.mcpserver import MCPServer

    kv = MCPServer("kv")
    store = {"a": "1", "b": "2"}

    @kv.tool()
    def get(key: str) -> str:
        return store[key]

    @kv.tool()
    def keys() -> list[str]:
        return sorted(store)

    pool.connect("kv", server=kv)
    short = pool.functions("kv").short
    assert short.get_(key="b").text == "2" and short.keys_().data == ["a", "b"]
    assert short.get_ is short["get"] and {"get_", "keys_"} <= set(dir(short))
    assert sorted(short.keys()) == ["get", "keys"] and dict(short) == {"get": short.get_, "keys": short.keys_}
    assert {**short} == dict(short) and short.get("keys") is short.keys_ and "get" in short
    with pytest.raises(
        TypeError, match=r"short\.get is the mapping's get\(\); the tool 'get' is short\.get_"
    ):
        short.get(key="b")
    with pytest.raises(TypeError, match=r"the tool 'keys' is short\.keys_"):
        short.keys(pattern="a")
