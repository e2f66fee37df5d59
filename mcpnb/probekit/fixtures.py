"""The conformance toolset's resources, resource template and prompts, under the suite's exact names.

Like the fixture tools (:mod:`.tools.conformance`), each is the smallest example of one feature:
a text resource, a binary one, a template with a variable, a resource to subscribe to, and prompts
with no arguments, with arguments, with an embedded resource and with an image.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.types import InputRequiredResult

from mcpnb.probekit.tools.conformance import PNG_1X1, embedded, image

WATCHED = "test://watched-resource"


def add_fixtures(server: MCPServer) -> None:
    """Register the conformance resources and prompts on ``server``."""

    @server.resource("test://static-text", name="static-text", mime_type="text/plain")
    def static_text() -> str:
        """A static text resource: resources/read answers with text and its MIME type."""
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", name="static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        """A static binary resource: resources/read answers with a base64 blob (a 1x1 PNG)."""
        return base64.b64decode(PNG_1X1)

    @server.resource("test://template/{id}/data", name="template-data", mime_type="application/json")
    def template_data(id: str) -> str:
        """A resource template: the {id} in the URI becomes an argument of the read."""
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    @server.resource(WATCHED, name="watched-resource", mime_type="text/plain")
    def watched() -> str:
        """A resource to subscribe to (resources/subscribe, then notifications/resources/updated)."""
        return "This resource can be subscribed to; probe://status is the one that really changes."

    @server.prompt(name="test_simple_prompt")
    def test_simple_prompt() -> list[UserMessage]:
        """A prompt without arguments: prompts/get returns one ready-made user message."""
        return [UserMessage("This is a simple prompt for testing.")]

    @server.prompt(name="test_prompt_with_arguments")
    def test_prompt_with_arguments(arg1: str, arg2: str) -> list[UserMessage]:
        """A prompt with two required arguments that are filled into its message."""
        return [UserMessage(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]

    @server.prompt(name="test_prompt_with_embedded_resource")
    def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:
        """A prompt whose message embeds a resource by URI, then asks about it."""
        return [
            UserMessage(embedded(resourceUri, "Embedded resource content for testing.")),
            UserMessage("Please process the embedded resource above."),
        ]

    @server.prompt(name="test_input_required_result_prompt")
    async def test_input_required_result_prompt(ctx: Context) -> Any:
        """A prompt that needs the person first (2026-07-28's input rounds work for prompts/get
        too): it asks what context to use, then returns a message built on the answer."""
        from mcpnb.probekit.inputs import answers, form, named

        schema = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
        got = await answers(ctx, {"user_context": form("What context should the prompt use?", schema)})
        if isinstance(got, InputRequiredResult):
            return got
        if not isinstance(got, dict):  # the client cannot be asked: the question, as text
            return [UserMessage(got[0].text)]
        return [UserMessage(f"Using this context: {named(got['user_context'], 'context')}")]

    @server.prompt(name="test_prompt_with_image")
    def test_prompt_with_image() -> list[UserMessage]:
        """A prompt whose message carries an image, then asks about it."""
        return [UserMessage(image()), UserMessage("Please analyze the image above.")]
