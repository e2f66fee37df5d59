"""A hand-written stdio MCP server whose one tool logs big messages during the call.

Run: ``python tests/servers/big_logs_server.py``. It speaks 2025-11-25 (``initialize``;
``server/discover`` is "method not found"), one JSON-RPC message per line. ``shout(count, chars,
shape)`` sends ``count`` ``notifications/message`` before it answers, each ``chars`` characters
long and starting with its number (``"#0 "``, ``"#1 "``, …) so a test can tell which were kept:
``shape`` ``"text"`` (the default) sends a string, ``"json"`` an object ``{"n": i, "blob": "…"}``,
and with ``long_logger`` the logger's name is as long as the data, with ``long_meta`` its
``_meta`` (``{"trace": "…"}``). Written by hand so that nothing
between it and the client (an SDK server's own limits) changes what it sends.
"""

from __future__ import annotations

from typing import Any

from handwritten import answer, greeting, refuse, requests, send

TOOL = {
    "name": "shout",
    "inputSchema": {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "chars": {"type": "integer"},
            "shape": {"type": "string", "enum": ["text", "json"]},
            "long_logger": {"type": "boolean"},
            "long_meta": {"type": "boolean"},
        },
        "required": ["count", "chars"],
    },
}
CAPS = {"tools": {}, "logging": {}}


def message(i: int, chars: int, shape: str) -> Any:
    head = f"#{i} "
    if shape == "json":
        filler = max(0, chars - len(head) - len('{"n": , "blob": ""}') - len(str(i)))
        return {"n": i, "blob": head + "z" * filler}
    return head + "y" * max(0, chars - len(head))


def main() -> None:
    for method, request_id, params in requests():
        said = greeting(method, params, "legacy", "big-logs", CAPS)
        if said is not None:
            answer(request_id, said)
        elif method == "tools/list":
            answer(request_id, {"tools": [TOOL]})
        elif method == "tools/call":
            arguments = params.get("arguments") or {}
            count, chars = int(arguments["count"]), int(arguments["chars"])
            shape = arguments.get("shape") or "text"
            for i in range(count):
                note: dict[str, Any] = {"level": "info", "data": message(i, chars, shape)}
                if arguments.get("long_logger"):
                    note["logger"] = "L" * chars
                if arguments.get("long_meta"):
                    note["_meta"] = {"trace": "M" * chars}
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": note})
            answer(request_id, {"content": [{"type": "text", "text": f"logged {count}"}]})
        elif method == "ping":
            answer(request_id, {})
        else:
            refuse(request_id)


if __name__ == "__main__":
    main()
