"""A hand-written stdio MCP server that is hostile at the protocol level: floods, stray answers.

Run: ``python tests/servers/hostile_protocol_server.py [--no-init] [--init-twice] [--stdout-first]``.
It speaks 2025-11-25 (``initialize``), one JSON-RPC message per line. Written by hand because an
SDK server sends none of this. Its one tool, ``act(what, n)``, does ``what`` ``n`` times during
the call, then answers ``did <what>``:

- ``progress``: progress notifications on the call's ``progressToken``; ``progress_foreign`` on a
  token never issued; ``progress_strays`` each on another token never issued;
- ``log``: ``notifications/message`` lines; ``log_big``: lines of a megabyte each;
- ``tools_changed``, ``prompts_changed``, ``resources_changed``: ``list_changed`` notifications;
  ``updated``: ``notifications/resources/updated``;
- ``elicit``, ``sample``, ``roots``, ``ping``: requests to the client, all sent at once, the call
  answered when every one has been answered;
- ``stray``: answers to ids never sent; ``twice``: the call answered ``n`` times;
- ``garbage``: lines that are no JSON, between progress notifications;
- ``big``: a result of ``n`` megabytes of text;
- ``hang``: no answer at all, and once the call is cancelled, an answer after all;
- ``half``: a line with no newline, then silence (the pipe kept open).

Flags: ``--no-init`` never answers ``initialize`` (the pipe stays open); ``--init-twice`` answers
it twice; ``--stdout-first`` writes text and a stray answer on stdout before anything is asked.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from handwritten import messages, send

TOOL = {
    "name": "act",
    "inputSchema": {
        "type": "object",
        "properties": {"what": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["what"],
    },
}
CAPS = {
    "tools": {"listChanged": True},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
    "logging": {},
}

#: Requests to the client, by ``act``'s ``what``.
ASKS = {
    "elicit": (
        "elicitation/create",
        {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    ),
    "sample": (
        "sampling/createMessage",
        {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
    ),
    "roots": ("roots/list", {}),
    "ping": ("ping", {}),
}


def notify(method: str, params: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "method": method, "params": params})


def answer(request_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def text(words: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": words}]}


def main() -> None:
    flags = set(sys.argv[1:])
    if "--stdout-first" in flags:
        sys.stdout.write("hello from a server that prints first\n")
        answer(0, {"stray": True})
    waiting: dict[str, Any] = {}  # our request ids to the client -> the call that waits for them
    hung: set[Any] = set()
    for method, request_id, params in messages():
        if method is None:  # an answer to one of our requests
            call = waiting.pop(str(request_id), None)
            if call is not None and not any(v == call for v in waiting.values()):
                answer(call, text("did the requests"))
            continue
        if method == "notifications/cancelled" and params.get("requestId") in hung:
            answer(params["requestId"], text("answered after the cancel"))
            continue
        if request_id is None:
            continue
        if method == "initialize":
            if "--no-init" in flags:
                continue
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": CAPS,
                "serverInfo": {"name": "hostile", "version": "1.0"},
            }
            for _ in range(2 if "--init-twice" in flags else 1):
                answer(request_id, result)
        elif method == "tools/list":
            answer(request_id, {"tools": [TOOL]})
        elif method in ("prompts/list", "resources/list"):
            answer(request_id, {method.split("/")[0]: []})
        elif method == "tools/call":
            act(request_id, params, waiting, hung)
        else:
            answer(request_id, {})


def act(request_id: Any, params: dict[str, Any], waiting: dict[str, Any], hung: set[Any]) -> None:
    arguments = params.get("arguments") or {}
    what, n = arguments.get("what"), int(arguments.get("n") or 1)
    token = (params.get("_meta") or {}).get("progressToken")
    if what in ASKS:
        method, asked = ASKS[what]
        lines = []
        for i in range(n):
            waiting[f"h{i}"] = request_id
            lines.append(json.dumps({"jsonrpc": "2.0", "id": f"h{i}", "method": method, "params": asked}))
        sys.stdout.write("\n".join(lines) + "\n")  # in one write: the client reads them at once
        sys.stdout.flush()
        return
    if what == "hang":
        hung.add(request_id)
        return
    if what == "half":
        sys.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message", "params": {')
        sys.stdout.flush()
        return
    for i in range(n):
        if what == "progress":
            notify("notifications/progress", {"progressToken": token, "progress": i + 1, "total": n})
        elif what == "progress_foreign":
            notify("notifications/progress", {"progressToken": "never-issued", "progress": i + 1})
        elif what == "progress_strays":
            notify("notifications/progress", {"progressToken": f"stray-{i}", "progress": 1})
        elif what == "log":
            notify("notifications/message", {"level": "info", "data": f"line {i + 1} of {n}"})
        elif what.endswith("_changed"):
            notify(f"notifications/{what.removesuffix('_changed')}/list_changed", {})
        elif what == "updated":
            notify("notifications/resources/updated", {"uri": f"file:///r/{i % 3}"})
        elif what == "stray":
            answer(10_000 + i, text("an answer to nothing"))
        elif what == "garbage":
            sys.stdout.write(f"garbage line {i} {{not json\n")
            notify("notifications/progress", {"progressToken": token, "progress": i + 1})
        if what == "log_big":
            notify("notifications/message", {"level": "info", "data": f"{i}" + "y" * (1024 * 1024)})
    if what == "big":
        answer(request_id, text("x" * (n * 1024 * 1024)))
        return
    for _ in range(n if what == "twice" else 1):
        answer(request_id, text(f"did {what}"))


if __name__ == "__main__":
    main()
