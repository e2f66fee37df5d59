"""One task as the tasks manager sees it, and as it is written into a task store.

The record is plain data: the worker that runs a task keeps the live one, every other reader gets a
copy rebuilt from the store's fields. ``status`` and ``lease`` are fields of their own because the
stores guard writes on them, ``context`` because ``tasks/list`` filters on it without reading the
rest; everything else travels as one JSON ``doc``.

A question's ``params`` are stored under ``pending`` as they always were (an older worker still reads
a form); the method of each question that is not a form goes in ``pendingMethods`` beside it, so a
document written before tasks could ask anything but forms reads as forms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp import types
from pydantic import BaseModel

from mcpnb.probekit.taskstore import LEASE, STATUS, TERMINAL, Fields

STATUSES = ("queued", "working", "input_required", "completed", "failed", "cancelled")
DOC, OWNER, CANCEL = "doc", "owner", "cancel"
#: The field naming the requestor context a task belongs to (``tasks/list`` lists only its own).
CONTEXT = "context"
#: Field prefix of an answer another worker received for a question (``answer:input-1``).
ANSWER = "answer:"


#: The requests a task may send its client, by method (SEP-2663: each as its standalone request).
ELICIT, SAMPLE, ROOTS = "elicitation/create", "sampling/createMessage", "roots/list"
_REQUESTS: dict[str, type[BaseModel]] = {
    ELICIT: types.ElicitRequest,
    SAMPLE: types.CreateMessageRequest,
    ROOTS: types.ListRootsRequest,
}
#: What the client answers a question with, or the error it answered a 2025-11-25 request with.
Answer = (
    types.ElicitResult
    | types.CreateMessageResult
    | types.CreateMessageResultWithTools
    | types.ListRootsResult
    | types.ErrorData
)


@dataclass
class PendingInput:
    """A question a task is waiting on: the request's ``method`` and its ``params`` as sent."""

    params: dict[str, Any]
    method: str = ELICIT

    def answer_type(self) -> type[BaseModel]:
        """The result type this question's answer must be: the one its method answers with."""
        if self.method == SAMPLE:
            tools = "tools" in self.params or "toolChoice" in self.params
            return types.CreateMessageResultWithTools if tools else types.CreateMessageResult
        return types.ListRootsResult if self.method == ROOTS else types.ElicitResult

    def as_request(self, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The question as its standalone request (``{"method", "params"}``); ``meta`` goes in its
        params' ``_meta``. A ``roots/list`` without params is sent without them, as the SDK does."""
        params = {**self.params, "_meta": meta} if meta else self.params
        return {"method": self.method, "params": params} if params else {"method": self.method}

    def typed_request(self, meta: dict[str, Any] | None = None) -> Any:
        """:meth:`as_request` as the SDK's request model (to send it over a session)."""
        return _REQUESTS[self.method].model_validate(self.as_request(meta))

    def read_answer(self, given: Any) -> BaseModel:
        """``given`` (JSON-ready or a model) as this question's answer type; ValidationError if it
        is none (a roots list given for a form, a form's answer for a completion, ...)."""
        if isinstance(given, BaseModel):
            given = given.model_dump(by_alias=True, mode="json", exclude_none=True)
        return self.answer_type().model_validate(given)


def dump_answer(answer: Answer) -> str:
    """An answer as another worker reads it back (:func:`load_answer`); an error as ``{"error"}``."""
    dumped = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
    wrapped = {"error": dumped} if isinstance(answer, types.ErrorData) else dumped
    return json.dumps(wrapped, separators=(",", ":"))


def load_answer(pending: PendingInput, raw: str) -> Answer:
    """What :func:`dump_answer` wrote for ``pending``'s question."""
    data = json.loads(raw)
    if isinstance(data, dict) and set(data) == {"error"}:
        return types.ErrorData.model_validate(data["error"])
    return pending.read_answer(data)  # type: ignore[return-value]


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
    #: session's; a 2026-07-28 HTTP client's hashed cookie, which no ``tasks/list`` scopes by: it
    #: only tells an answer or cancel by another client), or None.
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
        methods = {key: p.method for key, p in self.pending.items() if p.method != ELICIT}
        if methods:
            doc["pendingMethods"] = methods
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
        methods = doc.get("pendingMethods") or {}
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
            pending={
                key: PendingInput(params, methods.get(key, ELICIT))
                for key, params in (doc.get("pending") or {}).items()
            },
            owner=fields.get(OWNER),
            lease_until=float(lease) if lease else None,
            context=fields.get(CONTEXT),
        )
