"""A handle driven from sync code (a cell) while its session lives on mcpnb's runtime thread.

Uses a real ``Pool``/``Connection`` (legacy era, which needs neither the extension nor an
elicitation callback from the connection) against probe-kit in-process and over stdio, and the live
widget view, updated from the runtime thread and cancelled by a button click on this one.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpnb import Pool
from mcpnb.client.runtime import Runtime
from mcpnb.client.tasks import (
    TaskCancelledError,
    TaskHandle,
    TaskRegistry,
    TaskTimeoutError,
    list_tasks,
    start_task,
)
from mcpnb.client.tasks.summary import STALE_AFTER
from mcpnb.notebook.taskview import TaskView, describe_handle, handle_bundle, handle_html
from mcpnb.probekit import create_server

SLOW = {"steps": 400, "delay": 0.05}


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    rt = Runtime(name="mcpnb-tasks-test-runtime")
    yield rt
    rt.close()


@pytest.fixture(params=["memory", "stdio"])
def conn(request: Any, runtime: Runtime, tmp_path: Path) -> Iterator[Any]:
    pool = Pool(runtime)
    if request.param == "memory":
        pool.connect("probe", server=create_server(root=tmp_path, poll_interval_ms=10), era="legacy")
    else:
        pool.connect(
            "probe",
            command=sys.executable,
            args=["-m", "mcpnb.probekit", "--root", str(tmp_path)],
            era="legacy",
        )
    yield pool.connection("probe")
    pool.close()


def start(runtime: Runtime, conn: Any, arguments: dict[str, Any], **kw: Any) -> TaskHandle:
    return runtime.run(
        start_task(conn, "slow_task", arguments, runner=runtime.run, arunner=runtime.arun, **kw)
    )


def wait_for(predicate: Any, ticks: int = 2000) -> None:
    for _ in range(ticks):
        if predicate():
            return
        time.sleep(0.005)
    raise AssertionError("condition never held")


def test_sync_result_status_and_cancel_through_a_connection(runtime: Runtime, conn: Any) -> None:
    tasks = TaskRegistry()
    handle = start(runtime, conn, {"steps": 3, "delay": 0.02}, tasks=tasks)
    assert handle.server == "probe" and handle.status == "working"
    result = handle.result()
    assert handle.status == "completed" and result.data["totalPrimes"] == 430
    assert result.server == "probe" and result.schema_valid is True  # schema from the connection's cache
    assert handle.status_message == "completed" and repr(handle).count("completed") == 1  # said once

    slow = start(runtime, conn, SLOW, tasks=tasks)
    with pytest.raises(TaskTimeoutError, match="keeps running"):
        slow.result(timeout=0.05)
    assert slow.refresh() == "working"
    listed = runtime.run(list_tasks(conn, tasks=tasks))
    assert [h.task_id for h in listed] == [handle.task_id, slow.task_id]
    assert slow.cancel() == "cancelled"
    with pytest.raises(TaskCancelledError):
        slow.result()


async def test_await_from_another_loop(runtime: Runtime, conn: Any) -> None:
    """``await handle`` on a loop that is not the session's (the kernel's, in a notebook)."""
    handle = start(runtime, conn, {"steps": 2, "delay": 0})
    handle.runner = handle.arunner = None  # exercise the handle's own thread hop as well
    result = await handle
    assert result.data["totalPrimes"] == 303 and handle.result() is result


test_await_from_another_loop = pytest.mark.anyio(test_await_from_another_loop)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_live_view_follows_the_task_and_shows_the_end(runtime: Runtime, conn: Any) -> None:
    handle = start(runtime, conn, {"steps": 20, "delay": 0.05})
    # what a saved notebook keeps of a task still running says when it was made (it read as current)
    assert re.search(
        r'as of</th><td style="text-align:left">\d\d:\d\d:\d\d, when this output was made',
        handle_html(handle),
    )
    view = TaskView(handle, watch=False)
    shown: list[tuple[str, str, bool]] = []
    handle.add_listener(
        lambda _h: shown.append((view.status.value, view.times.value, view.cancel_button.disabled))
    )
    handle.watch()
    wait_for(lambda: handle.done)
    wait_for(lambda: "completed" in view.status.value)
    assert view.cancel_button.disabled and view.bar.value == 1.0 and "result ready" in view.message.value
    assert view.bar.layout.display is None and view.bar.bar_style == "success"
    working = [s for s in shown if "working" in s[0]]
    assert working and "TTL left" in working[0][1] and working[0][2] is False
    assert "completed" in describe_handle(handle) and "text/html" in handle_bundle(handle)
    assert "as of" not in handle_html(handle)  # an ended task's copy is its last word
    cells = re.findall(r"<td[^>]*>", handle_html(handle))  # JupyterLab aligns a bare td right
    assert len(cells) >= 3 and all('style="text-align:left"' in td for td in cells)
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "completed" in bundle["text/plain"]


def test_a_status_nobody_polls_says_how_old_it_is(runtime: Runtime, conn: Any) -> None:
    """A terminal shows no live view: ``repr`` must not pass an old status off as the current one."""
    handle = start(runtime, conn, SLOW)
    time.sleep(STALE_AFTER + 0.1)
    assert handle.heard_ago is not None and handle.heard_ago > STALE_AFTER
    assert re.search(r" working as of \d\.\d s ago \(\.refresh\(\) asks the server\) · ", repr(handle))
    assert handle.refresh() == "working" and handle.heard_ago < STALE_AFTER
    handle.watch()  # polled from now on: always fresh
    wait_for(lambda: handle.heard_ago is None)
    time.sleep(STALE_AFTER + 0.1)
    assert " as of " not in repr(handle)
    handle.cancel()
    assert handle.heard_ago is None and " as of " not in repr(handle)


def test_a_question_nobody_polled_for_says_result_asks(runtime: Runtime, conn: Any) -> None:
    """Without a live view nobody is asked until ``result()`` waits: the status line says so."""
    handle = start(runtime, conn, {"steps": 4, "delay": 0.01, "confirm": True}, answer=lambda r: {})
    wait_for(lambda: handle.refresh() == "input_required")
    assert "input_required" in repr(handle) and "waits for an answer: .result() asks you" in repr(handle)
    handle.watch()  # a live view: whoever answers is asked now, no hint
    wait_for(lambda: handle.heard_ago is None)
    assert ".result() asks you" not in repr(handle)
    handle.cancel()


def test_cancel_button(runtime: Runtime, conn: Any) -> None:
    handle = start(runtime, conn, SLOW)
    view = TaskView(handle)
    wait_for(lambda: (handle.status_message or "").startswith("block "))
    view.cancel_button.click()
    wait_for(lambda: "cancelled" in view.status.value)
    assert handle.status == "cancelled" and view.cancel_button.disabled
    assert view.cancel_button.layout.display == "none"  # a task that ended has nothing to stop
    # not a full bar, which reads as done: where it stopped (or none, when it never said)
    shown_full = view.bar.layout.display != "none" and view.bar.value == 1.0
    assert not shown_full and view.bar.bar_style == "warning"
    with pytest.raises(TaskCancelledError):
        handle.result()


def test_the_view_keeps_time_while_a_person_answers(runtime: Runtime, tmp_path: Path) -> None:
    """2026-07-28: while the task waits on a person's answer, its live view showed "elapsed 0.0 s"
    and the TTL of the moment the question came, until the task ended."""
    import asyncio

    pool = Pool(runtime)
    pool.connect("probe", server=create_server(root=tmp_path, poll_interval_ms=10), era="modern")
    conn = pool.connection("probe")
    given: dict[str, asyncio.Event] = {}

    async def answer(requests: dict[str, Any]) -> dict[str, Any]:  # a person, thinking it over
        given["event"] = asyncio.Event()
        await given["event"].wait()
        return {key: {"action": "accept", "content": {"confirm": True}} for key in requests}

    try:
        handle = start(runtime, conn, {"steps": 2, "delay": 0.01, "confirm": True}, answer=answer)
        view = TaskView(handle)
        wait_for(lambda: "event" in given)
        shown = view.times.value
        wait_for(lambda: view.times.value != shown, ticks=600)  # the clocks move while asked
        assert handle.status == "input_required" and "elapsed" in view.times.value
        runtime.loop.call_soon_threadsafe(given["event"].set)
        wait_for(lambda: "completed" in view.status.value)
    finally:
        pool.close()
