"""A legacy HTTP+SSE "server" whose ``endpoint`` event names another origin (a port next to its
own): the SDK refuses to post there, in a task of its own, and the connect never hears of it.

Run: ``python tests/servers/cross_origin_sse_server.py``; it prints its port, then serves
``GET /sse`` on 127.0.0.1 until killed.
"""

from __future__ import annotations

import asyncio


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        writer.close()
        return
    port = writer.get_extra_info("sockname")[1]
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")
    writer.write(f"event: endpoint\ndata: http://127.0.0.1:{port + 1}/messages\n\n".encode())
    await writer.drain()
    while not writer.is_closing():
        await asyncio.sleep(1)


async def main() -> None:
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
