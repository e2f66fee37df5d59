"""A transport object given as ``server=`` (``streamable_http_client(url)``: an async context manager
that can be entered once). Each session enters a new one made from what it was called with, so a
reconnect (a person's or automatic) works; one that was entered elsewhere already is refused in
words. A real Streamable HTTP server on 127.0.0.1 (the demo server).
"""

from __future__ import annotations

import asyncio

import pytest
from conftest import HttpServer, free_port, wait_until

from mcpnb.client.errors import CallError, ConnectError, NotConnectedError


def _transport(url: str):
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url)


def test_reconnect_of_a_transport_object_works(pool, http_url) -> None:
    pool.connect("t", server=_transport(http_url), health_check_interval=0)
    assert pool.call("t", "echo", {"text": "first"}).text == "first"
    row = pool.reconnect("t")
    assert row.state == "connected", row
    assert pool.call("t", "echo", {"text": "again"}).text == "again"
    pool.reconnect("t")
    assert pool.call("t", "echo", {"text": "thrice"}).text == "thrice"
    assert pool.status()["t"].server_name == "demo"
    assert pool.connection("t").config.target == "<transport streamable_http_client>"


def test_an_automatic_reconnect_of_a_transport_object_works(pool) -> None:
    port = free_port()
    server = HttpServer("http", port=port)
    try:
        pool.connect(
            "t", server=_transport(server.url), retry_delay=0.2, max_retries=8, health_check_interval=0.2
        )
        assert pool.call("t", "echo", {"text": "before"}).text == "before"
        server.stop()
        assert wait_until(lambda: pool.status()["t"].state in ("reconnecting", "failed"), timeout=30)
        server = HttpServer("http", port=port)
        assert wait_until(lambda: pool.status()["t"].state == "connected", timeout=30), pool.status()["t"]
        assert pool.call("t", "echo", {"text": "after"}).text == "after"
    finally:
        server.stop()
    assert not [line for line in pool.logs("t") if "AttributeError" in line]


def test_a_transport_object_used_already_is_refused_in_words(pool, http_url) -> None:
    spent = _transport(http_url)

    async def use() -> None:
        async with spent:
            pass

    asyncio.run(use())
    with pytest.raises(ConnectError) as caught:
        pool.connect("t", server=spent, health_check_interval=0, max_retries=2, retry_delay=0.05)
    said = str(caught.value)
    assert "can be used once" in said and "url=" in said, said
    assert "AttributeError" not in said
    assert pool.status()["t"].retries == 0
    with pytest.raises((CallError, NotConnectedError)):
        pool.call("t", "echo", {"text": "x"})
