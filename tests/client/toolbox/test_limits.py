"""What the APIs refuse a whole request for, kept out of what the toolbox hands them: a tool
description past OpenAI Chat Completions' 1024 characters, more tools than one request takes, an
image of a type (or a size) the API does not take; and a result too long for a model's context.
Real servers (the SDK's low-level ``Server``) in-process; replies checked with the SDKs' own types."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
from anthropic.types import ToolParam
from google.genai import types as genai
from mcp import types
from mcp.server import Server
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter
from shapes_server import PIXEL

from mcpnb.client.toolbox import SpecLimitWarning
from mcpnb.client.toolbox.replies import MAX_IMAGE_BYTES, MAX_TEXT_CHARS

from .conftest import exactly, gemini_exactly
from .test_dispatch import Api

EMPTY = {"type": "object", "properties": {}}


def server(tools: dict[str, str], results: dict[str, types.CallToolResult] | None = None) -> Server:
    """A low-level SDK server: tools by name → description, and what each answers."""
    results = results or {}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=d, input_schema=EMPTY) for n, d in tools.items()]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return results.get(params.name) or types.CallToolResult(
            content=[types.TextContent(type="text", text="ok")]
        )

    return Server("limits", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


# ---------------------------------------------------------------- descriptions
SENTENCE = "Runs a snippet of code against the page and returns what it printed. "
LONG = SENTENCE * 20  # 1380 characters, like Playwright MCP's browser_run_code


def test_a_description_past_1024_characters_is_shortened_for_chat_completions_and_said(pool):
    pool.connect("long", server=server({"run_code": LONG.strip(), "short": "Short."}))
    toolbox = pool.functions("long")
    with pytest.warns(SpecLimitWarning) as said:
        specs = toolbox.specs("openai")
    described = specs.spec("mcp__long__run_code")["function"]["description"]
    assert len(described) <= 1024 and described.endswith(". …")  # whole sentences, then the ellipsis
    assert LONG.startswith(described.removesuffix(" …"))
    assert specs.spec("mcp__long__short")["function"]["description"] == "Short."
    for spec in specs:
        exactly(TypeAdapter(ChatCompletionToolParam), spec)
    assert len(said) == 1 and "mcp__long__run_code: description shortened from 1379 to 1024" in str(
        said[0].message
    )
    assert specs.problems() == [
        "mcp__long__run_code: description shortened from 1379 to 1024 characters, the most OpenAI Chat "
        "Completions takes"
    ]
    assert "past the API's limits" in repr(specs).splitlines()[0] and "shortened" in repr(specs)
    from mcpnb.notebook.render.function_table import specs_bundle

    html = specs_bundle(specs)["text/html"]  # the notebook's table says it too, not only the repr
    assert "description shortened from 1379 to 1024 characters" in html and "mcpnb-warn" in html
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpecLimitWarning)  # the other APIs set no such limit
        responses = toolbox.specs("openai-responses")
        anthropic = toolbox.specs("anthropic")
        gemini = toolbox.specs("gemini")
    assert responses.spec("mcp__long__run_code")["description"] == LONG.strip()
    assert anthropic.spec("mcp__long__run_code")["description"] == LONG.strip()
    assert gemini.spec("mcp__long__run_code")["description"] == LONG.strip()


def test_a_description_without_sentences_is_cut_at_a_word():
    from mcpnb.client.toolbox.specs import shortened

    text = "word " * 400
    cut = shortened(text, 1024)
    assert len(cut) <= 1024 and cut.endswith("word…")


# ---------------------------------------------------------------- how many tools
def test_more_tools_than_one_request_takes_is_warned_once_with_the_way_out(pool):
    pool.connect("many", server=server({f"tool_{i}": f"Tool {i}." for i in range(130)}))
    toolbox = pool.functions("many")
    for fmt in ("openai", "openai-responses", "gemini"):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            specs = toolbox.specs(fmt)
        limits = [w for w in said if issubclass(w.category, SpecLimitWarning)]
        assert len(limits) == 1, [str(w.message) for w in said]
        text = str(limits[0].message)
        assert "130 tools" in text and "at most 128" in text, text
        assert "pool.functions('server', ...)" in text and "enabled_tools" in text
        assert len(specs) == 130  # nothing dropped unseen: the choice is the person's
        assert "130 tools" in repr(specs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpecLimitWarning)
        assert len(toolbox.specs("anthropic")) == 130  # Anthropic documents no such limit
    pool.connect("few", server=server({f"tool_{i}": "t" for i in range(128)}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpecLimitWarning)
        assert len(pool.functions("few").specs("openai")) == 128


# ---------------------------------------------------------------- images
def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


STILL_GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
ANIMATED_GIF = _b64(
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    b"!\xf9\x04\x00\x0a\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00"
    b"!\xf9\x04\x00\x0a\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02L\x01\x00;"
)
SVG = _b64(b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
IMAGES = {  # name → (mime type, data)
    "png": ("image/png", PIXEL),
    "gif": ("image/gif", STILL_GIF),
    "animated": ("image/gif", ANIMATED_GIF),
    "svg": ("image/svg+xml", SVG),
    "heic": ("image/heic", PIXEL),  # (the type is what is judged)
    "bmp": ("image/bmp", PIXEL),
}
TAKES = {  # what each API's reply carries as an image
    "openai-responses": {"png", "gif"},
    "anthropic": {"png", "gif", "animated"},
    "gemini": {"png", "heic"},
}


def _images(api: Api, reply: dict[str, Any]) -> list[str]:
    """The image data in a reply, in the API's own image shape."""
    if api.fmt == "openai-responses":
        out = reply["output"]
        return (
            [] if isinstance(out, str) else [p["image_url"].split(",", 1)[1] for p in out if "image_url" in p]
        )
    if api.fmt == "anthropic":
        return [b["source"]["data"] for b in reply["content"] if b["type"] == "image"]
    return [p["inline_data"]["data"] for p in reply["function_response"].get("parts") or []]


@pytest.mark.parametrize(
    "api", [Api("openai-responses"), Api("anthropic"), Api("gemini")], ids=lambda a: a.fmt
)
def test_each_api_gets_only_the_image_types_it_takes_and_a_line_for_the_rest(pool, api):
    results = {
        name: types.CallToolResult(
            content=[types.TextContent(type="text", text=f"a {name}"),
                     types.ImageContent(type="image", data=data, mime_type=mime)]
        )
        for name, (mime, data) in IMAGES.items()
    }  # fmt: skip
    pool.connect("pics", server=server({n: n for n in IMAGES}, results))
    toolbox = pool.functions("pics")
    for name, (mime, data) in IMAGES.items():
        reply = api.check(toolbox.run(api.call(f"mcp__pics__{name}", {})))
        if name in TAKES[api.fmt]:
            assert _images(api, reply) == [data], (name, reply)
        else:
            assert _images(api, reply) == [], (name, reply)
            assert f"[image {mime}, " in api.text(reply) and "not shown" in api.text(reply)
            assert f"a {name}" in api.text(reply)


def test_chat_completions_says_every_image_in_words(pool):
    pool.connect("pics", server=server({"svg": "svg"}, {"svg": types.CallToolResult(
        content=[types.ImageContent(type="image", data=SVG, mime_type="image/svg+xml")])}))  # fmt: skip
    reply = Api("openai").check(pool.functions("pics").run(Api("openai").call("mcp__pics__svg", {})))
    assert reply["content"].startswith("[image image/svg+xml, ")


# ---------------------------------------------------------------- sizes
BIG_PNG = _b64(b"\x89PNG\r\n\x1a\n" + bytes(6 * 1024 * 1024))  # 6 MB: past Anthropic's 5 MB


def test_an_image_past_the_api_s_size_limit_is_a_line_and_the_cap_can_be_set(pool):
    big = types.CallToolResult(
        content=[types.ImageContent(type="image", data=BIG_PNG, mime_type="image/png")]
    )
    pool.connect("big", server=server({"shot": "A screenshot."}, {"shot": big}))
    toolbox = pool.functions("big")
    anthropic = Api("anthropic").check(toolbox.run(Api("anthropic").call("mcp__big__shot", {})))
    assert _images(Api("anthropic"), anthropic) == []
    assert f"larger than the {MAX_IMAGE_BYTES['anthropic']} bytes Anthropic takes" in Api("anthropic").text(
        anthropic
    )
    responses = Api("openai-responses").check(toolbox.run(Api("openai-responses").call("mcp__big__shot", {})))
    assert _images(Api("openai-responses"), responses) == [BIG_PNG]  # OpenAI takes 20 MB
    toolbox.max_image_bytes = 1024 * 1024
    for api in (Api("openai-responses"), Api("gemini")):
        reply = api.check(toolbox.run(api.call("mcp__big__shot", {})))
        assert _images(api, reply) == [] and "larger than the 1048576 bytes" in api.text(reply)


LOG = "".join(f"line {i}: something happened\n" for i in range(120_000))  # ~3.3 MB


@pytest.mark.parametrize("api", [Api(f) for f in ("openai", "openai-responses", "anthropic", "gemini")],
                         ids=lambda a: a.fmt)  # fmt: skip
def test_a_long_text_result_is_cut_with_a_note_of_how_much_more(pool, api):
    long = types.CallToolResult(content=[types.TextContent(type="text", text=LOG)])
    pool.connect("log", server=server({"tail": "The log."}, {"tail": long}))
    toolbox = pool.functions("log")
    reply = api.check(toolbox.run(api.call("mcp__log__tail", {})))
    said = reply["function_response"]["response"]["output"] if api.fmt == "gemini" else api.text(reply)
    body, _, note = said.rpartition("\n\n")
    assert LOG.startswith(body) and len(body) <= MAX_TEXT_CHARS and body.endswith("happened")  # a line end
    more = len(LOG) - len(body)
    assert (
        note == f"[…cut: {more} characters more were not sent, past the {MAX_TEXT_CHARS} a reply may carry]"
    )
    assert len(json.dumps(reply)) < MAX_TEXT_CHARS * 2
    assert toolbox["mcp__log__tail"]().text == LOG  # the function itself gives it all
    toolbox.max_text_chars = None
    whole = api.check(toolbox.run(api.call("mcp__log__tail", {})))
    assert LOG.strip() in json.dumps(whole, ensure_ascii=False).replace("\\n", "\n")


def test_large_structured_content_goes_to_gemini_as_its_cut_json_text(pool):
    data = {"rows": [{"n": i, "text": "x" * 50} for i in range(5000)]}
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
    )
    pool.connect("db", server=server({"query": "Rows."}, {"query": result}))
    toolbox = pool.functions("db")
    reply = gemini_exactly(genai.Part, toolbox.run(Api("gemini").call("mcp__db__query", {})), camel=False)
    output = reply.function_response.response["output"]
    assert (
        isinstance(output, str)
        and "characters more were not sent, past the 100000 a reply may carry]" in output
    )
    assert len(output) < MAX_TEXT_CHARS + 200


def test_structured_content_under_the_cap_with_its_text_over_it_stays_within_the_cap_for_gemini(pool):
    """The data alone fits, a long note plus the text that says the data again does not: the reply
    is the cut text, never the whole data beside a cut text (up to twice the cap)."""
    data = {"rows": [{"n": i, "text": "x" * 50} for i in range(1200)]}  # ~80 000 characters of JSON
    said = json.dumps(data)
    assert len(said) < MAX_TEXT_CHARS < 2 * len(said)
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text=LOG[:60_000]),
            types.TextContent(type="text", text=said),
        ],
        structured_content=data,
    )
    pool.connect("db", server=server({"query": "Rows."}, {"query": result}))
    toolbox = pool.functions("db")
    reply = gemini_exactly(genai.Part, toolbox.run(Api("gemini").call("mcp__db__query", {})), camel=False)
    response = reply.function_response.response
    sent = sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in response.values())
    assert sent < MAX_TEXT_CHARS + 200, sent
    assert response["output"].endswith("characters more were not sent, past the 100000 a reply may carry]")


def test_specs_sdk_types_still_hold(pool):
    """(the shortened spec and the others, once more through each SDK's types)"""
    pool.connect("long", server=server({"run_code": LONG}))
    toolbox = pool.functions("long")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecLimitWarning)
        exactly(TypeAdapter(ChatCompletionToolParam), toolbox.specs("openai")[0])
    exactly(TypeAdapter(FunctionToolParam), toolbox.specs("openai-responses")[0])
    exactly(TypeAdapter(ToolParam), toolbox.specs("anthropic")[0])
    gemini_exactly(genai.FunctionDeclaration, toolbox.specs("gemini")[0])


@pytest.mark.parametrize(
    "api", [Api("openai-responses"), Api("anthropic"), Api("gemini")], ids=lambda a: a.fmt
)
def test_an_image_that_is_no_image_is_a_line_not_a_request_the_api_refuses(pool, api):
    """Bytes that are not the PNG they say, or no base64: sent on, the API refuses the whole request."""
    bad = {
        "html": ("image/png", _b64(b"<html>not a picture</html>"), "not a PNG image"),
        "garbled": ("image/png", "not base64 at all!", "its data is not valid base64"),
    }
    results = {
        name: types.CallToolResult(content=[types.ImageContent(type="image", data=data, mime_type=mime)])
        for name, (mime, data, _) in bad.items()
    }
    pool.connect("pics", server=server({n: n for n in bad}, results))
    toolbox = pool.functions("pics")
    for name, (_, _, why) in bad.items():
        reply = api.check(toolbox.run(api.call(f"mcp__pics__{name}", {})))
        assert _images(api, reply) == [], (name, reply)
        assert why in api.text(reply), api.text(reply)


def test_an_error_reply_keeps_the_toolbox_s_own_text_cap(pool):
    pool.connect("log", server=server({"tail": "The log."}, {}))
    toolbox = pool.functions("log")
    toolbox.max_text_chars = 40
    reply = toolbox.run(Api("openai").call("mcp__log__nope", {}))  # an unknown tool: an error reply
    said = reply["content"]
    assert "characters more were not sent, past the 40 a reply may carry]" in said, said


def test_a_still_gif_whose_image_data_holds_a_graphic_controls_bytes_is_still():
    """Counting ``21 f9 04`` anywhere took a still GIF for an animated one (LZW data may hold
    them), and OpenAI was sent a line of text instead of the picture."""
    from mcpnb.client.toolbox.replies import _animated

    data = b"\x21\xf9\x04\x00\x21\xf9\x04\x00NETSCAPE2.0"  # bytes inside one image's sub-block
    still = (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
        + b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02"
        + bytes([len(data)])
        + data
        + b"\x00;"
    )
    assert not _animated(_b64(still))
    assert _animated(ANIMATED_GIF) and not _animated(STILL_GIF)
