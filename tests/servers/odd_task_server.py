"""A hand-written stdio MCP server whose tools run as tasks and end with results no SDK server would send.

Run: ``python tests/servers/odd_task_server.py [legacy|modern]``. ``legacy`` speaks 2025-11-25's
tasks (SEP-1686: a task-augmented ``tools/call`` answers ``{"task": ...}``, ``tasks/get``,
``tasks/result``); ``modern`` 2026-07-28's extension (SEP-2663: a call that declares
``io.modelcontextprotocol/tasks`` answers ``{"resultType": "task", ...}``, ``tasks/get`` carries
the result). Each line on stdin is one JSON-RPC message, each answer one line on stdout.

Tools: ``echo(text)`` and every tool of ``odd_results_server.py`` (``worded_error``,
``weird_content``, ``list_meta``, ...), each task-optional and answering with the same result as
a task and as a plain call; and ``string_result(text)`` and ``list_result``, whose task's result
is no object at all (a string, ``text`` if given; a list). A task is ``working`` when created and
``completed`` at the first ``tasks/get`` (nothing runs; the result is written by hand). Any tool
takes, among its arguments:

- ``at_once: true``: a task-augmented call is answered with the result itself (a server may);
- ``polls: n``: the task stays ``working`` for the first ``n`` ``tasks/get``;
- ``poll_meta: value``: every ``tasks/get`` reply carries ``value`` as its own top-level
  ``_meta`` (a list or a string: no object, which MCP requires there);
- ``unlimited: true``: the task's TTL is ``null`` (kept as long as the server likes);
- ``fails_with: value``: the task ends ``failed``; on 2026-07-28 its ``tasks/get`` reply carries
  ``value`` as the task's ``error`` (the spec has a JSON-RPC error object there; a string or a
  list is what an odd server sends), on 2025-11-25 ``tasks/result`` refuses with ``value`` as text.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

from handwritten import cache, greeting, requests, send
from odd_results_server import RESULTS, TOOLS

ERA = sys.argv[1] if len(sys.argv) > 1 else "legacy"
TASKS = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
WHEN = "2026-01-01T00:00:00Z"

TASK_TOOLS = [{**tool, "execution": {"taskSupport": "optional"}} for tool in TOOLS if tool["name"] in RESULTS]
TASK_TOOLS.append(
    {
        "name": "echo",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "at_once": {"type": "boolean"},
                "polls": {"type": "integer"},
                "unlimited": {"type": "boolean"},
                "poll_meta": {},
                "fails_with": {},
            },
        },
        "execution": {"taskSupport": "optional"},
    }
)
#: Results that are no object at all: a task may end with one (a plain call's JSON-RPC result
#: could not be one either, so only a task's result is tried with them).
NO_OBJECT: dict[str, Any] = {"string_result": "all done: 42 rows", "list_result": ["row 1", "row 2"]}
TASK_TOOLS += [
    {"name": name, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
    for name in NO_OBJECT
]
CACHE = cache(ERA)
_ids = itertools.count(1)
#: Each task by id: its result (what its tool answered), the ``tasks/get`` it is still ``working``
#: for (``polls``), whether its TTL is null (``unlimited``), and the ``_meta`` every ``tasks/get``
#: reply carries (``poll_meta``), if any.
_tasks: dict[str, dict[str, Any]] = {}


def result_of(params: dict[str, Any]) -> Any:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        return {"content": [{"type": "text", "text": str(arguments.get("text"))}]}
    if name == "string_result" and "text" in arguments:  # the string to end with
        return str(arguments["text"])
    return NO_OBJECT[name] if name in NO_OBJECT else RESULTS[name]


def wants_task(params: dict[str, Any]) -> bool:
    """Whether the call asks for a task: ``params.task`` (2025-11-25), or the extension declared
    on the request (2026-07-28)."""
    if ERA == "legacy":
        return params.get("task") is not None
    capabilities = (params.get("_meta") or {}).get(CLIENT_CAPABILITIES) or {}
    return TASKS in (capabilities.get("extensions") or {})


def task(task_id: str, status: str) -> dict[str, Any]:
    ttl, poll = ("ttlMs", "pollIntervalMs") if ERA == "modern" else ("ttl", "pollInterval")
    return {
        "taskId": task_id,
        "status": status,
        "createdAt": WHEN,
        "lastUpdatedAt": WHEN,
        ttl: None if _tasks.get(task_id, {}).get("unlimited") else 60_000,
        poll: 10,
    }


def answer(request_id: object, result: Any) -> None:
    # a 2026-07-28 result says what it is (one that is no object cannot: it is sent as it is)
    if ERA == "modern" and isinstance(result, dict) and "resultType" not in result:
        result = {"resultType": "complete", **result}
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def refuse(request_id: object, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def call(request_id: object, params: dict[str, Any]) -> None:
    if params.get("name") not in {t["name"] for t in TASK_TOOLS}:
        refuse(request_id, -32602, f"Unknown tool: {params.get('name')}")
        return
    result = result_of(params)
    if not wants_task(params) or (params.get("arguments") or {}).get("at_once"):
        answer(request_id, result)
        return
    task_id = f"task-{next(_ids)}"
    arguments = params.get("arguments") or {}
    _tasks[task_id] = {
        "result": result,
        "polls": int(arguments.get("polls") or 0),
        "unlimited": bool(arguments.get("unlimited")),
    }
    if "poll_meta" in arguments:
        _tasks[task_id]["meta"] = arguments["poll_meta"]
    if "fails_with" in arguments:
        _tasks[task_id]["error"] = arguments["fails_with"]
    if ERA == "modern":
        answer(request_id, {"resultType": "task", **task(task_id, "working")})
    else:
        answer(request_id, {"task": task(task_id, "working")})


def polled(task_id: str) -> dict[str, Any]:
    """The ``tasks/get`` reply for ``task_id``: ``working`` while it has polls left, then
    ``completed`` (2026-07-28: its result with it, as SEP-2663 has it), the odd ``_meta`` asked for."""
    kept = _tasks[task_id]
    kept["polls"] -= 1
    ended = "failed" if "error" in kept else "completed"
    reply = task(task_id, "working" if kept["polls"] >= 0 else ended)
    if ERA == "modern" and reply["status"] == "completed":
        reply["result"] = kept["result"]
    if ERA == "modern" and reply["status"] == "failed":
        reply["error"] = kept["error"]
    if "meta" in kept:
        reply["_meta"] = kept["meta"]
    return reply


def tasks_request(method: str, request_id: object, params: dict[str, Any]) -> None:
    task_id = str(params.get("taskId"))
    if task_id not in _tasks:
        refuse(request_id, -32602, f"Unknown task: {task_id}")
    elif method == "tasks/get":
        answer(request_id, polled(task_id))
    elif method == "tasks/result" and ERA == "legacy" and "error" in _tasks[task_id]:
        refuse(request_id, -32603, str(_tasks[task_id]["error"]))
    elif method == "tasks/result" and ERA == "legacy":
        result = _tasks[task_id]["result"]
        # SEP-1686: the result names its task (kept as sent where it has a _meta, or is no object)
        if isinstance(result, dict) and "_meta" not in result:
            result = {**result, "_meta": {RELATED_TASK: {"taskId": task_id}}}
        answer(request_id, result)
    elif method == "tasks/cancel":
        answer(request_id, {} if ERA == "modern" else task(task_id, "completed"))
    else:
        refuse(request_id, -32601, "Method not found")


def main() -> None:
    legacy_tasks = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    for method, request_id, params in requests():
        opening = greeting(
            method, params, ERA, "odd-tasks", {"tools": {}, "extensions": {TASKS: {}}},
            legacy_capabilities={"tools": {}, "tasks": legacy_tasks},
        )  # fmt: skip
        if opening is not None:
            answer(request_id, opening)
        elif method == "ping":
            answer(request_id, {})
        elif method == "tools/list":
            answer(request_id, {"tools": TASK_TOOLS, **CACHE})
        elif method == "tools/call":
            call(request_id, params)
        elif method == "tasks/list" and ERA == "legacy":
            answer(request_id, {"tasks": [task(task_id, "completed") for task_id in _tasks]})
        elif method.startswith("tasks/"):
            tasks_request(method, request_id, params)
        else:
            refuse(request_id, -32601, "Method not found")


if __name__ == "__main__":
    main()
