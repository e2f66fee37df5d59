"""A stdio server as one built on the old (1.x) Python SDK behaves: it knows only the handshake.

Run: ``python tests/servers/old_sdk_server.py [--era-file FILE]``. Asked ``server/discover`` (the
2026-07-28 era's probe, which an ``auto`` client sends first), it answers "Invalid request
parameters" and dumps the pydantic validation error on stderr, dozens of lines of it, as
mcp-server-calculator and every other 1.x server do; then serves ``initialize``.

Its tools hold state in memory, as server-sequential-thinking does: ``remember(text)`` keeps
``text`` and says how many it holds; ``exit(code)`` writes a last line on stderr and exits; ``fail()``
logs an exception whose message is a multi-line JSON object (``ValueError: {`` on its first line,
as mcp-server-motherduck does) and answers with an error.

``shout(n)`` writes ``n`` lines on stderr.

``--era-file FILE``: the era to speak, read from ``FILE`` at each start (``legacy``, or ``modern``:
a 2026-07-28-only server, which refuses ``initialize``), for a server upgraded between two starts.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from handwritten import cache, greeting, requests, send

#: The head of what mcp 1.x writes on stderr for a ``server/discover`` (31 errors in the original).
NOISE_HEAD = "Failed to validate request: 31 validation errors for ClientRequest"
NOISE_ERRORS = 30

TOOLS = [
    {
        "name": "remember",
        "description": "Keep a thought; says how many are held.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {
        "name": "exit",
        "description": "Exit the process with a code.",
        "inputSchema": {"type": "object", "properties": {"code": {"type": "integer"}}},
    },
    {
        "name": "fail",
        "description": "Log a multi-line exception and fail.",
        "inputSchema": {"type": "object"},
    },
    {
        "name": "shout",
        "description": "Write n lines on stderr.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    },
]


def noise() -> None:
    """The pydantic validation error an old SDK logs for a method it does not know."""
    lines = [NOISE_HEAD]
    for n in range(NOISE_ERRORS):
        lines += [
            f"Request{n}.method",
            "  Input should be 'ping' [type=literal_error, input_value='server/discover', input_type=str]",
            "    For further information visit https://errors.pydantic.dev/2.14/v/literal_error",
        ]
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()


def text(words: str, *, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": words}], "isError": error}


def main() -> None:
    era = "legacy"
    if "--era-file" in sys.argv:
        era = Path(sys.argv[sys.argv.index("--era-file") + 1]).read_text().strip()
    held: list[str] = []
    for method, request_id, params in requests():
        if method == "server/discover" and era == "legacy":
            noise()
            error = {"code": -32602, "message": "Invalid request parameters", "data": ""}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})
            continue
        result = greeting(method, params, era, "old-sdk", {"tools": {"listChanged": False}})
        if result is None and method == "ping":
            result = {}
        elif result is None and method == "tools/list":
            result = {**cache(era), "tools": TOOLS}
        elif result is None and method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if name == "remember":
                held.append(str(arguments.get("text")))
                result = text(f"{len(held)} held")
            elif name == "exit":
                sys.stderr.write("fatal: told to exit\n")
                sys.stderr.flush()
                os._exit(int(arguments.get("code", 1)))
            elif name == "fail":
                said = {
                    "success": False,
                    "error": "Parser Error: syntax error at or near {",
                    "type": "Parser",
                }
                sys.stderr.write(f"ValueError: {json.dumps(said, indent=2)}\n")
                sys.stderr.flush()
                result = text("Error calling tool 'fail'", error=True)
            elif name == "shout":
                sys.stderr.write("".join(f"line {n}\n" for n in range(int(arguments.get("n", 1)))))
                sys.stderr.flush()
                result = text("shouted")
        if era == "modern" and result is not None and method != "server/discover":
            result = {"resultType": "complete", **result}
        if result is None:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
