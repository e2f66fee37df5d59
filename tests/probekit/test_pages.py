"""probe-kit's page server: published pages only, on 127.0.0.1, as text, until it stops."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from mcpnb.probekit.pages import PageServer


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, "", ""


def test_a_published_page_is_served_on_loopback_as_text(tmp_path):
    page = tmp_path / "hello world.md"
    page.write_text("# Hello <script>alert(1)</script>\n")
    other = tmp_path / "secret.txt"
    other.write_text("not for you")
    pages = PageServer()
    try:
        url = pages.publish(page)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/hello%20world.md")
        assert pages.publish(page) == url  # the same file keeps its link (a retry finds it again)
        status, kind, body = _get(url)
        assert status == 200 and kind.startswith("text/html")
        assert "&lt;script&gt;alert(1)" in body and "<script>" not in body  # shown, never run
        base = url.rsplit("/", 2)[0]
        token = url.rsplit("/", 2)[1]
        assert _get(f"{base}/{token}/secret.txt")[0] == 404  # never published
        assert _get(f"{base}/secret.txt")[0] == 404
        assert _get(f"{base}/{token}/../secret.txt")[0] == 404
    finally:
        pages.stop()
    assert not pages.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)
