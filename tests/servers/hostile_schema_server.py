"""A hand-written stdio MCP server whose tools' schemas loop or fan out, and whose answers are huge.

Run: ``python tests/servers/hostile_schema_server.py``. It speaks 2025-11-25 (``initialize``); each
line on stdin is one JSON-RPC message, each answer one line on stdout. Written by hand because an
SDK server derives its schemas from Python signatures, which never loop like these:

- ``loop(x)``: ``x`` is ``$defs/A``, and ``A`` is "an ``A`` or null" (it names itself);
- ``mutual(x)``: ``A`` is "a ``B`` or a text", ``B`` "an ``A`` or a whole number";
- ``wide(x)``: 40 definitions, each "the next or the next" (two ways down at every step: followed
  naively, 2**40 paths), the last a text;
- ``node(tree)``: a recursive object as pydantic writes one (``children`` a list of ``Node``);
- ``big(n)``: a text of ``n`` characters (``x``), for what is shown of a huge answer;
- ``wide_out()``: ``wide``'s schema as its ``outputSchema``, and structured content that fails it;
- ``levels(n)``: ``n`` rows whose ``outputSchema`` has, beside a text ``code``, 20 objects a level,
  each the next level, six levels down (named as ``.df`` names nested keys: 20**5 columns);
- ``ask(shape)``: asks the client a form whose ``requestedSchema`` is tool ``shape``'s input schema
  (``wide``, ``loop``), and answers with the client's answer as JSON text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from handwritten import greeting, requests, send

WIDE = 40
#: Objects a level of ``levels``' rows, and its levels.
FAN, LEVELS = 20, 6


def _defs(**defs: object) -> dict[str, object]:
    return defs


WIDE_SCHEMA = {
    "type": "object",
    "properties": {"x": {"$ref": "#/$defs/D0"}},
    "$defs": {
        **{f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 2} for i in range(WIDE)},
        f"D{WIDE}": {"type": "string"},
    },
}
LEVELS_SCHEMA = {
    "type": "object",
    "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/L0"}}},
    "$defs": {
        **{
            f"L{i}": {
                "type": "object",
                "properties": {
                    **({"code": {"type": "string"}} if i == 0 else {}),
                    **{f"p{j}": {"$ref": f"#/$defs/L{i + 1}"} for j in range(FAN)},
                },
            }
            for i in range(LEVELS)
        },
        f"L{LEVELS}": {"type": "string"},
    },
}
NO_ARGUMENTS = {"type": "object", "properties": {}}


TOOLS = [
    {
        "name": "loop",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A"}},
            "$defs": _defs(A={"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}),
        },
    },
    {
        "name": "mutual",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A"}},
            "required": ["x"],
            "$defs": _defs(
                A={"anyOf": [{"$ref": "#/$defs/B"}, {"type": "string"}]},
                B={"anyOf": [{"$ref": "#/$defs/A"}, {"type": "integer"}]},
            ),
        },
    },
    {"name": "wide", "inputSchema": WIDE_SCHEMA},
    {
        "name": "node",
        "inputSchema": {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": _defs(
                Node={
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {
                            "anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Node"}}, {"type": "null"}]
                        },
                    },
                }
            ),
        },
    },
    {
        "name": "big",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    },
    {"name": "wide_out", "inputSchema": NO_ARGUMENTS, "outputSchema": WIDE_SCHEMA},
    {
        "name": "levels",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "outputSchema": LEVELS_SCHEMA,
    },
    {"name": "ask", "inputSchema": {"type": "object", "properties": {"shape": {"type": "string"}}}},
]


def ask(shape: str) -> Any:
    """The client's answer to a form of tool ``shape``'s input schema (what else arrives while it
    is asked, a notification, is passed over)."""
    schema = next(t["inputSchema"] for t in TOOLS if t["name"] == shape)
    asked = {"message": f"Fill in {shape}", "requestedSchema": schema}
    send({"jsonrpc": "2.0", "id": "ask", "method": "elicitation/create", "params": asked})
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("id") == "ask" and "method" not in message:
            return message.get("result", message.get("error"))
    return None


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    n = arguments.get("n")
    if name == "wide_out":  # "x" must be a text: 1 fails each of its 2**40 paths
        return {"content": [{"type": "text", "text": '{"x": 1}'}], "structuredContent": {"x": 1}}
    if name == "levels" and isinstance(n, int):
        rows = [{"code": "10001"} for _ in range(n)]  # declared a text: a zip code, never 10001
        return {"content": [{"type": "text", "text": json.dumps(rows)}], "structuredContent": {"rows": rows}}
    if name == "ask":
        return {"content": [{"type": "text", "text": json.dumps(ask(arguments.get("shape", "wide")))}]}
    text = "x" * n if name == "big" and isinstance(n, int) else "ok"
    return {"content": [{"type": "text", "text": text}]}


def main() -> None:
    for method, request_id, params in requests():
        opening = greeting(method, params, "legacy", "hostile-schema", {"tools": {}})
        if opening is not None:
            result = opening
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            result = call(params.get("name"), params.get("arguments") or {})
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no such method"}})
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
