"""A task whose result has parts MCP does not allow loses nothing, as a plain call's result does not.

A plain ``tools/call`` result the SDK would refuse (an ``isError`` of ``"error"``, a ``_meta`` that
is a list, a block of a type it does not know) is read and what was changed is said
(``ToolResult.warnings``: tests/client/test_unknown_content.py). A task's result was parsed
straight into the SDK's ``CallToolResult``: the task failed with "1 validation error for
CallToolResult", and its content was gone. Now each place a task's result arrives reads it the
same way: 2025-11-25's ``tasks/result`` and a task-augmented call answered at once, and
2026-07-28's ``tasks/get``.

The server is written by hand (tests/servers/odd_task_server.py): no SDK server sends such results.
A well-formed task result says nothing, there and from servers we did not write (FastMCP's tasks
extension; server-everything's 2025-11-25 tasks, through a bare ``mcp.Client``).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcpnb.client.contents import AS_SENT
from mcpnb.client.tasks import start_task

from .conftest import odd_client

HOLOGRAM = {"type": "hologram", "data": "zzz", "angle": [1, 2.5]}
VERSION = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def task_result(pool: Any, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    """``tool`` run as a task on ``odd``, its final result (the task completed: nothing failed it,
    an ``isError`` result included: the server's task status is ``completed``)."""
    handle = pool.call("odd", tool, arguments, task=True)
    result = handle.result(timeout=30)
    assert handle.status == "completed"
    return result


@pytest.mark.parametrize(
    ("tool", "is_error", "text", "said"),
    [
        (
            "worded_error",
            True,
            "disk full",
            'result.isError is a string ("error"), not true/false: read as true',
        ),
        ("null_error", False, "fine", "result.isError is null, not true/false: read as false"),
        (
            "list_meta",
            False,
            "tagged",
            "result._meta is a list, not an object: kept as sent in result.meta['mcpnb/as-sent']",
        ),
    ],
)
def test_a_tasks_is_error_or_meta_of_the_wrong_kind_is_read_and_said(odd, tool, is_error, text, said):
    # the task failed with "1 validation error for CallToolResult", its text with it
    pool, _era = odd
    result = task_result(pool, tool)
    assert result.is_error is is_error and result.text == text and result.warnings == [said]
    if tool == "list_meta":
        assert result.meta == {AS_SENT: ["a", "b"]}
    assert pool.call("odd", tool).warnings == [said]  # a plain call of it: said the same


def test_a_tasks_blocks_the_sdk_cannot_read_are_kept_where_they_were_and_said(odd):
    pool, era = odd
    result = task_result(pool, "weird_content")
    unknown, after = result.content
    assert after.type == "text" and after.text == "after"  # the good block, as sent
    assert unknown.meta[AS_SENT] == HOLOGRAM and '"angle": [1, 2.5]' in unknown.text
    [said] = result.warnings
    assert said.startswith(
        f"result.content[0] is of type 'hologram', which MCP {VERSION[era]} does not define"
    )
    assert f"(! {said})" in repr(result)  # shown with the result, as a plain call's is

    result = task_result(pool, "broken_blocks")  # an image without data, a bare string, then text
    image, loose, kept = result.content
    assert kept.text == "kept" and loose.meta[AS_SENT] == "loose words"
    assert image.meta[AS_SENT] == {"type": "image", "mimeType": "image/png"}
    assert result.warnings == pool.call("odd", "broken_blocks").warnings
    assert len(result.warnings) == 2 and "data: Field required" in result.warnings[0]


def test_a_tasks_list_as_structured_content_is_kept_and_said_where_mcp_forbids_it(odd):
    pool, era = odd
    result = task_result(pool, "list_structured")
    assert result.structured == [1, 2, 3] and result.text == "three numbers"
    if era == "legacy":  # 2025-11-25 allows only an object
        assert result.warnings == [
            "structuredContent is a list, but MCP 2025-11-25 allows only an object there: "
            "kept as sent (result.structured)"
        ]
    else:  # 2026-07-28 allows any JSON value: nothing wrong
        assert result.warnings == []
    assert result.warnings == pool.call("odd", "list_structured").warnings


def test_a_task_call_answered_at_once_is_read_the_same_way(odd):
    # the server answers the task-augmented call with the result itself, no task
    pool, _era = odd
    handle = pool.call("odd", "worded_error", {"at_once": True}, task=True)
    assert handle.done
    result = handle.result(timeout=30)
    assert result.is_error and result.text == "disk full"
    assert result.warnings == ['result.isError is a string ("error"), not true/false: read as true']


def test_a_well_formed_task_result_says_nothing(odd):
    pool, _era = odd
    result = task_result(pool, "echo", {"text": "all well"})
    assert result.text == "all well" and result.warnings == [] and not result.is_error


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.anyio
async def test_a_bare_clients_task_result_is_read_the_same_way(era):
    # start_task over an mcp.Client, not a pool: the session's own call_tool is not mcpnb's there
    async with odd_client(era) as client:
        handle = await start_task(client, "worded_error")
        result = await handle
        assert handle.status == "completed" and result.is_error and result.text == "disk full"
        assert result.warnings == ['result.isError is a string ("error"), not true/false: read as true']
        ok = await (await start_task(client, "echo", {"text": "fine"}))
        assert ok.text == "fine" and ok.warnings == []


def test_a_well_formed_fastmcp_task_result_says_nothing(pool, fastmcp_url):
    pool.connect("fm", url=fastmcp_url)  # 2026-07-28 tasks, an implementation we did not write
    handle = pool.call("fm", "double", {"value": 4}, task=True)
    result = handle.result(timeout=60)
    assert handle.status == "completed" and "8" in result.text and result.warnings == []


@pytest.mark.anyio
async def test_a_well_formed_server_everything_task_result_says_nothing(everything):
    # 2025-11-25 tasks/get and tasks/result, from a server we did not write: no news in either
    params = StdioServerParameters(command="node", args=[everything, "stdio"])
    async with Client(params, mode="legacy") as client:
        for _ in range(500):  # the task tool is registered just after initialization
            if "simulate-research-query" in {t.name for t in (await client.list_tools()).tools}:
                break
            await anyio.sleep(0.01)
        handle = await start_task(client, "simulate-research-query", {"topic": "tidy results"})
        result = await handle
    assert handle.status == "completed" and "tidy results" in result.text and result.warnings == []
    assert handle.polls >= 1 and handle.warnings == []
