"""``%mcp tasks NAME --attach ID`` in a real shell: a live handle for a task this kernel did not start.

(Across two real worker processes and both eras: ``tests/probekit/test_workers.py``.)
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from mcpnb.client.tasks import TaskExpiredError
from tests.notebook.magics.conftest import line


@pytest.fixture
def probe(ip: Any, mcp: Any) -> None:
    line(ip, "serve probe-kit")


def test_attach_gives_a_new_live_handle_after_the_registry_forgot(ip: Any, mcp: Any, probe: None) -> None:
    started = line(ip, "call probe.slow_task steps=3 delay=0.01 --task")
    mcp.pool.task_registry.forget("probe")  # what a kernel restart leaves: no handle for the task
    attached = line(ip, f"tasks probe --attach {started.task_id}")
    assert attached is not started and attached.task_id == started.task_id
    result = attached.result(timeout=30)
    assert not result.is_error and result.data["totalPrimes"] > 0
    assert attached.tool is None  # neither wire says which tool a task runs
    assert started.task_id in [h.task_id for h in line(ip, "tasks probe")]
    assert line(ip, f"tasks probe --attach {started.task_id}") is attached  # known now: the same handle


def test_attach_needs_a_server_and_a_known_id(ip: Any, probe: None) -> None:
    with pytest.raises(UsageError, match="--attach needs the server"):
        line(ip, "tasks --attach abc")
    with pytest.raises(UsageError, match="did you mean 'probe'"):
        line(ip, "tasks prbe --attach abc")
    with pytest.raises(TaskExpiredError, match=r"knows no task 'no-such-task'.*check the id") as info:
        line(ip, "tasks probe --attach no-such-task")
    assert "result is gone" not in str(info.value)  # nothing says an id never had a result


def test_a_mistyped_id_gets_a_did_you_mean_from_the_tasks_this_kernel_knows(ip: Any, probe: None) -> None:
    started = line(ip, "call probe.slow_task steps=2 delay=0.01 --task")
    typo = started.task_id[:-1] + ("x" if started.task_id[-1] != "x" else "y")
    with pytest.raises(TaskExpiredError, match=f"knows no task '{typo}'.*did you mean '{started.task_id}'"):
        line(ip, f"tasks probe --attach {typo}")


def test_attach_takes_the_id_from_a_notebook_variable(ip: Any, mcp: Any, probe: None) -> None:
    """The teacher's step in the README (the id kept in a variable, another notebook attaches):
    ``{{tid}}`` was sent as typed, and the server said it no longer knew task '{{tid}}'."""
    started = line(ip, "call probe.slow_task steps=3 delay=0.01 --task")
    mcp.pool.task_registry.forget("probe")
    ip.user_ns["tid"] = started.task_id
    attached = line(ip, "tasks probe --attach {{tid}}")
    assert attached.task_id == started.task_id and not attached.result(timeout=30).is_error
    with pytest.raises(UsageError, match=r"\{tid\} would reach the server as typed.*\{\{tid\}\}"):
        line(ip, "tasks probe --attach {tid}")
