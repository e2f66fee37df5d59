"""pool.cached_tool: a tool from the fresh cache without a round trip, and never a stale or hidden one."""

from __future__ import annotations

from conftest import demo_server_object


def test_cached_tool_only_answers_from_a_fresh_visible_cache(pool):
    pool.connect("demo", server=demo_server_object(), disabled_tools=["slow"])
    conn = pool.connection("demo")
    conn.tool_cache.clear()
    assert pool.cached_tool("demo", "add") is None  # nothing listed yet: the caller must ask
    pool.tools("demo")
    tool = pool.cached_tool("demo", "add")
    assert tool is not None and tool.name == "add" and "a" in tool.parameters
    assert pool.cached_tool("demo", "slow") is None  # filtered out: hidden here too
    assert pool.cached_tool("demo", "nope") is None
    assert pool.cached_tool("ghost", "add") is None
    conn.tool_cache.invalidate()  # what list_changed does
    assert pool.cached_tool("demo", "add") is None
