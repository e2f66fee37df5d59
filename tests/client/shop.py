"""A shop whose cart has a page (MCP Apps), served in-process by the SDK's ``MCPServer``.

Shared by ``test_apps.py`` (the page, its policy, which tools a model gets) and ``test_app_host.py``
(what the host answers the page; their ``host_of`` fixture is in ``conftest.py``): the MCP Apps
example server has no tool for these cases (visibility, policies, blobs)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from mcpnb.client.apps import PAGE_TYPE

SHOP_PAGE = "ui://shop/cart.html"


def shop() -> MCPServer:
    server = MCPServer("shop", log_level="WARNING")

    @server.tool(meta={"ui": {"resourceUri": SHOP_PAGE}})
    def cart(item: str = "tea") -> dict[str, list[str]]:
        """The cart, drawn by its page."""
        return {"items": [item]}

    @server.tool(meta={"ui": {"resourceUri": SHOP_PAGE, "visibility": ["app"]}})
    def refresh() -> dict[str, list[str]]:
        """Only the page calls this."""
        return {"items": ["tea", "cake"]}

    @server.tool(meta={"ui": {"visibility": ["model"]}})
    def checkout() -> str:
        return "paid"

    @server.tool(meta={"ui": {"resourceUri": SHOP_PAGE, "visibility": ["app"]}})
    def sign_in(user: str, password: str) -> str:
        return f"welcome {user}"

    @server.tool()
    def extensions(ctx: Context) -> dict[str, Any]:
        """What the client said it supports, as the server sees it."""
        return {"extensions": ctx.session.client_params.capabilities.extensions or {}}

    @server.resource(
        SHOP_PAGE,
        mime_type=PAGE_TYPE,
        meta={
            "ui": {
                "csp": {
                    "connectDomains": ["https://api.example.com", "https://x.example; script-src *"],
                    "resourceDomains": ["https://*.cdn.example", "https://api.example.com"],
                    "scriptDomains": ["https://evil.example"],
                },
                "prefersBorder": False,
            }
        },
    )
    def page() -> str:
        return "<!doctype html><html><HEAD lang='en'><title>cart</title></HEAD><body>cart</body></html>"

    @server.resource("ui://shop/blob.html", mime_type=PAGE_TYPE)
    def blob_page() -> bytes:
        return "<p>from a blob, é</p>".encode()

    @server.resource("ui://shop/plain.html", mime_type="text/html")
    def plain_page() -> str:
        return "<p>not an app</p>"

    return server
