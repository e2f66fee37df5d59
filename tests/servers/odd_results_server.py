"""A hand-written stdio MCP server whose tools answer with results no SDK server would send.

Run: ``python tests/servers/odd_results_server.py [legacy|modern]``. ``legacy`` answers
``server/discover`` with "method not found", so a client falls back to the 2025-11-25 handshake
(``initialize``); ``modern`` answers it, and the session speaks 2026-07-28. Each line on stdin is
one JSON-RPC message, each answer one line on stdout (newline-delimited JSON, as stdio is).

Tools (each result is written by hand, as a careless server would write it):

- ``echo(text)``: one text block, a plain result.
- ``weird_content``: a block of a type MCP does not define (``hologram``) before a text block.
- ``list_structured``: a text block and ``structuredContent`` that is a list, not an object.
- ``garbage``: ``content`` that is a string, and a list as ``structuredContent``.
- ``broken_blocks``: an image block without ``data``, a block that is a bare string, then text.
- ``typed_list``: ``list_structured`` for a tool that declares an ``outputSchema`` (an object).
- ``worded_error``: ``isError`` as the word ``"error"``; ``null_error``: ``isError`` null.
- ``list_meta``: a result ``_meta`` that is a list, not an object.
- ``half_emoji``: text and rows holding half of an emoji (``"party \\ud83c"``, an unpaired UTF-16
  surrogate, as a JavaScript server that cut a string in the middle of a character sends it).
- ``dotted_keys``: rows with a key ``"a.b"`` beside ``"a": {"b": ...}`` (both flatten to ``a.b``).
- ``failed_with_rows``: ``isError`` with ``structuredContent`` that holds rows.
- ``summary_beside_rows``: numbers beside a table of rows (``{"mean": 1.5, "n": 4, "by_group": [...]}``).
- ``svg_with_script``: an SVG image whose markup holds a ``<script>`` and an ``onload``.
- ``structured_only``: ``structuredContent`` and no ``content`` at all (which MCP requires).
"""

from __future__ import annotations

import base64
import sys

from handwritten import cache, greeting, requests, send

ERA = sys.argv[1] if len(sys.argv) > 1 else "legacy"

OBJECT = {"type": "object"}
TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "weird_content", "inputSchema": OBJECT},
    {"name": "list_structured", "inputSchema": OBJECT},
    {"name": "garbage", "inputSchema": OBJECT},
    {"name": "broken_blocks", "inputSchema": OBJECT},
    {"name": "worded_error", "inputSchema": OBJECT},
    {"name": "null_error", "inputSchema": OBJECT},
    {"name": "list_meta", "inputSchema": OBJECT},
    {"name": "half_emoji", "inputSchema": OBJECT},
    {"name": "dotted_keys", "inputSchema": OBJECT},
    {"name": "failed_with_rows", "inputSchema": OBJECT},
    {"name": "summary_beside_rows", "inputSchema": OBJECT},
    {"name": "svg_with_script", "inputSchema": OBJECT},
    {"name": "structured_only", "inputSchema": OBJECT},
    {
        "name": "typed_list",
        "inputSchema": OBJECT,
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    },
]

#: An SVG that runs script wherever its markup is put in the page as it is.
SVG_WITH_SCRIPT = base64.b64encode(
    b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script>'
    b'<rect width="10" height="10"/></svg>'
).decode()
HOLOGRAM = {"type": "hologram", "data": "zzz", "angle": [1, 2.5]}
RESULTS = {
    "weird_content": {"content": [HOLOGRAM, {"type": "text", "text": "after"}]},
    "list_structured": {
        "content": [{"type": "text", "text": "three numbers"}],
        "structuredContent": [1, 2, 3],
    },
    "garbage": {"content": "not a list", "structuredContent": [1, 2, 3]},
    "broken_blocks": {
        "content": [
            {"type": "image", "mimeType": "image/png"},
            "loose words",
            {"type": "text", "text": "kept"},
        ]
    },
    "typed_list": {"content": [{"type": "text", "text": "[1, 2, 3]"}], "structuredContent": [1, 2, 3]},
    "worded_error": {"content": [{"type": "text", "text": "disk full"}], "isError": "error"},
    "null_error": {"content": [{"type": "text", "text": "fine"}], "isError": None},
    "list_meta": {"content": [{"type": "text", "text": "tagged"}], "_meta": ["a", "b"]},
    # json.dumps writes each as the escape a JSON writer sends: "\ud83c" alone, a pair for 🎂
    "half_emoji": {
        "content": [{"type": "text", "text": "2 rows, the first party \ud83c"}],
        "structuredContent": {
            "result": [{"title": "party \ud83c", "n": 1}, {"title": "cake \U0001f382", "n": 2}]
        },
    },
    "dotted_keys": {
        "content": [{"type": "text", "text": "2 rows"}],
        "structuredContent": {"result": [{"a.b": 1, "a": {"b": 2}}, {"a.b": 3, "a": {"b": 4}}]},
    },
    "failed_with_rows": {
        "content": [{"type": "text", "text": "no such table: sales"}],
        "structuredContent": {"error": "no such table: sales", "rows": [{"a": 1}]},
        "isError": True,
    },
    "summary_beside_rows": {
        "content": [{"type": "text", "text": "mean 1.5 over 4"}],
        "structuredContent": {
            "mean": 1.5,
            "n": 4,
            "by_group": [{"group": "a", "mean": 1.0}, {"group": "b", "mean": 2.0}],
        },
    },
    "svg_with_script": {"content": [{"type": "image", "data": SVG_WITH_SCRIPT, "mimeType": "image/svg+xml"}]},
    "structured_only": {"structuredContent": {"rows": [{"n": 1}, {"n": 2}]}},
}
#: What a 2026-07-28 server says of how long a listing or discovery may be kept (both required).
CACHE = cache(ERA)


def answer(request_id: object, result: dict) -> None:
    if ERA == "modern":  # a 2026-07-28 result says what it is
        result = {"resultType": "complete", **result}
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    for method, request_id, params in requests():
        opening = greeting(method, params, ERA, "odd", {"tools": {}})
        if opening is not None:
            answer(request_id, opening)
        elif method == "ping":
            answer(request_id, {})
        elif method == "tools/list":
            answer(request_id, {"tools": TOOLS, **CACHE})
        elif method == "tools/call" and params.get("name") == "echo":
            text = str((params.get("arguments") or {}).get("text"))
            answer(request_id, {"content": [{"type": "text", "text": text}]})
        elif method == "tools/call" and params.get("name") in RESULTS:
            answer(request_id, RESULTS[params["name"]])
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()
