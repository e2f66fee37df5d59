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

What goes back is fitted to the API first (:func:`fitted`, one helper for every format): an image
of a type the API does not take, or larger than it takes, becomes a line of text saying so (the
API would refuse the whole request for it), and text past :data:`MAX_TEXT_CHARS` is cut with a note
of how much more there was (``Toolbox.max_text_chars`` and ``Toolbox.max_image_bytes`` change the
caps; the full result is what the tool function returns in the notebook).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from mcpnb.client.contents import blob_text, media_problem, pick
from mcpnb.client.results import ToolResult
from mcpnb.client.toolbox.calls import ToolCall

_OPENAI_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
#: Image types each API takes in what goes back to the model (an image of another type becomes a line
#: of text: the API refuses the whole request for it):
#: - OpenAI: PNG, JPEG, WEBP and non-animated GIF (guide "Images and vision", "Image input
#:   requirements"); an animated GIF is left out too (:func:`_animated`). Chat Completions takes no
#:   images in a tool message at all: there every image is a line of text.
#: - Anthropic: JPEG, PNG, GIF and WebP (docs "Vision": supported image formats).
#: - Gemini: PNG, JPEG, WEBP, HEIC and HEIF (Gemini API "Image understanding", and Vertex AI's
#:   table of the same name, "MIME types").
IMAGE_TYPES: dict[str, frozenset[str]] = {
    "openai": _OPENAI_IMAGES,
    "openai-responses": _OPENAI_IMAGES,
    "anthropic": frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    "gemini": frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}),
}
_MB = 1024 * 1024
#: The largest image (decoded bytes) each API takes; a larger one becomes a line of text:
#: - OpenAI: 20 MB per image (guide "Images and vision", "Image input requirements").
#: - Anthropic: 5 MB per image (docs "Vision"; the API says "image exceeds 5 MB maximum:
#:   N bytes > 5242880 bytes").
#: - Gemini: 7 MB per inline image (Vertex AI "Image understanding": "Maximum file size per file for
#:   inline data … 7 MB" for the Gemini 2.5 and 3 models; the Gemini API's own cap on a whole
#:   inline request is larger).
MAX_IMAGE_BYTES: dict[str, int] = {
    "openai": 20 * _MB,
    "openai-responses": 20 * _MB,
    "anthropic": 5 * _MB,
    "gemini": 7 * _MB,
}
#: The most characters of text one result sends back (about 25,000 tokens): a 3 MB log would fill a
#: model's context, or pass its request limit, for one call. ``None`` in ``Toolbox.max_text_chars``
#: sends everything.
MAX_TEXT_CHARS = 100_000


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
                image_note(mime, data, "this API takes no images in tool results")
                for mime, data in self.images
            ]
        return "\n\n".join(parts) or (
            "(the tool returned an image)" if self.images else "(the tool returned nothing)"
        )


def _size(data: str) -> int:
    return len(data) * 3 // 4


def image_note(mime: str, data: str, why: str) -> str:
    """An image left out, as the line the model reads in its place: a model told nothing would
    answer as though it had seen everything (a prompt's assistant turn says it too)."""
    return f"[image {mime}, {_size(data)} bytes: not shown, {why}]"


def _animated(data: str) -> bool:
    """Whether base64 GIF ``data`` has more than one frame, read block by block (counting the
    bytes of a graphic control anywhere took a still GIF's image data for a second frame): OpenAI
    takes non-animated GIFs only."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return False
    return _gif_frames(raw) > 1


def _gif_frames(raw: bytes) -> int:
    """How many images a GIF's blocks hold (what cannot be read ends the count where it stands)."""
    if len(raw) < 13 or raw[:3] != b"GIF":
        return 0
    at = 13 + (3 * 2 ** ((raw[10] & 7) + 1) if raw[10] & 0x80 else 0)  # header, screen, its colours
    frames = 0
    while at < len(raw):
        kind = raw[at]
        if kind == 0x3B:  # the trailer
            break
        if kind == 0x2C:  # an image: its descriptor, its own colours, the LZW size, then sub-blocks
            frames += 1
            if at + 10 > len(raw):
                break
            flags = raw[at + 9]
            at += 10 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0) + 1
        elif kind == 0x21:  # an extension: its label, then sub-blocks
            at += 2
        else:
            break
        while at < len(raw) and raw[at]:  # sub-blocks, each led by its length, to a zero
            at += raw[at] + 1
        at += 1
    return frames


def fitted(
    body: Payload,
    fmt: str,
    *,
    max_text_chars: int | None = MAX_TEXT_CHARS,
    max_image_bytes: int | None = None,
) -> Payload:
    """``body`` as ``fmt``'s API takes it: images of a type it does not take, or larger than it
    takes (``max_image_bytes``, else :data:`MAX_IMAGE_BYTES` for the API), as lines of text saying
    so; then the text cut to ``max_text_chars`` (``None``: no cap) with a note of what is left out."""
    kinds = IMAGE_TYPES.get(fmt, frozenset())
    limit = max_image_bytes if max_image_bytes is not None else MAX_IMAGE_BYTES.get(fmt)
    api = _API_NAMES.get(fmt, fmt)
    images, notes = [], []
    for mime, data in body.images:
        unreadable = media_problem("image", data, mime)
        if unreadable is not None:  # an API refuses the whole request for one such image
            notes.append(image_note(mime, data, unreadable))
        elif mime not in kinds:
            notes.append(image_note(mime, data, f"{api} takes {_listed(kinds)} only"))
        elif limit is not None and _size(data) > limit:
            notes.append(image_note(mime, data, f"larger than the {limit} bytes {api} takes"))
        elif mime == "image/gif" and fmt in ("openai", "openai-responses") and _animated(data):
            notes.append(image_note(mime, data, f"{api} takes no animated GIFs"))
        else:
            images.append((mime, data))
    out = replace(body, texts=[*body.texts, *notes], images=images, repeats=set(body.repeats))
    return _cut(out, max_text_chars) if max_text_chars is not None else out


_API_NAMES = {"openai": "OpenAI", "openai-responses": "OpenAI", "anthropic": "Anthropic", "gemini": "Gemini"}


def _listed(kinds: frozenset[str]) -> str:
    names = [k.removeprefix("image/") for k in sorted(kinds)]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def _cut(body: Payload, limit: int) -> Payload:
    """``body`` with at most ``limit`` characters of text: the piece that crosses it cut at a line
    or word end, the pieces after it left out, and a note saying how many characters more there
    were. Structured data goes as its (cut) JSON text instead when it, or the texts with it, pass the
    limit: the whole data beside a cut text (Gemini's reply) would carry up to twice the limit."""
    total = sum(len(t) for t in body.texts)
    if body.has_data and body.repeats and (total > limit or _json_size(body.data) > limit):
        body = replace(body, data=None, has_data=False)  # its JSON is among the texts: cut there
    if total <= limit:
        return body
    kept: list[str] = []
    room = limit
    for text in body.texts:
        if room <= 0:
            break
        piece = text if len(text) <= room else _at_boundary(text, room)
        kept.append(piece)
        room -= len(piece)
    more = total - sum(len(t) for t in kept)
    # true for the model whoever called: a model's call keeps no copy anywhere a person would look
    kept.append(f"[…cut: {more} characters more were not sent, past the {limit} a reply may carry]")
    repeats = {i for i in body.repeats if i < len(kept) - 1 and kept[i] == body.texts[i]}
    return replace(body, texts=kept, repeats=repeats if body.has_data else set())


def _at_boundary(text: str, room: int) -> str:
    """The start of ``text``, at most ``room`` characters, ending at a line or word end when one is
    in its last fifth (a cut through the middle of a word reads as a typo)."""
    head = text[:room]
    for sep in ("\n", " "):
        at = head.rfind(sep)
        if at >= room * 4 // 5:
            return head[:at]
    return head


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


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
            if text is None:  # a text file a server sent as base64 (server-everything does): its text
                text = blob_text(blob, mime)
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


def result_reply(
    call: ToolCall,
    result: ToolResult,
    *,
    max_text_chars: int | None = MAX_TEXT_CHARS,
    max_image_bytes: int | None = None,
) -> dict[str, Any]:
    """The provider-shaped message carrying ``result`` back to the model that made ``call``, fitted
    to its API (:func:`fitted`)."""
    body = fitted(
        payload(result), call.format, max_text_chars=max_text_chars, max_image_bytes=max_image_bytes
    )
    return _reply(call, body)


def error_reply(
    call: ToolCall, message: str, *, max_text_chars: int | None = MAX_TEXT_CHARS
) -> dict[str, Any]:
    """An error the model can read and act on (retry with other arguments, pick another tool)."""
    return _reply(
        call, fitted(Payload(texts=[message], is_error=True), call.format, max_text_chars=max_text_chars)
    )


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
    """Anthropic content blocks: the texts as one block, then the images (``body`` already
    :func:`fitted` to Anthropic)."""
    images = [
        {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
        for mime, data in body.images
    ]
    text = "\n\n".join(t for t in body.texts if t)
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
