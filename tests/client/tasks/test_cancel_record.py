"""A handle remembers that a cancel was asked (``cancel_requested``), in both eras.

A task that completed all the same can then say the cancel came too late, where one nobody
cancelled simply completed (the course's 08.cancel checker tells a student which). Against probe-kit
over HTTP (2025-11-25 and the 2026-07-28 extension) and FastMCP's tasks (a peer we did not write).
"""

from __future__ import annotations

from typing import Any

import pytest

import mcpnb


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_cancel_is_recorded_whether_it_stopped_the_task_or_came_too_late(pool: Any, era: str) -> None:
    mcpnb.serve_probekit("kit", http=True, pool=pool)
    pool.connect("p", url=pool.connection("kit").config.url, era=era)

    long = pool.start_task("p", "slow_task", {"steps": 50, "delay": 0.2})
    assert long.cancel_requested is False and "cancel asked" not in repr(long)
    assert long.cancel() == "cancelled"
    assert long.cancel_requested is True
    assert "cancel asked" not in repr(long)  # "cancelled" says it already

    quick = pool.start_task("p", "slow_task", {"steps": 1, "delay": 0})
    quick.result(timeout=60)
    assert quick.cancel_requested is False and "cancel asked" not in repr(quick)  # nobody cancelled
    assert quick.cancel() == "completed"  # nothing to cancel any more
    assert quick.cancel_requested is True
    assert "cancel asked after it had completed" in repr(quick)


def test_a_cancel_after_a_fastmcp_task_completed_is_recorded(pool: Any, fastmcp_url: str) -> None:
    """FastMCP's ``double`` ends at once; it is awaited from a second connection, so this handle
    may not have heard it ended: its cancel then goes to the server, which has nothing to cancel."""
    pool.connect("fm", url=fastmcp_url)
    pool.connect("other", url=fastmcp_url)
    quick = pool.call("fm", "double", {"value": 4}, task=True)
    assert "8" in pool.attach_task("other", quick.task_id).result(timeout=60).text
    assert quick.cancel_requested is False
    assert quick.cancel() == "completed"
    assert quick.cancel_requested is True
    assert "cancel asked after it had completed" in repr(quick)
    assert "8" in quick.result(timeout=60).text  # the result is still there
