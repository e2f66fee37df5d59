"""One task as either wire describes it, read leniently: :class:`TaskState` and the readers behind it.

Both eras' task objects (``ttl``/``pollInterval`` in 2025-11-25, ``ttlMs``/``pollIntervalMs`` in
2026-07-28) become one :class:`TaskState`; optional fields may be missing and unknown ones are
ignored, and a reply that lacks what the spec requires is a :class:`TaskError` naming the method
and the server. A part of the wrong kind that the task's state does not hang on (a ``_meta`` that
is no object) is read past, kept as sent and said (:attr:`TaskState.warnings`): one odd field must
not make a task whose status and result are fine look broken. Reading is apart from :mod:`.wire`,
which sends the requests, so the two can be read (and tested) on their own; nothing here talks to
a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mcpnb.client.tasks.errors import TaskError

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})


def task_support(tool: Any) -> str:
    """``"forbidden"`` | ``"optional"`` | ``"required"`` for a tool from ``tools/list``.

    Accepts an SDK ``types.Tool``, a wire dict, or an mcpnb ``ToolInfo`` (which needs a
    ``task_support`` or ``execution`` attribute: ask for it to be kept). The spec's default when a
    tool says nothing is ``forbidden``, so that is what an unknown shape gives too.
    """
    direct = getattr(tool, "task_support", None)
    if isinstance(direct, str):
        return direct
    if isinstance(tool, Mapping):
        execution = tool.get("execution") or {}
        value = execution.get("taskSupport") or execution.get("task_support")
    else:
        execution = getattr(tool, "execution", None)
        if isinstance(execution, Mapping):
            value = execution.get("taskSupport") or execution.get("task_support")
        else:
            value = getattr(execution, "task_support", None)
    return value if value in ("optional", "required") else "forbidden"


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


@dataclass
class TaskState:
    """One snapshot of a task, whichever era it came from (ms fields normalised)."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: datetime | None = None
    last_updated_at: datetime | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None  # an object only: any other ``result`` stays in ``raw``
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None
    progress: tuple[float, float | None, str | None] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    #: What in the reply MCP does not allow and how it was kept, one line each (the handle says
    #: each once, with the task's result).
    warnings: list[str] = field(default_factory=list, repr=False)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def unlimited(self) -> bool:
        """The server said ``ttl: null``: it keeps the task as long as it likes (2025-11-25's
        "null for unlimited"), which is not the same as a reply that says nothing of a TTL."""
        return self.ttl_ms is None and any(k in self.raw and self.raw[k] is None for k in ("ttl", "ttlMs"))

    @property
    def span(self) -> float:
        """Seconds from creation to the last update, by the server's clock (0 where it says neither):
        how long a task that ended before this client saw it had run."""
        if self.created_at is None or self.last_updated_at is None:
            return 0.0
        return max(0.0, (self.last_updated_at - self.created_at).total_seconds())

    @classmethod
    def from_wire(
        cls,
        data: Any,
        *,
        method: str = "a tasks request",
        server: str = "the server",
        task_id: str | None = None,
        status: str | None = None,
    ) -> TaskState:
        """Read either era's task object (``ttl``/``pollInterval`` or ``ttlMs``/``pollIntervalMs``).

        ``task_id``/``status`` fill in what a reply may leave out because the request already says
        it (``tasks/get`` of a known id) or the spec gives a default (a new task is ``working``);
        anything else missing is a :class:`TaskError` that names ``method`` and ``server``.
        """
        if not isinstance(data, Mapping):
            raise TaskError(f"{method} on {server!r} answered {short(data)}, which is not a task")
        data, warnings = _readable_meta(dict(data), f"{method} on {server!r}")
        error, said = _readable_error(data.get("error"), f"{method} on {server!r}")
        warnings += said
        found_id = data.get("taskId", task_id)
        found_status = data.get("status", status)
        if not isinstance(found_id, str) or not found_id:
            raise TaskError(f"{method} on {server!r} answered without a taskId: {short(data)}")
        if not isinstance(found_status, str) or not found_status:
            raise TaskError(f"{method} on {server!r} answered without a task status: {short(data)}")
        ttl = data.get("ttlMs", data.get("ttl"))
        poll = data.get("pollIntervalMs", data.get("pollInterval"))
        message = data.get("statusMessage")
        return cls(
            task_id=found_id,
            status=found_status,
            status_message=message if isinstance(message, str) else None,
            created_at=_parse_time(data.get("createdAt")),
            last_updated_at=_parse_time(data.get("lastUpdatedAt")),
            ttl_ms=int(ttl) if _number(ttl) else None,
            poll_interval_ms=int(poll) if _number(poll) else None,
            result=data.get("result") if isinstance(data.get("result"), dict) else None,
            error=error,
            input_requests=data.get("inputRequests") if isinstance(data.get("inputRequests"), dict) else None,
            progress=_progress(data),
            raw=data,
            warnings=warnings,
        )


def _readable_meta(data: dict[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
    """A reply whose own ``_meta`` is no object (a list, a string) with that ``_meta`` kept as sent
    under :data:`~mcpnb.client.contents.AS_SENT`, as a tool result's is
    (:func:`mcpnb.client.lean.readable_result`), and what was done, said. The SDK refused the whole
    reply for it: a poll failed, and so the task's handle, though its status and result were fine."""
    meta = data.get("_meta")
    if meta is None or isinstance(meta, Mapping):
        return data, []
    from mcpnb.client.config.validate import kind
    from mcpnb.client.contents import AS_SENT

    said = (
        f"{where} answered with a _meta that is {kind(meta)}, not an object: the rest was read, "
        f"the _meta kept as sent in handle.state.raw['_meta'][{AS_SENT!r}]"
    )
    return {**data, "_meta": {AS_SENT: meta}}, [said]


def _readable_error(error: Any, where: str) -> tuple[dict[str, Any] | None, list[str]]:
    """A failed task's ``error`` as an error object, and what was done to it, said. The spec has a
    JSON-RPC error object there (``{code, message}``); a server that sends its text alone (a
    string), or a list, lost it: the task "failed" and nothing said why. Its text becomes the
    message (the whole of it stays in ``state.raw['error']``)."""
    if error is None or isinstance(error, Mapping):
        return (dict(error) if error is not None else None), []
    from mcpnb.client.config.validate import kind

    message = error if isinstance(error, str) else short(error)
    said = f"{where} answered with an error that is {kind(error)}, not an error object: read as its message"
    return {"message": message}, [said]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def short(data: Any, limit: int = 200) -> str:
    """``data`` as at most ``limit`` characters of JSON, for an error message that quotes a reply;
    credentials in it hidden (:func:`~mcpnb.client.logfilter.redact_text`: a server's reply may
    echo a URL with a token, or a known secret)."""
    import json

    from mcpnb.client.logfilter import redact_text

    try:
        text = json.dumps(data, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(data)
    text = redact_text(text)  # whole: a secret cut in two would pass unseen
    return text if len(text) <= limit else text[:limit] + " …"


def is_acknowledgement(data: Any) -> bool:
    """SEP-2663's empty result for ``tasks/cancel``/``tasks/update``: no task fields, just
    ``resultType: "complete"`` (and maybe ``_meta``)."""
    return isinstance(data, Mapping) and "taskId" not in data and "status" not in data


def _progress(data: Mapping[str, Any]) -> tuple[float, float | None, str | None] | None:
    """Progress if the server puts any on the task (neither spec defines it; be liberal)."""
    value = data.get("progress")
    if isinstance(value, Mapping) and isinstance(value.get("progress"), int | float):
        return float(value["progress"]), value.get("total"), value.get("message")
    if isinstance(value, int | float) and not isinstance(value, bool):
        total = data.get("total")
        return float(value), float(total) if isinstance(total, int | float) else None, None
    return None
