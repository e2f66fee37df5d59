"""The conformance fixtures in both eras with the SDK's client (the suite's own client only speaks
2025-11-25; tests/conformance/test_server_suite.py runs the suite itself)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types

from mcpnb.probekit import create_server
from mcpnb.probekit.tools.conformance import DEFAULTS_FORM, ENUMS_FORM, JSON_SCHEMA_2020_12

MODES = ["auto", "legacy"]


class Peer:
    """A client that answers every question and every sampling request, and remembers them."""

    def __init__(self) -> None:
        self.forms: list[dict[str, Any]] = []
        self.sampled: list[str] = []
        self.progress: list[float] = []

    async def elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.forms.append(params.requested_schema)
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.org"})

    async def sample(self, ctx: Any, params: Any) -> types.CreateMessageResult:
        self.sampled.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="forty-two"), model="person"
        )

    async def on_progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.append(done)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_fixtures_in_both_eras(project: Path, mode: str) -> None:
    peer = Peer()
    server = create_server("conformance", root=project)
    async with Client(
        server, mode=mode, elicitation_callback=peer.elicit, sampling_callback=peer.sample
    ) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        one_line = [t.name for t in tools.values() if t.description and "\n" not in t.description]
        assert sorted(one_line) == sorted(set(tools) - {"test_reconnection"})  # a teaching line each
        schema = tools["json_schema_2020_12_tool"].input_schema
        assert schema["$schema"] == JSON_SCHEMA_2020_12 and "address" in schema["$defs"]
        assert schema["additionalProperties"] is False
        assert schema["$defs"]["address"]["$anchor"] == "addressDef" and schema["else"] == {
            "required": ["email"]
        }
        text = await c.call_tool("test_simple_text", {})
        mixed = await c.call_tool("test_multiple_content_types", {})
        audio = await c.call_tool("test_audio_content", {})
        failed = await c.call_tool("test_error_handling", {})
        sampled = await c.call_tool("test_sampling", {"prompt": "What is six times seven?"})
        asked = await c.call_tool("test_elicitation", {"message": "Who are you?"})
        await c.call_tool("test_elicitation_sep1034_defaults", {})
        await c.call_tool("test_elicitation_sep1330_enums", {})
        await c.call_tool("test_tool_with_progress", {}, progress_callback=peer.on_progress)
        addressed = await c.call_tool(
            "json_schema_2020_12_tool",
            {
                "name": "Ada",
                "address": {"city": "Lyon"},
                "contactMethod": "email",
                "email": "ada@example.org",
            },
        )
        resources = {str(r.uri) for r in (await c.list_resources()).resources}
        templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
        binary = await c.read_resource("test://static-binary")
        embedded = await c.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})
        with_args = await c.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    assert text.content[0].text == "This is a simple text response for testing."
    assert [b.type for b in mixed.content] == ["text", "image", "resource"]
    assert audio.content[0].mime_type == "audio/wav" and audio.content[0].data.startswith("UklGR")
    assert failed.is_error and failed.meta["error"]["code"] == "tool_error"
    assert sampled.content[0].text == "LLM response: forty-two" and peer.sampled == [
        "What is six times seven?"
    ]
    assert asked.content[0].text.startswith("Elicitation completed: action=accept")
    assert [f["properties"].keys() for f in peer.forms[1:]] == [
        DEFAULTS_FORM["properties"].keys(),
        ENUMS_FORM["properties"].keys(),
    ]
    assert peer.forms[1]["properties"]["score"]["default"] == 95.5  # the schema goes out exactly as written
    assert peer.forms[2]["properties"]["legacyEnum"]["enumNames"] == [
        "Option One",
        "Option Two",
        "Option Three",
    ]
    assert peer.progress == [0, 50, 100]
    assert addressed.content[0].text == "Hello Ada (city=Lyon; reach at ada@example.org)"
    assert {"test://static-text", "test://static-binary", "test://watched-resource"} <= resources
    assert "test://template/{id}/data" in templates and "probe://files/{+path}" in templates
    assert binary.contents[0].mime_type == "image/png" and binary.contents[0].blob
    assert (
        embedded.messages[0].content.type == "resource"
        and str(embedded.messages[0].content.resource.uri) == "test://x"
    )
    assert "arg1='a', arg2='b'" in with_args.messages[0].content.text


@pytest.mark.anyio
async def test_fixtures_only_in_conformance_and_full(project: Path) -> None:
    for toolset, present in (("core", False), ("conformance", True), ("full", True)):
        async with Client(create_server(toolset, root=project)) as c:
            prompts = {p.name for p in (await c.list_prompts()).prompts}
            resources = {str(r.uri) for r in (await c.list_resources()).resources}
        assert ("test_simple_prompt" in prompts) is present, toolset
        assert ("test://static-text" in resources) is present, toolset
