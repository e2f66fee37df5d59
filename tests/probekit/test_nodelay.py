"""probe-kit over HTTP answers without Nagle stalls: the connections it accepts have TCP_NODELAY.

The cause of the ~40 ms stall was a listening socket created with protocol 0 (asyncio only sets
TCP_NODELAY on accepted sockets whose ``proto`` is ``IPPROTO_TCP``). This checks the behaviour on a
real accepted connection, not a timing.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from mcpnb.probekit import create_server, serve_http


@pytest.mark.anyio
async def test_accepted_connections_have_tcp_nodelay() -> None:
    handle = await serve_http(create_server())
    try:
        # any request keeps a connection open (keep-alive) for us to inspect on the server side
        reader, writer = await asyncio.open_connection("127.0.0.1", handle.port)
        try:
            writer.write(b"GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await writer.drain()
            assert (await reader.readline()).startswith(b"HTTP/1.1 404")
            connections = list(handle.server.server_state.connections)
            assert connections, "uvicorn should hold the kept-alive connection"
            for protocol in connections:
                sock = protocol.transport.get_extra_info("socket")
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            writer.close()
    finally:
        await handle.stop()
