"""A hand-written stdio MCP server whose tools' input schemas loop, and whose answers are huge.

Run: ``python tests/servers/hostile_schema_server.py``. It speaks 2025-11-25 (``initialize``); each
line on stdin is one JSON-RPC message, each answer one line on stdout. Written by hand because an
SDK server derives its schemas from Python signatures, which never loop like these:

- ``loop(x)``: ``x`` is ``$defs/A``, and ``A`` is "an ``A`` or null" (it names itself);
- ``mutual(x)``: ``A`` is "a ``B`` or a text", ``B`` "an ``A`` or a whole number";
- ``wide(x)``: 40 definitions, each "the next or the next" (two ways down at every step: followed
  naively, 2**40 paths), the last a text;
- ``node(tree)``: a recursive object as pydantic writes one (``children`` a list of ``Node``);
- ``big(n)``: a text of ``n`` characters (``x``), for what is shown of a huge answer.
"""

from __future__ import annotations

from handwritten import greeting, requests, send

WIDE = 40


def _defs(**defs: object) -> dict[str, object]:
    return defs


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
    {
        "name": "wide",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/D0"}},
            "$defs": {
                **{f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 2} for i in range(WIDE)},
                f"D{WIDE}": {"type": "string"},
            },
        },
    },
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
]


def main() -> None:
    for method, request_id, params in requests():
        opening = greeting(method, params, "legacy", "hostile-schema", {"tools": {}})
        if opening is not None:
            result = opening
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            n = (params.get("arguments") or {}).get("n")
            text = "x" * n if params.get("name") == "big" and isinstance(n, int) else "ok"
            result = {"content": [{"type": "text", "text": text}]}
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no such method"}})
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main()
