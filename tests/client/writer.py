"""A writer's FastMCP server, in process: one prompt, and a tool that adds prompts while connected.

FastMCP on a 2026-07-28 connection declares no ``prompts.listChanged``, so a prompt it adds is
never announced: shared by ``test_prompts_added.py`` (``pool.prompt`` of it) and
``notebook/magics/test_prompts_refresh.py`` (``%mcp prompts --refresh``)."""

from __future__ import annotations

from typing import Any


def writer() -> Any:
    import fastmcp

    srv = fastmcp.FastMCP("writer")

    @srv.prompt
    def draft(topic: str) -> str:
        """A first draft."""
        return f"Write a draft about {topic}."

    @srv.tool
    def add_prompt(name: str) -> str:
        """Keep a new prompt template on the server."""

        def made(topic: str, tone: str = "plain") -> str:
            """Added while connected."""
            return f"[{name}] {topic} in a {tone} tone"

        srv.prompt(name=name)(made)
        return f"added {name}"

    return srv
