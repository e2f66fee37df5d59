"""Tasks through the pool: start, follow, cancel, list, and required-task tools, in both eras."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import connect_everything

from mcpnb import Interaction, serve_probekit
from mcpnb.client.tasks import TaskCancelledError


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_start_task_returns_a_live_handle(pool, era):
    serve_probekit("probe", pool=pool, era=era)
    handle = pool.call("probe", "slow_task", {"steps": 3, "delay": 0.05}, task=True)
    assert handle.task_id and handle.server == "probe" and handle.tool == "slow_task"
    result = handle.result(timeout=30)
    assert not result.is_error and "primes" in result.text
    assert handle.status == "completed"
    assert handle in pool.tasks("probe")


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_cancel_a_task(pool, era):
    serve_probekit("probe", pool=pool, era=era)
    handle = pool.start_task("probe", "slow_task", {"steps": 50, "delay": 0.2})
    handle.cancel()
    with pytest.raises(TaskCancelledError):
        handle.result(timeout=30)
    assert handle.status == "cancelled"


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_plain_call_of_a_task_optional_tool_creates_no_task(pool, era):
    serve_probekit("probe", pool=pool, era=era)
    assert pool.tools("probe")["slow_task"].task_support == "optional"
    result = pool.call("probe", "slow_task", {"steps": 2, "delay": 0.01})
    assert not result.is_error and result.data["totalPrimes"] > 0
    server = pool.connection("probe").config.server
    made = pool.runtime.run(server.probe_state.tasks.list())
    assert made == []  # the server made no task: SEP-2663 opt-in per request


def test_a_ttl_a_modern_server_never_hears_of_is_said_not_lost_quietly(pool):
    import warnings

    serve_probekit("probe", pool=pool)  # 2026-07-28: the server alone decides a task's TTL
    serve_probekit("old", pool=pool, era="legacy")
    with pytest.warns(
        UserWarning,
        match=r"'probe' speaks 2026-07-28.*a TTL of 5000 ms cannot be sent.*ttl_ms shows the server's choice",
    ):
        handle = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0}, ttl_ms=5000)
    assert handle.ttl_ms == 300_000  # the server's own choice, which the warning points to
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the older era takes the TTL: nothing to say
        assert pool.start_task("old", "slow_task", {"steps": 1, "delay": 0}, ttl_ms=5000).ttl_ms == 5000


def test_task_for_an_unknown_tool_sends_nothing(pool):
    serve_probekit("probe", pool=pool)
    with pytest.raises(Exception, match="did you mean 'slow_task'"):
        pool.start_task("probe", "slow_tsk")


class Yes(Interaction):
    def __init__(self, proceed: bool) -> None:
        super().__init__()
        self.proceed, self.asked = proceed, 0

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        self.asked += 1
        return ElicitResult(action="accept", content={"proceed": self.proceed})


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("proceed", [True, False])
def test_a_task_asks_the_person_mid_way(pool, era, proceed):
    person = Yes(proceed)
    pool.interaction = person
    serve_probekit("probe", pool=pool, era=era)
    handle = pool.start_task("probe", "slow_task", {"steps": 4, "delay": 0.01, "confirm": True})
    result = handle.result(timeout=30)
    assert person.asked == 1
    assert handle.status == "completed"
    steps = [row["step"] for row in result.data["steps"]]
    assert result.data["confirmed"] is proceed
    assert steps == ([1, 2, 3, 4] if proceed else [1, 2])


class Recorder(Interaction):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Any] = []

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        self.calls.append(call)
        return ElicitResult(action="accept", content={"proceed": True})


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_tasks_questions_go_to_the_context_that_started_it(pool, era):
    from mcpnb import CallContext

    person = Recorder()
    pool.interaction = person
    serve_probekit("probe", pool=pool, era=era)
    started_here = CallContext()
    handle = pool.start_task(
        "probe", "slow_task", {"steps": 4, "delay": 0.01, "confirm": True}, context=started_here
    )
    assert handle.result(timeout=30).data["confirmed"] is True
    assert person.calls == [started_here]
    assert started_here not in pool.connection("probe").asking.active_calls  # released when the task ended


def test_a_tool_that_asks_before_it_answers_asks_the_calls_own_context_when_run_as_a_task(pool):
    """``ask_user`` asks first (the SDK's ``Resolve``: on 2026-07-28 an ``InputRequiredResult``
    answers the task-augmented call). The task path let the SDK's "pass allow_input_required=True"
    escape as the call's error, and its question reached no context: ``answers=`` went unheard and
    the decline went unsaid. (2025-11-25 probe-kit forbids tasks for it, per tool.)"""
    from mcp.types import ElicitResult

    from mcpnb import CallContext

    serve_probekit("probe", pool=pool)
    question = {"question": "Your name?"}
    answered = pool.call("probe", "ask_user", question, task=True, answers={"answer": "Ada"}).result(
        timeout=30
    )
    assert answered.data["answers"] == [{"question": "Your name?", "answer": "Ada"}]
    assert any("accepted by the answers given with the call" in n for n in answered.answered_without_asking)

    class Bo(Recorder):
        async def elicit(self, server: str, params: Any, call: Any) -> Any:
            self.calls.append(call)
            return ElicitResult(action="accept", content={"answer": "Bo"})

    person = Bo()
    pool.interaction = person
    asked_here = CallContext()
    handle = pool.start_task("probe", "ask_user", question, context=asked_here)
    assert handle.result(timeout=30).data["answers"][0]["answer"] == "Bo" and person.calls == [asked_here]


def test_server_everything_research_task_asks_and_completes(pool, everything):
    """A third-party legacy task tool that *requires* tasks: a plain call runs it as one, and its
    input_required question (delivered through tasks/result) reaches the interaction."""
    from tests.client.tasks.conftest import Answers

    class FirstChoice(Interaction):
        def __init__(self) -> None:
            super().__init__()
            self.answers = Answers()

        async def elicit(self, server: str, params: Any, call: Any) -> Any:
            return await self.answers(None, params)

    person = FirstChoice()
    pool.interaction = person
    connect_everything(pool)
    result = pool.call("ev", "simulate-research-query", {"topic": "python packaging", "ambiguous": True})
    assert not result.is_error and "python packaging" in result.text
    assert len(person.answers.seen) == 1  # asked exactly once, through the pool's interaction


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_tasks_question_nobody_was_asked_is_said_with_its_result(pool, era):
    """Headless, the policy declines the task's half-way question; its result says so (it said
    only "stopped: not confirmed", as if a person had said no)."""
    serve_probekit("probe", pool=pool, era=era)
    handle = pool.start_task("probe", "slow_task", {"steps": 4, "delay": 0.01, "confirm": True})
    result = handle.result(timeout=30)
    assert result.data["confirmed"] is False
    assert result.answered_without_asking == [
        "probe asked “Half of the work is done. Continue?”, answered without asking anyone: "
        "declined by the 'decline' policy"
    ]


def test_server_everythings_task_question_nobody_was_asked_is_said_with_its_result(pool, everything):
    connect_everything(pool)
    handle = pool.start_task("ev", "simulate-research-query", {"topic": "packaging", "ambiguous": True})
    result = handle.result(timeout=60)
    assert "User declined" in result.text  # what the server made of the policy's answer
    [said] = result.answered_without_asking
    assert said.startswith("ev asked “The research query") and "declined by the 'decline' policy" in said


def test_a_server_said_to_answer_in_markdown_is_drawn_so_called_or_as_a_task(pool):
    """``markdown: true`` in its config: the tool's own description need not say so."""
    serve_probekit("plain", pool=pool)
    serve_probekit("md", pool=pool, markdown=True)
    arguments = {"steps": 1, "delay": 0}
    assert not pool.call("plain", "slow_task", arguments).markdown
    assert pool.call("md", "slow_task", arguments).markdown
    assert pool.start_task("md", "slow_task", arguments).result(timeout=30).markdown
    assert not pool.start_task("plain", "slow_task", arguments).result(timeout=30).markdown
