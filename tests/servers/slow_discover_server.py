"""A hand-written stdio MCP server that speaks both eras and is slow to answer its first request.

Run: ``python tests/servers/slow_discover_server.py [--delay SECONDS | --silent]``. Requests are
read one at a time, as a server still starting reads them: ``--delay`` sleeps before answering the
first ``server/discover`` (every request sent meanwhile waits in the pipe behind it), then answers
it and every later one at once; ``--silent`` never answers ``server/discover`` at all (some old
servers drop a method they do not know instead of refusing it). ``initialize`` (2025-11-25) is
answered too, so whichever handshake the client sends wins: the era a client gets says which it
chose. Tools: ``which_era()``, the era of the request that called it; ``pid()``, this process's id.
"""

from __future__ import annotations

import argparse
import os
import time

from handwritten import MODERN, cache, greeting, requests, send

TOOLS = [
    {"name": "which_era", "inputSchema": {"type": "object"}},
    {"name": "pid", "inputSchema": {"type": "object"}},
]
CAPABILITIES = {"tools": {}}


def era_of(params: dict) -> str:
    """A 2026-07-28 request names its revision in ``_meta``; a 2025-11-25 one does not."""
    meta = params.get("_meta") or {}
    return "modern" if meta.get("io.modelcontextprotocol/protocolVersion") == MODERN else "legacy"


def answer(request_id: object, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--silent", action="store_true")
    options = parser.parse_args()
    delay = options.delay
    for method, request_id, params in requests():
        era = "modern" if method == "server/discover" else era_of(params)
        if method == "server/discover" and options.silent:
            continue
        if method == "server/discover" and delay:
            time.sleep(delay)  # starting up: nothing else is read meanwhile
            delay = 0.0
        opening = greeting(method, params, era, "slow-discover", CAPABILITIES)
        if opening is not None:
            answer(request_id, opening)
        elif method == "ping":
            answer(request_id, {})
        elif method == "tools/list":
            answer(request_id, {**cache(era), "tools": TOOLS})
        elif method == "tools/call" and params.get("name") == "pid":
            answer(request_id, {"content": [{"type": "text", "text": str(os.getpid())}]})
        elif method == "tools/call" and params.get("name") == "which_era":
            answer(request_id, {"content": [{"type": "text", "text": era}]})
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()
