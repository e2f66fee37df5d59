"""The people-in-the-loop options of %mcp call, in a real shell: --answers, --task, %mcp tasks."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from IPython.core.error import UsageError

from tests.notebook.magics.conftest import line


@pytest.fixture
def probe(ip: Any, mcp: Any) -> None:
    line(ip, "serve probe-kit")


def test_answers_from_a_notebook_variable(ip: Any, probe: None) -> None:
    ip.user_ns["mine"] = {"answer": "Ada"}
    result = line(ip, "call probe.ask_user question=Name? --answers mine")
    assert result.data["answers"] == [{"question": "Name?", "answer": "Ada"}]
    from tests.notebook.magics.conftest import bundle

    shown = bundle(ip, result)["text/plain"]  # said, as information: the person gave these answers
    assert (
        "ⓘ probe asked “Name?”, answered without asking anyone: accepted by the answers given with the call"
        in shown
    )
    assert "⚠" not in shown


def test_a_misspelt_answer_is_said_under_the_result(ip: Any, probe: None) -> None:
    """The form is declined (a half-filled form must not go out) and the result says why; it said
    only "You declined", which the person had not."""
    from tests.notebook.magics.conftest import bundle

    ip.user_ns["mine"] = {"answr": "Ada"}
    result = line(ip, "call probe.ask_user question=Name? --answers mine")
    assert result.data["action"] == "decline"
    said = (
        "declined by the answers given with the call: unknown field(s) in the answers: answr "
        "(did you mean 'answer'?); the form asks for answer"
    )
    assert said in bundle(ip, result)["text/plain"]
    assert html.escape(said) in bundle(ip, result)["text/html"]


def test_answers_must_be_a_dict(ip: Any, probe: None) -> None:
    ip.user_ns["wrong"] = ["Ada"]
    with pytest.raises(UsageError, match="expected a dict"):
        line(ip, "call probe.ask_user question=Name? --answers wrong")
    with pytest.raises(
        UsageError, match=r"^--answers wrnog: no variable 'wrnog' in the notebook; did you mean 'wrong'"
    ):
        line(ip, "call probe.ask_user question=Name? --answers wrnog")
    with pytest.raises(UsageError) as info:  # IPython's own names (open, In, exit) are not offered
        line(ip, "call probe.ask_user question=Name? --answers opn")
    assert "did you mean" not in str(info.value) and "open" in ip.user_ns


def test_headless_shell_declines_without_answers(ip: Any, probe: None) -> None:
    result = line(ip, "call probe.ask_user question=Name?")  # plain shell, stdin is a pipe under pytest
    assert result.data["action"] == "decline"  # no terminal to type in: the headless policy applies


def test_task_returns_a_live_handle_listed_by_tasks(ip: Any, probe: None) -> None:
    handle = line(ip, "call probe.slow_task steps=3 delay=0.01 --task")
    result = handle.result(timeout=30)
    assert handle.status == "completed" and not result.is_error
    listed = line(ip, "tasks probe")
    assert handle.task_id in [h.task_id for h in listed]
    assert "completed" in repr(listed) and "slow_task" in repr(listed)
    row = next(r for r in repr(listed).splitlines() if handle.task_id in r)
    assert re.search(r" \d+ min \d+ s$", row), row  # the TTL left as the handle says it, not "3599 s"
    assert row.count("completed") == 1, row  # a message that repeats the status is left out
    with pytest.raises(UsageError, match="--ttl goes with --task"):
        line(ip, "call probe.slow_task --ttl 100")
    with pytest.raises(UsageError, match=r"^--ttl must be 0 or more milliseconds \(got -5\)$"):
        line(ip, "call probe.slow_task --task --ttl -5")  # said before what the era does with a TTL


def test_a_transcript_of_a_task_is_refused_not_ignored(ip: Any, probe: None) -> None:
    before = line(ip, "tasks probe")
    with pytest.raises(UsageError, match=r"--transcript records one call's traffic.*nothing was started"):
        line(ip, "call probe.slow_task steps=1 delay=0 --task --transcript")
    assert len(line(ip, "tasks probe")) == len(before)  # nothing was started


def test_ttl_for_a_server_that_decides_it_stops_before_anything_starts(ip: Any, probe: None) -> None:
    before = line(ip, "tasks probe")
    with pytest.raises(
        UsageError, match=r"--ttl: 'probe' speaks 2026-07-28.*leave --ttl out \(nothing was started\)"
    ):
        line(ip, "call probe.slow_task steps=1 delay=0 --task --ttl 5000")
    assert len(line(ip, "tasks probe")) == len(before)


def test_transcript_flag_and_setting(ip: Any, probe: None) -> None:
    from tests.notebook.magics.conftest import bundle

    plain = line(ip, "call probe.estimate task=x")
    assert plain.transcript is None
    traced = line(ip, "call probe.estimate task=x --transcript")
    assert [m.method for m in traced.transcript.messages] == ["tools/call", "tools/call"]
    assert "mcpnb-transcript" in bundle(ip, traced)["text/html"]
    ip.run_line_magic("config", "Mcp.show_transcript = True")
    try:
        assert line(ip, "call probe.estimate task=x").transcript is not None
    finally:
        ip.run_line_magic("config", "Mcp.show_transcript = False")


def test_a_call_that_fails_keeps_its_transcript(ip: Any, mcp: Any, capsys: Any) -> None:
    """A timeout's traffic (the request, its progress, the cancel) is what a server author looks
    for with ``--transcript``: it was dropped with the result that never came. It shows in the cell
    above the error, and rides on the error."""
    from mcpnb.client.errors import CallTimeoutError
    from tests.notebook.magics.conftest import connect_demo

    connect_demo(ip, "demo")
    with pytest.raises(CallTimeoutError) as failed:
        line(ip, "call demo.slow seconds=5 --timeout 0.5 --transcript")
    methods = [m.method for m in failed.value.transcript.messages]
    assert methods[0] == "tools/call" and "notifications/cancelled" in methods, methods
    shown = capsys.readouterr().out  # what the cell showed (a plain shell prints the text)
    assert "tools/call" in shown and "notifications/cancelled" in shown, shown
