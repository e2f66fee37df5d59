"""A FastMCP 4 server whose lists come in pages of 3 (``list_page_size``): 7 tools, 7 resources,
4 resource templates and 5 prompts, so a client that reads only the first page of a list shows too
few. An implementation of pagination we did not write; it never imports mcpnb. Runs in the FastMCP
virtual environment (``tests/peers/fastmcp_venv.py`` builds it), over stdio, or over HTTP at a path::

    python fastmcp_catalog_server.py
    python fastmcp_catalog_server.py sse 8123 /events
"""

from __future__ import annotations

from fastmcp import FastMCP

PAGE = 3
mcp = FastMCP("catalog-peer", list_page_size=PAGE)


def _tool(i: int) -> None:
    def tool() -> str:
        return f"tool {i}"

    mcp.tool(tool, name=f"tool_{i}", description=f"Tool number {i}")


def _resource(i: int) -> None:
    def read() -> str:
        return f"item {i}"

    mcp.resource(f"catalog://item/{i}", name=f"item_{i}")(read)


def _template(i: int) -> None:
    def read(key: str) -> str:
        return f"shelf {i}, key {key}"

    mcp.resource(f"catalog://shelf{i}/{{key}}", name=f"shelf_{i}")(read)


def _prompt(i: int) -> None:
    def prompt(topic: str) -> str:
        return f"Prompt {i} about {topic}"

    mcp.prompt(prompt, name=f"prompt_{i}")


for number in range(7):
    _tool(number)
    _resource(number)
for number in range(4):
    _template(number)
for number in range(5):
    _prompt(number)


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 4:  # TRANSPORT PORT PATH: over HTTP on 127.0.0.1, at that path
        mcp.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]), path=sys.argv[3], show_banner=False)
    else:
        mcp.run(show_banner=False)
