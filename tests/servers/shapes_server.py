"""A lowlevel MCP server whose tools have the input schemas real servers send and LLM APIs trip on.

Hand-written schemas (no generator in between): nested objects, ``$ref``/``$defs`` (and a recursive
one), enums with ``null``, type lists, keys that are Python keywords or not identifiers at all, a
dotted tool name longer than any provider allows, open maps, ``patternProperties`` and ``allOf`` (which
strict mode cannot take), an image result, a failing tool, and a rendezvous that only completes when
several calls are in flight at once. Every tool echoes what it received, so tests see exactly what
arrived at the server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp import types
from mcp.server import Server

#: A 1x1 transparent PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

LONG_NAME = "reports.quarterly.export.to.spreadsheet.with.every.column.the.finance.team.asked.for"

PLACE = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "country": {"type": "string", "minLength": 2, "maxLength": 2, "description": "ISO code"},
    },
    "required": ["city"],
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "book_trip": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"Place": PLACE},
        "properties": {
            "traveller": {
                "type": "object",
                "description": "Who travels",
                "properties": {
                    "name": {"type": "string"},
                    "age": {"type": ["integer", "null"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["name"],
            },
            "origin": {"$ref": "#/$defs/Place", "description": "Where the trip starts"},
            "stops": {"type": "array", "items": {"$ref": "#/$defs/Place"}, "maxItems": 5},
            "class": {"type": "string", "enum": ["economy", "business"], "default": "economy"},
            "seat": {"enum": ["window", "aisle", None], "description": "Seat wish, null for none"},
            "budget": {"type": "number", "minimum": 0, "default": 1000},
            "notes": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "max-stops": {"type": "integer", "exclusiveMinimum": 0, "format": "int32"},
            "filter[id]": {"type": "string", "pattern": "^[a-z]+$", "format": "uri-reference"},
        },
        "required": ["traveller", "origin"],
    },
    LONG_NAME: {"type": "object", "properties": {"quarter": {"type": "integer", "enum": [1, 2, 3, 4]}}},
    "x.y": {"type": "object", "properties": {}},
    "label_map": {
        "type": "object",
        "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
        "required": ["labels"],
    },
    "by_pattern": {
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "string"}},
    },
    "combined": {
        "type": "object",
        "properties": {"a": {"allOf": [{"type": "integer"}, {"minimum": 1}]}},
    },
    "tree": {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["label"],
            }
        },
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    },
    "tiny_image": {"type": "object", "properties": {}},
    "fail": {"type": "object", "properties": {"why": {"type": "string"}}, "required": ["why"]},
    "rendezvous": {
        "type": "object",
        "properties": {"tag": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["tag", "n"],
    },
    "finished": {"type": "object", "properties": {}},
}

DESCRIPTIONS = {
    "book_trip": "Book a trip: who travels, from where, through which stops.",
    "tiny_image": "A one-pixel image.",
    "fail": "Always fails, saying why.",
    "rendezvous": "Completes only when n calls are in flight at once; they finish in reverse order.",
    "finished": "The tags of finished rendezvous calls, in the order they finished.",
}


def create_server(extra: dict[str, dict[str, Any]] | None = None) -> Server:
    """A fresh server (its rendezvous state included); ``extra`` adds tools by name → input schema."""
    schemas = {**SCHEMAS, **(extra or {})}
    arrived: list[str] = []
    finished: list[str] = []
    condition = asyncio.Condition()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=DESCRIPTIONS.get(name), input_schema=schema)
                for name, schema in schemas.items()
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        if params.name == "tiny_image":
            return types.CallToolResult(
                content=[
                    types.TextContent(type="text", text="one pixel"),
                    types.ImageContent(type="image", data=PIXEL, mime_type="image/png"),
                ]
            )
        if params.name == "fail":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"failed: {args['why']}")], is_error=True
            )
        if params.name == "rendezvous":
            async with condition:
                index = len(arrived)
                arrived.append(args["tag"])
                condition.notify_all()
                await condition.wait_for(lambda: len(arrived) >= args["n"])
                await condition.wait_for(lambda: len(finished) == args["n"] - 1 - index)
                finished.append(args["tag"])
                condition.notify_all()
            return _echo({"tag": args["tag"], "arrived": index})
        if params.name == "finished":
            return _echo({"finished": list(finished)})
        return _echo({"tool": params.name, "arguments": args})

    return Server("shapes", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def _echo(data: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
    )
