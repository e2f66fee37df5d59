"""One task as the tasks manager sees it, and as it is written into a task store.

The record is plain data: the worker that runs a task keeps the live one, every other reader gets a
copy rebuilt from the store's fields. ``status`` and ``lease`` are fields of their own because the
stores guard writes on them, ``context`` because ``tasks/list`` filters on it without reading the
rest; everything else travels as one JSON ``doc``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp import types

from mcpnb.probekit.taskstore import LEASE, STATUS, TERMINAL, Fields

STATUSES = ("queued", "working", "input_required", "completed", "failed", "cancelled")
DOC, OWNER, CANCEL = "doc", "owner", "cancel"
#: The field naming the requestor context a task belongs to (``tasks/list`` lists only its own).
CONTEXT = "context"
#: Field prefix of an answer another worker received for a question (``answer:input-1``).
ANSWER = "answer:"


@dataclass
class PendingInput:
    """A question a task is waiting on; ``params`` are form-mode ``elicitation/create`` params."""

    params: dict[str, Any]


@dataclass
class TaskRecord:
    """One task: its state, its result once finished, the questions it waits on, who runs it."""

    task_id: str
    tool: str
    ttl_ms: int
    created: float
    updated: float
    status: str = "queued"
    status_message: str | None = None
    result: types.CallToolResult | None = None
    finished: float | None = None
    progress: tuple[float, float | None, str] | None = None
    pending: dict[str, PendingInput] = field(default_factory=dict)
    #: The worker running it and until when its lease holds (shared stores only).
    owner: str | None = None
    lease_until: float | None = None
    #: Whose task it is: an opaque token of the requestor context that created it (a 2025-11-25
    #: session), or None (a 2026-07-28 task: that era has no ``tasks/list`` to scope).
    context: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def to_fields(self) -> Fields:
        doc = {
            "tool": self.tool,
            "ttlMs": self.ttl_ms,
            "created": self.created,
            "updated": self.updated,
            "statusMessage": self.status_message,
            "finished": self.finished,
            "progress": list(self.progress) if self.progress else None,
            "pending": {key: p.params for key, p in self.pending.items()},
            "result": None
            if self.result is None
            else self.result.model_dump(by_alias=True, mode="json", exclude_none=True),
        }
        out = {STATUS: self.status, DOC: json.dumps(doc, separators=(",", ":"))}
        if self.owner is not None:
            out[OWNER] = self.owner
        if self.lease_until is not None:
            out[LEASE] = repr(self.lease_until)
        if self.context is not None:
            out[CONTEXT] = self.context
        return out

    @classmethod
    def from_fields(cls, task_id: str, fields: Fields) -> TaskRecord:
        doc = json.loads(fields[DOC])
        progress = doc.get("progress")
        lease = fields.get(LEASE)
        return cls(
            task_id=task_id,
            tool=doc["tool"],
            ttl_ms=int(doc["ttlMs"]),
            created=float(doc["created"]),
            updated=float(doc["updated"]),
            status=fields[STATUS],
            status_message=doc.get("statusMessage"),
            result=None if doc.get("result") is None else types.CallToolResult.model_validate(doc["result"]),
            finished=doc.get("finished"),
            progress=tuple(progress) if progress else None,  # type: ignore[arg-type]
            pending={key: PendingInput(params) for key, params in (doc.get("pending") or {}).items()},
            owner=fields.get(OWNER),
            lease_until=float(lease) if lease else None,
            context=fields.get(CONTEXT),
        )
