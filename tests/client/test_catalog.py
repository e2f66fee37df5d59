"""A tool named in another script: a name typed with its letters decomposed is told so, and a typo in a
two-letter name still gets its "did you mean"."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from conftest import ROOT
from mcp.server.mcpserver import MCPServer

from mcpnb.client.errors import ToolNotFoundError, did_you_mean_text


def i18n_server() -> MCPServer:
    server = MCPServer("i18n")

    @server.tool(name="café")  # composed (NFC), as Python source writes it
    def cafe(q: str) -> str:
        return f"café {q}"

    @server.tool(name="検索")
    def search(q: str) -> str:
        return f"結果: {q}"

    return server


def test_a_tool_name_typed_decomposed_is_told_what_differs(pool):
    """macOS and pasted text give ``e`` + U+0301: it said "has no tool 'café'; did you mean 'café'?",
    two names that print alike. (Nothing is sent: the call would go out with the name typed.)"""
    pool.connect("i18n", server=i18n_server())
    with pytest.raises(
        ToolNotFoundError, match=r"did you mean 'café' \(the same letters, composed: Unicode NFC\)"
    ):
        pool.call("i18n", unicodedata.normalize("NFD", "café"), {"q": "x"})


def test_a_typo_in_a_two_letter_name_is_offered_the_name(pool):
    pool.connect("i18n", server=i18n_server())
    with pytest.raises(ToolNotFoundError, match="has no tool '検策'; did you mean '検索'"):
        pool.call("i18n", "検策", {"q": "x"})


def test_a_name_that_differs_only_in_composition_is_said_so():
    nfd = unicodedata.normalize("NFD", "café")
    assert "(the same letters, composed: Unicode NFC)" in did_you_mean_text(nfd, ["café", "tea"])
    assert did_you_mean_text("ab", ["ax", "zz"]) == "; did you mean 'ax'?"


def test_a_parameter_added_since_the_list_was_cached_is_taken_after_list_changed(pool):
    """The server said its tools changed (list_changed marks the list stale) and a tool took a new
    parameter: a call using it was refused from the old list, "unknown argument", nothing sent.
    A stale list is asked again once before the person is told no; a fresh one is believed."""
    from mcpnb.client.errors import ArgumentsError

    srv = MCPServer("grow", log_level="WARNING")

    def greet(name: str) -> str:
        return f"hello {name}"

    def greet_loudly(name: str, loud: bool = False) -> str:
        return f"hello {name}" + ("!" if loud else "")

    srv.add_tool(greet, name="greet")
    pool.connect("grow", server=srv)
    assert pool.call("grow", "greet", {"name": "a"}).text == "hello a"
    srv.remove_tool("greet")
    srv.add_tool(greet_loudly, name="greet")
    with pytest.raises(ArgumentsError, match="loud"):  # the list is fresh: believed, nothing asked
        pool.call("grow", "greet", {"name": "a", "loud": True})
    pool.connection("grow").catalog.cache.invalidate()  # what notifications/tools/list_changed does
    assert pool.call("grow", "greet", {"name": "a", "loud": True}).text == "hello a!"


CHANGING = str(ROOT / "tests" / "servers" / "changing_list_server.py")


def test_a_list_that_changed_while_it_was_on_its_way_is_not_kept_as_fresh(pool):
    """The server's tools change while a ``tools/list`` is on its way: its ``list_changed`` comes
    before the listing it had already read. That listing is not kept (it was served for
    ``cache_ttl``): the tools are listed again at once, and the log says why."""
    pool.connect("changing", command=sys.executable, args=[CHANGING], cache_ttl=3600)
    names = lambda **kw: [t.name for t in pool.tools("changing", **kw)]  # noqa: E731
    assert "added_2" not in names()
    pool.call("changing", "change_during_next_list")
    assert "added_2" in names(refresh=True)
    assert "added_2" in names() and pool.cached_tool("changing", "added_2") is not None  # fresh
    assert any("changed while they were listed: listed again" in line for line in pool.logs("changing"))
    assert pool.call("changing", "added_2").text == "2"


def test_a_prompt_list_that_changed_while_it_was_on_its_way_is_not_kept_as_fresh(pool):
    """The same for prompts (``prompts/list_changed``)."""
    pool.connect("changing", command=sys.executable, args=[CHANGING], cache_ttl=3600)
    assert [p.name for p in pool.prompts("changing")] == ["prompt_v1"]
    pool.call("changing", "change_during_next_list")
    pool.connection("changing").prompt_cache.invalidate()  # a read that asks the server again
    assert [p.name for p in pool.prompts("changing")] == ["prompt_v1"]  # as it was read
    assert [p.name for p in pool.prompts("changing")] == ["prompt_v2"]


def test_of_two_listings_that_crossed_a_notice_the_one_asked_later_is_kept():
    """Listing A is asked, the server says its list changed, listing B is asked and answered;
    A's answer, arriving last, must not replace B's (it is older)."""
    from mcpnb.client.cache import TTLCache

    cache: TTLCache[list[str]] = TTLCache(3600)
    a = cache.generation
    cache.invalidate()  # list_changed
    b = cache.generation
    cache.put(["new"], fetched_in=b)
    cache.put(["old"], fetched_in=a)
    assert cache.get() == ["new"] and cache.peek() == ["new"]
    cache.clear()  # a new session: any listing is taken again
    cache.put(["again"], fetched_in=cache.generation)
    assert cache.get() == ["again"]
