"""A server that asks the client's model (``sampling/createMessage``), against servers we did not
write: FastMCP 4 (its own venv, over stdio, both eras: mid-call on 2025-11-25, an input round on
2026-07-28) and server-everything (2025-11-25).

What the server asked reaches whoever plays the model whole (images, audio, the system prompt,
limits, model hints, ``includeContext``), their reply reaches the server whole and typed (role,
model, stopReason), the server's log says how each request was answered, and a refusal says why
nobody was asked, to the server too (it echoes the words in the call's error, which the person reads).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import connect_everything
from mcp import types

from mcpnb import CallError, Interaction

pytestmark = pytest.mark.timeout(120)

#: A FastMCP 4 server (run in the peers' venv) whose ``rich_sample`` asks with every field a
#: sampling request may carry and returns the client's answer as JSON, in either era.
PEER = """
import base64, json
import mcp_types
from fastmcp import Context, FastMCP

mcp = FastMCP("asks-peer")


def request():
    say = lambda role, content: mcp_types.SamplingMessage(role=role, content=content)
    png = base64.b64encode(b"\\x89PNG fake").decode()
    wav = base64.b64encode(b"RIFFxxxxWAVE").decode()
    return mcp_types.CreateMessageRequestParams(
        messages=[
            say("user", mcp_types.TextContent(type="text", text="Describe this picture")),
            say("user", mcp_types.ImageContent(type="image", data=png, mime_type="image/png")),
            say("assistant", mcp_types.TextContent(type="text", text="A logo.")),
            say("user", mcp_types.AudioContent(type="audio", data=wav, mime_type="audio/wav")),
        ],
        max_tokens=77, system_prompt="Be terse.", temperature=0.3, stop_sequences=["END"],
        include_context="thisServer", metadata={"k": "v"},
        model_preferences=mcp_types.ModelPreferences(
            hints=[mcp_types.ModelHint(name="claude-3-sonnet")], intelligence_priority=0.9
        ),
    )


@mcp.tool
async def rich_sample(ctx: Context) -> str:
    if ctx._is_modern_protocol():
        answer = (ctx.input_responses or {}).get("draft")
        if answer is None:
            asked = mcp_types.CreateMessageRequest(params=request())
            return mcp_types.InputRequiredResult(input_requests={"draft": asked})
        got = answer if isinstance(answer, dict) else answer.model_dump(by_alias=True, exclude_none=True)
        return json.dumps(got, sort_keys=True)
    p = request()
    try:
        got = await ctx.session.create_message(
            p.messages, max_tokens=p.max_tokens, system_prompt=p.system_prompt,
            temperature=p.temperature, stop_sequences=p.stop_sequences,
            include_context=p.include_context, model_preferences=p.model_preferences,
            metadata=p.metadata,
        )
    except Exception as exc:
        return f"REFUSED {exc}"
    return json.dumps(got.model_dump(by_alias=True, exclude_none=True, mode="json"), sort_keys=True)


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
"""


class Model(Interaction):
    """A model function plugged in as the README says (``pool.interaction``): it replies with a
    model name and stop reason of its own, and keeps what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[Any] = []

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        self.asked.append(params)
        text = types.TextContent(type="text", text="terse ünïcode")
        return types.CreateMessageResult(
            role="assistant", content=text, model="my-model-7", stopReason="maxTokens"
        )


class Broken(Interaction):
    """A model function that fails (a rate limit, a bug)."""

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        raise RuntimeError("rate limited")


@pytest.fixture
def peer(tmp_path: Path, fastmcp_venv: Path) -> dict[str, Any]:
    script = tmp_path / "asks_peer.py"
    script.write_text(PEER)
    return {"command": str(fastmcp_venv), "args": [str(script)]}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_model_sees_the_whole_request_and_the_server_gets_the_whole_reply(pool, peer, era):
    model = Model()
    pool.interaction = model
    pool.connect("fm", era=era, **peer)
    result = pool.call("fm", "rich_sample")
    assert not result.is_error, result.text
    assert json.loads(result.text) == {
        "role": "assistant",
        "content": {"type": "text", "text": "terse ünïcode"},
        "model": "my-model-7",
        "stopReason": "maxTokens",
    }
    asked = model.asked[0].model_dump(by_alias=True, exclude_none=True)
    assert [m["content"]["type"] for m in asked["messages"]] == ["text", "image", "text", "audio"]
    assert asked["messages"][1]["content"]["mimeType"] == "image/png"
    assert asked["systemPrompt"] == "Be terse." and asked["maxTokens"] == 77
    assert asked["temperature"] == 0.3 and asked["stopSequences"] == ["END"]
    assert asked["includeContext"] == "thisServer" and asked["metadata"] == {"k": "v"}
    assert asked["modelPreferences"]["hints"] == [{"name": "claude-3-sonnet"}]
    # the server's log says who answered, as it says an elicitation's answer
    assert any("sampling answered by 'my-model-7' (maxTokens)" in line for line in pool.logs("fm"))


def test_the_log_says_a_refused_completion(pool, everything):
    connect_everything(pool)
    result = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert result.is_error
    assert any(
        "sampling rejected: sampling was rejected: no person is there to answer" in line
        for line in pool.logs("ev")
    )


def test_a_model_function_that_fails_is_not_said_to_be_nobody_to_ask(pool, everything):
    """The server was told "the client could not ask anyone", when a model function was asked and
    raised: the server, and the person reading its error, looked for a missing person."""
    pool.interaction = Broken()
    connect_everything(pool)
    result = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert result.is_error
    assert "the client failed to answer the sampling request" in result.text, result.text
    assert "could not ask anyone" not in result.text
    assert any("rate limited" in note for note in result.answered_without_asking)


def test_a_completion_refused_on_a_2026_call_says_it_was_refused_here(pool, peer):
    """2026-07-28: an input round cannot carry a refusal, so the SDK ends the call with the
    refusal's words, which read as the server's error ("… (MCP error -1)", then "the server sent
    with it")."""
    pool.connect("fm", era="modern", **peer)
    with pytest.raises(CallError) as failed:
        pool.call("fm", "rich_sample")
    said = str(failed.value)
    assert "the server asked for an LLM completion (sampling) and it was refused here" in said, said
    assert "(sampling was rejected: no person is there to answer)" in said
    assert "MCP error" not in said and "the server sent with it" not in said
