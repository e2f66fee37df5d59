"""What a big server puts into a saved notebook: listings cut at ``listing_limit`` rows (10 000
resources added 2.2 MB per run) with where the rest are, ``%config Mcp.listing_limit`` for every
listing, and a big image stored once (a 5 MB one was in the cell twice)."""

from __future__ import annotations

import base64
import random
import struct
import zlib
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image

from mcpnb.client.toolinfo import ToolInfo, ToolList
from mcpnb.notebook.magics.listings import PromptList, ResourceList
from mcpnb.notebook.render import result_bundle
from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.render.tool_list import tools_bundle
from mcpnb.notebook.settings import get_settings


@pytest.fixture
def limits() -> Any:
    """The settings, put back as they were after the test."""
    settings = get_settings()
    before = settings.display_limit, settings.listing_limit
    yield settings
    settings.display_limit, settings.listing_limit = before


def _resources(n: int) -> ResourceList:
    return ResourceList([("s", {"uri": f"file:///r/{i}", "name": f"r{i}"}) for i in range(n)])


def test_resources_are_drawn_up_to_the_listing_limit_and_say_where_the_rest_are(limits):
    listing = _resources(DEFAULTS.listing_limit + 300)
    bundle = listing._repr_mimebundle_()
    hint = (
        "… 300 more resources (.df has them all (r = %mcp resources …, then r.df); "
        f"%config Mcp.listing_limit = {len(listing)} draws every row)"
    )
    assert hint in bundle["text/plain"]
    assert bundle["text/plain"].count("file:///r/") == DEFAULTS.listing_limit
    assert bundle["text/html"].count("<tr>") == DEFAULTS.listing_limit + 1  # and the head
    assert "… 300 more resources" in bundle["text/html"]
    assert len(listing) == DEFAULTS.listing_limit + 300  # the list keeps every one
    small = _resources(3)._repr_mimebundle_()
    assert "more" not in small["text/plain"] and small["text/html"].count("<tr>") == 4


def test_listing_limit_is_a_setting_every_listing_obeys(limits):
    limits.listing_limit = 5  # %config Mcp.listing_limit = 5
    assert DEFAULTS.listing_limit == 5
    tools = ToolList([ToolInfo(server="s", name=f"t{i}", description="Does.") for i in range(12)])
    bundle = tools_bundle(tools)
    assert bundle["text/html"].count("<tr>") == 6
    said = (
        "… 7 more tools (.df has them all (r = %mcp tools …, then r.df); "
        "%config Mcp.listing_limit = 12 draws every row)"
    )
    assert said in bundle["text/plain"] and said in bundle["text/html"]
    prompts = PromptList([("s", {"name": f"p{i}"}) for i in range(9)])
    assert "… 4 more prompts" in repr(prompts)
    limits.display_limit = 3  # a result's tables: not the listings
    assert DEFAULTS.listing_limit == 5 and DEFAULTS.display_limit == 3


def _png(nbytes: int) -> bytes:
    """A valid PNG of about ``nbytes`` (noise, stored uncompressed)."""
    side = max(1, int((nbytes / 3) ** 0.5))
    rng = random.Random(1)
    raw = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(raw, 0))
        + chunk(b"IEND", b"")
    )


def test_a_big_image_is_stored_once_and_a_small_one_as_before(pool):
    srv = MCPServer("img")
    big, small = _png(600_000), _png(2000)  # past BUNDLE_IMAGE_LIMIT (256 KiB), and far under

    @srv.tool()
    def picture(large: bool) -> Image:
        """A PNG."""
        return Image(data=big if large else small, format="png")

    pool.connect("img", server=srv)
    data = base64.b64encode(big).decode()
    bundle = result_bundle(pool.call("img", "picture", {"large": True}))
    stored = sum(value.count(data) for value in bundle.values() if isinstance(value, str))
    assert stored == 1 and "image/png" not in bundle  # drawn by the HTML, which frontends prefer
    assert f'<img src="data:image/png;base64,{data}"' in bundle["text/html"]
    bundle = result_bundle(pool.call("img", "picture", {"large": False}))
    assert bundle["image/png"] == base64.b64encode(small).decode()  # small: both, as before
    assert "data:image/png;base64," in bundle["text/html"]
