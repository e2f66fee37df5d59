"""Reading task replies as the specs allow: acknowledgements, optional and unknown fields, and
replies that lack what the spec requires (a TaskError naming the method and the server, never a
bare KeyError). The replies are the specs' own examples (SEP-2663, SEP-1686)."""

from __future__ import annotations

import pytest

from mcpnb.client.tasks import TaskError, TaskState
from mcpnb.client.tasks.optin import requires_tasks, without_tasks
from mcpnb.client.tasks.wire import is_acknowledgement

ACK = {"resultType": "complete"}
MODERN_GET = {
    "resultType": "complete",
    "taskId": "786512e2",
    "status": "input_required",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:50:00Z",
    "ttlMs": None,  # unlimited
    "inputRequests": {"name": {"method": "elicitation/create", "params": {"message": "Name?"}}},
    "somethingNew": {"from": "a later revision"},
}


def test_acknowledgements_are_not_tasks():
    assert is_acknowledgement(ACK) and is_acknowledgement({**ACK, "_meta": {"x": 1}})
    assert not is_acknowledgement(MODERN_GET)


def test_optional_fields_may_be_missing_and_unknown_ones_are_ignored():
    state = TaskState.from_wire(MODERN_GET, method="tasks/get", server="fm")
    assert state.status == "input_required" and state.ttl_ms is None and state.poll_interval_ms is None
    assert state.status_message is None and state.input_requests["name"]["method"] == "elicitation/create"
    legacy = TaskState.from_wire({"taskId": "t", "status": "working", "ttl": 60000, "pollInterval": 5000})
    assert (legacy.ttl_ms, legacy.poll_interval_ms) == (60000, 5000)


def test_a_reply_without_what_the_spec_requires_names_method_and_server():
    with pytest.raises(TaskError, match=r"tasks/cancel t-1 on 'fm' answered without a taskId"):
        TaskState.from_wire({"status": "cancelled"}, method="tasks/cancel t-1", server="fm")
    with pytest.raises(TaskError, match=r"tasks/get t-1 on 'fm' answered without a task status"):
        TaskState.from_wire({"taskId": "t-1"}, method="tasks/get t-1", server="fm")
    with pytest.raises(TaskError, match="not a task"):
        TaskState.from_wire(["nope"], method="tasks/get t-1", server="fm")
    # what the request already says fills in: tasks/get of a known id
    assert TaskState.from_wire({"status": "working"}, task_id="t-1").task_id == "t-1"


def test_a_plain_call_drops_only_the_tasks_extension_from_its_capabilities():
    caps = {"extensions": {"io.modelcontextprotocol/tasks": {}, "io.example/other": {}}, "sampling": {}}
    params = {"name": "double", "_meta": {"io.modelcontextprotocol/clientCapabilities": caps}}
    stripped = without_tasks(params)["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert stripped == {"extensions": {"io.example/other": {}}, "sampling": {}}
    assert "io.modelcontextprotocol/tasks" in caps["extensions"]  # the SDK's shared dict is untouched


def test_missing_required_capability_is_read_from_the_error_data():
    from mcp import MCPError

    data = {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
    assert requires_tasks(MCPError(code=-32021, message="Missing required client capability", data=data))
    assert requires_tasks(MCPError(code=-32003, message="Missing required client capability", data=data))
    assert not requires_tasks(MCPError(code=-32021, message="x", data={"requiredCapabilities": {}}))
    assert not requires_tasks(MCPError(code=-32602, message="io.modelcontextprotocol/tasks"))
