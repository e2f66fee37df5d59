"""A hand-written stdio server that answers its handshake, its tool list and one ``ping``, then
answers nothing more (a deadlocked request handler), while a thread of its own keeps logging
(``notifications/message``) every 0.1 s: it is heard, but works on nothing.

Run: ``python tests/servers/chatty_hung_server.py``. The 2025-11-25 handshake; one tool, ``hang``.
"""

from __future__ import annotations

import threading
import time

from handwritten import greeting, requests, send

hung = threading.Event()


def chatter() -> None:
    while True:
        time.sleep(0.1)
        if hung.is_set():
            params = {"level": "info", "data": "tick"}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})


def main() -> None:
    threading.Thread(target=chatter, daemon=True).start()
    for method, request_id, params in requests():
        opening = greeting(method, params, "legacy", "chatty", {"tools": {}, "logging": {}})
        if opening is not None:
            send({"jsonrpc": "2.0", "id": request_id, "result": opening})
        elif method == "tools/list":
            tools = [{"name": "hang", "inputSchema": {"type": "object"}}]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools}})
        elif method == "ping" and not hung.is_set():
            hung.set()  # the first probe is answered; nothing after it is
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})


if __name__ == "__main__":
    main()
