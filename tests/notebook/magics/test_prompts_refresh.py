"""``%mcp prompts --refresh`` asks the server again, as ``%mcp tools NAME --refresh`` does: a server
that says nothing when it adds a prompt (FastMCP on 2026-07-28 declares no ``listChanged``) had its
new prompt left out of ``%mcp prompts`` for the cache's 5 minutes, and ``--refresh`` was refused as
an unknown option."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from tests.client.writer import writer

from .conftest import bundle, line


def test_prompts_refresh_lists_a_prompt_the_cached_list_lacks(ip, mcp):
    mcp.pool.connect("fm", server=writer(), era="modern")
    assert [p.name for p in line(ip, "prompts fm")] == ["draft"]  # the list, now cached
    assert mcp.pool.call("fm", "add_prompt", {"name": "fresh"}).text == "added fresh"
    assert [p.name for p in line(ip, "prompts fm")] == ["draft"]  # the server did not say
    assert [p.name for p in line(ip, "prompts fm --refresh")] == ["draft", "fresh"]
    mcp.pool.call("fm", "add_prompt", {"name": "later"})
    assert "later" in [p.name for p in line(ip, "prompts --refresh")]  # every server's, asked again
    mcp.pool.call("fm", "add_prompt", {"name": "card"})
    shown = bundle(ip, line(ip, "prompts fm.card"))["text/plain"]  # not in the cached list: asked again
    assert shown.startswith("fm.card") and "Added while connected." in shown
    mcp.pool.call("fm", "add_prompt", {"name": "other"})
    shown = bundle(ip, line(ip, "prompts fm.other --refresh"))["text/plain"]
    assert shown.startswith("fm.other")
    with pytest.raises(UsageError, match="has no prompt 'cardd'; did you mean 'card'"):
        line(ip, "prompts fm.cardd")


def test_the_pool_asks_again_when_told(pool):
    pool.connect("fm", server=writer(), era="modern")
    assert [p.name for p in pool.prompts("fm")] == ["draft"]
    pool.call("fm", "add_prompt", {"name": "fresh"})
    assert [p.name for p in pool.prompts("fm")] == ["draft"]
    assert [p.name for p in pool.prompts("fm", refresh=True)] == ["draft", "fresh"]
