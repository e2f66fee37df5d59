"""What mcpnb answers a server's questions where the 2025-11-25 spec says what a client must say.

- An elicitation nobody answered in time, or one the interaction failed to ask, is ``cancel``
  ("dismissed without making an explicit choice"), not ``decline`` ("explicitly declined").
- A ``sampling/createMessage`` carrying ``tools`` or ``toolChoice`` is refused with an error, since
  mcpnb declares ``sampling`` without ``tools`` ("The client MUST return an error if this field is
  provided but ClientCapabilities.sampling.tools is not declared"); nobody is asked.

The server is the SDK's ``MCPServer`` (in process), which we did not write. Its own
``create_message`` refuses tools for a client without ``sampling.tools`` before sending, so the
sampling request with tools goes out raw, as a server that does not check would send it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import MCPError, types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcpnb import Pool
from mcpnb.client.interaction import CallContext, Interaction


class Name(BaseModel):
    name: str


def people_server() -> MCPServer:
    server = MCPServer("people", log_level="WARNING")

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Asks for a name and says what the client answered."""
        answer = await ctx.elicit("your name?", Name)
        return f"action={answer.action}"

    @server.tool()
    async def sample_with(ctx: Context, field: str) -> str:
        """Sends sampling/createMessage with ``tools`` or ``toolChoice``; says the client's answer."""
        params: dict[str, Any] = {
            "messages": [{"role": "user", "content": {"type": "text", "text": "weather?"}}],
            "maxTokens": 50,
        }
        if field == "tools":
            params["tools"] = [{"name": "get_weather", "inputSchema": {"type": "object"}}]
        else:
            params["toolChoice"] = {"mode": "auto"}
        outbound = ctx.session._connection.outbound
        try:
            answer = await outbound.send_raw_request("sampling/createMessage", params, None)
        except MCPError as exc:
            return f"refused {exc.code}: {exc.message}"
        return f"answered: {answer}"

    return server


class Nobody(Interaction):
    """A person who never answers; sampling is answered at once (and counted)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.sampled = 0

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        await asyncio.sleep(3600)

    async def sample(self, server: str, params: Any, call: CallContext | None) -> Any:
        self.sampled += 1
        return types.CreateMessageResult(
            role="assistant", model="person", content=types.TextContent(type="text", text="sunny")
        )


class Broken(Interaction):
    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        raise OSError("the form could not be shown")


def test_an_elicitation_nobody_answered_in_time_is_cancelled_not_declined(pool: Pool) -> None:
    pool.interaction = Nobody(timeout=0.3)
    pool.connect("people", server=people_server(), era="legacy", health_check_interval=0)
    result = pool.call("people", "ask", {})
    assert result.text == "action=cancel"
    assert result.answered_without_asking == [
        "people asked “your name?” and nobody answered in time: cancelled"
    ]


def test_an_elicitation_the_interaction_failed_to_ask_is_cancelled(pool: Pool) -> None:
    pool.interaction = Broken()
    pool.connect("people", server=people_server(), era="legacy", health_check_interval=0)
    result = pool.call("people", "ask", {})
    assert result.text == "action=cancel"
    assert result.answered_without_asking == [
        "people asked “your name?” and asking failed (OSError: the form could not be shown): cancelled"
    ]


@pytest.mark.parametrize("field", ["tools", "toolChoice"])
def test_sampling_with_tools_is_refused_without_asking_anyone(pool: Pool, field: str) -> None:
    person = Nobody()
    pool.interaction = person
    pool.connect("people", server=people_server(), era="legacy", health_check_interval=0)
    result = pool.call("people", "sample_with", {"field": field})
    assert result.text == (
        f"refused -32602: sampling/createMessage carries `{field}`, but this client did not declare "
        "the sampling.tools capability: send the request without tools and toolChoice"
    )
    assert person.sampled == 0
    assert result.answered_without_asking == [
        f"people asked for an LLM completion with `{field}`, which this client does not take: refused"
    ]
    assert not pool.call("people", "sample_with", {"field": field}).is_error  # the session lives on
