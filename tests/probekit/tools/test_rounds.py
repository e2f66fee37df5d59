"""The 2026-07-28 conformance fixtures (input rounds, signed requestState, capability checks, list
triggers) with the SDK's client in both eras: on 2026-07-28 the client answers inputRequests and
retries; on 2025-11-25 the same tools ask over the session. The suite itself runs them in
tests/conformance/test_server_suite.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from mcpnb.probekit import create_server

MODES = ["auto", "legacy"]


class Person:
    """Answers each form by what it asks for, samples with a fixed reply, shares one root."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params.message)
        fields = set(params.requested_schema.get("properties", {}))
        content = {"name": "Ada", "color": "blue", "ok": True, "context": "tea"}
        return types.ElicitResult(action="accept", content={k: v for k, v in content.items() if k in fields})

    async def sample(self, ctx: Any, params: Any) -> types.CreateMessageResult:
        self.asked.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Paris"), model="person"
        )

    async def roots(self, ctx: Any) -> types.ListRootsResult:
        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/shop", name="shop")])


def _text(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    return result.content[0].text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_each_round_trip_completes_in_both_eras(project: Path, mode: str) -> None:
    person = Person()
    server = create_server("conformance", root=project)
    async with Client(
        server,
        mode=mode,
        elicitation_callback=person.elicit,
        sampling_callback=person.sample,
        list_roots_callback=person.roots,
    ) as c:
        hello = await c.call_tool("test_input_required_result_elicitation", {})
        capital = await c.call_tool("test_input_required_result_sampling", {})
        roots = await c.call_tool("test_input_required_result_list_roots", {})
        state = await c.call_tool("test_input_required_result_request_state", {})
        three = await c.call_tool("test_input_required_result_multiple_inputs", {})
        two_steps = await c.call_tool("test_input_required_result_multi_round", {})
        declared = await c.call_tool("test_input_required_result_capabilities", {})
        prompt = await c.get_prompt("test_input_required_result_prompt", {})
    assert _text(hello) == "Hello, Ada!"
    assert _text(capital) == "The client's model says: Paris"
    assert _text(roots) == "The client's roots: shop (file:///work/shop)"
    # the state comes back (2026-07-28) or was never needed (the question was asked mid-call)
    said = "state-ok: the requestState came back unchanged" if mode == "auto" else "asked in one go"
    assert _text(state) == f"{said}; confirmed: True"
    assert _text(three) == "Paris Ada: your client shares 1 root."
    assert _text(two_steps) == "Ada likes blue."  # the name carried from round 1 to round 3
    assert _text(declared).startswith("Answered: client_roots, greeting, user_name")
    assert prompt.messages[0].content.text == "Using this context: tea"
    assert "Step 2: What is your favorite color?" in person.asked


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_answer_gets_the_questions_as_text(project: Path, mode: str) -> None:
    async with Client(create_server("conformance", root=project), mode=mode) as c:
        hello = await c.call_tool("test_input_required_result_elicitation", {})
        three = await c.call_tool("test_input_required_result_multiple_inputs", {})
        none = await c.call_tool("test_input_required_result_capabilities", {})
        with pytest.raises(MCPError) as refused:
            await c.call_tool("test_missing_capability", {})
    assert _text(hello).splitlines()[1] == "- user_name (elicitation): a form: What is your name?"
    assert "- greeting (sampling): a completion of: Generate a greeting" in _text(three)
    assert "- client_roots (roots): its roots" in _text(three)
    assert _text(none).startswith("The client declared none of elicitation, sampling and roots")
    assert refused.value.error.code == -32021
    assert refused.value.error.data == {"requiredCapabilities": {"sampling": {}}}


@pytest.mark.anyio
async def test_a_changed_request_state_is_refused_before_the_tool_runs(project: Path) -> None:
    """The SDK under probe-kit seals every requestState for its request; one that comes back
    changed, or is echoed to another tool, is refused with -32602."""
    person = Person()
    async with Client(create_server("conformance", root=project), elicitation_callback=person.elicit) as c:
        session = c.session
        tool = "test_input_required_result_tampered_state"
        first = await session.call_tool(tool, {}, allow_input_required=True)
        state = first.request_state
        assert isinstance(first, types.InputRequiredResult) and state
        refusals = []
        for forged in (state[:-2] + ("AA" if not state.endswith("AA") else "BB"), state + "-TAMPERED", "{}"):
            with pytest.raises(MCPError) as refused:
                await session.call_tool(
                    tool,
                    {},
                    input_responses={"confirm": {"action": "accept", "content": {"ok": True}}},
                    request_state=forged,
                    allow_input_required=True,
                )
            refusals.append(refused.value.error.code)
        with pytest.raises(MCPError) as elsewhere:  # sealed by this server, but for another tool
            await session.call_tool(
                "test_input_required_result_request_state", {},
                input_responses={"confirm": {"action": "accept", "content": {"ok": True}}},
                request_state=state, allow_input_required=True,
            )  # fmt: skip
        refusals.append(elsewhere.value.error.code)
    assert refusals == [-32602] * 4


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_the_list_triggers_add_then_remove(project: Path, mode: str) -> None:
    async with Client(create_server("conformance", root=project), mode=mode) as c:
        before = {t.name for t in (await c.list_tools()).tools}
        added = await c.call_tool("test_trigger_tool_change", {})
        during = {t.name for t in (await c.list_tools()).tools}
        await c.call_tool("test_trigger_prompt_change", {})
        prompts = {p.name for p in (await c.list_prompts()).prompts}
        removed = await c.call_tool("test_trigger_tool_change", {})
        after = {t.name for t in (await c.list_tools()).tools}
    assert during - before == {"test_appearing_tool"} and after == before
    assert "test_appearing_prompt" in prompts
    assert _text(added).startswith("test_appearing_tool added") and "removed" in _text(removed)


@pytest.mark.anyio
async def test_a_client_that_declared_url_mode_alone_is_sent_no_form(project: Path) -> None:
    # `elicitation: {url: {}}` takes pages only: a form went to it all the same (the spec: servers
    # MUST NOT send a mode the client did not declare; a bare `elicitation: {}` is forms only)
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    async with Client(create_server("conformance", root=project)) as client:
        send = client.session._dispatcher.send_raw_request
        said = {}
        for name, capabilities in (
            ("url only", {"url": {}}),
            ("bare", {}),
            ("both", {"form": {}, "url": {}}),
        ):
            caps = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": capabilities}}
            body = {
                "name": "test_input_required_result_elicitation",
                "arguments": {},
                "_meta": {**meta, **caps},
            }
            said[name] = await send("tools/call", body)
    assert said["url only"].get("resultType", "complete") == "complete"  # told as text, not asked
    assert "did not declare" in said["url only"]["content"][0]["text"]
    assert said["bare"]["resultType"] == said["both"]["resultType"] == "input_required"
