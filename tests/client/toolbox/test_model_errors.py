"""What a model reads when its call fails is what happened and what IT can do (try again, call
another tool, fix its arguments, tell the user), never advice only a person can follow (raise
``tool_timeout``, ``pool.reconnect``, ``%mcp reconnect``); the person's exception keeps that advice.

Real servers throughout: the SDK's ``MCPServer`` in-process (a tool that never answers, one that
holds the loop, one that asks for a URL) and over stdio (a process that kills itself mid-call).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from shapes_server import create_server as create_shapes

from mcpnb.client.arguments import Terms, check_arguments
from mcpnb.client.errors import (
    ArgumentsError,
    CallError,
    CallTimeoutError,
    NotConnectedError,
    ToolNotFoundError,
    UnknownServerError,
    UrlRequiredError,
)

from .test_dispatch import APIS, IDS

OPENAI = APIS[0]
#: Words only a person can act on: none of them may reach a model.
PERSON_ONLY = ("tool_timeout", "max_total_timeout", "timeout=", "pool.reconnect", "%mcp", "raise ")


def model_reads(toolbox: Any, api: Any, name: str, arguments: dict[str, Any], **run: Any) -> str:
    """The error text ``api``'s model gets back for this call (and that it is an error)."""
    reply = api.check(toolbox.run(api.call(name, arguments), **run))
    assert api.failed(reply)
    text = api.text(reply)
    assert not [w for w in PERSON_ONLY if w in text], text
    return text


def slowpoke() -> MCPServer:
    server = MCPServer("slowpoke", log_level="WARNING")

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        await asyncio.Event().wait()
        return "never"

    @server.tool()
    async def hog() -> str:
        """Holds the loop it runs on (a blocking call in an async tool), then never answers."""
        time.sleep(1.5)  # the point: an in-process tool that blocks
        await asyncio.Event().wait()
        return "never"

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def sign_in() -> str:
        from mcp.shared.exceptions import UrlElicitationRequiredError
        from mcp.types import ElicitRequestURLParams

        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    mode="url",
                    message="Sign in to read your files",
                    url="https://example.com/consent",
                    elicitation_id="consent-1",
                )
            ]
        )

    return server


# ---------------------------------------------------------------- timeouts
@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_timeout_tells_the_model_to_try_again_and_the_person_which_setting(pool, api):
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    name = api.name(tools, "mcp__slowpoke__hang")
    text = model_reads(tools, api, name, {}, timeout=0.2)
    assert "the call timed out after 0.2 s without progress, and the server was told to cancel it" in text
    assert "try again later or with less to do, or tell the user" in text

    with pytest.raises(CallTimeoutError) as caught:
        tools.run(api.call(name, {}), timeout=0.2, raise_errors=True)
    assert "raise tool_timeout for server 'slowpoke' (or pass timeout=)" in str(caught.value)
    assert caught.value.for_model in text


def test_a_call_past_its_total_time_is_told_apart(pool):
    pool.connect("slowpoke", server=slowpoke(), max_total_timeout=0.3)
    tools = pool.functions("slowpoke")
    text = model_reads(tools, OPENAI, "mcp__slowpoke__hang", {}, timeout=0.3)
    assert "the call ran past its time limit of 0.3 s, and the server was told to cancel it" in text
    with pytest.raises(CallTimeoutError, match="raise max_total_timeout for server 'slowpoke'"):
        tools.run(OPENAI.call("mcp__slowpoke__hang", {}), timeout=0.3, raise_errors=True)


def test_a_tool_that_held_the_loop_is_its_author_s_news_not_the_model_s(pool):
    """The stall note (how to write the tool) joins the person's error; the model's stays a timeout."""
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    with pytest.raises(CallTimeoutError) as caught:
        tools.run(OPENAI.call("mcp__slowpoke__hog", {}), timeout=0.2, raise_errors=True)
    person = str(caught.value)
    assert "raise tool_timeout" in person and "slowpoke.hog" in person  # the stall, named
    said = caught.value.for_model
    assert said.startswith("the call timed out after 0.2 s") and "slowpoke.hog" not in said


# ---------------------------------------------------------------- a server that went away
FRAGILE = """
import os, signal
from mcp.server.mcpserver import MCPServer

server = MCPServer("fragile", log_level="WARNING")

@server.tool()
def die() -> str:
    "Kills its own process, mid-call."
    os.kill(os.getpid(), signal.SIGKILL)
    return "unreachable"

@server.tool()
def echo(text: str) -> str:
    return text

server.run()
"""


@pytest.fixture
def fragile(tmp_path: Path) -> dict[str, Any]:
    """A stdio server (the SDK's MCPServer) whose ``die`` tool kills its process; started through a
    wrapper script a test can delete, so that starting it again fails for good."""
    script = tmp_path / "fragile.py"
    script.write_text(FRAGILE)
    wrapper = tmp_path / "fragile-server"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} "{script}"\n')
    wrapper.chmod(0o755)
    return {"command": str(wrapper)}


def test_a_server_killed_mid_call_is_the_user_s_to_bring_back(pool, fragile):
    pool.connect("fragile", **fragile, max_retries=0)
    tools = pool.functions("fragile")
    text = model_reads(tools, OPENAI, "mcp__fragile__die", {})
    assert "the call failed: the connection to 'fragile' was lost (" in text
    assert "so it may or may not have run" in text
    assert "its tools cannot be used until the user reconnects it: use another tool, or tell the user" in text

    pool.reconnect("fragile")  # the person's part
    with pytest.raises(CallError) as caught:
        tools.run(OPENAI.call("mcp__fragile__die", {}), raise_errors=True)
    assert "reconnect with pool.reconnect('fragile')" in str(caught.value)


def test_a_server_reconnecting_on_its_own_tells_the_model_to_try_again(pool, fragile):
    pool.connect("fragile", **fragile, max_retries=1, retry_delay=60, health_check_interval=0)
    tools = pool.functions("fragile")
    text = model_reads(tools, OPENAI, "mcp__fragile__die", {})
    assert "the connection to 'fragile' was lost (" in text and text.endswith("try again in a moment")
    # the next call waits its timeout for the reconnect (60 s away), then is told the same
    text = model_reads(tools, OPENAI, "mcp__fragile__echo", {"text": "x"}, timeout=0.2)
    assert "server 'fragile' is reconnecting; try again in a moment, or tell the user" in text
    with pytest.raises(NotConnectedError, match=r"reconnect it with pool\.reconnect\('fragile'\)"):
        tools.run(OPENAI.call("mcp__fragile__echo", {"text": "x"}), timeout=0.2, raise_errors=True)


def test_a_server_that_cannot_start_again_leaves_the_model_other_tools(pool, fragile):
    pool.connect("fragile", **fragile, max_retries=0)
    tools = pool.functions("fragile")
    Path(fragile["command"]).unlink()  # starting it again can only fail now
    model_reads(tools, OPENAI, "mcp__fragile__die", {})
    text = model_reads(tools, OPENAI, "mcp__fragile__echo", {"text": "x"})
    assert text.startswith("Error: server 'fragile' is still failing: ")
    assert text.endswith(
        "its tools cannot be used until the user reconnects it: use another tool, or tell the user"
    )
    with pytest.raises(NotConnectedError, match=r"reconnect it with pool\.reconnect\('fragile'\)"):
        tools.run(OPENAI.call("mcp__fragile__echo", {"text": "x"}), raise_errors=True)


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_a_server_disconnected_by_the_person_is_theirs_to_reconnect(pool, api):
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    pool.disconnect("slowpoke")
    name = api.name(tools, "mcp__slowpoke__echo")
    text = model_reads(tools, api, name, {"text": "hi"})
    assert "server 'slowpoke' was disconnected by the user; its tools cannot be used until" in text
    with pytest.raises(UnknownServerError) as caught:
        tools.run(api.call(name, {"text": "hi"}), raise_errors=True)
    assert "%mcp reconnect slowpoke (pool.reconnect('slowpoke'))" in str(caught.value)


def test_a_page_the_server_needs_opened_is_the_user_s_to_open(pool):
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    text = model_reads(tools, OPENAI, "mcp__slowpoke__sign_in", {})
    assert "the server needs the user to open https://example.com/consent first" in text
    assert "ask the user to open it and complete it there, then call again" in text
    with pytest.raises(UrlRequiredError, match=r"needs you to open https://example\.com/consent first"):
        tools.run(OPENAI.call("mcp__slowpoke__sign_in", {}), raise_errors=True)


# ---------------------------------------------------------------- the model's own mistakes
@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_an_unknown_tool_is_said_alike_to_model_and_person(pool, api):
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    text = model_reads(tools, api, "mcp__slowpoke__ehco", {})
    assert "there is no tool 'mcp__slowpoke__ehco'; did you mean" in text
    with pytest.raises(ToolNotFoundError) as caught:
        tools.run(api.call("mcp__slowpoke__ehco", {}), raise_errors=True)
    assert caught.value.for_model == str(caught.value) and str(caught.value) in text


#: A key Anthropic and Gemini rename (``city name``) and a nested object that takes no other keys.
WEATHER = {
    "get weather": {
        "type": "object",
        "properties": {
            "city name": {"type": "string"},
            "filters": {
                "type": "object",
                "properties": {"stars": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
        "required": ["city name"],
    }
}


@pytest.mark.parametrize("api", APIS, ids=IDS)
def test_wrong_arguments_are_signed_in_the_model_s_names(pool, api):
    """The tool, the missing key and the signature line are the model's; a key it wrote inside
    the nested object is quoted as it wrote it (nested keys are renamed nowhere), even where it
    is the server's name of a top-level key the model knows under another."""
    pool.connect("s1", server=create_shapes(WEATHER))
    tools = pool.functions("s1")
    entry = next(e for e in tools.entries(api.fmt).values() if e.function.tool.name == "get weather")
    city = {server: model for model, server in entry.keys.items()}.get("city name", "city name")
    text = model_reads(tools, api, entry.name, {"filters": {"city name": "Oslo"}})
    assert f"{entry.name}: missing required argument {city!r}" in text
    assert "Additional properties are not allowed ('city name' was unexpected)" in text
    assert f"{entry.name}({city}*: string, filters: object)" in text and "get weather(" not in text
    with pytest.raises(ArgumentsError) as caught:
        tools.run(api.call(entry.name, {"filters": {"city name": "Oslo"}}), raise_errors=True)
    assert caught.value.for_model == str(caught.value)  # signed in the model's names for both


def test_check_arguments_signs_with_the_terms_it_is_given():
    """A person's check is signed ``server.tool`` with the server's keys; the toolbox passes the
    model's: its tool name, its signature line, its key for each renamed one."""
    from mcpnb.client.toolinfo import ToolInfo

    tool = ToolInfo(
        "s",
        "get weather",
        input_schema={
            "type": "object",
            "properties": {"city name": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city name"],
        },
    )
    with pytest.raises(ArgumentsError) as person:
        check_arguments(tool, {"days": "x"})
    assert str(person.value).splitlines()[:2] == [
        "s.get weather: missing required argument 'city name'",
        's.get weather: argument \'days\': "x" is not of type "integer"',
    ]
    assert "  get weather(city name*: string, days: integer)" in str(person.value)

    terms = Terms(
        "s__get_weather", "s__get_weather(city_name*: string, days: integer)", {"city name": "city_name"}
    )
    with pytest.raises(ArgumentsError) as model:
        check_arguments(tool, {"days": "x"}, terms)
    assert str(model.value).splitlines() == [
        "s__get_weather: missing required argument 'city_name'",
        's__get_weather: argument \'days\': "x" is not of type "integer"',
        "  s__get_weather(city_name*: string, days: integer)",
        "  (nothing was sent)",
    ]
    with pytest.raises(ArgumentsError, match=r"unknown argument 'city'; did you mean 'city_name'\?"):
        check_arguments(tool, {"city": "Oslo"}, terms)


# ---------------------------------------------------------------- run_all with raise_errors
def test_run_all_raising_keeps_the_replies_of_the_calls_that_ran(pool):
    pool.connect("slowpoke", server=slowpoke())
    tools = pool.functions("slowpoke")
    calls = [
        OPENAI.call("mcp__slowpoke__echo", {"text": "kept"}, id="a"),
        OPENAI.call("mcp__slowpoke__nope", {}, id="b"),
        OPENAI.call("mcp__slowpoke__echo", {"text": "also kept"}, id="c"),
    ]
    with pytest.raises(ToolNotFoundError) as caught:
        tools.run_all(calls, raise_errors=True)
    replies = caught.value.replies
    assert [r and r["tool_call_id"] for r in replies] == ["a", None, "c"]
    assert replies[0]["content"] == "kept" and replies[2]["content"] == "also kept"
    assert "2 other calls of this turn answered: .replies" in caught.value.__notes__


def test_a_skill_whose_server_is_gone_tells_the_model_and_warns_the_person(pool):
    from mcpnb.probekit import create_server

    pool.connect("probe", server=create_server(toolset="core"))
    tools = pool.functions("probe", skills=True)
    pool.disconnect("probe")
    loader = "mcp__mcpnb__load_skill"
    text = model_reads(tools, OPENAI, loader, {"skill": "probe/probe-kit-tour"})
    assert "server 'probe' is disconnected; its tools cannot be used until the user reconnects it" in text
    result = tools[loader](skill="probe/probe-kit-tour")  # the person's own call of it
    assert result.is_error and "reconnect it with pool.reconnect('probe')" in result.warnings[0]
