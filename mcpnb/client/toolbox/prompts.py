"""An MCP prompt's messages as the messages list each LLM API takes: ``prompt.for_model(fmt)``.

A prompt (``prompts/get``) is the start of a conversation, user and assistant messages of one
content block each; with no agent framework in between, handing it to a model meant writing each
API's message dicts by hand, and images and embedded resources are where those go wrong. Each
message here becomes one message of ``fmt`` (the toolbox's names for the APIs), its block said as
a tool result's is (:func:`~mcpnb.client.toolbox.replies.add_blocks`, :func:`~.replies.fitted`,
one conversion for both), a user message in the same shape as ``tools.from_pages(fmt)``'s:

- ``"openai"``, Chat Completions ``messages``: a user's ``text`` and ``image_url`` parts; an
  assistant's content is text (Chat Completions takes no image from an assistant).
- ``"openai-responses"``, Responses ``input``: a user's ``input_text`` and ``input_image`` parts;
  an assistant's content is text (the API takes no input parts in an assistant's message).
- ``"anthropic"``, Messages ``messages``: text and image blocks from the user, text from the
  assistant. MCP prompts have no system role, so nothing goes to ``system``.
- ``"gemini"``, ``contents``: roles ``user`` and ``model``, ``text`` and ``inline_data`` parts (a
  model turn may hold images: Gemini's own image models send them so).

What the API cannot take becomes a line of text where it was (an image in an assistant's message,
one of a type or size the API refuses, audio, a binary resource), so the model knows something was
there; a text resource sent as a base64 blob goes as its text. No text is cut: a prompt is what the
person chose to send. A message with nothing in it (an empty text, which Anthropic refuses) is
left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from mcpnb.client.contents import b64_size, media_label, pick
from mcpnb.client.printable import printable
from mcpnb.client.toolbox.pages import user_turn
from mcpnb.client.toolbox.replies import Payload, add_blocks, anthropic_blocks, fitted, image_note
from mcpnb.client.toolbox.specs import check_format

#: How much of each message the repr shows: the list itself carries every image's base64.
_SHOWN_CHARS = 100
_SHOWN_MESSAGES = 20


class ModelMessages(list[dict[str, Any]]):
    """The messages list an API takes, JSON-ready dicts an SDK takes as they are (add your own
    turns to it as to any list). Its repr is a line per message: the list itself would print every
    image's base64 into the notebook. It has no public attributes: an SDK that reads a value's
    attributes to tell what it is (google-genai tries its ``File`` type on ``contents``, and read a
    ``source`` attribute as a file's) must see a plain list."""

    def __init__(self, fmt: str, messages: Iterable[dict[str, Any]] = (), source: str = "") -> None:
        super().__init__(messages)
        self._format, self._source = fmt, source

    def __repr__(self) -> str:
        count = f"{len(self)} {self._format} message" + ("" if len(self) == 1 else "s")
        lines = [f"<{count}" + (f" from {self._source}>" if self._source else ">")]
        for message in self[:_SHOWN_MESSAGES]:
            role = message.get("role", "?") if isinstance(message, dict) else "?"
            lines.append(f"[{role}] " + " ".join(_said(part) for part in _parts(message)))
        if len(self) > _SHOWN_MESSAGES:
            lines.append(f"… {len(self) - _SHOWN_MESSAGES} more")
        return printable("\n".join(lines))


def model_messages(messages: Iterable[Any], fmt: str, *, source: str = "") -> ModelMessages:
    """``messages`` (MCP ``PromptMessage``s, SDK objects or wire dicts) as ``fmt``'s API takes them."""
    check_format(fmt)
    out = ModelMessages(fmt, source=source)
    for message in messages:
        body = Payload()
        add_blocks(body, _blocks(pick(message, "content")))
        body.texts = [text for text in body.texts if text]  # an empty text block: Anthropic refuses it
        if not body.texts and not body.images:
            continue
        if pick(message, "role") == "assistant":
            out.append(_assistant(body, fmt))
        else:
            out.append(user_turn(body, fmt, max_text_chars=None))
    return out


def _assistant(body: Payload, fmt: str) -> dict[str, Any]:
    """An assistant's message: text (and, for Gemini, images) of what the prompt's assistant said."""
    if fmt == "gemini":
        return {**user_turn(body, fmt, max_text_chars=None), "role": "model"}
    body = fitted(body, fmt, max_text_chars=None)
    why = "an assistant's message carries text only here"
    body = replace(body, texts=body.texts + [image_note(m, d, why) for m, d in body.images], images=[])
    if fmt == "anthropic":
        return {"role": "assistant", "content": anthropic_blocks(body)}
    return {"role": "assistant", "content": "\n\n".join(body.texts)}


def _blocks(content: Any) -> list[Any]:
    """A message's content as a list of blocks (MCP gives one block; a list is read as well)."""
    if content is None:
        return []
    return list(content) if isinstance(content, list) else [content]


def _parts(message: Any) -> list[Any]:
    """A message's parts in any of the four shapes: ``content`` (text or a list) or ``parts``."""
    if not isinstance(message, dict):
        return [message]
    content = message.get("content", message.get("parts"))
    return content if isinstance(content, list) else [content]


def _said(part: Any) -> str:
    """One part in a few words: its text's start, or an image's type and size."""
    if isinstance(part, dict) and isinstance(part.get("text"), str):
        part = part["text"]
    if isinstance(part, str):
        text = " ".join(part.split())
        return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"
    if not isinstance(part, dict):
        return f"[{type(part).__name__}]"
    mime, data = _image(part)
    if data is not None:
        return f"[{media_label('image', str(mime), b64_size(data))}]"
    return f"[{part.get('type', 'part')}]"


def _image(part: dict[str, Any]) -> tuple[str | None, str | None]:
    """An image part's type and base64 data, in whichever API's shape it is (or ``(None, None)``)."""
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url  # Chat Completions nests it
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        head, data = url.split(";base64,", 1)
        return head.removeprefix("data:"), data
    for key, mime_key in (("source", "media_type"), ("inline_data", "mime_type"), ("inlineData", "mimeType")):
        inner = part.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("data"), str):
            return inner.get(mime_key), inner["data"]
    return None, None
