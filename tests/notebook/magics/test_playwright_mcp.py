"""Playwright MCP (``@playwright/mcp`` in ``tests/peers``), one of the most used MCP servers, driving
Debian's chromium on a page served from 127.0.0.1, through the magics as a person types them.

What it found: its screenshot tool *requires* ``scale`` and gives it a default (zod's
``.default()``), so ``%mcp call pw.browser_take_screenshot`` was refused before anything was sent;
and its errors carry chromium's call log in terminal colours, which HTML showed as stray ``[2m``.
"""

from __future__ import annotations

import base64
import functools
import html
import http.server
import inspect
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EVERYTHING

from .conftest import bundle, line

PLAYWRIGHT_MCP = EVERYTHING.parents[3] / "@playwright" / "mcp" / "cli.js"
PAGE = """<html><head><title>Local demo</title></head><body><h1>Hello from 127.0.0.1</h1>
<label>Name <input id="name"></label>
<button onclick="document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value">
Greet</button><p id="out"></p></body></html>"""


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """``index.html`` served on 127.0.0.1 (a free port), its URL."""
    (tmp_path / "index.html").write_text(PAGE)
    handler = functools.partial(_Quiet, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def browser(ip, mcp, tmp_path: Path) -> str:
    """Playwright MCP over stdio with chromium headless (no sandbox: the tests may run as root)."""
    chromium = shutil.which("chromium")
    if chromium is None or not PLAYWRIGHT_MCP.exists():
        pytest.fail("needs Debian's chromium and `npm ci --prefix tests/peers` (the README's test command)")
    line(
        ip,
        f"connect pw -- node {PLAYWRIGHT_MCP} --headless --no-sandbox --isolated "
        f"--executable-path {chromium} --output-dir {tmp_path / 'out'}",
    )
    return "pw"


def test_a_person_browses_a_local_page_and_sees_the_screenshot(ip, mcp, browser, site, tmp_path):
    table = line(ip, "status")
    assert table["pw"].state == "connected" and table["pw"].server_name.startswith("Playwright")
    went = line(ip, f"call pw.browser_navigate url={site}")
    assert not went.is_error and "Page Title: Local demo" in went.text
    # "scale" is required and has a default: the person leaves it out, as the server allows
    shot = line(ip, "call pw.browser_take_screenshot")
    assert not shot.is_error, shot.text
    image = next(b for b in shot.content if b.type == "image")
    shown = bundle(ip, shot)
    assert (
        shown["image/png"] == image.data and f'src="data:image/png;base64,{image.data}"' in shown["text/html"]
    )
    assert "scale: 'css'" in shot.text  # the code it ran, with the schema's default
    saved = shot.save(tmp_path / "page.png")  # the person keeps it: the bytes chromium rendered
    assert saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and saved.read_bytes() == base64.b64decode(
        image.data
    )
    listed = line(ip, "tools pw")
    shown = bundle(ip, listed)["text/plain"]
    assert "fullPage, scale " in shown and "scale*" not in shown  # nothing to type: no star
    # the same tool as a Python function: "scale" has its default there too
    screenshot = mcp.pool.functions("pw").short.browser_take_screenshot
    assert "scale: Literal['css', 'device'] = 'css'" in str(inspect.signature(screenshot))
    assert [b.type for b in screenshot(fullPage=True).content] == ["text", "image"]


def test_typing_and_clicking_reach_the_page(ip, mcp, browser, site):
    line(ip, f"call pw.browser_navigate url={site}")
    snapshot = line(ip, "call pw.browser_snapshot").text
    name = _ref(snapshot, "textbox")
    greet = _ref(snapshot, "button")
    typed = line(ip, f'call pw.browser_type target={name} text="Ann Lee" element="Name box"')
    assert not typed.is_error, typed.text
    assert not line(ip, f"call pw.browser_click target={greet} element=Greet").is_error
    said = line(ip, "call pw.browser_evaluate function=\"() => document.getElementById('out').textContent\"")
    assert '"Hi Ann Lee"' in said.text


def test_its_coloured_error_reads_cleanly_in_html(ip, mcp, browser):
    refused = line(ip, "call pw.browser_navigate url=http://127.0.0.1:1/unsafe-port")
    assert refused.is_error and "\x1b[2m" in refused.text  # chromium's call log, in colour
    page = bundle(ip, refused)["text/html"]
    assert "\x1b" not in page and "[2m" not in page and "[22m" not in page
    words = html.unescape(re.sub(r"<[^>]+>", "", page))  # what a person reads
    assert 'navigating to "http://127.0.0.1:1/unsafe-port"' in words
    assert '<a href="http://127.0.0.1:1/unsafe-port" target="_blank"' in page  # its address a link
    assert "ERR_UNSAFE_PORT" in html.unescape(page)


def _ref(snapshot: str, role: str) -> str:
    """The ``[ref=eN]`` of the first element of ``role`` in a Playwright accessibility snapshot."""
    found = re.search(rf"- {role}\b[^\n]*\[ref=(e\d+)\]", snapshot)
    assert found, snapshot
    return found[1]


def test_its_markdown_is_drawn_as_markdown_where_the_person_says_so(ip, mcp, browser, site):
    """Its answers are Markdown (``### Page``, fenced code), which no tool description says:
    ``--markdown`` (the config's ``markdown: true``) draws them so; without it they stay as written."""
    plain = bundle(ip, line(ip, f"call pw.browser_navigate url={site}"))["text/html"]
    assert "### Page" in plain and "<h3>" not in plain
    config = mcp.pool.connection("pw").config
    line(ip, f"connect md --markdown -- {config.command} {' '.join(config.args)}")
    assert mcp.pool.connection("md").config.markdown
    went = line(ip, f"call md.browser_navigate url={site}")
    drawn = bundle(ip, went)["text/html"]
    assert "<h3>Page</h3>" in drawn and "### Page" not in drawn
    assert "<pre>await page.goto(" in drawn  # its fenced code, as code
    assert "### Page" in bundle(ip, went)["text/plain"]  # the terminal gets the source
