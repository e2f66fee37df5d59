"""A modern task's ``inputRequests`` answered by the client's own callbacks: a form, its model's
completion, its roots (SEP-2663 lets a task ask what the client declared), each parsed as MCP's
``InputRequest`` and sent to the callback for its method."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import types

from mcpnb import serve_probekit
from mcpnb.client.tasks import TaskError, input_answerer
from tests.client.test_fastmcp_task_inputs import Model

FORM = {
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}},
}
SAMPLE = {
    "method": "sampling/createMessage",
    "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
        "maxTokens": 20,
    },
}
ROOTS = {"method": "roots/list"}


async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
    assert isinstance(params, types.ElicitRequestFormParams)
    return types.ElicitResult(action="accept", content={})


async def sample(ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    said = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"{said}!"), model="person"
    )


def roots(ctx: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


@pytest.mark.anyio
async def test_each_request_goes_to_the_callback_for_its_method() -> None:
    answer = input_answerer(elicit, sample=sample, list_roots=roots)
    out = await answer({"a": FORM, "b": SAMPLE, "c": ROOTS})
    assert out["a"].action == "accept"
    assert out["b"].content.text == "Say hi!" and out["b"].model == "person"
    assert [str(r.uri) for r in out["c"].roots] == ["file:///work"]


@pytest.mark.anyio
async def test_what_no_callback_answers_fails_the_wait_with_its_method_named() -> None:
    answer = input_answerer(elicit)  # no sampling, no roots declared
    with pytest.raises(TaskError, match=r"'sampling/createMessage' request \(key 'b'\): not declared"):
        await answer({"b": SAMPLE})
    with pytest.raises(TaskError, match=r"'roots/list' request \(key 'c'\): not declared"):
        await answer({"c": ROOTS})
    with pytest.raises(TaskError, match=r"cannot answer a task's 'tools/call' request"):
        await answer({"d": {"method": "tools/call", "params": {"name": "x"}}})


@pytest.mark.anyio
async def test_a_refusal_is_a_cancel_for_a_form_and_an_error_for_the_rest() -> None:
    async def refuse(ctx: Any, params: Any = None) -> types.ErrorData:
        return types.ErrorData(code=-1, message="nobody answered")

    answer = input_answerer(refuse, sample=refuse)
    assert (await answer({"a": FORM}))["a"].action == "cancel"
    with pytest.raises(TaskError, match="was refused: nobody answered"):
        await answer({"b": SAMPLE})


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_probekit_s_task_asks_the_pool_s_model_and_roots_in_both_eras(pool, era, tmp_path) -> None:
    """probe-kit's draft_with_model and client_roots as tasks: on 2026-07-28 the question rides
    tasks/get's inputRequests, on 2025-11-25 a request beside tasks/result; the pool answers both."""
    model = Model()
    pool.interaction = model
    serve_probekit("probe", pool=pool, era=era)
    handle = pool.call("probe", "draft_with_model", {"topic": "ponds", "points": 1, "delay": 0}, task=True)
    result = handle.result(timeout=60)
    assert not result.is_error, result.text
    assert result.data["asked"] is True and result.data["draft"] == "old pond, a frog jumps"
    assert model.prompts and "'ponds'" in model.prompts[-1]
    serve_probekit("rooted", pool=pool, era=era, roots=[str(tmp_path)])
    listed = pool.call("rooted", "client_roots", task=True).result(timeout=60)
    assert tmp_path.as_uri() in listed.text, listed.text
