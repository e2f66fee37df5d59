"""A result's bundle where the notebook is not as mcpnb left it: a frontend that puts an image
entry in the page as markup, a notebook reopened untrusted (its <style> dropped).

Results from the hand-written tests/servers/odd_results_server.py and the SDK's MCPServer.
"""

from __future__ import annotations

import base64
import re
import sys
from pathlib import Path

from mcpnb.notebook.render import result_bundle
from mcpnb.notebook.render.html import STYLE

ODD = str(Path(__file__).resolve().parents[2] / "servers" / "odd_results_server.py")


def test_no_bundle_entry_carries_the_script_of_a_servers_svg(pool):
    pool.connect("odd", command=sys.executable, args=[ODD], tool_timeout=10)
    result = pool.call("odd", "svg_with_script")
    markup = base64.b64decode(result.content[0].data).decode()
    assert "<script>" in markup and "onload=" in markup  # what the server sent

    bundle = result_bundle(result)
    for mime, value in bundle.items():
        assert "<script>alert" not in value and 'onload="alert' not in value, mime
    assert "image/svg+xml" not in bundle
    assert '<img src="data:image/svg+xml;base64,' in bundle["text/html"]  # drawn, through <img>


def _unstyled(html: str) -> str:
    """What a page shows of ``html`` without its <style> (a notebook opened untrusted): the text."""
    return re.sub(r"<[^>]+>", "", re.sub(r"<style>.*?</style>", "", html, flags=re.S))


def test_the_header_reads_apart_without_its_style_and_looks_as_before_with_it(pool):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("raw", log_level="WARNING")

    @server.tool()
    def records() -> list[dict[str, int]]:
        """Two rows."""
        return [{"a": 1}, {"a": 2}]

    pool.connect("raw", server=server)
    html = result_bundle(pool.call("raw", "records"))["text/html"]
    head = re.search(r'<div class="mcpnb-head">.*?</div>', html).group()
    assert re.fullmatch(r"raw\.records · ok · \d+ ms · ✓ outputSchema", _unstyled(head)), _unstyled(head)
    assert head.count('<span class="mcpnb-sep"> · </span>') == 3
    assert ".mcpnb-sep {display: none;}" in STYLE  # styled: the badges' gaps part them, as before


def test_an_svg_resource_is_drawn_through_img_with_no_entry_of_its_own(pool):
    # %mcp read of an SVG gave its markup an image/svg+xml entry of its own, scripts and all
    from mcp.server.mcpserver import MCPServer

    from mcpnb.notebook.render.resource import contents_bundle

    server = MCPServer("pictures")

    @server.resource("file:///logo.svg", mime_type="image/svg+xml")
    def logo() -> bytes:
        return b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'

    pool.connect("pictures", server=server)
    bundle = contents_bundle(pool.read("pictures", "file:///logo.svg"))
    assert "image/svg+xml" not in bundle
    assert "alert" not in bundle["text/html"]  # the markup only inside <img>'s base64
    assert 'src="data:image/svg+xml;base64,' in bundle["text/html"]
