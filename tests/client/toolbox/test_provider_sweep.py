"""What a check against the providers' own SDKs found: boolean subschemas reaching Gemini (its API
refuses the whole request), whole floats for integer parameters reaching the server as floats, an
"unknown tool" hint misled by the shared ``mcp__server__`` prefix, and ``"description": ""`` for a
tool without one. Real servers throughout (the shapes server, the SDK's ``MCPServer``); the specs are
checked as the dicts they are (no provider SDK here)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from shapes_server import create_server as create_shapes

from mcpnb.client.errors import ToolNotFoundError

#: RevenueCat's MCP server sends ``true`` subschemas; the rest is every place a boolean can stand.
BOOLEANS = {
    "upload_meta": {
        "type": "object",
        "properties": {
            "screenshot_id": True,
            "filename": True,
            "note": {"type": "string"},
            "tags": {"type": "array", "items": True},
        },
    },
    "every_place": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "gone": False,
            "none": {"type": "array", "items": False},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, True, False], "items": True},
            "old_pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
            "either": {"anyOf": [False, {"type": "string"}, True]},
            "open": {"type": "object", "properties": {"x": True}, "additionalProperties": True},
            "closed": {
                "type": "object",
                "properties": {"x": {"type": "string"}},
                "additionalProperties": False,
            },
        },
        "required": ["name", "gone"],
    },
    "only_false": {
        "type": "object",
        "properties": {"q": {"type": "string"}, "legacy": False},
        "required": ["q", "legacy"],
    },
}


def _booleans(node: Any, where: str = "$") -> list[str]:
    """Where a boolean stands as a subschema in a Gemini declaration's schema (``additionalProperties``
    aside: its documented form)."""
    if not isinstance(node, dict):
        return []
    subs = [(f"{where}.{m}.{k}", v) for m in ("properties", "$defs") for k, v in (node.get(m) or {}).items()]
    subs += [
        (f"{where}.{m}[{i}]", v)
        for m in ("anyOf", "oneOf", "prefixItems")
        for i, v in enumerate(node.get(m) or [])
    ]
    subs += [(f"{where}.items", node["items"])] if "items" in node else []
    subs += (
        [(f"{where}.additionalProperties", node["additionalProperties"])]
        if "additionalProperties" in node
        else []
    )
    found = [w for w, v in subs if isinstance(v, bool) and not w.endswith(".additionalProperties")]
    return found + [f for w, v in subs for f in _booleans(v, w)]


@pytest.fixture
def odd(pool: Any) -> Any:
    pool.connect("rc", server=create_shapes(extra=BOOLEANS))
    return pool.functions("rc")


def test_gemini_gets_no_boolean_subschema(odd):
    """Google's API answers a ``true`` subschema with a 400 for the whole request ("Invalid value at
    '…properties[N].value' (…Schema), true"): every tool sent with it is lost."""
    specs = odd.specs("gemini")
    for spec in specs:
        schema = spec.get("parameters") or spec.get("parametersJsonSchema") or {}
        assert _booleans(schema) == [], (spec["name"], _booleans(schema))
    upload = specs.spec("mcp__rc__upload_meta")["parametersJsonSchema"]
    assert upload["properties"] == {
        "screenshot_id": {},
        "filename": {},
        "note": {"type": "string"},
        "tags": {"type": "array", "items": {}},
    }
    props = specs.spec("mcp__rc__every_place")["parametersJsonSchema"]["properties"]
    assert "gone" not in props  # no value may be given: not offered (and not required)
    assert specs.spec("mcp__rc__every_place")["parametersJsonSchema"]["required"] == ["name"]
    assert props["none"] == {"type": "array", "maxItems": 0}
    assert props["pair"] == {"type": "array", "prefixItems": [{"type": "string"}, {}], "maxItems": 2}
    assert props["old_pair"] == {"type": "array", "prefixItems": [{"type": "string"}], "maxItems": 1}
    assert props["either"] == {"anyOf": [{"type": "string"}, {}]}
    assert props["open"] == {"type": "object", "properties": {"x": {}}, "additionalProperties": True}
    assert props["closed"]["additionalProperties"] is False  # the dialect's own form stays
    # a property that takes no value was all that kept the dialect out: Gemini's own Schema now
    assert specs.spec("mcp__rc__only_false")["parameters"] == {
        "type": "OBJECT",
        "properties": {"q": {"type": "STRING"}},
        "required": ["q"],
    }


def test_the_other_apis_keep_the_servers_booleans_and_the_check_still_refuses_false(odd):
    """OpenAI and Anthropic take JSON Schema as it is; what ``false`` refused is refused before
    sending, whatever the Gemini spec left out."""
    assert (
        odd.specs("anthropic").spec("mcp__rc__upload_meta")["input_schema"]["properties"]["filename"] is True
    )
    reply = odd.run({"functionCall": {"name": "mcp__rc__only_false", "args": {"q": "a", "legacy": 1}}})
    assert "error" in reply["functionResponse"]["response"]
    sent = odd.run({"functionCall": {"name": "mcp__rc__upload_meta", "args": {"screenshot_id": [1, "x"]}}})
    assert sent["functionResponse"]["response"]["output"]["arguments"] == {"screenshot_id": [1, "x"]}


# ---------------------------------------------------------------- whole floats for integers
def _received(reply: dict[str, Any]) -> Any:
    """What the shapes server says it received, with JSON's own types (``30`` or ``30.0``)."""
    if "functionResponse" in reply:
        return reply["functionResponse"]["response"]["output"]["arguments"]
    return json.loads(reply["content"] if isinstance(reply["content"], str) else reply["content"][0]["text"])[
        "arguments"
    ]


TRIP = {"traveller": {"name": "A", "age": 30.0}, "origin": {"city": "Oslo"}, "budget": 2.0, "max-stops": 2.0}


@pytest.mark.parametrize("shape", ["gemini", "openai", "anthropic"])
def test_a_models_whole_float_for_an_integer_reaches_the_server_as_an_int(shapes, shape):
    """Gemini's SDK gives every number as a float; models write ``2.0`` in JSON too. The check
    passes 30.0 (JSON Schema counts it an integer), and a Go or Rust server refuses it."""
    tools = shapes.functions("shapes")
    calls = {
        "gemini": {"functionCall": {"name": "mcp__shapes__book_trip", "args": TRIP}},
        "openai": {"id": "c", "type": "function",
                   "function": {"name": "mcp__shapes__book_trip", "arguments": json.dumps(TRIP)}},
        "anthropic": {"type": "tool_use", "id": "c", "name": "mcp__shapes__book_trip", "input": TRIP},
    }  # fmt: skip
    got = _received(tools.run(calls[shape]))
    assert got["traveller"]["age"] == 30 and type(got["traveller"]["age"]) is int
    assert type(got["max-stops"]) is int
    assert got["budget"] == 2.0 and type(got["budget"]) is float  # a number stays as it was written


# ---------------------------------------------------------------- an unknown tool's hint
def _server(names: list[str]) -> MCPServer:
    server = MCPServer("named", log_level="WARNING")
    for name in names:
        server.add_tool(lambda: "ok", name=name, description=f"The {name} tool.")
    return server


FM = ["add", "paint", "pair", "area", "register"]


@pytest.fixture
def two(pool: Any) -> Any:
    """A server of 25 tools first (the first 20 of the toolbox are all its), then fm."""
    pool.connect("aa", server=_server([f"tool{i:02}" for i in range(25)]))
    pool.connect("fm", server=_server(FM))
    return pool.functions("aa", "fm")


def _said(tools: Any, name: str) -> str:
    with pytest.raises(ToolNotFoundError) as caught:
        tools.run({"type": "tool_use", "id": "t", "name": name, "input": {}}, raise_errors=True)
    return str(caught.value)


def test_an_unknown_tool_is_compared_by_its_tool_part_within_the_server_named(two):
    said = _said(two, "mcp__fm__subtract")
    assert "did you mean" not in said  # was 'mcp__fm__paint': the shared prefix made any fm tool close
    assert "there is no tool 'mcp__fm__pant'; did you mean 'mcp__fm__paint'?" in _said(two, "mcp__fm__pant")
    # nothing close in the server named: every server's tools, by their tool part
    assert "did you mean 'mcp__aa__tool24'?" in _said(two, "mcp__fm__tool24x")
    assert "did you mean 'mcp__fm__area'?" in _said(two, "mcp__fmx__area")  # a server it misspelt


def test_an_unknown_tools_list_starts_with_the_named_servers_tools(two):
    listed = _said(two, "mcp__fm__subtract").split("(the tools: ", 1)[1]
    assert listed.startswith(", ".join(f"mcp__fm__{n}" for n in FM) + ", mcp__aa__tool00")
    assert listed.endswith(" and 10 more)")
    assert _said(two, "subtract").split("(the tools: ", 1)[1].startswith("mcp__aa__tool00")  # none named


# ---------------------------------------------------------------- a tool without a description
def test_a_tool_without_a_description_has_no_description_key(shapes):
    """Every API marks ``description`` optional; ``""`` tells a model nothing and is what some
    validators on the way refuse (Bedrock's Converse: "Minimum length of 1")."""
    tools = shapes.functions("shapes")
    for fmt in ("openai", "openai-responses", "anthropic", "gemini"):
        specs = tools.specs(fmt)
        bare = specs.spec("mcp__shapes__label_map")
        described = specs.spec("mcp__shapes__book_trip")
        if fmt == "openai":
            bare, described = bare["function"], described["function"]
        assert "description" not in bare, fmt
        assert described["description"] == "Book a trip: who travels, from where, through which stops."
