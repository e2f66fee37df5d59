"""Tab and a call's tool lookup read the lists a server already gave: a keypress or a ``%mcp call``
that listed a server of 5000 tools again took seconds (in-process too: listing is about a
millisecond a tool), and Tab after ``%mcp read NAME `` asked every page of 10 000 resources."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from conftest import DEMO, demo_server_object
from IPython.core.error import UsageError
from mcp.server.mcpserver import MCPServer

from mcpnb.notebook.magics import completion

from .conftest import complete, line


def fetches(pool: Any, server: str) -> int:
    """How many times ``server``'s whole ``tools/list`` was asked for (the catalog says each)."""
    said = [e.message for e in pool.connection(server).events.history if e.kind == "cache"]
    return sum(m.startswith("tools/list fetched from the server") for m in said)


def test_tab_lists_no_server_again_in_process_or_stale(ip, mcp, monkeypatch):
    monkeypatch.setattr(completion, "INPROCESS_RELIST", 3600)  # however slow this machine is today
    mcp.pool.connect("inproc", server=demo_server_object())
    line(ip, f"connect other -- {sys.executable} {DEMO} stdio")
    mcp.pool.connection("other").tool_cache.invalidate()  # what list_changed does
    before = {s: fetches(mcp.pool, s) for s in ("inproc", "other")}
    for _ in range(3):
        assert set(complete(ip, "%mcp call inproc.ad")) == {"inproc.add", "inproc.add_tool"}
        assert complete(ip, "%mcp call inproc.add ") == ["a=", "b="]
        assert complete(ip, "%mcp call other.ech") == ["other.echo"]  # the stale list: still its tools
        assert complete(ip, "%mcp call other.add a=1 ") == ["b="]
        assert "other.echo" in complete(ip, "%mcp call ")
        assert complete(ip, "%mcp tools inproc.ech") == ["inproc.echo"]
    assert {s: fetches(mcp.pool, s) for s in ("inproc", "other")} == before


def test_tab_names_only_the_server_the_line_names(ip, mcp):
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    mcp.pool.connect("never", server=demo_server_object())
    mcp.pool.connection("never").tool_cache.clear()  # never listed: Tab would have to ask it
    before = fetches(mcp.pool, "never")
    assert complete(ip, "%mcp call demo.ech") == ["demo.echo"]
    assert fetches(mcp.pool, "never") == before
    assert complete(ip, "%mcp call never.ech") == ["never.echo"]  # asked once, then kept
    assert complete(ip, "%mcp call never.ech") == ["never.echo"]
    assert fetches(mcp.pool, "never") == before + 1


def test_a_call_after_list_changed_sends_no_tools_list_first(ip, mcp):
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    mcp.pool.connection("demo").tool_cache.invalidate()  # list_changed, or the TTL ran out
    before = fetches(mcp.pool, "demo")
    assert line(ip, "call demo.add a=1 b=2").data == 3
    assert fetches(mcp.pool, "demo") == before  # as pool.call: the stale entry is good enough
    with pytest.raises(UsageError) as said:  # a name the list lacks: asked again, then a hint
        line(ip, "call demo.ad a=1")
    assert fetches(mcp.pool, "demo") == before + 1
    assert str(said.value).startswith("server 'demo' has no tool 'ad'; did you mean 'add'?")


def test_a_tool_added_to_an_in_process_server_is_found_by_call_and_listed(ip, mcp):
    srv = demo_server_object()
    mcp.pool.connect("inproc", server=srv)

    @srv.tool()
    def added(x: int) -> int:
        """A tool added after the connect (no list_changed is sent)."""
        return x * 2

    before = fetches(mcp.pool, "inproc")
    assert line(ip, "call inproc.add a=1 b=2").data == 3
    assert fetches(mcp.pool, "inproc") == before  # a known tool: no listing before the call
    assert line(ip, "call inproc.added x=4").data == 8  # unknown to the list: asked again
    assert "added" in [t.name for t in line(ip, "tools inproc")]


def test_a_tool_added_to_an_in_process_server_shows_on_tab(ip, mcp, monkeypatch):
    """No list_changed says so: a Tab lists a small in-process server again once its list is a few
    seconds old, and a named tool its list lacks is looked for at once."""
    srv = demo_server_object()
    mcp.pool.connect("inproc", server=srv)
    assert "inproc.added" not in complete(ip, "%mcp call inproc.")

    @srv.tool()
    def added(x: int) -> int:
        return x * 2

    assert complete(ip, "%mcp call inproc.added ") == ["x="]  # named: looked for at once
    srv.remove_tool("added")
    assert "inproc.added" in complete(ip, "%mcp call inproc.")  # as last listed: a moment ago
    monkeypatch.setattr(completion, "INPROCESS_RELIST", 0)  # a few seconds later
    assert "inproc.added" not in complete(ip, "%mcp call inproc.")


def test_a_filtered_tool_is_refused_by_name(ip, mcp):
    mcp.pool.connect("demo", server=demo_server_object(), disabled_tools=["echo"])
    with pytest.raises(UsageError) as said:
        line(ip, "call demo.echo text=hi")
    assert "filtered out" in str(said.value) and "nothing was sent" in str(said.value)


class _Counted(MCPServer):
    """Counts each ``resources/list`` it answers."""

    listed = 0

    async def _handle_list_resources(self, ctx: Any, params: Any) -> Any:  # type: ignore[override]
        type(self).listed += 1
        return await super()._handle_list_resources(ctx, params)


def _resource_server() -> MCPServer:
    _Counted.listed = 0
    srv = _Counted("res")

    @srv.resource("note://alpha", name="alpha")
    def alpha() -> str:
        return "alpha"

    @srv.resource("note://beta", name="beta")
    def beta() -> str:
        return "beta"

    return srv


def test_tab_after_read_lists_the_resources_once(ip, mcp):
    mcp.pool.connect("res", server=_resource_server())
    assert complete(ip, "%mcp read res note://a") == ["note://alpha"]
    assert complete(ip, "%mcp read res note://b") == ["note://beta"]
    assert complete(ip, "%mcp read res ") == ["note://alpha", "note://beta"]
    assert _Counted.listed == 1


def test_a_resources_listing_feeds_tab(ip, mcp):
    mcp.pool.connect("res", server=_resource_server())
    assert len(line(ip, "resources res")) == 2
    assert _Counted.listed == 1
    assert complete(ip, "%mcp read res note://a") == ["note://alpha"]
    assert _Counted.listed == 1


def test_a_parameter_added_since_list_changed_is_taken_by_the_magic_too(ip, mcp):
    """As ``pool.call`` (tests/client/test_catalog.py): a stale list is asked again once before
    ``%mcp call`` says "unknown argument"; a fresh one is believed."""
    srv = MCPServer("grow", log_level="WARNING")

    def greet(name: str, loud: bool = False) -> str:
        return f"hello {name}" + ("!" if loud else "")

    srv.add_tool(lambda name: f"hello {name}", name="greet")
    mcp.pool.connect("grow", server=srv)
    assert line(ip, "call grow.greet name=a").text == "hello a"
    srv.remove_tool("greet")
    srv.add_tool(greet, name="greet")
    with pytest.raises(UsageError, match="loud"):
        line(ip, "call grow.greet name=a loud=true")
    mcp.pool.connection("grow").catalog.cache.invalidate()  # what notifications/tools/list_changed does
    assert line(ip, "call grow.greet name=a loud=true").text == "hello a!"
