"""A hand-written stdio MCP server with the mistakes of a server in the making.

Run: ``python tests/servers/author_server.py [--chatty] [--bad-list]``. Each line on stdin is one
JSON-RPC message, each answer one line on stdout (the 2025-11-25 handshake; ``server/discover`` is
"method not found").

- ``--chatty``: prints ``loading the weather model...`` on stdout before serving, as a forgotten
  ``print`` does, and ``debug: call <tool> (key <$WEATHER_KEY>)`` before each answer to a call.
- ``--bad-list``: ``tools/list`` answers with a third tool, ``forecast``, whose ``inputSchema`` is a
  string schema, which MCP does not allow (a tool's arguments are an object), and a fifth tool
  without a name; ``forecast`` answers as ``echo`` does.
- ``--bad-cursor``: ``tools/list``'s ``nextCursor`` is a number (sound tools, a wrong page).

Tools:

- ``echo(text)``: answers ``text``.
- ``get_weather(n)``: its ``inputSchema`` is no valid JSON Schema (``"type": "integr"``); answers
  ``sunny <n>``.
- ``needs_city``: requires ``city``, which its ``properties`` (``country``) do not name, with
  ``additionalProperties: false``: no call can satisfy it.
- any other tool name: the error an SDK server gives, ``-32602 Unknown tool: <name>``.
"""

from __future__ import annotations

import os
import sys

from handwritten import requests, send

CHATTY = "--chatty" in sys.argv
BAD_LIST = "--bad-list" in sys.argv
BAD_CURSOR = "--bad-cursor" in sys.argv

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {
        "name": "get_weather",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integr"}}, "required": ["n"]},
    },
    {
        "name": "needs_city",
        "inputSchema": {
            "type": "object",
            "properties": {"country": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
]
if BAD_LIST:
    TOOLS.insert(2, {"name": "forecast", "inputSchema": {"type": "string"}})
    TOOLS.insert(4, {"inputSchema": {"type": "object"}})


def answer(request_id: object, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def fail(request_id: object, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def call(request_id: object, params: dict) -> None:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if CHATTY:
        print(f"debug: call {name} (key {os.environ.get('WEATHER_KEY', 'unset')})", flush=True)
    if name == "echo" or (BAD_LIST and name == "forecast"):
        answer(request_id, {"content": [{"type": "text", "text": str(arguments.get("text"))}]})
    elif name == "get_weather":
        answer(request_id, {"content": [{"type": "text", "text": f"sunny {arguments.get('n')}"}]})
    elif name == "needs_city":
        answer(request_id, {"content": [{"type": "text", "text": "nowhere"}]})
    else:
        fail(request_id, -32602, f"Unknown tool: {name}")


def main() -> None:
    if CHATTY:
        print("loading the weather model...", flush=True)
    for method, request_id, params in requests():
        if method == "initialize":
            answer(
                request_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "author", "version": "0.1"},
                },
            )
        elif method == "ping":
            answer(request_id, {})
        elif method == "tools/list":
            answer(request_id, {"tools": TOOLS, **({"nextCursor": 5} if BAD_CURSOR else {})})
        elif method == "tools/call":
            call(request_id, params)
        else:
            fail(request_id, -32601, "Method not found")


if __name__ == "__main__":
    main()
