"""What every call does, done more cheaply, still says the same (issue 13: the pool's own code on
each call was measured and trimmed; see bench/).

A result's warnings are read without walking its text blocks or raising inside pydantic, and a
call's ``timeout=`` is checked without importing the config module each time: these pin that the
fast ways find what the full ones found, on a real in-process server and on the SDK's own types.
"""

from __future__ import annotations

import math
import types
from decimal import Decimal

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ImageContent, TextContent

from mcpnb.client.results import REPAIRED, ToolResult
from mcpnb.client.timeouts import checked_timeout

NOT_BASE64 = "its data is not valid base64"


def media_server() -> MCPServer:
    server = MCPServer("media")

    @server.tool()
    def words() -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text="a"), TextContent(type="text", text="b")]
        )

    @server.tool()
    def broken_picture() -> CallToolResult:
        return CallToolResult(
            content=[
                TextContent(type="text", text="before"),
                ImageContent(type="image", data="%%%", mime_type="image/png"),
            ]
        )

    return server


def test_a_bad_image_after_text_is_still_said_and_text_alone_says_nothing(pool):
    pool.connect("media", server=media_server())

    assert pool.call("media", "words").warnings == []
    warned = pool.call("media", "broken_picture").warnings
    assert warned == [f"content[1] (image image/png): {NOT_BASE64}"]


def from_sdk(result: object) -> ToolResult:
    return ToolResult.from_sdk("s", "t", result, elapsed=0.0, output_schema=None)


def test_what_lean_repaired_is_a_warning_on_any_kind_of_result():
    model = CallToolResult(content=[TextContent(type="text", text="x")])
    setattr(model, REPAIRED, ["a block was repaired"])
    assert from_sdk(model).warnings == ["a block was repaired"]
    assert from_sdk(CallToolResult(content=[])).warnings == []

    plain = types.SimpleNamespace(content=[], structured_content=None, is_error=False, meta=None)
    assert from_sdk(plain).warnings == []
    setattr(plain, REPAIRED, ["said on a plain object"])
    assert from_sdk(plain).warnings == ["said on a plain object"]

    class Slotted:  # no __dict__: what it says is read as an attribute
        __slots__ = ("content", "is_error", "meta", "structured_content")
        _mcpnb_repaired = ("said on the class",)

        def __init__(self) -> None:
            self.content, self.is_error, self.meta, self.structured_content = [], False, None, None

    assert REPAIRED == "_mcpnb_repaired"
    assert from_sdk(Slotted()).warnings == ["said on the class"]


def test_a_block_given_as_a_dict_is_still_checked():
    result = types.SimpleNamespace(
        content=[{"type": "image", "data": "%%%", "mimeType": "image/png"}],
        structured_content=None,
        is_error=False,
        meta=None,
    )
    assert from_sdk(result).warnings == [f"content[0] (image image/png): {NOT_BASE64}"]


@pytest.mark.parametrize(("given", "seconds"), [(30, 30.0), (0.25, 0.25), (86400, 86400.0), (None, None)])
def test_a_good_timeout_is_seconds_as_a_float(given, seconds):
    checked = checked_timeout(given)
    assert checked == seconds and type(checked) is type(seconds)


@pytest.mark.parametrize(
    ("given", "error", "words"),
    [
        (0, ValueError, "must be greater than 0"),
        (-1.5, ValueError, "must be greater than 0"),
        (math.nan, ValueError, "got nan"),
        (math.inf, ValueError, "must be at most 86400"),
        (86400.5, ValueError, "must be at most 86400"),
        (True, TypeError, "expected a number of seconds"),
        ("30", TypeError, "expected a number of seconds"),
    ],
)
def test_a_bad_timeout_is_refused_as_before(given, error, words):
    with pytest.raises(error, match=words):
        checked_timeout(given)


def test_numbers_of_other_kinds_are_still_read():
    assert checked_timeout(Decimal("1.5")) == 1.5
    np = pytest.importorskip("numpy")
    assert checked_timeout(np.float64(2.0)) == 2.0 and checked_timeout(np.int64(3)) == 3.0
