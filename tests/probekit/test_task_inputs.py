"""A task asks its client more than a form: a completion from its model (``sampling/createMessage``)
and its roots (``roots/list``), in both eras, and only of a client that declared it can answer.

2026-07-28 (SEP-2663): ``tasks/get`` lists each question as its standalone request; ``tasks/update``
answers are checked against the result type of that request's method. 2025-11-25: the questions go
to the client waiting on ``tasks/result`` as requests marked with the task (answered here by the
SDK's own ``mcp.Client`` callbacks). The same tool bodies answer plain calls, and a shared store
(SQLite, Redis) carries a question and its answer between workers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, MCPError, types

from mcpnb.probekit import serve_http
from mcpnb.probekit.taskrecord import SAMPLE, PendingInput, TaskRecord
from mcpnb.probekit.tasks import TaskError, TaskManager
from mcpnb.probekit.tools.tasksuite import DRAFT, ROOTS
from tests.probekit.conftest import Answers
from tests.probekit.stores import SHARED, redis_server, store_url  # noqa: F401  (fixtures)
from tests.probekit.taskclient import TasksClient, ack, rpc
from tests.probekit.test_tasks_wire import poll, raw

pytestmark = pytest.mark.anyio
RELATED = "io.modelcontextprotocol/related-task"
DRAFT_ARGS = {"topic": "tides", "points": 2, "delay": 0}
SHARED_ROOTS = [types.Root(uri="file:///work/notes", name="notes"), types.Root(uri="file:///tmp/x")]


class Model:
    """A sampling callback: answers every completion with ``reply``; records what it was asked."""

    def __init__(self, reply: str = "Tides rise and fall twice a day.", refuse: bool = False) -> None:
        self.reply, self.refuse = reply, refuse
        self.seen: list[types.CreateMessageRequestParams] = []

    async def __call__(self, ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        self.seen.append(params)
        if self.refuse:
            return types.ErrorData(code=-1, message="User rejected sampling request")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=self.reply), model="test-model"
        )


class Roots:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def __call__(self, ctx: Any) -> types.ListRootsResult:
        self.seen.append(ctx)
        return types.ListRootsResult(roots=SHARED_ROOTS)


def meta_of(params: Any) -> dict[str, Any]:
    meta = params.meta
    return meta if isinstance(meta, dict) else (meta.model_dump(by_alias=True) if meta else {})


def modern_get(session: Any) -> Any:
    async def get(task_id: str) -> dict[str, Any]:
        return (await rpc(session, "tasks/get", task_id)).model_dump(by_alias=True, exclude_none=True)

    return get


COMPLETION = {
    "role": "assistant",
    "content": {"type": "text", "text": "The moon pulls the sea."},
    "model": "wire-model",
}


# --- 2026-07-28: inputRequests and tasks/update ---------------------------------------------------


async def test_modern_task_asks_the_model_and_checks_the_answer_type(server: Any) -> None:
    async with Client(server, extensions=[TasksClient()], sampling_callback=Model()) as client:
        session = client.session
        created = await session.call_tool("draft_with_model", DRAFT_ARGS, allow_claimed=True)
        get = modern_get(session)
        waiting = await poll(get, created.task_id, {"input_required"})
        ((key, request),) = waiting["inputRequests"].items()
        assert request["method"] == "sampling/createMessage"
        assert request["params"]["maxTokens"] == 200
        assert "tides: point 2" in request["params"]["messages"][0]["content"]["text"]
        assert waiting["statusMessage"] == "waiting for the client's model"

        # a form's answer for a completion: -32602 naming the key, and nothing delivered
        with pytest.raises(MCPError) as wrong:
            await ack(session, "tasks/update", created.task_id, input_responses={key: {"action": "accept"}})
        assert wrong.value.error.code == -32602
        assert f"inputResponses['{key}'] is not a CreateMessageResult" in wrong.value.error.message
        assert "sampling/createMessage" in wrong.value.error.message
        assert (await get(created.task_id))["status"] == "input_required"

        assert await ack(session, "tasks/update", created.task_id, input_responses={key: COMPLETION}) == {
            "resultType": "complete"
        }
        done = await poll(get, created.task_id, {"completed"})
    data = done["result"]["structuredContent"]
    jsonschema.validate(data, DRAFT)
    assert (
        data["asked"] is True and data["draft"] == "The moon pulls the sea." and data["model"] == "wire-model"
    )
    assert data["outline"] == ["1. tides: point 1", "2. tides: point 2"]


async def test_modern_task_asks_the_roots(server: Any) -> None:
    async with Client(server, extensions=[TasksClient()], list_roots_callback=Roots()) as client:
        session = client.session
        created = await session.call_tool("client_roots", {}, allow_claimed=True)
        get = modern_get(session)
        waiting = await poll(get, created.task_id, {"input_required"})
        ((key, request),) = waiting["inputRequests"].items()
        assert request == {"method": "roots/list"}
        with pytest.raises(MCPError) as wrong:  # a completion is no roots list
            await ack(session, "tasks/update", created.task_id, input_responses={key: COMPLETION})
        assert (
            wrong.value.error.code == -32602
            and f"inputResponses['{key}'] is not a ListRootsResult" in str(wrong.value)
        )
        roots = {"roots": [{"uri": "file:///srv/a", "name": "a"}]}
        await ack(session, "tasks/update", created.task_id, input_responses={key: roots})
        done = await poll(get, created.task_id, {"completed"})
    data = done["result"]["structuredContent"]
    jsonschema.validate(data, ROOTS)
    assert data == {"asked": True, "count": 1, "roots": [{"uri": "file:///srv/a", "name": "a"}]}


async def test_modern_client_that_declared_no_sampling_is_not_asked(server: Any) -> None:
    async with Client(server, extensions=[TasksClient()]) as client:  # no sampling, no roots
        session = client.session
        get = modern_get(session)
        created = await session.call_tool("draft_with_model", DRAFT_ARGS, allow_claimed=True)
        seen: list[str] = []
        for _ in range(400):
            state = await get(created.task_id)
            seen.append(state["status"])
            if state["status"] == "completed":
                break
            await anyio.sleep(0.01)
        roots = await session.call_tool("client_roots", {}, allow_claimed=True)
        roots_done = await poll(get, roots.task_id, {"completed", "input_required"})
    assert "input_required" not in seen and seen[-1] == "completed"
    data = state["result"]["structuredContent"]
    assert data["asked"] is False and data["draft"] is None and len(data["outline"]) == 2
    assert "did not declare the sampling capability" in state["result"]["content"][0]["text"]
    assert roots_done["status"] == "completed"
    assert roots_done["result"]["structuredContent"] == {"asked": False, "count": 0, "roots": []}
    assert "did not declare the roots capability" in roots_done["result"]["content"][0]["text"]


async def test_modern_task_answered_by_the_callbacks_through_tasks_client(server: Any) -> None:
    """The TasksClient answers every inputRequest as a completion: the task takes it and ends."""
    model = Model()
    ext = TasksClient(answer=lambda params: COMPLETION)
    async with Client(server, extensions=[ext], sampling_callback=model) as client:
        result = await client.call_tool("draft_with_model", DRAFT_ARGS)
    assert result.structured_content["draft"] == "The moon pulls the sea."
    assert "input_required" in ext.seen and ext.seen[-1] == "completed"


# --- 2025-11-25: side-channel requests while the client waits on tasks/result --------------------


async def test_legacy_sdk_client_answers_the_model_and_roots_requests(server: Any) -> None:
    """The SDK's own Client (an implementation we did not write) answers them by its callbacks."""
    model, roots, forms = Model(), Roots(), Answers(content={"confirm": True})
    async with Client(
        server, mode="legacy", sampling_callback=model, list_roots_callback=roots, elicitation_callback=forms
    ) as client:
        send = raw(client)
        get = lambda tid: send("tasks/get", {"taskId": tid}, {})  # noqa: E731
        task = (
            await send("tools/call", {"name": "draft_with_model", "arguments": DRAFT_ARGS, "task": {}}, {})
        )["task"]
        waiting = await poll(get, task["taskId"], {"input_required"})
        assert waiting["statusMessage"] == "waiting for the client's model" and model.seen == []
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
        assert len(model.seen) == 1 and model.seen[0].max_tokens == 200
        assert meta_of(model.seen[0])[RELATED] == {"taskId": task["taskId"]}
        assert result["structuredContent"]["draft"] == model.reply
        assert result["structuredContent"]["model"] == "test-model"
        assert result["_meta"][RELATED] == {"taskId": task["taskId"]}

        listed = (await send("tools/call", {"name": "client_roots", "arguments": {}, "task": {}}, {}))["task"]
        got = await send("tasks/result", {"taskId": listed["taskId"]}, {})
        assert got["structuredContent"]["roots"] == [
            {"uri": "file:///work/notes", "name": "notes"},
            {"uri": "file:///tmp/x", "name": None},
        ]
        assert len(roots.seen) == 1

        # a form asked by a task is marked with its task too
        asked = (
            await send("tools/call", {"name": "confirm_delete", "arguments": {"path": "a"}, "task": {}}, {})
        )["task"]
        deleted = await send("tasks/result", {"taskId": asked["taskId"]}, {})
        assert "a deleted" in deleted["content"][0]["text"]
        assert meta_of(forms.seen[0])[RELATED] == {"taskId": asked["taskId"]}


async def test_legacy_refused_completion_fails_the_tool_with_the_clients_reason(server: Any) -> None:
    async with Client(server, mode="legacy", sampling_callback=Model(refuse=True)) as client:
        send = raw(client)
        task = (
            await send("tools/call", {"name": "draft_with_model", "arguments": DRAFT_ARGS, "task": {}}, {})
        )["task"]
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
    assert result["isError"] is True
    assert "The client's model did not answer: User rejected sampling request" in result["content"][0]["text"]


async def test_legacy_client_without_sampling_is_not_asked(server: Any) -> None:
    async with Client(server, mode="legacy") as client:
        send = raw(client)
        get = lambda tid: send("tasks/get", {"taskId": tid}, {})  # noqa: E731
        task = (
            await send("tools/call", {"name": "draft_with_model", "arguments": DRAFT_ARGS, "task": {}}, {})
        )["task"]
        done = await poll(get, task["taskId"], {"completed", "input_required"})
        result = await send("tasks/result", {"taskId": task["taskId"]}, {})
    assert done["status"] == "completed"
    assert result["structuredContent"]["asked"] is False


async def test_legacy_over_http_the_question_rides_the_tasks_result_stream(server: Any) -> None:
    handle = await serve_http(server)
    try:
        model = Model()
        async with Client(handle.url, mode="legacy", sampling_callback=model) as client:
            send = raw(client)
            task = (
                await send(
                    "tools/call", {"name": "draft_with_model", "arguments": DRAFT_ARGS, "task": {}}, {}
                )
            )["task"]
            with anyio.fail_after(30):
                result = await send("tasks/result", {"taskId": task["taskId"]}, {})
        assert result["structuredContent"]["draft"] == model.reply
        assert meta_of(model.seen[0])[RELATED] == {"taskId": task["taskId"]}
    finally:
        await handle.stop()


# --- plain calls: the same body, asked mid-call (2025-11-25) or by an input round (2026-07-28) ----


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_plain_calls_ask_the_model_and_roots(server: Any, mode: str) -> None:
    model, roots = Model(), Roots()
    async with Client(server, mode=mode, sampling_callback=model, list_roots_callback=roots) as client:
        drafted = await client.call_tool("draft_with_model", DRAFT_ARGS)
        listed = await client.call_tool("client_roots", {})
    assert not drafted.is_error and drafted.structured_content["draft"] == model.reply
    assert len(model.seen) == 1
    assert listed.structured_content["count"] == 2
    assert listed.structured_content["roots"][0] == {"uri": "file:///work/notes", "name": "notes"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_plain_call_without_sampling_says_so(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        drafted = await client.call_tool("draft_with_model", DRAFT_ARGS)
    assert not drafted.is_error and drafted.structured_content["asked"] is False
    assert "sampling" in drafted.content[0].text


# --- a shared store carries the question and its answer between workers --------------------------


@pytest.fixture(params=SHARED)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def workers(store_url: str) -> AsyncIterator[tuple[TaskManager, TaskManager]]:  # noqa: F811
    a = TaskManager(store=store_url, lease_s=0.6, poll_interval_ms=10)
    b = TaskManager(store=store_url, lease_s=0.6, poll_interval_ms=10)
    yield a, b
    await a.shutdown()
    await b.shutdown()


async def asks_model_then_roots(io: Any) -> types.CallToolResult:
    said = await io.sample("Say hi", 10)
    shared = await io.roots()
    text = f"{said.content.text} / {len(shared.roots)} roots"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def test_shared_store_carries_a_completion_and_roots_between_workers(workers: Any) -> None:
    a, b = workers
    caps = types.ClientCapabilities(sampling=types.SamplingCapability(), roots=types.RootsCapability())
    record = await a.create("asks", asks_model_then_roots, capabilities=caps)

    async def pending_on_b(method: str) -> str:
        for _ in range(800):
            seen = await b.get(record.task_id)
            found = [k for k, p in seen.pending.items() if p.method == method]
            if seen.status == "input_required" and found:
                return found[0]
            await anyio.sleep(0.01)
        raise AssertionError(f"no {method} question seen by the other worker")

    key = await pending_on_b("sampling/createMessage")
    seen = await b.get(record.task_id)
    assert seen.pending[key].as_request()["params"]["messages"][0]["content"]["text"] == "Say hi"
    with pytest.raises(TaskError, match=rf"inputResponses\['{key}'\] is not a CreateMessageResult"):
        await b.accept(record.task_id, {key: {"roots": []}})
    assert await b.accept(record.task_id, {key: COMPLETION}) == [key]

    roots_key = await pending_on_b("roots/list")
    assert roots_key != key  # keys are unique over the task's life
    await b.accept(record.task_id, {roots_key: {"roots": [{"uri": "file:///a"}]}})
    for _ in range(800):
        done = await b.get(record.task_id)
        if done.terminal:
            break
        await anyio.sleep(0.01)
    assert done.status == "completed" and done.result.content[0].text == "The moon pulls the sea. / 1 roots"


def test_a_record_written_before_other_questions_reads_as_forms() -> None:
    """An older document (no ``pendingMethods``) still reads: its questions are forms."""
    form = {"mode": "form", "message": "Go on?", "requestedSchema": {"type": "object", "properties": {}}}
    doc = {"tool": "t", "ttlMs": 1000, "created": 1.0, "updated": 1.0, "pending": {"input-1": form}}
    record = TaskRecord.from_fields("t1", {"status": "input_required", "doc": json.dumps(doc)})
    assert record.pending["input-1"] == PendingInput(form, "elicitation/create")
    record.pending["input-2"] = PendingInput({"messages": [], "maxTokens": 5}, SAMPLE)
    again = TaskRecord.from_fields("t1", record.to_fields())
    assert again.pending == record.pending
    assert json.loads(record.to_fields()["doc"])["pending"]["input-1"] == form  # unchanged for old readers
