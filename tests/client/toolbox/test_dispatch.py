"""Running a model's tool calls: the real SDK objects of each API go in, that API's result message
comes out (checked with its SDK types), and every kind of bad input becomes an error result the model
can read, unless ``raise_errors=True``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from anthropic.types import ToolResultBlockParam, ToolUseBlock
from google.genai import types as genai
from mcp import types as mcp_types
from openai.types.chat import ChatCompletionMessageFunctionToolCall, ChatCompletionToolMessageParam
from openai.types.responses import ResponseFunctionToolCall
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter
from shapes_server import PIXEL

from mcpnb.client.errors import ArgumentsError, ToolNotFoundError
from mcpnb.client.toolbox import ToolFailedError

from .conftest import exactly, gemini_exactly


@dataclass
class Api:
    """How one API's SDK spells a tool call, and how to read the reply it gets back."""

    fmt: str

    def call(self, name: str, arguments: Any, id: str = "call_1") -> Any:
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        if self.fmt == "openai":
            return ChatCompletionMessageFunctionToolCall(
                id=id, type="function", function={"name": name, "arguments": raw}
            )
        if self.fmt == "openai-responses":
            return ResponseFunctionToolCall(type="function_call", call_id=id, name=name, arguments=raw)
        if self.fmt == "anthropic":
            return ToolUseBlock(type="tool_use", id=id, name=name, input=arguments)
        return genai.Part(function_call=genai.FunctionCall(id=id, name=name, args=arguments))

    def check(self, reply: dict[str, Any]) -> dict[str, Any]:
        """The reply validates against the SDK's own type, with nothing dropped on the way."""
        if self.fmt == "openai":
            exactly(TypeAdapter(ChatCompletionToolMessageParam), reply)
        elif self.fmt == "openai-responses":
            exactly(TypeAdapter(FunctionCallOutput), reply)
        elif self.fmt == "anthropic":
            exactly(TypeAdapter(ToolResultBlockParam), reply)
        else:
            gemini_exactly(genai.Part, reply, camel=False)
        return reply

    def text(self, reply: dict[str, Any]) -> str:
        if self.fmt == "openai":
            return reply["content"]
        if self.fmt == "openai-responses":
            out = reply["output"]
            return out if isinstance(out, str) else " ".join(p.get("text", "") for p in out)
        if self.fmt == "anthropic":
            return " ".join(b.get("text", "") for b in reply["content"])
        return json.dumps(reply["function_response"]["response"])

    def failed(self, reply: dict[str, Any]) -> bool:
        if self.fmt == "anthropic":
            return reply["is_error"]
        if self.fmt == "gemini":
            return "error" in reply["function_response"]["response"]
        return self.text(reply).startswith("Error")

    def name(self, toolbox: Any, flat: str) -> str:
        """What the model calls ``flat`` (its name in this API's specs)."""
        return next(n for n, e in toolbox.entries(self.fmt).items() if e.function.flat_name == flat)


APIS = [Api("openai"), Api("openai-responses"), Api("anthropic"), Api("gemini")]
IDS = [a.fmt for a in APIS]


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_call_runs_and_answers_in_the_api_s_shape(toolbox, api):
    reply = api.check(toolbox.run(api.call("mcp__time__convert_time", {
        "source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Asia/Tokyo",
    }, id="call_42")))  # fmt: skip
    assert not api.failed(reply) and "+8.0h" in api.text(reply)
    quoted = {"openai": "tool_call_id", "openai-responses": "call_id", "anthropic": "tool_use_id"}
    if api.fmt in quoted:
        assert reply[quoted[api.fmt]] == "call_42"
    else:
        assert reply["function_response"]["id"] == "call_42"
        assert reply["function_response"]["name"] == "mcp__time__convert_time"
        assert reply["function_response"]["response"]["output"]["time_difference"] == "+8.0h"  # JSON itself


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_structured_content_travels_once_as_json(toolbox, api):
    reply = api.check(toolbox.run(api.call("mcp__probe__estimate", {"task": "login page", "files": 3})))
    text = api.text(reply)
    assert '"expected"' in text and text.count('"expected"') == 1
    assert "2 points" in text or (
        api.fmt == "gemini" and "2 points" in reply["function_response"]["response"]["text"]
    )


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_returned_string_or_number_travels_once(pool, api):
    """The SDK's MCPServer sends a tool's plain return value twice: as text ("read z") and as
    ``{"result": "read z"}``. The model reads it once."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("plain", log_level="WARNING")

    @server.tool()
    def read(path: str) -> str:
        return f"read {path}"

    @server.tool()
    def count() -> int:
        return 42

    pool.connect("plain", server=server)
    toolbox = pool.functions("plain")
    said = api.text(api.check(toolbox.run(api.call("mcp__plain__read", {"path": "z"}))))
    number = api.text(api.check(toolbox.run(api.call("mcp__plain__count", {}))))
    assert said.count("read z") == 1 and number.count("42") == 1
    if api.fmt != "gemini":  # (Gemini gets the JSON object itself)
        assert (said, number) == ("read z", "42")


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_text_file_sent_as_base64_reaches_the_model_as_its_text(pool, api):
    """A tool that embeds a text file as a base64 blob (server-everything does, for its
    ``resource-prompt``'s Blob): the model read "[resource …: text/plain, N bytes: not shown]"."""
    import base64

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("files", log_level="WARNING")

    @server.tool()
    def notes() -> list[mcp_types.EmbeddedResource]:
        blob = base64.b64encode(b"Meeting moved to Tuesday.").decode()
        contents = mcp_types.BlobResourceContents(uri="file:///notes.txt", mime_type="text/plain", blob=blob)
        return [mcp_types.EmbeddedResource(type="resource", resource=contents)]

    pool.connect("files", server=server)
    said = api.text(api.check(pool.functions("files").run(api.call("mcp__files__notes", {}))))
    assert "Meeting moved to Tuesday." in said and "not shown" not in said


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_structured_content_that_only_wraps_the_content_is_not_sent_again(pool, api, tmp_path):
    """server-filesystem answers a file's text, and ``{"content": <that text>}``; an image, and
    ``{"content": [<that image block>]}``: the model got the file twice, the image also as base64 text."""
    import base64

    from conftest import reference_server

    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    (tmp_path / "dot.png").write_bytes(base64.b64decode(PIXEL))
    pool.connect("fs", command="node", args=[reference_server("server-filesystem"), str(tmp_path)])
    toolbox = pool.functions("fs")
    text = api.check(toolbox.run(api.call("mcp__fs__read_text_file", {"path": str(tmp_path / "notes.txt")})))
    assert api.text(text).count("second line") == 1
    image = api.check(toolbox.run(api.call("mcp__fs__read_media_file", {"path": str(tmp_path / "dot.png")})))
    assert PIXEL not in api.text(image)  # the image itself travels as the API's image, where it has one
    assert PIXEL in json.dumps(image) or api.fmt == "openai"  # (Chat Completions takes no images)


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_renamed_keys_reach_the_server_under_their_own_names(toolbox, api):
    entry = toolbox.entries(api.fmt)["mcp__shapes__book_trip"]
    wire = {v: k for k, v in entry.keys.items()}  # server key -> what the model sees
    args = {"traveller": {"name": "Ada"}, "origin": {"city": "Lyon"}}
    args[wire.get("filter[id]", "filter[id]")] = "abc"
    args[wire.get("max-stops", "max-stops")] = 2
    reply = api.check(toolbox.run(api.call("mcp__shapes__book_trip", args)))
    sent = json.loads(api.text(reply))
    sent = sent.get("output", sent)
    wanted = {"traveller": {"name": "Ada"}, "origin": {"city": "Lyon"}, "filter[id]": "abc", "max-stops": 2}
    assert sent["arguments"] == wanted


def test_a_strict_model_s_nulls_are_dropped_so_defaults_apply(toolbox):
    api = Api("openai")
    args = {
        "traveller": {"name": "Ada", "age": None, "tags": None},
        "origin": {"city": "Lyon", "country": None},
        "stops": None,
        "class": None,
        "seat": None,
        "budget": None,
        "notes": None,
        "max-stops": None,
        "filter[id]": None,
    }  # fmt: skip  (what a strict model sends when it leaves things out)
    reply = api.check(toolbox.run(api.call("mcp__shapes__book_trip", args)))
    assert json.loads(reply["content"])["arguments"] == {
        "traveller": {"name": "Ada", "age": None},  # age takes null: kept
        "origin": {"city": "Lyon"},
        "seat": None,  # the enum lists null: kept
        "notes": None,  # anyOf [string, null]: kept
    }


# ---------------------------------------------------------------- every bad input: an error result
@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_an_unknown_tool_is_an_error_result_with_a_suggestion(toolbox, api):
    reply = api.check(toolbox.run(api.call("mcp__probe__ui_serch", {"query": "login"})))
    assert api.failed(reply)
    assert "no tool 'mcp__probe__ui_serch'; did you mean 'mcp__probe__ui_search'?" in api.text(reply)
    with pytest.raises(ToolNotFoundError):
        toolbox.run(api.call("mcp__probe__ui_serch", {"query": "login"}), raise_errors=True)


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_arguments_the_schema_refuses_are_an_error_result_and_nothing_is_sent(toolbox, api):
    reply = api.check(toolbox.run(api.call(api.name(toolbox, "mcp__shapes__book_trip"), {"traveller": {}})))
    text = api.text(reply)
    assert api.failed(reply) and "nothing was sent" in text
    assert "missing required argument 'origin'" in text or "'origin' is a required property" in text
    with pytest.raises(ArgumentsError):
        toolbox.run(api.call("mcp__shapes__book_trip", {"traveller": {}}), raise_errors=True)


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_root_anyof_said_in_words_is_still_enforced_before_sending(pool, api):
    """The specs say a root ``anyOf`` in the description (no API takes it at the top level); the
    check against the server's own schema still refuses a call that gives neither, and sends nothing."""
    from shapes_server import create_server

    either = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    }
    pool.connect("odd", server=create_server({"either": either}))
    toolbox = pool.functions("odd")
    reply = api.check(toolbox.run(api.call("mcp__odd__either", {})))
    assert api.failed(reply) and "nothing was sent" in api.text(reply)
    with pytest.raises(ArgumentsError):
        toolbox.run(api.call("mcp__odd__either", {}), raise_errors=True)
    good = api.check(toolbox.run(api.call("mcp__odd__either", {"b": "x"})))
    assert not api.failed(good) and '"arguments": {"b": "x"}' in api.text(good)


@pytest.mark.parametrize("api", APIS[:2], ids=IDS[:2])
def test_arguments_that_are_not_json_are_an_error_result(toolbox, api):
    reply = api.check(toolbox.run(api.call("mcp__probe__ui_search", '{"query": "login"')))
    assert api.failed(reply) and "not valid JSON" in api.text(reply) and "nothing was sent" in api.text(reply)
    reply = api.check(toolbox.run(api.call("mcp__probe__ui_search", '["login"]')))
    assert api.failed(reply) and "must be a JSON object" in api.text(reply)
    with pytest.raises(ArgumentsError, match="not valid JSON"):
        toolbox.run(api.call("mcp__probe__ui_search", "{"), raise_errors=True)


def test_arguments_that_are_not_an_object_in_dict_forms_are_an_error_result(toolbox):
    anthropic = toolbox.run({"type": "tool_use", "id": "t", "name": "mcp__probe__ui_search", "input": ["x"]})
    assert anthropic["is_error"] and "must be a JSON object" in anthropic["content"][0]["text"]
    gemini = toolbox.run({"functionCall": {"name": "mcp__probe__ui_search", "args": "login"}})
    assert (
        "must be a JSON object" in gemini["functionResponse"]["response"]["error"]
    )  # REST spelling answered


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_tool_that_fails_is_an_error_result(toolbox, api):
    reply = api.check(toolbox.run(api.call("mcp__shapes__fail", {"why": "the disk is full"})))
    assert api.failed(reply) and "failed: the disk is full" in api.text(reply)
    with pytest.raises(ToolFailedError, match="the disk is full") as caught:
        toolbox.run(api.call("mcp__shapes__fail", {"why": "the disk is full"}), raise_errors=True)
    assert caught.value.result.is_error


def test_a_server_s_own_error_text_is_not_prefixed_twice(toolbox):
    """mcp-server-time (the SDK's server) says "Error executing tool …" itself: a chat model reads
    one "Error", and a message that does not say so gets the prefix."""
    api = Api("openai")
    bad = api.check(toolbox.run(api.call("mcp__time__get_current_time", {"timezone": "Mars/Olympus"})))
    said = bad["content"]
    assert said.startswith("Error executing tool get_current_time") and "Mars/Olympus" in said
    failed = api.check(toolbox.run(api.call("mcp__shapes__fail", {"why": "the disk is full"})))
    assert failed["content"] == "Error: failed: the disk is full"


def test_a_server_that_is_gone_is_an_error_result(shapes):
    toolbox = shapes.functions("shapes")
    shapes.disconnect("shapes")
    reply = toolbox.run({"type": "tool_use", "id": "t", "name": "mcp__shapes__finished", "input": {}})
    assert reply["is_error"] and "shapes" in reply["content"][0]["text"]


def test_what_is_not_a_tool_call_is_a_type_error_for_the_programmer(toolbox):
    with pytest.raises(TypeError, match="not a tool call"):
        toolbox.run({"type": "text", "text": "hello"})
    with pytest.raises(TypeError, match="not a tool call"):
        toolbox.run("mcp__probe__ui_search")


# ---------------------------------------------------------------- images
def test_images_go_as_each_api_s_image_blocks_where_it_has_them(toolbox):
    openai = Api("openai").check(toolbox.run(Api("openai").call("mcp__shapes__tiny_image", {})))
    assert "one pixel" in openai["content"] and "[image image/png" in openai["content"]  # no images there
    responses = Api("openai-responses").check(
        toolbox.run(Api("openai-responses").call("mcp__shapes__tiny_image", {}))
    )
    assert responses["output"] == [
        {"type": "input_text", "text": "one pixel"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PIXEL}"},
    ]
    anthropic = Api("anthropic").check(toolbox.run(Api("anthropic").call("mcp__shapes__tiny_image", {})))
    assert anthropic["content"] == [
        {"type": "text", "text": "one pixel"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL}},
    ]
    gemini = Api("gemini").check(toolbox.run(Api("gemini").call("mcp__shapes__tiny_image", {})))
    part = genai.Part.model_validate(gemini)
    assert part.function_response.parts[0].inline_data.mime_type == "image/png"
    assert part.function_response.parts[0].inline_data.data.startswith(
        b"\x89PNG"
    )  # base64 decoded by the SDK


def test_server_everything_s_image_and_resource_results(toolbox):
    reply = toolbox.run(
        {"type": "tool_use", "id": "t", "name": "mcp__everything__get-tiny-image", "input": {}}
    )
    kinds = [b["type"] for b in reply["content"]]
    assert "image" in kinds and "text" in kinds
    links = toolbox.run({"type": "tool_use", "id": "t", "name": "mcp__everything__get-resource-links",
                         "input": {"count": 2}})  # fmt: skip
    assert links["content"][0]["text"].count("[resource link") == 2


# ---------------------------------------------------------------- several at once
def test_run_all_runs_calls_concurrently_and_keeps_their_order(shapes):
    """The rendezvous tool only completes when all four calls are in flight together, and they finish
    in reverse order of arrival: a sequential dispatcher would time out, a careless one would reorder."""
    toolbox = shapes.functions("shapes")
    apis = [Api("openai"), Api("anthropic"), Api("gemini"), Api("openai-responses")]  # mixed, on purpose
    calls = [
        api.call("mcp__shapes__rendezvous", {"tag": tag, "n": 4}, id=tag)
        for api, tag in zip(apis, "abcd", strict=True)
    ]
    replies = toolbox.run_all(calls, timeout=60)
    texts = [api.text(api.check(r)) for api, r in zip(apis, replies, strict=True)]
    assert [json.loads(t).get("output", json.loads(t))["tag"] for t in texts] == ["a", "b", "c", "d"]
    finished = toolbox.short.finished().data["finished"]
    assert sorted(finished) == ["a", "b", "c", "d"] and finished != ["a", "b", "c", "d"]
    assert finished == list(reversed([json.loads(t).get("output", json.loads(t))["tag"] for t in texts]))


def test_run_all_takes_a_whole_reply_and_skips_what_is_not_a_call(toolbox):
    content = [
        {"type": "text", "text": "Let me look that up."},
        {"type": "tool_use", "id": "t1", "name": "mcp__everything__get-sum", "input": {"a": 1, "b": 2}},
        {"type": "tool_use", "id": "t2", "name": "mcp__nowhere__tool", "input": {}},
    ]
    replies = toolbox.run_all({"role": "assistant", "content": content})
    assert [r["tool_use_id"] for r in replies] == ["t1", "t2"]
    assert not replies[0]["is_error"] and replies[1]["is_error"]  # one bad call does not stop the other
    with pytest.raises(ToolNotFoundError):
        toolbox.run_all(content, raise_errors=True)


def test_arun_and_arun_all_await_from_another_loop(toolbox):
    """As in a kernel cell: the caller's own loop awaits, the calls run on the runtime's."""
    import asyncio

    call = {"type": "tool_use", "id": "t", "name": "mcp__everything__get-sum", "input": {"a": 20, "b": 22}}

    async def main():
        one = await toolbox.arun(call)
        both = await toolbox.arun_all([call, {**call, "id": "u", "input": {"a": 1, "b": 1}}])
        return one, both

    one, both = asyncio.run(main())
    assert "42" in one["content"][0]["text"]
    assert [r["tool_use_id"] for r in both] == ["t", "u"] and "2" in both[1]["content"][0]["text"]
