"""probe-kit's MCP App through the SDK's own client: ``dice`` and its page, ``dice_history`` for the
page only. Their metadata is checked against the MCP Apps project's schema; the page itself runs in
JupyterLab in ``tests/browser/test_apps_in_jupyterlab.py``."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.server import create_server
from mcpnb.probekit.tools.apps import PAGE_TYPE, PAGE_URI
from tests.apps_schema import problems

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_dice_has_a_page_and_its_history_is_for_the_page_only(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        rolled = [await client.call_tool("dice", {"count": 3, "sides": 4}) for _ in range(2)]
        history = await client.call_tool("dice_history", {})
        page = (await client.read_resource(PAGE_URI)).contents[0]
    assert tools["dice"].meta == {"ui": {"resourceUri": PAGE_URI}}
    assert tools["dice_history"].meta == {"ui": {"resourceUri": PAGE_URI, "visibility": ["app"]}}
    for tool in ("dice", "dice_history"):
        assert problems("McpUiToolMeta", tools[tool].meta["ui"]) == []
    for result in rolled:
        data = result.structured_content
        assert len(data["rolls"]) == 3 and all(1 <= r <= 4 for r in data["rolls"]) and data["sides"] == 4
        assert data["total"] == sum(data["rolls"]) and result.content[0].text.endswith(
            f"= {data['total']} (3d4)"
        )
    assert history.structured_content == {"totals": [r.structured_content["total"] for r in rolled]}
    assert page.mime_type == PAGE_TYPE and page.text.startswith("<!DOCTYPE html>")
    assert problems("McpUiResourceMeta", page.meta["ui"]) == []


async def test_out_of_range_dice_are_refused_and_the_page_comes_with_its_tools_only(project: Any) -> None:
    async with Client(create_server(root=project, toolset="apps")) as client:
        bad = await client.call_tool("dice", {"count": 13})
        listed = [r.uri for r in (await client.list_resources()).resources]
    assert bad.is_error and "count" in bad.content[0].text
    assert PAGE_URI in listed
    async with Client(create_server(root=project, toolset="core")) as client:
        assert PAGE_URI not in [r.uri for r in (await client.list_resources()).resources]
