"""MCP Apps in the model's loop: a toolbox draws the page of a model's call where an interaction
can draw one, and hands what pages said for the model (``ui/update-model-context``,
``ui/message``) to the next turn, in each API's user-message shape (checked with each SDK's types).

The pages here are real ``AppHost``s for probe-kit's dice page, in-process, answering the JSON-RPC a
page sends; the notebook's drawing is tested in a real kernel (``tests/notebook/render``) and in
JupyterLab (``tests/browser/test_apps_in_jupyterlab.py``).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from anthropic.types import MessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam
from pydantic import TypeAdapter

from mcpnb.client.app_host import AppHost
from mcpnb.client.apps import page_from, view_uri
from mcpnb.client.interaction import Interaction
from mcpnb.client.pool import Pool
from mcpnb.client.results import ToolResult
from mcpnb.client.toolbox.pages import PageNews
from mcpnb.probekit import create_server

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


@pytest.fixture
def dice_pool():
    pool = Pool()
    pool.connect("probe", server=create_server("apps"))
    yield pool
    pool.close()


def dice_host(pool: Pool) -> AppHost:
    tool = next(t for t in pool.tools("probe") if t.name == "dice")
    uri = view_uri(tool)
    page = page_from("probe", uri, list(pool.read("probe", uri)))
    return AppHost(pool, tool, page, {}, None, send=lambda _message: None)


def says(host: AppHost, *messages: tuple[str, dict[str, Any]]) -> None:
    """The page sends each ``(method, params)`` request; the host answers it."""
    if not host.greeted:  # a page starts with the handshake; the host answers nothing else before
        messages = (("ui/initialize", {}), *messages)

    async def send_all() -> None:
        for n, (method, params) in enumerate(messages):
            await host.receive({"jsonrpc": "2.0", "id": n, "method": method, "params": params})

    host.pool.runtime.run(send_all())


def test_what_pages_say_for_the_model_is_one_user_turn_in_each_apis_shape(dice_pool):
    first, second = dice_host(dice_pool), dice_host(dice_pool)
    news = PageNews()
    news.add(first)
    news.add(second)
    assert news.take("anthropic") == [] and news.waiting() == 0
    says(
        first,
        ("ui/message", {"role": "user", "content": [{"type": "text", "text": "Roll again, please"}]}),
        ("ui/update-model-context", {"content": [{"type": "text", "text": "the person kept the 6"}]}),
        (
            "ui/update-model-context",  # replaces the one before: only the newest is handed over
            {
                "content": [{"type": "image", "data": PNG, "mimeType": "image/png"}],
                "structuredContent": {"kept": [6]},
            },
        ),
    )
    # one block, not a list: as the extension's text writes it (its SDK's schema says a list)
    says(second, ("ui/message", {"role": "user", "content": {"type": "text", "text": "and this one"}}))
    assert news.waiting() == 3  # a context and two messages

    taken = PageNews()  # the same pages seen afresh, once per API
    for host in (first, second):
        taken.add(host)
    [anthropic] = taken.take("anthropic")
    TypeAdapter(MessageParam).validate_python(anthropic)
    header = "[probe.dice's page (an MCP App) says the model should know:]"
    says_ = "[probe.dice's page (an MCP App) says:]"  # its words are the page's, never the person's
    assert anthropic == {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "\n\n".join(
                    [header, '{"kept": [6]}', says_, "Roll again, please", says_, "and this one"]
                ),
            },
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        ],
    }
    assert taken.take("anthropic") == []  # once

    checks = {
        "openai": TypeAdapter(ChatCompletionMessageParam).validate_python,
        "openai-responses": TypeAdapter(ResponseInputItemParam).validate_python,
        "gemini": genai.Content.model_validate,
    }
    for fmt, check in checks.items():
        fresh = PageNews()
        fresh.add(first)
        fresh.add(second)
        [turn] = fresh.take(fmt)
        check(turn)
        texts = [part.get("text") for part in turn.get("content", turn.get("parts", []))]
        assert texts[:6] == [header, '{"kept": [6]}', says_, "Roll again, please", says_, "and this one"], fmt
        assert len(turn.get("content", turn.get("parts", []))) == 7, f"{fmt}: the image travels too"

    [before] = news.take("openai")  # the first news: all three; then a changed context alone
    assert [p.get("text") for p in before["content"]][:6] == [
        header,
        '{"kept": [6]}',
        says_,
        "Roll again, please",
        says_,
        "and this one",
    ]
    says(first, ("ui/update-model-context", {"content": [{"type": "text", "text": "now the 5 too"}]}))
    [again] = news.take("openai")
    assert again["content"] == [
        {"type": "text", "text": header},
        {"type": "text", "text": "now the 5 too"},
    ]
    assert news.take("openai") == []


class Drawing(Interaction):
    """An interaction that can draw pages (as another frontend than Jupyter would): it records
    what it was asked to draw and what each page was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[Any] = []

    async def draw_page(self, pool: Any, tool: Any, arguments: Any, call: Any) -> Any:
        page = Handed(tool, dict(arguments))
        self.drawn.append(page)
        return page


class Handed:
    def __init__(self, tool: Any, arguments: dict[str, Any]) -> None:
        self.tool, self.arguments = tool, arguments
        self.messages: list[dict[str, Any]] = []
        self.context: dict[str, Any] | None = None
        self.outcomes: list[Any] = []

    def deliver(self, outcome: Any) -> None:
        self.outcomes.append(outcome)


def test_a_toolbox_draws_the_page_of_a_models_call_where_its_interaction_can(dice_pool):
    calls = [
        {"type": "tool_use", "id": "a", "name": "mcp__probe__dice", "input": {"count": 4}},
        {"type": "tool_use", "id": "b", "name": "mcp__probe__dice", "input": {"count": 99}},  # refused
    ]
    plain = dice_pool.functions()
    assert repr(plain).startswith("Toolbox: 1 tool from probe\n")  # dice; dice_history is the page's
    plain.run_all(calls)
    assert plain.pages == [] and plain.from_pages("gemini") == []  # no one here draws pages

    dice_pool.interaction = drawing = Drawing()
    tools = dice_pool.functions()
    replies = tools.run_all(calls)
    assert not replies[0]["is_error"] and replies[1]["is_error"]  # 99 dice: the schema refuses
    [page] = drawing.drawn  # the refused call was never made: no page for it
    assert (page.tool.name, page.arguments) == ("dice", {"count": 4}) and tools.pages == [page]
    [result] = page.outcomes
    assert isinstance(result, ToolResult) and len(result.data["rolls"]) == 4

    page.messages.append({"role": "user", "content": [{"type": "text", "text": "hi"}]})
    waits = "its pages said 1 thing for the model, not handed over yet: .from_pages(fmt)"
    assert repr(tools).endswith(waits)
    assert tools.from_pages("openai") == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[probe.dice's page (an MCP App) says:]"},
                {"type": "text", "text": "hi"},
            ],
        }
    ]
    assert waits not in repr(tools)
    with pytest.raises(ValueError, match="unknown format 'claude'; did you mean 'anthropic'"):
        tools.from_pages("claude")
    tools.max_text_chars = 30  # what a page says for the model keeps the toolbox's caps, as replies do
    page.messages.append({"role": "user", "content": [{"type": "text", "text": "word " * 40}]})
    [said] = tools.from_pages("openai")
    assert "characters more were not sent, past the 30 a reply may carry]" in json.dumps(said)


def test_a_models_call_that_fails_tells_its_page_why(dice_pool):
    from mcp.server.mcpserver import MCPServer

    slow = MCPServer("slow", log_level="WARNING")

    @slow.tool(meta={"ui": {"resourceUri": "ui://slow/page.html"}})
    async def wait() -> str:
        import anyio

        await anyio.sleep(5)
        return "done"

    dice_pool.connect("slow", server=slow)
    dice_pool.interaction = drawing = Drawing()
    tools = dice_pool.functions("slow")
    [reply] = tools.run_all(
        [{"type": "tool_use", "id": "w", "name": "mcp__slow__wait", "input": {}}], timeout=0.2
    )
    assert reply["is_error"]
    [page] = drawing.drawn
    [why] = page.outcomes
    assert isinstance(why, Exception) and "0.2" in str(why)


class Broken(Interaction):
    async def draw_page(self, pool: Any, tool: Any, arguments: Any, call: Any) -> Any:
        raise RuntimeError("the frontend went away")


def test_a_page_that_cannot_be_drawn_never_costs_the_model_its_call(dice_pool, caplog):
    dice_pool.interaction = Broken()
    tools = dice_pool.functions()
    with caplog.at_level("WARNING", logger="mcpnb"):
        [reply] = tools.run_all([{"type": "tool_use", "id": "a", "name": "mcp__probe__dice", "input": {}}])
    assert not reply["is_error"] and "(2d6)" in reply["content"][0]["text"]
    assert "probe.dice's page (an MCP App) was not drawn: the frontend went away" in caplog.text
    assert tools.pages == []
