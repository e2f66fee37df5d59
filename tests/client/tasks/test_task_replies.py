"""What a task's replies say is read as far as it goes, and a task's status means what its era's spec says.

- A ``tasks/get`` reply whose own ``_meta`` is no object (a list, a string) failed the poll ("1
  validation error for _Loose"), so the task's handle failed although its status and result were
  fine. Now the rest is read, the ``_meta`` kept as sent (``state.raw['_meta']['mcpnb/as-sent']``)
  and said once on the handle and its result, however many polls brought it.
- A 2026-07-28 task that completed with a ``result`` that is no object (a string, a list) was
  "completed without a result": nothing said what came. Now the error says its kind and quotes it
  (redacted), and holds it whole (``TaskResultError.sent``).
- A task call answered at once with an ``isError`` result was ``failed`` in both eras. The specs
  differ: 2025-11-25 calls such a task ``failed`` ("For tool calls specifically, this includes
  cases where the tool call result has isError set to true"); SEP-2663 (2026-07-28) ``completed``
  ("failed ... MUST NOT be used for non-JSON-RPC errors"). The handle of a call answered at once
  now has the status a task ending with that result has in its era.
- A failed 2026-07-28 task whose ``error`` is no object (a string, a list) showed "the task failed"
  and lost the server's words; an error object without a message, the rest of it; a failed
  2025-11-25 task's ``tasks/result`` refusal (the spec's "error the underlying request produced"),
  its message. Each is now the failed result's text (what was not an object said once).

The odd replies come from a hand-written server (tests/servers/odd_task_server.py): no SDK server
sends them. Well-formed replies say nothing there and from servers we did not write (FastMCP's
tasks extension, server-everything's 2025-11-25 tasks); an immediate ``isError`` answer comes from
the SDK's own ``MCPServer`` in both eras (server-everything refuses a task-augmented call of a tool
without task support: no answer at once to be had there).
"""

from __future__ import annotations

import sys

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcpnb.client.contents import AS_SENT
from mcpnb.client.tasks import TaskResultError, TaskState, start_task

from .conftest import ODD_TASKS, odd_client

#: What a 2025-11-25 and a 2026-07-28 task whose tool result has ``isError: true`` ends as.
TOOL_ERROR_STATUS = {"legacy": "failed", "modern": "completed"}


# ------------------------------------------------------------------ a poll's _meta of the wrong kind
@pytest.mark.parametrize("meta", [["polled", 1], "polled"])
def test_a_poll_whose_meta_is_no_object_keeps_the_task_and_says_so_once(odd, meta):
    # the poll failed ("1 validation error for _Loose"), and the handle with it
    pool, _era = odd
    handle = pool.call("odd", "echo", {"text": "fine", "polls": 2, "poll_meta": meta}, task=True)
    result = handle.result(timeout=30)
    assert handle.status == "completed" and handle.failure is None
    assert result.text == "fine" and not result.is_error
    kind = "a list" if isinstance(meta, list) else "a string"
    said = (
        f"tasks/get {handle.task_id} on 'odd' answered with a _meta that is {kind}, not an object: "
        f"the rest was read, the _meta kept as sent in handle.state.raw['_meta']['{AS_SENT}']"
    )
    assert handle.polls >= 3  # two working replies and the completed one, each with the odd _meta
    assert handle.warnings == [said] and result.warnings == [said]  # once, however many polls
    assert handle.state.raw["_meta"] == {AS_SENT: meta}  # as sent
    assert f"(! {said})" in repr(result)


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.anyio
async def test_a_poll_whose_meta_is_no_object_is_read_by_a_bare_client_too(era):
    # start_task over an mcp.Client, not a pool: the same reading, the same words
    async with odd_client(era) as client:
        handle = await start_task(client, "worded_error", {"poll_meta": ["x"]})
        result = await handle
    assert result.text == "disk full" and handle.state.raw["_meta"] == {AS_SENT: ["x"]}
    assert [said.split(":")[0] for said in handle.warnings] == [
        f"tasks/get {handle.task_id} on 'odd-tasks' answered with a _meta that is a list, not an object"
    ]
    assert result.warnings == [  # the result's own first, then the poll's
        'result.isError is a string ("error"), not true/false: read as true',
        *handle.warnings,
    ]


def test_a_polled_null_ttl_stays_unlimited(odd):
    # a poll's reply went through a model whose dump dropped a null: after the first poll a task
    # with ttl: null (2025-11-25's "unlimited") read as one whose TTL was never said
    from mcpnb.client.tasks.summary import ttl_text

    pool, _era = odd
    handle = pool.call("odd", "echo", {"text": "kept", "polls": 1, "unlimited": True}, task=True)
    assert handle.state.unlimited  # the creating reply, taken as sent before too
    handle.result(timeout=30)
    assert handle.polls >= 2 and handle.state.unlimited and ttl_text(handle) == "no limit"


def test_a_task_objects_meta_of_the_wrong_kind_is_said_where_it_is_read():
    state = TaskState.from_wire({"taskId": "t", "status": "working", "_meta": "m"}, method="tasks/list")
    assert state.status == "working" and state.raw["_meta"] == {AS_SENT: "m"}
    assert state.warnings == [
        "tasks/list on 'the server' answered with a _meta that is a string, not an object: "
        f"the rest was read, the _meta kept as sent in handle.state.raw['_meta']['{AS_SENT}']"
    ]


def test_well_formed_polls_say_nothing_on_fastmcp(pool, fastmcp_url):
    # 2026-07-28 tasks/get from a server we did not write: its _meta (an object, or none) is no news
    pool.connect("fm", url=fastmcp_url)
    handle = pool.call("fm", "stepper", {"steps": 2}, task=True)
    result = handle.result(timeout=60)
    assert handle.status == "completed" and handle.polls >= 1
    assert handle.warnings == [] and result.warnings == []


# ------------------------------------------------------------------ a result that is no object
@pytest.mark.parametrize(
    ("tool", "kind", "quoted"),
    [("string_result", "a string", '"all done: 42 rows"'), ("list_result", "a list", '["row 1", "row 2"]')],
)
def test_a_modern_task_whose_result_is_no_object_says_what_came(pool, tool, kind, quoted):
    # it said "completed without a result", and nothing of what the server sent
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "modern"], tool_timeout=10)
    handle = pool.call("odd", tool, task=True)
    with pytest.raises(TaskResultError) as caught:
        handle.result(timeout=30)
    assert str(caught.value) == (
        f"task {handle.task_id!r} (odd.{tool}) completed, but its result is {kind}, not a tool "
        f"result (an object with content): {quoted}; the error's .sent holds it as sent"
    )
    assert caught.value.sent == handle.state.raw["result"]  # nothing lost
    assert handle.status == "completed"  # what the server said
    assert "stopped following it: task" in repr(handle)


def test_a_quoted_result_hides_credentials_and_the_error_holds_it_whole(pool):
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "modern"], tool_timeout=10)
    sent = "see https://user:hunter22@example.test/x?token=abc123 " + "z" * 500
    handle = pool.call("odd", "string_result", {"text": sent}, task=True)
    with pytest.raises(TaskResultError) as caught:
        handle.result(timeout=30)
    said = str(caught.value)
    assert "hunter22" not in said and "abc123" not in said and "https://user:***@example.test/" in said
    assert said.count("z") < 250 and " …;" in said  # a short quote
    assert caught.value.sent == sent  # the whole of it, as sent


# ------------------------------------------------------------------ the status of a call answered at once
def test_an_isError_answer_at_once_has_the_status_of_a_task_ending_so(odd):
    # answered at once, it was "failed" in both eras; a 2026-07-28 task with that result is completed
    pool, era = odd
    handle = pool.call("odd", "worded_error", {"at_once": True}, task=True)
    result = handle.result(timeout=30)
    assert handle.task_id == "" and result.is_error and result.text == "disk full"
    assert handle.status == TOOL_ERROR_STATUS[era]
    ok = pool.call("odd", "echo", {"text": "fine", "at_once": True}, task=True)
    assert ok.task_id == "" and ok.status == "completed"


def test_a_modern_task_ending_with_an_isError_result_is_completed_as_the_server_says(pool):
    # the real task, for comparison with the call answered at once (the hand-written server says
    # "completed", as SEP-2663 has it)
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "modern"], tool_timeout=10)
    handle = pool.call("odd", "worded_error", task=True)
    assert handle.result(timeout=30).is_error and handle.status == "completed"


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.anyio
async def test_an_sdk_servers_tool_error_answered_at_once_has_its_eras_status(era):
    # the SDK's own MCPServer answers a task-augmented call at once: in 2025-11-25 it does no tasks
    # (the call's task is ignored), in 2026-07-28 a client without the tasks extension asks none
    server = MCPServer("sdk", log_level="WARNING")

    @server.tool()
    def fails() -> str:
        raise ToolError("out of paper")

    async with Client(server, **({"mode": "legacy"} if era == "legacy" else {})) as client:
        assert client.protocol_version == {"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
        handle = await start_task(client, "fails")
        result = await handle
    assert handle.task_id == "" and result.is_error and "out of paper" in result.text
    assert handle.status == TOOL_ERROR_STATUS[era]


# ------------------------------------------------------------------ a failed task's error
@pytest.mark.parametrize(
    ("sent", "kind", "text"),
    [
        ("disk full on /data", "a string", "disk full on /data"),
        (["disk", "full"], "a list", '["disk", "full"]'),
        ({"code": -32603, "message": "disk full on /data"}, None, "disk full on /data"),
        (
            {"code": 7, "data": {"path": "/data"}},
            None,
            'the task failed: {"code": 7, "data": {"path": "/data"}}',
        ),
    ],
)
def test_a_modern_failed_tasks_error_is_read_whatever_its_kind(pool, sent, kind, text):
    # an error that was no object (the spec has {code, message} there) showed "the task failed"
    # and lost the server's words; an object without a message lost the rest of it
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "modern"], tool_timeout=10)
    handle = pool.call("odd", "echo", {"text": "never", "fails_with": sent}, task=True)
    result = handle.result(timeout=30)
    assert handle.status == "failed" and result.is_error
    assert result.text == text
    assert handle.state.raw["error"] == sent  # as sent
    said = (
        f"tasks/get {handle.task_id} on 'odd' answered with an error that is {kind}, not an error "
        "object: read as its message"
    )
    assert handle.warnings == ([said] if kind else [])


def test_a_legacy_failed_tasks_refused_result_gives_its_words(pool):
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, "legacy"], tool_timeout=10)
    handle = pool.call("odd", "echo", {"text": "never", "fails_with": "disk full on /data"}, task=True)
    result = handle.result(timeout=30)
    assert handle.status == "failed" and result.is_error
    assert result.text == "disk full on /data"  # the underlying request's error, as 2025-11-25 has it


def test_a_failed_tasks_words_hide_a_secret_of_the_servers_settings(pool):
    # a task's error shows in the cell as a call's does: a secret of the config it quotes is hidden
    secret = "apiSECRETz9y8x7w6"
    pool.connect(
        "odd", command=sys.executable, args=[ODD_TASKS, "modern"], env={"API_KEY": secret}, tool_timeout=10
    )
    handle = pool.call("odd", "echo", {"text": "never", "fails_with": f"bad key {secret}"}, task=True)
    result = handle.result(timeout=30)
    assert result.is_error and result.text == "bad key ***"
    assert "the error quoted a secret of this server's settings" in repr(result)
