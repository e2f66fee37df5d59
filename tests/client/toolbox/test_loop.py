"""A whole tool-use loop per API, with a scripted stand-in for the model (no network): it answers with
the SDK's own response objects, asks for two tools at once, then reads our results and answers.
Every request the loop builds (tools, history with our results in it) is checked with the SDK's types,
as the real client would send it."""

from __future__ import annotations

import json
from typing import Any

from anthropic.types import Message, MessageParam, ToolParam
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam, ChatCompletionToolParam
from openai.types.responses import FunctionToolParam, Response, ResponseInputItemParam
from pydantic import TypeAdapter

QUESTION = "What time is it in Tokyo, and which UI component fits a login screen?"
CALLS = [
    ("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}),
    ("mcp__probe__ui_search", {"query": "login", "limit": 1}),
]


def answer(results: list[str]) -> str:
    """The scripted model's final words, made from what the tools returned (the structured content
    comes as the last paragraph of JSON text, after any text the tool wrote for people)."""
    now, hits = (json.loads(r.rsplit("\n\n", 1)[-1]) for r in results)
    return f"It is {now['datetime'][11:16]} in Tokyo; try the {hits['results'][0]['name']} component."


def check_tools(adapter: Any, tools: list[dict[str, Any]]) -> None:
    for tool in tools:
        adapter.validate_python(tool)


def test_openai_chat_completions_loop(toolbox):
    tools = toolbox.specs("openai")

    def model(messages: list[Any]) -> ChatCompletion:
        TypeAdapter(list[ChatCompletionMessageParam]).validate_python(messages)
        check_tools(TypeAdapter(ChatCompletionToolParam), tools)
        results = [m["content"] for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if results:
            message["content"] = answer(results)
        else:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in enumerate(CALLS)
            ]
        choice = {"index": 0, "finish_reason": "stop" if results else "tool_calls", "message": message}
        head = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "scripted"}
        return ChatCompletion.model_validate({**head, "choices": [choice]})

    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    while True:
        reply = model(messages).choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            break
        messages += toolbox.run_all(reply.tool_calls)  # the SDK objects, as the client returns them
    assert messages[-1]["content"].startswith("It is ") and "component" in messages[-1]["content"]
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["call_0", "call_1"]


def test_openai_responses_loop(toolbox):
    tools = toolbox.specs("openai-responses")

    def model(items: list[Any]) -> Response:
        TypeAdapter(list[ResponseInputItemParam]).validate_python(items)
        check_tools(TypeAdapter(FunctionToolParam), tools)
        results = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if results:
            text = {"type": "output_text", "text": answer(results), "annotations": []}
            output = [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [text],
                }
            ]
        else:
            output = [
                {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": n,
                 "arguments": json.dumps(a), "status": "completed"}
                for i, (n, a) in enumerate(CALLS)
            ]  # fmt: skip
        return Response.model_validate({
            "id": "resp_1", "object": "response", "created_at": 0, "model": "scripted", "output": output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": list(tools),
        })  # fmt: skip

    items: list[Any] = [{"role": "user", "content": QUESTION}]
    while True:
        response = model(items)
        items += [o.model_dump(exclude_none=True) for o in response.output]
        calls = toolbox.tool_calls(response)
        if not calls:
            break
        items += toolbox.run_all(response)  # a whole Response: its function_call items run
    assert response.output_text.startswith("It is ")
    assert [i["call_id"] for i in items if i.get("type") == "function_call_output"] == ["call_0", "call_1"]


def test_anthropic_messages_loop(toolbox):
    tools = toolbox.specs("anthropic")

    def model(messages: list[Any]) -> Message:
        TypeAdapter(list[MessageParam]).validate_python(messages)
        check_tools(TypeAdapter(ToolParam), tools)
        last = messages[-1]["content"]
        results = [
            b["content"][0]["text"] for b in last if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        if results:
            content = [{"type": "text", "text": answer(results)}]
        else:
            content = [{"type": "text", "text": "Let me check."}] + [
                {"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a}
                for i, (n, a) in enumerate(CALLS)
            ]
        head = {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted"}
        usage = {"input_tokens": 1, "output_tokens": 1}
        stop = "end_turn" if results else "tool_use"
        return Message.model_validate({**head, "content": content, "stop_reason": stop, "usage": usage})

    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    while True:
        reply = model(messages)
        messages.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
        )
        if reply.stop_reason != "tool_use":
            break
        messages.append({"role": "user", "content": toolbox.run_all(reply.content)})  # text blocks skipped
    assert reply.content[0].text.startswith("It is ")
    assert [b["tool_use_id"] for b in messages[2]["content"]] == ["toolu_0", "toolu_1"]


def test_gemini_loop(toolbox):
    declarations = toolbox.specs("gemini")
    config = genai.GenerateContentConfig(tools=[genai.Tool(function_declarations=list(declarations))])

    def model(contents: list[genai.Content]) -> genai.GenerateContentResponse:
        assert config.tools[0].function_declarations[0].name  # the declarations parsed as the SDK's types
        last = contents[-1]
        results = [p.function_response.response for p in last.parts or [] if p.function_response]
        if results:
            parts = [{"text": answer([json.dumps(r["output"]) for r in results])}]
        else:
            parts = [
                {"function_call": {"id": f"fc_{i}", "name": n, "args": a}} for i, (n, a) in enumerate(CALLS)
            ]
        return genai.GenerateContentResponse.model_validate(
            {"candidates": [{"content": {"role": "model", "parts": parts}}]}
        )

    contents = [genai.Content(role="user", parts=[genai.Part(text=QUESTION)])]
    while True:
        response = model(contents)
        contents.append(response.candidates[0].content)
        if not response.function_calls:
            break
        replies = toolbox.run_all(response)  # a whole GenerateContentResponse
        contents.append(genai.Content(role="user", parts=[genai.Part.model_validate(r) for r in replies]))
    assert response.text.startswith("It is ")
    assert [p.function_response.id for p in contents[2].parts] == ["fc_0", "fc_1"]
