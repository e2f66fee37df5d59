"""``%mcp tasks`` in a real shell: a status table that leaves out the tasks a server no longer has."""

from __future__ import annotations

import time
from typing import Any

from notebook.magics.conftest import line


def test_expired_tasks_are_left_out_and_listed_with_all(ip: Any, mcp: Any) -> None:
    line(ip, "serve probe-kit --task-ttl 300 --poll-interval 10")  # an ended task is kept 0.3 s
    handle = line(ip, "call probe.slow_task steps=1 delay=0 --task")
    assert handle.result(timeout=60).data["totalPrimes"] == 168
    for _ in range(500):  # each listing asks the server about the task, until it has dropped it
        table = line(ip, "tasks probe")
        if table.hidden:
            break
        time.sleep(0.02)
    assert handle not in table and "1 expired task not shown" in repr(table)
    everything = line(ip, "tasks probe --all")
    assert handle in everything and everything.hidden == 0
    (row,) = [r for r in repr(everything).splitlines() if handle.task_id in r]
    assert " expired " in row and "last seen completed" in row
    assert everything.cells("probe", handle)[-1] == ""  # no "ttl left 0.0 s": nothing is left of it
