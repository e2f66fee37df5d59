"""Elicitation in both eras: the interview form, ask_user, decline/cancel, and URL mode both ways."""

from __future__ import annotations

import urllib.request
from typing import Any
from urllib.parse import urlsplit

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
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_url_mode_declined(server: Any, mode: str, action: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=Answers(action)) as client:
        result = await client.call_tool("open_local_page", {"path": "README.md"})
    assert not result.is_error and result.structured_content["action"] == action
    assert result.structured_content["preview"] == ""


@pytest.mark.anyio
async def test_url_mode_by_error_then_retry_in_legacy(server: Any) -> None:
    async with Client(server, mode="legacy", elicitation_callback=Answers()) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("open_local_page", {"path": "README.md", "via": "error"})
        assert info.value.code == -32042
        (elicitation,) = UrlElicitationRequiredError.from_error(info.value.error).elicitations
        assert urlsplit(elicitation.url).path.endswith("/README.md")
        assert elicitation.elicitation_id.startswith("open-")
        retry = await client.call_tool(
            "open_local_page", {"path": "README.md", "via": "error", "confirmed": True}
        )
    assert retry.structured_content["action"] == "accept"


@pytest.mark.anyio
async def test_visiting_the_page_tells_the_client_that_asked_it_is_done_once(server: Any) -> None:
    """MCP 2025-11-25: a server MAY send notifications/elicitation/complete when the interaction on
    the page is over, only to the client that was asked, with the request's elicitationId. The SDK's
    Client (not ours) hears it; another client's session hears nothing."""
    heard: list[Any] = []
    others: list[Any] = []

    async def note(into: list[Any], message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            into.append(message.params.elicitation_id)

    async with (
        Client(server, mode="legacy", message_handler=lambda m: note(heard, m)) as client,
        Client(server, mode="legacy", message_handler=lambda m: note(others, m)) as other,
    ):
        with pytest.raises(MCPError) as info:
            await client.call_tool("open_local_page", {"path": "README.md", "via": "error"})
        (elicitation,) = UrlElicitationRequiredError.from_error(info.value.error).elicitations
        for _ in range(2):  # opened twice: said once
            page = await anyio.to_thread.run_sync(
                lambda: urllib.request.urlopen(elicitation.url, timeout=10).read()
            )
            assert b"<pre" in page
        with anyio.fail_after(10):
            while not heard:
                await anyio.sleep(0.02)
        await other.list_tools()  # a round trip on the other session: anything sent to it has come
        await client.list_tools()
        assert heard == [elicitation.elicitation_id] and others == []
        retry = await client.call_tool("open_local_page", {"path": "README.md", "via": "error"})
        assert retry.structured_content["action"] == "accept"


@pytest.mark.anyio
async def test_retrying_the_same_call_after_the_error_opens_the_page_in_legacy(server: Any) -> None:
    call = {"path": "README.md", "via": "error"}
    async with Client(server, mode="legacy", elicitation_callback=Answers()) as client:
        with pytest.raises(MCPError):
            await client.call_tool("open_local_page", call)
        retry = await client.call_tool("open_local_page", call)  # the very same call
        assert retry.structured_content["action"] == "accept"
        with pytest.raises(MCPError):  # one retry per request: the next call asks again
            await client.call_tool("open_local_page", call)


# --- 2026-07-28: no -32042; the URL request rides an InputRequiredResult -------------------------------
MODERN = "2026-07-28"


def _meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    """The per-request ``_meta`` a 2026-07-28 request carries, with the capabilities given."""
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


def _raw_call(client: Client, capabilities: dict[str, Any] | None = None) -> Any:
    """A raw ``tools/call`` of open_local_page (extra keys go into the params as they are)."""
    send = client.session._dispatcher.send_raw_request
    caps = {"elicitation": {"form": {}, "url": {}}} if capabilities is None else capabilities

    async def call(arguments: dict[str, Any], **params: Any) -> dict[str, Any]:
        body = {"name": "open_local_page", "arguments": arguments, "_meta": _meta(caps), **params}
        return await send("tools/call", body)

    return call


@pytest.mark.anyio
async def test_modern_asks_with_an_input_required_result_the_sdk_client_answers(server: Any) -> None:
    """The SDK's own Client (not ours) drives the round: its callback gets the URL request, and its
    retry carries the answer; -32042 never comes."""
    answers = Answers()
    async with Client(server, elicitation_callback=answers) as client:
        assert client.protocol_version == MODERN
        result = await client.call_tool("open_local_page", {"path": "README.md"})
        by_name = await client.call_tool("open_local_page", {"path": "README.md", "via": "elicit"})
        (asked, again) = answers.seen
        assert isinstance(asked, types.ElicitRequestURLParams) and asked.mode == "url"
        assert asked.url.startswith("http://127.0.0.1:") and asked.url.endswith("/README.md")
        assert asked.message == "Open the local page README.md?" and again.url == asked.url
        page = await anyio.to_thread.run_sync(_fetch, asked.url)
    assert "Demo project" in page
    for done in (result, by_name):
        assert not done.is_error and done.structured_content["action"] == "accept"
        assert done.structured_content["title"] == "Demo project"


@pytest.mark.anyio
async def test_modern_wire_input_required_then_retry(server: Any) -> None:
    """On the wire: resultType input_required with one elicitation/create in URL mode under
    "consent" and a requestState; the retry with the answer and the state echoed completes it."""
    async with Client(server) as client:
        call = _raw_call(client)
        asked = await call({"path": "README.md"})
        assert asked["resultType"] == "input_required", asked
        (key,) = asked["inputRequests"]
        request = asked["inputRequests"][key]
        assert key == "consent" and request["method"] == "elicitation/create"
        assert request["params"]["mode"] == "url" and request["params"]["url"].endswith("/README.md")
        state = asked["requestState"]
        answered = await call(
            {"path": "README.md"}, inputResponses={key: {"action": "accept"}}, requestState=state
        )
        assert answered["resultType"] == "complete" and answered["structuredContent"]["action"] == "accept"
        declined = await call(
            {"path": "README.md"}, inputResponses={key: {"action": "decline"}}, requestState=state
        )
        assert declined["structuredContent"]["action"] == "decline"
        # an answer nobody asked for (no requestState of this question) is no consent: asked again
        unasked = await call({"path": "README.md"}, inputResponses={key: {"action": "accept"}})
        assert unasked["resultType"] == "input_required"


@pytest.mark.anyio
@pytest.mark.parametrize("capabilities", [{"elicitation": {}}, {"elicitation": {"form": {}}}, {}])
async def test_modern_client_without_url_mode_is_never_sent_one(server: Any, capabilities: Any) -> None:
    """``elicitation: {}`` means forms only (the spec), and no URL request goes to such a client."""
    async with Client(server) as client:
        refused = await _raw_call(client, capabilities)({"path": "README.md"})
    assert refused.get("resultType", "complete") == "complete" and refused["isError"] is True
    assert "did not declare URL-mode elicitation" in refused["content"][0]["text"]
    assert refused["_meta"]["error"]["code"] == "url_mode_not_declared"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_client_without_elicitation_is_told_so_in_both_eras(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        refused = await client.call_tool("open_local_page", {"path": "README.md"})
    assert refused.is_error and "did not declare URL-mode elicitation" in refused.content[0].text


@pytest.mark.anyio
@pytest.mark.parametrize("confirmed", [False, True])
async def test_modern_never_answers_32042(server: Any, confirmed: bool) -> None:
    """2026-07-28 implementations MUST NOT emit -32042: via='error' says so, and what to use."""
    async with Client(server, elicitation_callback=Answers()) as client:
        said = await client.call_tool(
            "open_local_page", {"path": "README.md", "via": "error", "confirmed": confirmed}
        )
    text = said.content[0].text
    assert said.is_error and said.meta["error"]["code"] == "not_in_this_era"
    assert "-32042" in text and "2025-11-25" in text and "InputRequiredResult" in text
    assert "via='auto'" in text and "era='legacy'" in text
