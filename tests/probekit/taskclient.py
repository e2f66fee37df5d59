"""A minimal client half of the SEP-2663 tasks extension, for tests (the SDK ships none)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import anyio
from mcp import types
from mcp.client import ClientExtension
from mcp.client.extension import ClaimContext, ResultClaim
from pydantic import ConfigDict, Field

TASKS = "io.modelcontextprotocol/tasks"


class TaskParams(types.RequestParams):
    model_config = ConfigDict(populate_by_name=True)
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


class TaskRequest(types.Request[TaskParams, str]):
    """Over HTTP the SDK sends the task id as the ``Mcp-Name`` header (SEP-2663 requires it)."""

    name_param: ClassVar[str | None] = "taskId"
    method: str
    params: TaskParams


class CreatedTask(types.Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(default="task", alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    ttl_ms: int = Field(alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class TaskState(types.Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    ttl_ms: int = Field(alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")


class Acknowledgement(types.Result):
    """SEP-2663's answer to tasks/cancel and tasks/update: an empty result (resultType "complete")."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


async def rpc(session: Any, method: str, task_id: str, **extra: Any) -> TaskState:
    params = TaskParams(task_id=task_id, **extra)
    return await session.send_request(TaskRequest(method=method, params=params), TaskState)


async def ack(session: Any, method: str, task_id: str, **extra: Any) -> dict[str, Any]:
    """tasks/cancel or tasks/update; the acknowledgement as a dict (without ``_meta``)."""
    params = TaskParams(task_id=task_id, **extra)
    result = await session.send_request(TaskRequest(method=method, params=params), Acknowledgement)
    dumped = result.model_dump(by_alias=True, exclude_none=True)
    dumped.pop("_meta", None)
    return dumped


class TasksClient(ClientExtension):
    """Resolves task results transparently; answers inputRequests with ``answer(params) -> dict``."""

    identifier = TASKS

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.seen: list[str] = []

    def claims(self) -> tuple[ResultClaim[CreatedTask], ...]:
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=self._poll),)

    async def _poll(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        while True:
            state = await rpc(ctx.session, "tasks/get", created.task_id)
            self.seen.append(state.status)
            if state.status == "input_required" and state.input_requests and self.answer is not None:
                responses = {k: self.answer(v["params"]) for k, v in state.input_requests.items()}
                await ack(ctx.session, "tasks/update", created.task_id, input_responses=responses)
                continue
            if state.status in {"completed", "failed"} and state.result is not None:
                return types.CallToolResult.model_validate(state.result)
            if state.status == "cancelled":
                text = (state.error or {}).get("message", "cancelled")
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=text)], is_error=True
                )
            await anyio.sleep((state.poll_interval_ms or 100) / 1000)
