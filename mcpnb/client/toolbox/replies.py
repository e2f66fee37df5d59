"""A tool's result (or why there is none) as the message each API expects back.

- OpenAI Chat Completions: ``{"role": "tool", "tool_call_id", "content": "<text>"}`` (text only:
  an image becomes a line saying it was left out)
- OpenAI Responses: ``{"type": "function_call_output", "call_id", "output"}``: text, or a list of
  ``input_text`` and ``input_image`` parts when there are images
- Anthropic: ``{"type": "tool_result", "tool_use_id", "content": [text and image blocks], "is_error"}``
  (put the blocks of one turn in one ``{"role": "user", "content": [...]}`` message)
- Gemini: a part ``{"function_response": {"id"?, "name", "response": {"output": …} | {"error": …},
  "parts"?: [inline images]}}`` (camelCase when the call came in REST spelling)

Structured content travels as JSON text (Gemini: as the JSON object itself), once: a text block that
already says it (its JSON, or the string a tool returned) is not repeated, and structured content
that only wraps the content (``{"content": <the text>}``) is not sent at all. Every reply is plain
JSON-serialisable data (images base64).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcpnb.client.contents import pick
from mcpnb.client.results import ToolResult
from mcpnb.client.toolbox.calls import ToolCall

#: Image types Anthropic accepts in a tool result's image block.
ANTHROPIC_IMAGES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


@dataclass
class Payload:
    """What a result says, independent of any API: text pieces, images, structured data."""

    texts: list[str] = field(default_factory=list)
    images: list[tuple[str, str]] = field(default_factory=list)  # (mime type, base64 data)
    data: Any = None
    has_data: bool = False
    is_error: bool = False
    repeats: set[int] = field(default_factory=set)  # texts that only say ``data`` again

    def text(self, *, images_as_text: bool = False) -> str:
        parts = list(self.texts)
        if images_as_text:
            parts += [
                _image_note(mime, data, "this API takes no images in tool results")
                for mime, data in self.images
            ]
        return "\n\n".join(parts) or (
            "(the tool returned an image)" if self.images else "(the tool returned nothing)"
        )


def _size(data: str) -> int:
    return len(data) * 3 // 4


def _image_note(mime: str, data: str, why: str) -> str:
    return f"[image {mime}, {_size(data)} bytes: not shown, {why}]"


def payload(result: ToolResult) -> Payload:
    """The pieces of ``result`` a model can take: text blocks, images, the structured content."""
    out = Payload(is_error=result.is_error)
    add_blocks(out, result.content)
    if result.structured is not None and result.content_wrapper() is None:  # else it only says the content
        out.data, out.has_data = result.structured, True
        said = (result.structured, result.data)
        out.repeats = {i for i, text in enumerate(out.texts) if _repeats(text, said)}
        if not out.repeats:
            out.repeats.add(len(out.texts))
            out.texts.append(json.dumps(result.structured, ensure_ascii=False, default=str))
    return out


def add_blocks(out: Payload, content: Any) -> None:
    """Add what MCP content blocks (SDK objects or wire dicts) say to ``out``: a page's words for a
    model come as the same blocks as a result's."""
    for block in content:
        kind = pick(block, "type")
        if kind == "text":
            out.texts.append(str(pick(block, "text") or ""))
        elif kind == "image":
            out.images.append(
                (str(pick(block, "mime_type", "mimeType") or "image/png"), str(pick(block, "data")))
            )
        elif kind == "audio":
            mime, data = pick(block, "mime_type", "mimeType"), str(pick(block, "data") or "")
            out.texts.append(f"[audio {mime}, {_size(data)} bytes: not shown]")
        elif kind == "resource_link":
            what = pick(block, "title", "name") or ""
            about = pick(block, "description")
            out.texts.append(f"[resource link {what}: {pick(block, 'uri')}]" + (f" {about}" if about else ""))
        elif kind == "resource":
            resource = pick(block, "resource") or {}
            uri, mime = pick(resource, "uri"), pick(resource, "mime_type", "mimeType")
            text, blob = pick(resource, "text"), pick(resource, "blob")
            if text is not None:
                out.texts.append(f"[resource {uri}]\n{text}")
            elif blob is not None and str(mime or "").startswith("image/"):
                out.images.append((str(mime), str(blob)))
            else:
                out.texts.append(
                    f"[resource {uri}: {mime or 'binary'}, {_size(str(blob or ''))} bytes: not shown]"
                )
        else:
            out.texts.append(f"[{kind or 'unknown'} content: not shown]")


def _repeats(text: str, values: tuple[Any, ...]) -> bool:
    """Whether ``text`` already says one of ``values``: as JSON, or as the very string (a tool that
    returns ``"read z"`` sends it as text and as ``{"result": "read z"}``)."""
    try:
        said = json.loads(text)
    except (ValueError, TypeError):
        said = text
    return any(said == value for value in values)


def result_reply(call: ToolCall, result: ToolResult) -> dict[str, Any]:
    """The provider-shaped message carrying ``result`` back to the model that made ``call``."""
    return _reply(call, payload(result))


def error_reply(call: ToolCall, message: str) -> dict[str, Any]:
    """An error the model can read and act on (retry with other arguments, pick another tool)."""
    return _reply(call, Payload(texts=[message], is_error=True))


def _reply(call: ToolCall, body: Payload) -> dict[str, Any]:
    # the SDK's own "Error executing tool …" already says it: "Error: Error executing" read twice
    prefix = "Error: " if body.is_error and not body.text().lower().startswith("error") else ""
    if call.format == "openai":
        return {
            "role": "tool",
            "tool_call_id": call.id or "",
            "content": prefix + body.text(images_as_text=True),
        }
    if call.format == "openai-responses":
        output: Any = prefix + body.text()
        if body.images:
            output = [{"type": "input_text", "text": output}] + [
                {"type": "input_image", "image_url": f"data:{mime};base64,{data}"}
                for mime, data in body.images
            ]
        return {"type": "function_call_output", "call_id": call.id or "", "output": output}
    if call.format == "anthropic":
        return {
            "type": "tool_result",
            "tool_use_id": call.id or "",
            "content": anthropic_blocks(body),
            "is_error": body.is_error,
        }
    return _gemini(call, body)


def anthropic_blocks(body: Payload, empty: str = "(the tool returned nothing)") -> list[dict[str, Any]]:
    """Anthropic content blocks: the texts as one block, then the images Anthropic takes."""
    texts = list(body.texts)
    images = []
    for mime, data in body.images:
        if mime in ANTHROPIC_IMAGES:
            images.append({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
        else:
            texts.append(_image_note(mime, data, "Anthropic takes jpeg, png, gif and webp only"))
    text = "\n\n".join(t for t in texts if t)
    blocks = ([{"type": "text", "text": text}] if text else []) + images  # text blocks must not be empty
    return blocks or [{"type": "text", "text": empty}]


def _gemini(call: ToolCall, body: Payload) -> dict[str, Any]:
    if body.is_error:
        response: dict[str, Any] = {"error": body.text()}
    elif body.has_data:
        response = {"output": body.data}
        extra = [t for i, t in enumerate(body.texts) if i not in body.repeats]
        if extra:
            response["text"] = "\n\n".join(extra)
    else:
        response = {"output": body.text()}
    reply: dict[str, Any] = {"name": call.name, "response": response}
    if call.id:
        reply["id"] = call.id
    if body.images:
        inline, mime_key = ("inlineData", "mimeType") if call.camel else ("inline_data", "mime_type")
        reply["parts"] = [{inline: {mime_key: mime, "data": data}} for mime, data in body.images]
    return {("functionResponse" if call.camel else "function_response"): reply}
