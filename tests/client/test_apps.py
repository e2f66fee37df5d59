"""MCP Apps, the page's side without a browser: which tools have a page and which a model gets,
the page as its server sends it, and the policy it runs under.

The servers are real: the SDK's ``MCPServer`` in-process (``shop.py``) in both protocol eras. What
the host answers a page is in ``test_app_host.py``.
"""

from __future__ import annotations

import base64

import pytest

from mcpnb.client.apps import EXTENSION, PAGE_TYPE, STORAGE_STAND_IN, AppPage, for_model, page_from
from tests.client.shop import shop


def test_the_server_sees_the_extension_in_both_eras(host_of):
    for era in ("modern", "legacy"):
        host_of.pool.connect(f"shop-{era}", server=shop(), era=era)
        said = host_of.pool.call(f"shop-{era}", "extensions").data["extensions"]
        assert said == {EXTENSION: {"mimeTypes": [PAGE_TYPE]}}, era


def test_a_toolbox_offers_a_model_no_tool_kept_for_pages(host_of):
    host_of.pool.connect("shop", server=shop())
    tools = host_of.pool.functions("shop")
    assert sorted(tools) == ["mcp__shop__cart", "mcp__shop__checkout", "mcp__shop__extensions"]  # no sign_in
    assert [s["name"] for s in tools.specs("anthropic")] == sorted(tools)
    assert tools.pages_only == ["shop.refresh", "shop.sign_in"]
    assert repr(tools).endswith(
        "kept for their servers' pages (MCP Apps), never a model's: shop.refresh, shop.sign_in"
    )
    assert not for_model(next(t for t in host_of.pool.tools("shop") if t.name == "refresh"))


def test_the_pages_policy_opens_only_declared_origins(host_of):
    host_of.pool.connect("shop", server=shop())
    page = host_of("shop", "cart").page
    assert page.csp == {
        "connectDomains": ["https://api.example.com"],
        "resourceDomains": ["https://*.cdn.example", "https://api.example.com"],
    }
    assert page.refused == (
        "connectDomains: 'https://x.example; script-src *'",
        "scriptDomains (not a field of the extension's csp)",
    )
    assert page.reaches == ["https://api.example.com", "https://*.cdn.example"]  # each once
    assert "connect-src https://api.example.com;" in page.policy
    assert (
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: https://*.cdn.example https://api"
        in page.policy
    )
    assert "x.example" not in page.policy and "evil" not in page.policy and page.prefers_border is False
    # the policy goes first, right after the page's doctype, whatever its case
    assert page.document.startswith('<!doctype html><meta http-equiv="Content-Security-Policy"')
    assert page.document.endswith("<html><HEAD lang='en'><title>cart</title></HEAD><body>cart</body></html>")


def test_a_page_as_a_blob_and_a_resource_that_is_no_page(host_of):
    pool = host_of.pool
    pool.connect("shop", server=shop())
    blob = page_from("shop", "ui://shop/blob.html", list(pool.read("shop", "ui://shop/blob.html")))
    assert blob.html == "<p>from a blob, é</p>" and blob.document.startswith("<meta http-equiv=")
    with pytest.raises(
        ValueError, match=r"^ui://shop/plain.html is not an MCP App page: its server sent text/html, not "
    ):
        page_from("shop", "ui://shop/plain.html", list(pool.read("shop", "ui://shop/plain.html")))
    bad = [{"uri": "ui://x", "mimeType": PAGE_TYPE, "blob": base64.b64encode(b"\xff\xfe").decode()}]
    with pytest.raises(ValueError, match=r"^ui://x: its blob is not base64 of UTF-8 HTML"):
        page_from("x", "ui://x", bad)


def _page(html: str) -> AppPage:
    return page_from("x", "ui://x", [{"uri": "ui://x", "mimeType": PAGE_TYPE, "text": html}])


def test_the_policy_comes_before_anything_the_page_wrote_but_its_doctype():
    """The policy is never put after the first text that reads ``<head``: that may sit in a comment
    (the tag would be inside it, never applied) or after a script of the page's, which would run
    unrestricted first. Firefox and Safari have only this tag (the frame's ``csp`` attribute is
    Chromium's); the browser test loads such a page in a frame without it."""
    policy = '<meta http-equiv="Content-Security-Policy"'
    tricks = [
        "<!-- a page whose first comment says <head> --><!DOCTYPE html><html><head></head></html>",
        "<script>fetch('http://127.0.0.1:9/')</script><html><head><title>t</title></head></html>",
        "<html><body><p>no head at all</p></body></html>",
        "<HEAD data-x='>'><script>1</script></HEAD>",
        "",
    ]
    for html in tricks:
        document = _page(html).document
        assert document.startswith(policy) and document.count(policy) == 1, html
        assert document.index(STORAGE_STAND_IN) == document.index(">", len(policy)) + 1
        assert document.endswith(html)
    for doctype in ("<!DOCTYPE html>", "\ufeff <!doctype HTML SYSTEM 'about:legacy-compat'>"):
        document = _page(doctype + "<!-- <head> --><script>x</script>").document
        assert document.startswith(doctype + policy), doctype  # the doctype first: no quirks mode
    # a doctype that is not first is the page's text like any other: the policy goes before it
    assert _page("<p>hi</p><!doctype html>").document.startswith(policy)
