"""Elicitation in both eras: the interview form, ask_user, decline/cancel, and URL mode both ways."""

from __future__ import annotations

import urllib.request
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, UrlElicitationRequiredError, types

from tests.probekit.conftest import Answers

MODES = ["auto", "legacy"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_interview_accept(server: Any, mode: str) -> None:
    answers = Answers()
    async with Client(server, mode=mode, elicitation_callback=answers) as client:
        result = await client.call_tool("interview", {"topic": "Shop"})
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    form = answers.seen[0]
    assert form.message == "A few questions about Shop"
    assert set(form.requested_schema["properties"]) == {
        "project_name",
        "goal",
        "audience",
        "stack",
        "deadline",
        "has_tests",
    }
    data = result.structured_content
    assert data["action"] == "accept"
    assert {"question": "What is the project called?", "answer": "answer-project_name"} in data["answers"]
    assert {"question": "Main language or stack", "answer": "python"} in data["answers"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_are_clean(server: Any, mode: str, action: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=Answers(action)) as client:
        interview = await client.call_tool("interview", {})
        ask = await client.call_tool("ask_user", {"question": "Ship it?"})
    for result in (interview, ask):
        assert not result.is_error
        assert result.structured_content["action"] == action and result.structured_content["answers"] == []
        assert "nothing was recorded" in result.content[0].text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_ask_user_with_choices(server: Any, mode: str) -> None:
    answers = Answers(content={"answer": "blue"})
    async with Client(server, mode=mode, elicitation_callback=answers) as client:
        result = await client.call_tool("ask_user", {"question": "Colour?", "choices": ["red", "blue"]})
    assert answers.seen[0].requested_schema["properties"]["answer"]["enum"] == ["red", "blue"]
    assert result.structured_content["answers"] == [{"question": "Colour?", "answer": "blue"}]


def _fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.read().decode()


@pytest.mark.anyio
async def test_url_mode_by_request_in_legacy(server: Any) -> None:
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    answers = Answers()
    async with Client(
        server, mode="legacy", elicitation_callback=answers, message_handler=on_message
    ) as client:
        result = await client.call_tool("open_local_page", {"path": "README.md"})
        asked = answers.seen[0]
        assert isinstance(asked, types.ElicitRequestURLParams)
        assert asked.url.startswith("http://127.0.0.1:") and asked.url.endswith("/README.md")
        page = await anyio.to_thread.run_sync(_fetch, asked.url)  # a link a browser can open
        assert "Demo project" in page
    with pytest.raises(OSError):  # the page server stopped with the session
        await anyio.to_thread.run_sync(_fetch, asked.url)
    assert (
        result.structured_content["title"] == "Demo project"
        and result.structured_content["action"] == "accept"
    )
    assert any(isinstance(n, types.ElicitCompleteNotification) for n in notes)


@pytest.mark.anyio
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_url_mode_declined_in_legacy(server: Any, action: str) -> None:
    async with Client(server, mode="legacy", elicitation_callback=Answers(action)) as client:
        result = await client.call_tool("open_local_page", {"path": "README.md"})
    assert not result.is_error and result.structured_content["action"] == action
    assert result.structured_content["preview"] == ""


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_url_mode_by_error_then_retry(server: Any, mode: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=Answers()) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("open_local_page", {"path": "README.md", "via": "error"})
        assert info.value.code == -32042
        (elicitation,) = UrlElicitationRequiredError.from_error(info.value.error).elicitations
        assert elicitation.url.endswith("/README.md") and elicitation.elicitation_id.startswith("open-")
        retry = await client.call_tool(
            "open_local_page", {"path": "README.md", "via": "error", "confirmed": True}
        )
    assert retry.structured_content["action"] == "accept"


@pytest.mark.anyio
async def test_modern_auto_uses_the_error_form(server: Any) -> None:
    async with Client(server, elicitation_callback=Answers()) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("open_local_page", {"path": "README.md"})
        assert info.value.code == -32042
        by_request = await client.call_tool("open_local_page", {"path": "README.md", "via": "elicit"})
    assert by_request.is_error and "2025-11-25" in by_request.content[0].text


@pytest.mark.anyio
async def test_retrying_the_same_call_after_the_error_opens_the_page(server: Any) -> None:
    async with Client(server, elicitation_callback=Answers()) as client:
        with pytest.raises(MCPError):
            await client.call_tool("open_local_page", {"path": "README.md"})
        retry = await client.call_tool("open_local_page", {"path": "README.md"})  # the very same call
        assert retry.structured_content["action"] == "accept"
        with pytest.raises(MCPError):  # one retry per request: the next call asks again
            await client.call_tool("open_local_page", {"path": "README.md"})
