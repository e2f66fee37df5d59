"""A hand-written 2025-11-25 stdio server whose ``tasks/list`` lists a task that ``tasks/get`` says
it does not know (-32602): a task whose TTL ran out between the two, or a listing wider than get.

Run: ``python tests/servers/listed_unknown_task_server.py``. Each ``tasks/get`` is counted on
stderr (``tasks/get #N``), so a test reads from the server's log how often it was asked.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from handwritten import greeting, requests, send

TASKS = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
LISTED = {
    "taskId": "abcd1234ef",
    "status": "working",
    "createdAt": "2026-01-01T00:00:00Z",
    "lastUpdatedAt": "2026-01-01T00:00:00Z",
    "ttl": 1000,
}

gets = 0
for method, rid, params in requests():
    opening = greeting(
        method, params, "legacy", "listed", {"tools": {}}, legacy_capabilities={"tools": {}, "tasks": TASKS}
    )
    if opening is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": opening})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}})
    elif method == "tasks/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tasks": [LISTED]}})
    elif method == "tasks/get":
        gets += 1
        print(f"tasks/get #{gets}", file=sys.stderr, flush=True)
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Task expired"}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
