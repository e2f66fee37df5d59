"""The conformance toolset: the fixture tools the official MCP conformance suite calls, by its names.

Each one is also the smallest possible example of one MCP feature, so its description says which
(``%mcp tools probe`` then reads like a table of contents of the protocol). The suite speaks the
2025-11-25 era; every tool here also works on 2026-07-28, where a question to the client rides an
``InputRequiredResult`` instead of a back-channel request (:mod:`mcpnb.probekit.inputs` asks).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from mcp import types
from mcp.server.mcpserver import Context

from mcpnb.probekit.inputs import answers, can, completion, form, said
from mcpnb.probekit.logs import log
from mcpnb.probekit.responses import content_only, error_response, text
from mcpnb.probekit.state import ProbeState

#: A 1x1 PNG and a 44-byte WAV: the smallest real files of their kind.
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV_TINY = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: The schemas the elicitation scenarios check field by field.
USER_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
DEFAULTS_FORM: dict[str, Any] = {  # SEP-1034: a default for every primitive type
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verified user", "default": True},
    },
}
ENUMS_FORM: dict[str, Any] = {  # SEP-1330: the five ways to offer choices
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}
ADDRESS_TOOL_SCHEMA: dict[str, Any] = {  # 2020-12, with the wider vocabulary SEP-2106 allows
    "$schema": JSON_SCHEMA_2020_12,
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


def image() -> types.ImageContent:
    return types.ImageContent(type="image", data=PNG_1X1, mime_type="image/png")


def embedded(uri: str, body: str, mime: str = "text/plain") -> types.EmbeddedResource:
    return types.EmbeddedResource(
        type="resource", resource=types.TextResourceContents(uri=uri, mime_type=mime, text=body)
    )


def fallback_text(question: str, fields: dict[str, Any]) -> str:
    """The design's ``fallbackToText``: the question and its options, for a client without forms."""
    lines = [question, "", "(This client cannot show forms, so here are the questions as text.)"]
    for name, prop in fields.get("properties", {}).items():
        choices = prop.get("enum") or [c.get("const") for c in prop.get("oneOf", [])]
        hint = f" — one of: {', '.join(map(str, choices))}" if choices else ""
        default = f" (default: {prop['default']})" if "default" in prop else ""
        lines.append(
            f"- {prop.get('title', name)}: {prop.get('description', prop.get('type', ''))}{hint}{default}"
        )
    return "\n".join(lines)


async def elicit_tool(ctx: Context, message: str, schema: dict[str, Any]) -> Any:
    if not can(ctx, "elicitation"):
        return [text(fallback_text(message, schema))]
    got = await answers(ctx, {"form": form(message, schema)})
    if not isinstance(got, dict):
        return got
    outcome = got["form"]
    content = json.dumps(outcome.content or {})
    return [text(f"Elicitation completed: action={outcome.action}, content={content}")]


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The conformance fixtures, in the order the suite runs them."""

    def test_simple_text() -> list[types.TextContent]:
        """Tool result with one text block: the simplest answer a tool can give (tools/call)."""
        return [text("This is a simple text response for testing.")]

    def test_image_content() -> list[types.ImageContent]:
        """Tool result with an image block: base64 data plus its MIME type."""
        return [image()]

    def test_audio_content() -> list[types.AudioContent]:
        """Tool result with an audio block (audio/wav), added to MCP in 2025-03-26."""
        return [types.AudioContent(type="audio", data=WAV_TINY, mime_type="audio/wav")]

    def test_embedded_resource() -> list[types.EmbeddedResource]:
        """Tool result that embeds a resource (its URI, MIME type and text) in the answer."""
        return [embedded("test://embedded-resource", "This is an embedded resource content.")]

    def test_multiple_content_types() -> list[Any]:
        """Tool result mixing text, an image and an embedded JSON resource in one answer."""
        return [
            text("Multiple content types test:"),
            image(),
            embedded("test://mixed-content-resource", '{"test":"data","value":123}', "application/json"),
        ]

    async def test_tool_with_logging(ctx: Context) -> list[types.TextContent]:
        """Log notifications during a call, filtered by the level the client set (logging/setLevel)."""
        sent = 0
        for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            sent += await log(ctx, "info", message, state.log_levels)
            await asyncio.sleep(0.01)
        sent += await log(ctx, "debug", "Debug detail: three info lines sent", state.log_levels)
        return [text(f"Tool with logging executed successfully ({sent} log notifications sent)")]

    def test_error_handling() -> types.CallToolResult:
        """A tool failure: an isError result with a sentence (a protocol error is for bad requests)."""
        return error_response("This tool intentionally returns an error for testing")

    async def test_tool_with_progress(ctx: Context) -> list[types.TextContent]:
        """Progress notifications (0, 50, 100 of 100) for a call that sent a progressToken."""
        for done in (0, 50, 100):
            await ctx.report_progress(done, 100, f"step {done // 50 + 1} of 3")
            await asyncio.sleep(0.01)
        return [text("Progress reported: 0, 50, 100 of 100")]

    async def test_sampling(ctx: Context, prompt: str) -> Any:
        """Sampling: the server asks the client's LLM to complete a prompt (sampling/createMessage)."""
        if not can(ctx, "sampling"):
            return [text(f"This client offers no sampling, so nobody can answer: {prompt}")]
        got = await answers(ctx, {"sample": completion(prompt, 100)})
        if not isinstance(got, dict):
            return got
        return [text(f"LLM response: {said(got['sample'])}")]

    async def test_elicitation(ctx: Context, message: str) -> Any:
        """Form elicitation: the server asks the person for a username and an email."""
        return await elicit_tool(ctx, message, USER_FORM)

    async def test_elicitation_sep1034_defaults(ctx: Context) -> Any:
        """Form elicitation whose fields carry defaults for string, integer, number, enum and boolean."""
        return await elicit_tool(ctx, "Please review and update the form fields with defaults", DEFAULTS_FORM)

    async def test_elicitation_sep1330_enums(ctx: Context) -> Any:
        """Form elicitation offering choices five ways: enum, titled oneOf, enumNames, two multi-selects."""
        return await elicit_tool(ctx, "Please select options from the enum fields", ENUMS_FORM)

    async def test_reconnection(ctx: Context) -> list[types.TextContent]:
        """SSE polling: the server closes the response stream mid-call; the client resumes with
        Last-Event-ID and gets the result (Streamable HTTP, 2025-11-25)."""
        await ctx.close_sse_stream()
        await asyncio.sleep(0.2)
        return [text("Reconnection test completed")]

    def json_schema_2020_12_tool(
        name: str = "",
        address: dict[str, Any] | None = None,
        contactMethod: str = "",  # the suite's name
        phone: str = "",
        email: str = "",
    ) -> list[Any]:
        """An inputSchema in JSON Schema 2020-12 kept as written: $defs, $anchor, allOf, if/then/else."""
        where = ", ".join(f"{k}={v}" for k, v in (address or {}).items()) or "no address"
        reach = phone if contactMethod == "phone" else email or phone
        return [text(f"Hello {name or 'nobody'} ({where}; reach at {reach or 'nowhere'})")]

    json_schema_2020_12_tool.input_schema = ADDRESS_TOOL_SCHEMA  # type: ignore[attr-defined]

    return content_only(
        [
            test_simple_text,
            test_image_content,
            test_audio_content,
            test_embedded_resource,
            test_multiple_content_types,
            test_tool_with_logging,
            test_error_handling,
            test_tool_with_progress,
            test_sampling,
            test_elicitation,
            test_elicitation_sep1034_defaults,
            test_elicitation_sep1330_enums,
            test_reconnection,
            json_schema_2020_12_tool,
        ]
    )
