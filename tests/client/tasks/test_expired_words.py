"""A task its server no longer has, as a newcomer met it in notebook 08: the handle said "working"
after refresh() had been told the task was gone, the error said the 32-character id three times,
and it counted the TTL from the task's end where the spec counts it from its creation."""

from __future__ import annotations

import time

import pytest
from conftest import wait_until

from mcpnb import serve_probekit
from mcpnb.client.tasks import TaskExpiredError


def test_an_expired_task_says_so_once_with_its_id_short(pool):
    serve_probekit("old", pool=pool, era="legacy")
    handle = pool.start_task("old", "slow_task", {"steps": 2, "delay": 0.1}, ttl_ms=200)

    def gone() -> bool:
        try:
            handle.refresh()
        except TaskExpiredError:
            return True
        return False

    assert wait_until(gone, timeout=30)
    assert "expired (last seen" in repr(handle)  # not "working as of … ago"
    with pytest.raises(TaskExpiredError) as info:
        handle.refresh()
    said = str(info.value)
    assert said.count(handle.task_id) == 0 and said.count(handle.task_id[:8]) == 1, said
    assert "its TTL, counted from its creation, has passed" in said
    assert "(it said: " in said  # the server's own words stay


def test_a_server_s_words_without_the_id_leave_the_whole_id_in_the_line():
    """With several tasks, a line that names none of them whole says too little."""
    from mcp import MCPError

    from mcpnb.client.tasks.wire import Peer, _gone

    class Session:  # what a Peer reads of a session: a name, no connection (a raw SDK client)
        pass

    task_id = "0123456789abcdef0123456789abcdef"
    said = str(_gone(Peer(Session(), name="s"), task_id, MCPError(code=-32602, message="Task not found")))
    assert said.count(task_id) == 1 and "(it said: Task not found)" in said, said


def test_what_an_expired_task_said_last_is_said_as_its_last_word(pool):
    """The newcomer's handle said "block 2/3" long after the task had ended and been forgotten."""
    serve_probekit("old", pool=pool, era="legacy")
    handle = pool.start_task("old", "slow_task", {"steps": 3, "delay": 0.5}, ttl_ms=300)
    assert wait_until(
        lambda: handle.refresh() == "working" and (handle.status_message or "").startswith("block")
    )
    said = handle.status_message
    time.sleep(6)  # not asked meanwhile: it ends (1.5 s) and is forgotten 0.3 s later, unseen
    with pytest.raises(TaskExpiredError):
        handle.refresh()
    assert f"· last said: {said} ·" in repr(handle), repr(handle)
