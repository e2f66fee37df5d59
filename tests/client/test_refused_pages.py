"""A 403 from something in front of the server (a firewall's "Access denied" page, a VPN's notice):
the error quotes the page's own words and, where nothing was sent, does not blame credentials."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from mcpnb.client.errors import ConnectError

PAGE = (
    b"<!DOCTYPE html><html><head><title>Access denied | Example WAF</title></head>"
    b"<body><p>Your request was blocked. Ray ID 8a1b2c.</p></body></html>"
)


class _Firewall(http.server.BaseHTTPRequestHandler):
    """Every request refused with the firewall's page, whatever it carries (``status``: 403)."""

    status = 403

    def _refuse(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(self.status)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    do_GET = do_POST = do_DELETE = _refuse

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def firewall() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Firewall)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_firewall_page_to_no_credentials_is_quoted_and_no_credentials_are_blamed(pool, firewall, transport):
    with pytest.raises(ConnectError) as info:
        pool.connect("corp", url=firewall, transport=transport, max_retries=0)
    said = str(info.value)
    assert f'HTTP 403 Forbidden from {firewall} ("Access denied | Example WAF")' in said, said
    assert "refused before it sent any credentials" in said and "a firewall" in said, said
    assert "rejected the credentials" not in said, said
    assert pool.status()["corp"].state != "connected"


def test_a_firewall_page_to_a_token_is_quoted_beside_the_setting_that_holds_it(pool, firewall):
    with pytest.raises(ConnectError) as info:
        pool.connect("corp", url=firewall, headers={"Authorization": "Bearer s3cr3t-t0k3n"}, max_retries=0)
    said = str(info.value)
    assert '("Access denied | Example WAF")' in said and "the Authorization header" in said, said
    assert "s3cr3t-t0k3n" not in said
