"""A tool named in another script: a name typed with its letters decomposed is told so, and a typo in a
two-letter name still gets its "did you mean"."""

from __future__ import annotations

import unicodedata

import pytest
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
