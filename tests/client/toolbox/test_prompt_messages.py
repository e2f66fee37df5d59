"""An MCP prompt handed to a model: ``pool.prompt(...).for_model(fmt)`` is the messages list each
API takes, checked against each SDK's own types and through each SDK's own request building (an
in-memory transport: nothing leaves the process), from real servers' prompts: probe-kit's prompt
with an image, server-everything's embedded resources (text, and text sent as a base64 blob), and
a FastMCP conversation with assistant turns, audio and what some APIs cannot take."""

from __future__ import annotations

import base64
import json
from typing import Any

import fastmcp
import httpx
import pytest
from anthropic.types import AssistantMessageParam, MessageParam, UserMessageParam
from fastmcp.prompts import Message
from google.genai import types as genai
from mcp.types import AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, ResourceLink
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageParam,
    ChatCompletionUserMessageParam,
)
from openai.types.responses import EasyInputMessageParam, ResponseInputParam
from pydantic import TypeAdapter

from mcpnb.client.toolbox import FORMATS

from .conftest import exactly, gemini_exactly

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
HEIC = base64.b64encode(b"\x00\x00\x00\x18ftypheic" + bytes(20)).decode()  # Gemini takes HEIC, no one else
WAV = base64.b64encode(b"RIFF\x04\x00\x00\x00WAVE").decode()
LISTS = {
    "openai": TypeAdapter(list[ChatCompletionMessageParam]),
    "openai-responses": TypeAdapter(ResponseInputParam),
    "anthropic": TypeAdapter(list[MessageParam]),
    "gemini": TypeAdapter(list[genai.Content]),
}


def valid(fmt: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each message validates as the SDK's type for its role, nothing dropped or coerced; the whole
    list as the parameter the SDK takes."""
    for message in messages:
        if fmt == "openai":
            kind = ChatCompletionUserMessageParam
            if message["role"] == "assistant":
                kind = ChatCompletionAssistantMessageParam
            exactly(TypeAdapter(kind), message)
        elif fmt == "openai-responses":
            exactly(TypeAdapter(EasyInputMessageParam), message)
        elif fmt == "anthropic":  # by role: a union's round trip loses an assistant's blocks
            kind = AssistantMessageParam if message["role"] == "assistant" else UserMessageParam
            exactly(TypeAdapter(kind), message)
        else:
            gemini_exactly(genai.Content, message, camel=False)
    LISTS[fmt].validate_python(list(messages))
    return messages


def parts(message: dict[str, Any]) -> list[Any]:
    found = message.get("content", message.get("parts"))
    return found if isinstance(found, list) else [found]


def text_of(message: dict[str, Any]) -> str:
    return "\n\n".join(p if isinstance(p, str) else p["text"] for p in parts(message) if _is_text(p))


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or "text" in part


def images_of(fmt: str, message: dict[str, Any]) -> list[tuple[str, str]]:
    """(media type, base64 data) of each image part, read the way ``fmt``'s API reads it."""
    found = []
    for part in parts(message):
        if isinstance(part, str) or _is_text(part):
            continue
        if fmt == "anthropic":
            assert part["type"] == "image" and part["source"]["type"] == "base64"
            found.append((part["source"]["media_type"], part["source"]["data"]))
        elif fmt == "gemini":
            found.append((part["inline_data"]["mime_type"], part["inline_data"]["data"]))
        else:
            url = part["image_url"]["url"] if fmt == "openai" else part["image_url"]
            assert part["type"] == ("image_url" if fmt == "openai" else "input_image")
            head, data = url.split(";base64,")
            found.append((head.removeprefix("data:"), data))
    return found


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_prompts_image_reaches_each_api_in_its_image_part(peers: Any, fmt: str) -> None:
    said = peers.prompt("probe", "test_prompt_with_image")
    sent = said[0].content
    assert sent.type == "image" and sent.data and sent.mime_type == "image/png"

    messages = valid(fmt, said.for_model(fmt))
    assert [m["role"] for m in messages] == ["user", "user"]
    assert images_of(fmt, messages[0]) == [("image/png", sent.data)]
    assert text_of(messages[0]) == ""  # the image alone, not a line about it
    assert text_of(messages[1]) == "Please analyze the image above."


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["Text", "Blob"])
def test_an_embedded_resource_goes_as_its_text(peers: Any, fmt: str, kind: str) -> None:
    said = peers.prompt("everything", "resource-prompt", {"resourceType": kind, "resourceId": "3"})
    resource = said[1].content.resource
    if kind == "Blob":  # server-everything base64s a text/plain resource: the model reads its text
        assert resource.mime_type == "text/plain" and getattr(resource, "text", None) is None
        text = base64.b64decode(resource.blob).decode()
    else:
        text = resource.text
    assert text.startswith("Resource 3: This is a")
    assert text in said.text  # the notebook's own text of the prompt too (a blob's was left out)

    messages = valid(fmt, said.for_model(fmt))
    assert [m["role"] for m in messages] == ["user", "user"]
    assert text_of(messages[0]) == said[0].content.text
    assert text_of(messages[1]) == f"[resource demo://resource/dynamic/{kind.lower()}/3]\n{text}"


def conversation() -> Any:
    srv = fastmcp.FastMCP("talk")

    @srv.prompt
    def chat(topic: str) -> list[Message]:
        """A conversation with everything in it."""
        return [
            Message(f"Tell me about {topic}."),
            Message("Here is a chart.", role="assistant"),
            Message(ImageContent(type="image", data=PNG, mimeType="image/png"), role="assistant"),
            Message(ImageContent(type="image", data=HEIC, mimeType="image/heic")),
            Message(AudioContent(type="audio", data=WAV, mimeType="audio/wav")),
            Message(""),  # nothing in it: left out (Anthropic refuses an empty text block)
            Message(
                EmbeddedResource(
                    type="resource",
                    resource=BlobResourceContents(
                        uri="file:///x.bin", mimeType="application/octet-stream", blob="AAEC"
                    ),
                )
            ),
            Message(ResourceLink(type="resource_link", uri="file:///notes.md", name="notes")),
        ]

    return srv


@pytest.mark.parametrize("fmt", FORMATS)
def test_assistant_turns_and_what_an_api_cannot_take(pool: Any, fmt: str) -> None:
    pool.connect("fm", server=conversation())
    said = pool.prompt("fm", "chat", {"topic": "tides"})
    assert [m.role for m in said] == [
        "user",
        "assistant",
        "assistant",
        "user",
        "user",
        "user",
        "user",
        "user",
    ]

    messages = valid(fmt, said.for_model(fmt))
    assistant = "model" if fmt == "gemini" else "assistant"
    assert [m["role"] for m in messages] == ["user", assistant, assistant, "user", "user", "user", "user"]
    assert text_of(messages[0]) == "Tell me about tides."
    assert text_of(messages[1]) == "Here is a chart."
    if fmt == "gemini":  # a model turn holds images (Gemini's image models send them so)
        assert images_of(fmt, messages[2]) == [("image/png", PNG)]
        assert images_of(fmt, messages[3]) == [("image/heic", HEIC)]
    else:  # said where it was, never dropped in silence and never sent where the API refuses it
        assert text_of(messages[2]).startswith("[image image/png, ")
        assert text_of(messages[2]).endswith("not shown, an assistant's message carries text only here]")
        assert images_of(fmt, messages[3]) == []
        assert "takes gif, jpeg, png and webp only]" in text_of(messages[3])
        assert PNG not in json.dumps(messages) and HEIC not in json.dumps(messages)
    assert text_of(messages[4]).startswith("[audio audio/wav, ")
    assert text_of(messages[5]).startswith("[resource file:///x.bin: application/octet-stream, ")
    assert text_of(messages[6]) == "[resource link notes: file:///notes.md]"


def _answer(request: Any, seen: list[dict[str, Any]], http: Any = httpx) -> Any:
    """What each API answers, at its smallest; the request body the SDK built is kept."""
    seen.append(json.loads(request.content))
    path = request.url.path
    if path.endswith("/chat/completions"):
        body: dict[str, Any] = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
        }
    elif path.endswith("/responses"):
        body = {
            "id": "r",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "output": [],
            "status": "completed",
        }
    elif path.endswith("/messages"):
        body = {
            "id": "msg",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    else:
        body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}}]}
    return http.Response(200, json=body)


@pytest.mark.filterwarnings("error")  # google-genai read an attribute of the list as a File's, warning
def test_each_sdk_sends_the_list_as_its_messages(peers: Any) -> None:
    """The list goes to each SDK's own call as it is: the request it builds (kept in memory, nothing
    leaves the process) carries the image where the API reads it."""
    import anthropic
    import openai
    from google import genai as google_genai

    said = peers.prompt("probe", "test_prompt_with_image")
    data = said[0].content.data
    seen: list[dict[str, Any]] = []
    http = httpx.Client(transport=httpx.MockTransport(lambda request: _answer(request, seen)))
    local = "http://127.0.0.1:9/v1"

    chat = openai.OpenAI(api_key="k", base_url=local, http_client=http)
    chat.chat.completions.create(model="m", messages=said.for_model("openai"))
    assert seen[-1]["messages"][0]["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}
    ]
    chat.responses.create(model="m", input=said.for_model("openai-responses"))
    assert seen[-1]["input"][0]["content"][0]["image_url"] == f"data:image/png;base64,{data}"

    import httpx2  # the Anthropic SDK's HTTP client, a fork of httpx's

    http2 = httpx2.Client(transport=httpx2.MockTransport(lambda request: _answer(request, seen, httpx2)))
    claude = anthropic.Anthropic(api_key="k", base_url=local, http_client=http2)
    claude.messages.create(model="m", max_tokens=16, messages=said.for_model("anthropic"))
    assert seen[-1]["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Please analyze the image above."}]},
    ]

    options = genai.HttpOptions(base_url="http://127.0.0.1:9/", httpx_client=http)
    gemini = google_genai.Client(api_key="k", http_options=options)
    gemini.models.generate_content(model="m", contents=said.for_model("gemini"))
    first, second = seen[-1]["contents"]
    inline = first["parts"][0]["inlineData"]  # the SDK keeps a dict's inner key as written: both
    assert (inline["data"], inline.get("mimeType", inline.get("mime_type"))) == (data, "image/png")
    assert second == {"role": "user", "parts": [{"text": "Please analyze the image above."}]}
    assert len(seen) == 4


def test_the_notebook_shows_a_line_per_message_without_the_base64(pool: Any) -> None:
    from IPython.core.formatters import PlainTextFormatter

    pool.connect("fm", server=conversation())
    messages = pool.prompt("fm", "chat", {"topic": "tides"}).for_model("gemini")
    shown = PlainTextFormatter()(messages)  # what a cell's value shows as text
    assert shown == repr(messages)
    assert shown.splitlines() == [
        "<7 gemini messages from fm.chat>",
        "[user] Tell me about tides.",
        "[model] Here is a chart.",
        "[model] [image image/png, 70 B]",
        f"[user] [image image/heic, {len(base64.b64decode(HEIC))} B]",
        "[user] [audio audio/wav, 12 bytes: not shown]",
        "[user] [resource file:///x.bin: application/octet-stream, 3 bytes: not shown]",
        "[user] [resource link notes: file:///notes.md]",
    ]
    assert PNG not in shown
    assert json.loads(json.dumps(messages)) == list(messages)  # plain JSON, as an SDK sends it


def test_an_unknown_format_is_named_with_the_right_one(peers: Any) -> None:
    said = peers.prompt("everything", "simple-prompt")
    with pytest.raises(ValueError, match=r"unknown format 'responses'; did you mean 'openai-responses'\?"):
        said.for_model("responses")
    assert said.for_model("openai") == [
        {"role": "user", "content": [{"type": "text", "text": "This is a simple prompt without arguments."}]}
    ]
