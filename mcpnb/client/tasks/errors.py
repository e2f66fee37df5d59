"""Why a task gave no result, as errors a person can act on.

A task outlives the request that started it, so its failures are different from a call's: it can be
cancelled, forgotten by the server after its TTL, or stuck waiting for an answer nobody gives. Each
gets its own class so the magics can word the advice, and all are :class:`McpnbError` s.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.errors import McpnbError


class TaskError(McpnbError):
    """A tasks request failed, or a task cannot do what was asked (answer a legacy task, ...)."""


class TaskCancelledError(TaskError):
    """The task was cancelled (by us or by someone else); it has no result and never will."""


class TaskExpiredError(TaskError):
    """The server no longer knows the task: it dropped it after its TTL (or never had it)."""


class TaskTimeoutError(TaskError, TimeoutError):
    """We stopped waiting; the task itself keeps running on the server."""


class TaskResultError(TaskError):
    """The task ended with a result that is no tool result at all (a string, a list): the server's
    fault, nothing to repair. The message says what came and quotes its start; ``sent`` holds it
    whole, as sent (and ``handle.state.raw["result"]`` too)."""

    def __init__(self, message: str, sent: Any) -> None:
        super().__init__(message)
        self.sent = sent


class TaskRefusedError(TaskError):
    """2025-11-25's ``tasks/result`` answered with a JSON-RPC error: for a failed task, the spec's
    way of giving "the error the underlying request produced". ``refusal`` is the server's own
    message, which a failed task's result shows (the whole error says which request and where)."""

    def __init__(self, message: str, refusal: str) -> None:
        super().__init__(message)
        self.refusal = refusal


class TaskInputRequiredError(TaskError):
    """The task waits for answers and no ``answer`` callback was given to supply them.

    ``requests`` are the task's ``inputRequests`` (key -> ``{"method", "params"}``); answer them with
    ``handle.respond({key: ElicitResult-or-dict})``.
    """

    def __init__(self, message: str, requests: dict[str, Any]) -> None:
        super().__init__(message)
        self.requests = requests
