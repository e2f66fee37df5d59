"""The demo server (the SDK's ``MCPServer``, Streamable HTTP) answered by two processes on one
listening socket, as a server behind a load balancer is: each process keeps its own 2025-11-25
sessions, so a request may reach one that never saw its session ("Session not found").

    python two_process_server.py     # prints the URL, then serves until SIGTERM (both processes)
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    import uvicorn
    from demo_server import create_server

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    child = os.fork()
    if child:  # the parent serves too, and takes its child with it when it is stopped
        signal.signal(signal.SIGTERM, lambda *_: (os.kill(child, signal.SIGTERM), sys.exit(0)))
    app = create_server().streamable_http_app(streamable_http_path="/mcp")
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
