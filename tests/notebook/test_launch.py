"""probe-kit started from a cell: in-process or over HTTP on 127.0.0.1, stopped with the pool."""

from __future__ import annotations

import socket

import pytest

from mcpnb import UnknownServerError, serve_probekit, stop_probekit


def _accepts(url: str) -> bool:
    port = int(url.split(":")[2].split("/")[0])
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_in_process_and_http(pool):
    assert serve_probekit("probe", pool=pool).transport == "inprocess"
    row = serve_probekit("web", http=True, toolset="core", pool=pool)
    assert row.transport == "http" and row.state == "connected"
    url = pool.connection("web").config.url
    assert url.startswith("http://127.0.0.1:") and _accepts(url)
    assert len(pool.tools("web")) < len(pool.tools("probe"))  # the core toolset is smaller
    stop_probekit("web", pool=pool)
    assert "web" not in pool and not _accepts(url)
    with pytest.raises(UnknownServerError, match="did you mean 'probe'"):
        stop_probekit("prob", pool=pool)


def test_closing_the_pool_stops_its_http_servers(pool):
    serve_probekit("web", http=True, pool=pool)
    url = pool.connection("web").config.url
    pool.close()
    assert not _accepts(url)


def test_serving_again_replaces_the_server(pool):
    serve_probekit("web", http=True, pool=pool)
    first = pool.connection("web").config.url
    serve_probekit("web", http=True, pool=pool)
    assert not _accepts(first) and _accepts(pool.connection("web").config.url)
