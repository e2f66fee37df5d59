"""``notifications/resources/updated`` for a sub-resource of a watched URI reaches its watcher.

The schema's ``ResourceUpdatedNotification.uri``: "This might be a sub-resource of the one that the
client actually subscribed to." A watcher of ``file:///a/b`` hears of ``file:///a/b/c`` (with that
URI), never of ``file:///a/bc``. The server is the SDK's low-level ``Server`` in process (2025-11-25:
``resources/subscribe``), whose tool ``touch`` sends the notification for the URI it is given.
"""

from __future__ import annotations

import threading
from typing import Any

from mcp import types
from mcp.server import Server

from mcpnb import Pool


def folder_server() -> Server[Any]:
    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(uri="file:///a/b", name="b")])

    async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        return types.EmptyResult()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}
        return types.ListToolsResult(tools=[types.Tool(name="touch", input_schema=schema)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        uri = (params.arguments or {})["uri"]
        await ctx.session.send_resource_updated(uri)
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"touched {uri}")])

    return Server(
        "folder",
        version="1.0",
        on_list_resources=list_resources,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=subscribe,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def test_a_watcher_hears_of_a_sub_resource_and_not_of_a_sibling_by_name(pool: Pool) -> None:
    pool.connect("folder", server=folder_server(), era="legacy", health_check_interval=0)
    heard: list[str] = []
    marker = threading.Event()

    def watcher(uri: str) -> None:
        heard.append(uri)
        if uri.endswith("/done"):
            marker.set()

    stop = pool.watch("folder", "file:///a/b", watcher)
    other: list[str] = []
    pool.watch("folder", "file:///a/b/c/d", other.append)  # watched below: not told of c
    for uri in ("file:///a/b/c", "file:///a/bc", "file:///a/b", "file:///x/b/c"):
        pool.call("folder", "touch", {"uri": uri})
    pool.call("folder", "touch", {"uri": "file:///a/b/c/d/done"})  # notifications keep their order
    assert marker.wait(10), heard
    assert heard == ["file:///a/b/c", "file:///a/b", "file:///a/b/c/d/done"]
    assert other == ["file:///a/b/c/d/done"]
    stop()
