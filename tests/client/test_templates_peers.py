"""A URI a resource template makes is taken as the server's, whatever RFC 6570 expression made it:
one whose ``{?q}`` or ``{#frag}`` was left out (an undefined variable expands to nothing) is no typo."""

from __future__ import annotations

from typing import Any


def finder() -> Any:
    import fastmcp

    srv = fastmcp.FastMCP("finder")

    @srv.resource("find://items{?q,lang}")
    def items(q: str = "", lang: str = "") -> str:
        return f"q={q} lang={lang}"

    @srv.resource("doc://{id}")
    def doc(id: str) -> str:
        return f"doc {id}"

    return srv


def test_a_query_template_s_uri_without_its_query_is_no_typo(pool):
    pool.connect("find", server=finder())
    assert pool.read("find", "find://items").text == "q= lang="  # the server takes it
    assert pool.unlisted_resource("find", "find://items") is None  # was "" (not listed, no match)
    assert pool.unlisted_resource("find", "find://items?q=a%20b&lang=fr") is None
    assert pool.unlisted_resource("find", "doc://7") is None
    assert pool.unlisted_resource("find", "doc://") == ""  # {id} is no operator: it needs a value
    assert pool.unlisted_resource("find", "nope://items") == ""
