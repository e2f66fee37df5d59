"""Requests for a capability the server did not declare are refused before they are sent.

The Lifecycle: "Only use capabilities that were successfully negotiated". ``resources/list``,
``resources/templates/list`` and ``prompts/list`` to a server of tools only were sent, and the
-32601 explained afterwards; now the same words come without the request (a read and a
``prompts/get`` still go out: a server may serve them without declaring the family). The
capabilities are the handshake's (2025-11-25 ``initialize``) or ``server/discover``'s
(2026-07-28). The server is the SDK's low-level ``Server`` (tools only), in process, with a
middleware that records every method it is sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from mcpnb import Pool
from mcpnb.client.errors import CallError


def tools_only(received: list[str]) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        received.append(ctx.method)
        return await call_next(ctx)

    server: Server[Any] = Server("tools-only", version="1.0", on_list_tools=list_tools)
    server.middleware.append(record)
    return server


def offers(what: str, method: str) -> str:
    return (
        f"'bare' does not offer {what} (its capabilities have no {what}; it offers tools): "
        f"{method} is not a method it has"
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_resources_and_prompts_are_not_asked_of_a_server_that_does_not_offer_them(
    pool: Pool, era: str
) -> None:
    received: list[str] = []
    pool.connect("bare", server=tools_only(received), era=era, health_check_interval=0)
    assert pool.connection("bare").capabilities.resources is None  # what the server declared
    asks = [
        (lambda: pool.resources("bare"), offers("resources", "resources/list")),
        (lambda: pool.resource_templates("bare"), offers("resources", "resources/templates/list")),
        (lambda: pool.prompts("bare"), offers("prompts", "prompts/list")),
    ]
    for ask, said in asks:
        with pytest.raises(CallError) as refused:
            ask()
        assert str(refused.value) == said
    sent = [m for m in received if m.startswith(("resources/", "prompts/"))]
    assert "tools/list" in received and sent == []  # nothing sent: the words came from the capabilities
    assert pool.tools("bare") == []  # the connection is fine


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_page_is_read_from_a_server_that_serves_reads_without_declaring_resources(
    pool: Pool, era: str
) -> None:
    """The low-level ``Server`` declares ``resources`` only with a ``resources/list`` handler: one
    that only serves an MCP App's page answers its read, and the page must still be drawn."""

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        page = types.TextResourceContents(uri=str(params.uri), mime_type="text/html", text="<p>page</p>")
        return types.ReadResourceResult(contents=[page])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    server: Server[Any] = Server("app", on_list_tools=list_tools, on_read_resource=read)
    pool.connect("app", server=server, era=era, health_check_interval=0)
    assert pool.connection("app").capabilities.resources is None
    assert pool.read("app", "ui://app/page.html").text == "<p>page</p>"
