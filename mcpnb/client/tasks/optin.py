"""Asking for a task per request, as SEP-2663 has it, and where each era says a tool may be one.

The SDK stamps a client's capability ad, extensions included, on *every* 2026-07-28 request, so a
client built with the tasks extension would invite the server to turn every ``tools/call`` into a
task: a 0.1 s tool then waits a whole poll interval. SEP-2663 makes the declaration per request
("the client signals support by including the extension in its per-request capabilities"), so the
pool declares it only when a task was asked for (``task=True``) or the tool requires one.

The session's door (:mod:`mcpnb.client.doors`) passes each ``tools/call`` through :func:`outgoing`:
it goes out without the extension unless it is sent under :func:`task_call`. Plain is the default, so a
plain call (nearly every call) costs no context switch at all, only one context-variable lookup.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
#: The JSON-RPC codes for "missing required client capability": SEP-2663's text says -32003, the
#: 2026-07-28 schema (and the SDK, and FastMCP) -32021. Either, naming the tasks extension, means
#: "this tool runs only as a task, and nothing ran".
MISSING_CAPABILITY_CODES = frozenset({-32003, -32021})

#: True while a task is wanted (the request declares the extension); otherwise a plain call.
_wants_task: ContextVar[bool] = ContextVar("mcpnb_wants_task", default=False)


@contextlib.contextmanager
def asking(wanted: bool) -> Iterator[None]:
    """Within the block, ``tools/call`` requests declare the tasks extension only if ``wanted``."""
    token = _wants_task.set(wanted)
    try:
        yield
    finally:
        _wants_task.reset(token)


def task_call() -> contextlib.AbstractContextManager[None]:
    return asking(True)


def outgoing(params: Any) -> Any:
    """A ``tools/call``'s params as they go out: without the tasks extension unless a task is
    wanted (:func:`task_call`). A step of the session's door (:mod:`mcpnb.client.doors`)."""
    return params if _wants_task.get() else without_tasks(params)


def without_tasks(params: Any) -> Any:
    """``params`` whose per-request capabilities no longer declare the tasks extension (copied:
    the SDK shares one capabilities dict between all requests)."""
    if not isinstance(params, Mapping):
        return params
    meta = params.get("_meta")
    caps = meta.get(CAPABILITIES_META) if isinstance(meta, Mapping) else None
    extensions = caps.get("extensions") if isinstance(caps, Mapping) else None
    if not isinstance(extensions, Mapping) or TASKS_EXTENSION not in extensions:
        return params
    kept = {k: v for k, v in extensions.items() if k != TASKS_EXTENSION}
    new_caps = {k: v for k, v in caps.items() if k != "extensions"}
    if kept:
        new_caps["extensions"] = kept
    return {**params, "_meta": {**meta, CAPABILITIES_META: new_caps}}


def requires_tasks(exc: BaseException) -> bool:
    """Whether ``exc`` is a server saying the call can only run as a task (nothing ran)."""
    code = getattr(exc, "code", None)
    if code not in MISSING_CAPABILITY_CODES:
        return False
    error = getattr(exc, "error", None)
    data = getattr(error, "data", None)
    needed = (data or {}).get("requiredCapabilities") if isinstance(data, Mapping) else None
    extensions = (needed or {}).get("extensions") if isinstance(needed, Mapping) else None
    if isinstance(extensions, Mapping):
        return TASKS_EXTENSION in extensions
    return TASKS_EXTENSION in str(getattr(error, "message", "") or exc)


def server_offers_tasks(capabilities: Any, era: str | None) -> bool:
    """Where each era says the server does tasks at all.

    2025-11-25 (SEP-1686): ``capabilities.tasks.requests.tools.call``. 2026-07-28 (SEP-2663):
    ``capabilities.extensions["io.modelcontextprotocol/tasks"]`` (its settings are an empty object).
    """
    if capabilities is None:
        return False
    if era == "modern":
        extensions = getattr(capabilities, "extensions", None) or {}
        return TASKS_EXTENSION in extensions
    tasks = getattr(capabilities, "tasks", None)
    requests = getattr(tasks, "requests", None)
    tools = getattr(requests, "tools", None)
    return getattr(tools, "call", None) is not None


def effective_task_support(stated: str, capabilities: Any, era: str | None) -> str:
    """A tool's task support as each era states it.

    2025-11-25: the tool's ``execution.taskSupport``, but only if the server declares
    ``tasks.requests.tools.call`` (without it clients MUST NOT ask for tasks). 2026-07-28: tools
    carry no ``execution``; a server that declares the extension decides per request, so every tool
    *may* run as a task ("optional") unless it says more; a "required" is learnt from the server's
    -32021 answer.
    """
    if era == "modern":
        if stated in ("optional", "required"):
            return stated
        return "optional" if server_offers_tasks(capabilities, era) else "forbidden"
    if capabilities is not None and not server_offers_tasks(capabilities, era):
        return "forbidden"
    return stated


def server_lists_tasks(capabilities: Any, era: str | None) -> bool:
    """2025-11-25 servers say whether they answer ``tasks/list`` (``capabilities.tasks.list``);
    SEP-2663 has no list at all."""
    if era == "modern" or capabilities is None:
        return False
    return getattr(getattr(capabilities, "tasks", None), "list", None) is not None
