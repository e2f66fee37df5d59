"""A hand-written stdio MCP server that handles one request at a time, as JSON-RPC allows: while a
tool runs, a ``ping`` waits in the pipe unanswered.

Run: ``python tests/servers/sequential_server.py``. The 2025-11-25 handshake (``initialize``);
``server/discover`` is "method not found". Tools:

- ``block(seconds)``: sleeps, saying nothing meanwhile.
- ``progress_block(seconds)``: sleeps, sending ``notifications/progress`` every 0.2 s when the
  call carries a progress token.
- ``pid()``: this process's id.
- ``null_result()``: answers ``"result": null`` (not a result object).
- ``batched()``: answers in a one-element array (the 2025-03-26 batch form).
- ``cut_short()``: writes the first half of its answer line, then the newline (a write cut mid-way).
- ``stray_answer()``: first answers a request id never sent (its own + 1000), then its own.
- ``print_before()``: writes ``working... `` with no newline, then its answer on that same line.
"""

from __future__ import annotations

import json
import os
import sys
import time

from handwritten import requests, send

NUMBER = {"type": "object", "properties": {"seconds": {"type": "number"}}}
TOOLS = [
    {"name": "block", "inputSchema": NUMBER},
    {"name": "progress_block", "inputSchema": NUMBER},
    {"name": "pid", "inputSchema": {"type": "object"}},
    {"name": "null_result", "inputSchema": {"type": "object"}},
    {"name": "batched", "inputSchema": {"type": "object"}},
    {"name": "cut_short", "inputSchema": {"type": "object"}},
    {"name": "stray_answer", "inputSchema": {"type": "object"}},
    {"name": "print_before", "inputSchema": {"type": "object"}},
]


def answer(request_id: object, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def text(words: str) -> dict:
    return {"content": [{"type": "text", "text": words}]}


def run_tool(name: str, arguments: dict, token: object) -> dict:
    if name == "pid":
        return text(str(os.getpid()))
    seconds = float(arguments.get("seconds", 1))
    end = time.monotonic() + seconds
    step = 0
    while time.monotonic() < end:
        time.sleep(0.2)
        step += 1
        if name == "progress_block" and token is not None:
            params = {"progressToken": token, "progress": step}
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
    return text(f"{name} done after {seconds:g} s")


def main() -> None:
    for method, request_id, params in requests():
        if method == "initialize":
            version = params.get("protocolVersion", "2025-11-25")
            info = {"name": "sequential", "version": "1.0"}
            answer(
                request_id, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            )
        elif method == "ping":
            answer(request_id, {})
        elif method == "tools/list":
            answer(request_id, {"tools": TOOLS})
        elif method == "tools/call" and params.get("name") == "null_result":
            send({"jsonrpc": "2.0", "id": request_id, "result": None})
        elif method == "tools/call" and params.get("name") == "batched":
            sys.stdout.write(
                json.dumps([{"jsonrpc": "2.0", "id": request_id, "result": text("in a batch")}]) + "\n"
            )
            sys.stdout.flush()
        elif method == "tools/call" and params.get("name") == "cut_short":
            whole = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": text("x" * 200)})
            sys.stdout.write(whole[: len(whole) // 2] + "\n")
            sys.stdout.flush()
        elif method == "tools/call" and params.get("name") == "print_before":
            sys.stdout.write("working... ")  # a print(..., end=" ") left in a server
            answer(request_id, text("done"))
        elif method == "tools/call" and params.get("name") == "stray_answer":
            answer(request_id + 1000, text("for nobody"))
            answer(request_id, text("the real answer"))
        elif method == "tools/call":
            token = (params.get("_meta") or {}).get("progressToken")
            answer(request_id, run_tool(params.get("name"), params.get("arguments") or {}, token))
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()
