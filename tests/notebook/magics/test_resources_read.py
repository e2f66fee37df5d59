"""What ``%mcp read`` and ``%mcp prompt`` show of what a server we did not write (FastMCP 4, in
process) sends: a read resource is not called "embedded" (it is embedded in nothing; a resource a
prompt embeds still is), and a prompt's image says its type and size in text, as the notebook's
drawing does, not a bare ``[image]``."""

from __future__ import annotations

import base64
from typing import Any

import fastmcp
from fastmcp.prompts import Message
from mcp.types import EmbeddedResource, ImageContent, TextResourceContents

from tests.notebook.magics.conftest import bundle, line

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def writer() -> Any:
    srv = fastmcp.FastMCP("writer")

    @srv.resource("writer://style.md", mime_type="text/markdown")
    def style() -> str:
        return "# House style\n\nShort sentences."

    @srv.resource("writer://logo.png", mime_type="image/png")
    def logo() -> bytes:
        return PNG

    @srv.prompt(name="with_style")
    def with_style() -> list[Message]:
        quoted = TextResourceContents(uri="writer://style.md", text="Short sentences.", mimeType="text/plain")
        return [Message("Follow this:"), Message(EmbeddedResource(type="resource", resource=quoted))]

    @srv.prompt(name="describe")
    def describe() -> list[Message]:
        image = ImageContent(type="image", data=base64.b64encode(PNG).decode(), mimeType="image/png")
        return [Message("Describe this image"), Message(image)]

    return srv


def test_a_read_resource_is_not_called_embedded(ip: Any, mcp: Any, pool: Any) -> None:
    pool.connect("w", server=writer())
    for uri in ("writer://style.md", "writer://logo.png"):
        shown = bundle(ip, line(ip, f"read w {uri}"))["text/html"]
        assert f"<code>{uri}</code>" in shown
        assert "embedded" not in shown, uri
    embedding = bundle(ip, line(ip, "prompt w.with_style"))["text/html"]
    assert "embedded resource · text/plain" in embedding  # a prompt's quoted resource still says so


def test_a_prompts_image_says_its_type_and_size_in_text(ip: Any, mcp: Any, pool: Any) -> None:
    pool.connect("w", server=writer())
    shown = bundle(ip, line(ip, "prompt w.describe"))
    assert shown["text/plain"].splitlines()[1:] == [
        "[user] Describe this image",
        "[user] [image image/png, 70 B]",
    ]
    assert 'alt="image image/png, 70 B"' in shown["text/html"]  # what the drawing says of it too
