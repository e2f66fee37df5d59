"""What an HTTP error page says, in one line (``transports.html_text``); the peer test in
test_peers.py checks it on server-everything's own 404 page."""

from __future__ import annotations

from mcpnb.client.transports import html_text

NGINX_404 = (
    "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
    "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>"
)


def test_nginx_page_says_its_heading():
    assert html_text(NGINX_404) == "404 Not Found"


def test_entities_and_inner_tags_become_text():
    page = "<!DOCTYPE html><html><body><pre>Cannot GET /a?b=1&amp;c=<b>2</b></pre></body></html>"
    assert html_text(page) == "Cannot GET /a?b=1&c= 2"


def test_a_page_without_heading_gives_its_words():
    assert html_text("<html><body><p>Gateway  <i>timeout</i></p></body></html>") == "Gateway timeout"
