"""Servers that need a person: elicitation, URL consent, sampling, logs and progress, routed per call.

A scripted :class:`Interaction` plays the person: a real client feature (answers given with a call),
exercised against real servers in both protocol eras.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import demo_command
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from mcpnb import UrlRequiredError
from mcpnb.client.interaction import CallContext, Interaction


class ScriptedPerson(Interaction):
    """Answers every form with ``values`` after ``delay`` seconds; records what it was asked."""

    def __init__(self, values: dict[str, Any] | None = None, delay: float = 0.0, **kw: Any) -> None:
        super().__init__(**kw)
        self.values, self.delay, self.seen = values, delay, []

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        self.seen.append((server, params.mode, call.tool if call else None))
        await asyncio.sleep(self.delay)
        if self.values is None:
            await asyncio.sleep(3600)  # a person who never answers
        if params.mode == "url":
            return ElicitResult(action="accept")
        return ElicitResult(action="accept", content=self.values)

    async def sample(self, server: str, params: Any, call: CallContext | None) -> Any:
        self.seen.append((server, "sampling", call.tool if call else None))
        return CreateMessageResult(
            role="assistant", model="a person", content=TextContent(type="text", text="hello from a person")
        )


@pytest.fixture
def probe(pool):
    from mcpnb import serve_probekit

    def connect(era: str) -> str:
        serve_probekit("probe", pool=pool, era=era)
        return "probe"

    return connect


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_elicitation_reaches_the_interaction_in_both_eras(pool, probe, era):
    person = ScriptedPerson({"answer": "blue"})
    pool.interaction = person
    probe(era)
    result = pool.call("probe", "ask_user", {"question": "Favourite colour?"})
    assert result.data["action"] == "accept"
    assert result.data["answers"][0]["answer"] == "blue"
    assert person.seen == [("probe", "form", "ask_user")]  # routed to the call that asked


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_answers_given_with_the_call_need_no_person(pool, probe, era):
    probe(era)
    result = pool.call("probe", "ask_user", {"question": "Name?"}, answers={"answer": "Ada"})
    assert result.data["answers"] == [{"question": "Name?", "answer": "Ada"}]
    assert result.answered_without_asking == [
        "probe asked “Name?”, answered without asking anyone: accepted by the answers given with the call"
    ]
    assert result.answered_without_asking[0].accepted  # information, not a warning (repr: "i", not "!")
    assert repr(result).endswith(
        "\n(i probe asked “Name?”, answered without asking anyone: "
        "accepted by the answers given with the call)"
    )


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_answers_given_with_the_call_beat_a_custom_interaction(pool, probe, era):
    """A subclass set as pool.interaction that asks its own way knows nothing of answers=: the
    call's own answers were passed over, and its answer sent instead."""
    person = ScriptedPerson({"answer": "from the interaction"})
    pool.interaction = person
    probe(era)
    result = pool.call("probe", "ask_user", {"question": "Name?"}, answers={"answer": "Ada"})
    assert result.data["answers"] == [{"question": "Name?", "answer": "Ada"}]
    assert person.seen == []


class DictPerson(Interaction):
    """Answers with the plain dicts it would send, as a script writes them first."""

    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        return self.answer

    async def sample(self, server: str, params: Any, call: CallContext | None) -> Any:
        return self.answer


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_an_interaction_may_answer_with_a_plain_dict(pool, probe, era):
    pool.interaction = DictPerson({"action": "accept", "content": {"answer": "Grace"}})
    probe(era)
    result = pool.call("probe", "ask_user", {"question": "Name?"})
    assert result.data["answers"] == [{"question": "Name?", "answer": "Grace"}]


def test_an_interaction_that_answers_with_something_else_is_said_to_be_at_fault(pool, probe):
    """It failed the call as "'dict' object has no attribute 'action' (MCP error 0)": the server's
    fault by the words. Now the form is cancelled, and the result says whose fault it was."""
    pool.interaction = DictPerson({"action": "sure"})
    probe("legacy")
    result = pool.call("probe", "ask_user", {"question": "Name?"})
    assert result.data["action"] == "cancel"
    (said,) = result.answered_without_asking
    assert said.startswith("probe asked “Name?” and asking failed (TypeError: the interaction's elicit() ")
    assert "returned a dict that is no ElicitResult (action: " in said and said.endswith("): cancelled")
    pool.interaction = DictPerson("Grace")
    (said,) = pool.call("probe", "ask_user", {"question": "Name?"}).answered_without_asking
    assert "the interaction's elicit() returned str, not an mcp.types.ElicitResult" in said


def test_a_sampling_answer_as_a_plain_dict_reaches_server_everything(pool, everything):
    reply = {"role": "assistant", "model": "a person", "content": {"type": "text", "text": "hi from a dict"}}
    pool.interaction = DictPerson(reply)
    pool.connect("ev", command="node", args=[everything, "stdio"])
    pool.tools("ev", refresh=True)
    sampled = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert "hi from a dict" in sampled.text and not sampled.is_error


def test_headless_default_declines(pool, probe):
    probe("modern")
    result = pool.call("probe", "ask_user", {"question": "Name?"})
    assert result.data["action"] == "decline"
    assert result.answered_without_asking == [
        "probe asked “Name?”, answered without asking anyone: declined by the 'decline' policy"
    ]
    assert repr(result).endswith(
        "\n(! probe asked “Name?”, answered without asking anyone: declined by the 'decline' policy)"
    )


def test_defaults_policy_accepts_schema_defaults(pool, probe):
    pool.interaction = Interaction(policy="defaults")
    probe("legacy")
    # the interview has required fields without defaults: "defaults" cannot answer it, so it declines
    result = pool.call("probe", "interview")
    assert result.data["action"] == "decline"
    [said] = result.answered_without_asking
    assert "declined by the 'defaults' policy: no default for required field(s): " in said


def test_waiting_for_a_person_does_not_count_against_tool_timeout(pool, probe):
    pool.interaction = ScriptedPerson({"answer": "slowly"}, delay=1.5)
    from mcpnb import serve_probekit

    serve_probekit("probe", pool=pool, tool_timeout=0.5)
    result = pool.call("probe", "ask_user", {"question": "Take your time?"})
    assert result.data["answers"][0]["answer"] == "slowly"


def test_unanswered_elicitation_is_cancelled_after_its_timeout(pool, probe):
    pool.interaction = ScriptedPerson(None, timeout=0.5)
    probe("legacy")
    result = pool.call("probe", "ask_user", {"question": "Anyone there?"})
    assert result.data["action"] == "cancel"  # nobody chose: not a person's "decline"
    said = "probe asked “Anyone there?” and nobody answered in time: cancelled"
    assert result.answered_without_asking == [said]
    assert any("nobody answered" in e.message for e in pool.connection("probe").events.history)


def test_url_required_error_carries_the_elicitation(pool, probe, tmp_path, monkeypatch):
    """2025-11-25's -32042 (2026-07-28 has none: its URL request rides an InputRequiredResult)."""
    (tmp_path / "page.md").write_text("# Hello page\n")
    monkeypatch.chdir(tmp_path)
    probe("legacy")
    with pytest.raises(UrlRequiredError) as info:
        pool.call("probe", "open_local_page", {"path": "page.md", "via": "error"})
    [request] = info.value.elicitations
    page = urlsplit(request["url"])
    assert request["url"].startswith("http://127.0.0.1:") and page.path.endswith("page.md")
    assert page.query == f"visit={request['elicitationId']}"  # its visit says the page is done
    assert "needs you to open" in str(info.value)
    confirmed = pool.call("probe", "open_local_page", {"path": "page.md", "via": "error", "confirmed": True})
    assert confirmed.data["title"] == "Hello page"


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_url_elicitation_request_goes_to_the_interaction(pool, probe, tmp_path, monkeypatch, era):
    """The URL request, over the session (2025-11-25) or in an InputRequiredResult the SDK answers
    and retries (2026-07-28), reaches the person as mode "url"; no -32042 in either era."""
    (tmp_path / "page.md").write_text("# Consent page\n")
    monkeypatch.chdir(tmp_path)
    person = ScriptedPerson({})
    pool.interaction = person
    probe(era)
    result = pool.call("probe", "open_local_page", {"path": "page.md"})
    assert result.data["action"] == "accept" and result.data["title"] == "Consent page"
    assert person.seen == [("probe", "url", "open_local_page")]
    pool.interaction = None  # the headless default never consents to a URL
    result = pool.call("probe", "open_local_page", {"path": "page.md", "via": "elicit"})
    assert result.data["action"] == "decline"
    [said] = result.answered_without_asking
    assert said.startswith("probe asked to open a page (") and said.endswith(
        "answered without asking anyone: declined"
    )


def test_server_everything_push_elicitation_and_sampling(pool, everything):
    person = ScriptedPerson(
        {
            "name": "Ada",
            "check": True,
            "firstLine": "x",
            "email": "ada@example.com",
            "homepage": "https://example.com",
            "birthdate": "1815-12-10",
            "integer": 3,
            "number": 1.5,
            "untitledSingleSelectEnum": "option1",
            "titledSingleSelectEnum": "value1",
            "legacyTitledEnum": "opt1",
            "untitledMultipleSelectEnum": ["option1"],
            "titledMultipleSelectEnum": ["value1"],
        }
    )
    pool.interaction = person
    pool.connect("ev", command="node", args=[everything, "stdio"])
    names = {t.name for t in pool.tools("ev", refresh=True)}
    assert {"trigger-elicitation-request", "trigger-sampling-request"} <= names  # we advertise both
    elicited = pool.call("ev", "trigger-elicitation-request")
    assert "Ada" in elicited.text and not elicited.is_error
    sampled = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert "hello from a person" in sampled.text
    assert ("ev", "sampling", "trigger-sampling-request") in person.seen


class PlainPerson(Interaction):
    """An interaction written with plain ``def``s, as code that calls a blocking model library
    would be; it notes, for each question, whether it ran on an event loop."""

    def __init__(self) -> None:
        super().__init__()
        self.on_a_loop: list[tuple[str, bool]] = []

    def _note(self, kind: str) -> None:
        try:
            asyncio.get_running_loop()
            self.on_a_loop.append((kind, True))
        except RuntimeError:
            self.on_a_loop.append((kind, False))

    def elicit(self, server: str, params: Any, call: Any) -> Any:
        self._note("elicit")
        return ElicitResult(action="accept", content={"name": "Plain Ada", "check": True})

    def sample(self, server: str, params: Any, call: Any) -> Any:
        self._note("sample")
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="a plain def answered"), model="m"
        )

    def log(self, server: str, params: Any, call: Any) -> None:
        self._note("log")
        if call is not None:
            call.add_log(params)


def test_an_interaction_written_with_plain_defs_answers_off_the_loop(pool, everything):
    """``def sample`` (not ``async def``) failed with "can't be used in 'await' expression", and a
    blocking one would have held every connection's loop: now each runs in a thread of its own."""
    person = PlainPerson()
    pool.interaction = person
    pool.connect("ev", command="node", args=[everything, "stdio"])
    elicited = pool.call("ev", "trigger-elicitation-request")
    assert not elicited.is_error and "Plain Ada" in elicited.text, elicited.text
    sampled = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert not sampled.is_error and "a plain def answered" in sampled.text, sampled.text
    assert person.on_a_loop == [("elicit", False), ("sample", False)]
    pool.connect("demo", **demo_command())
    logged = CallContext()
    assert pool.call("demo", "chatty", context=logged).data == "said things"
    assert [p.data for p in logged.logs] == ["starting up", "almost done"]
    assert person.on_a_loop[2:] == [("log", False), ("log", False)]


def test_sampling_is_rejected_headless(pool, everything):
    pool.connect("ev", command="node", args=[everything, "stdio"])
    pool.tools("ev", refresh=True)
    result = pool.call("ev", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    assert result.is_error or "reject" in result.text.lower()
    assert result.answered_without_asking == [
        "ev asked for an LLM completion, answered without asking anyone: rejected"
    ]


def test_a_typo_in_the_answers_is_said_with_the_result(pool, everything):
    """server-everything's form, answered with a misspelt field: the form is declined (a half-filled
    form must not go out), and the result says so and why, where a person looks (it was silent)."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    result = pool.call("ev", "trigger-elicitation-request", answers={"name": "Ada", "emial": "a@b.c"})
    assert "declined" in result.text.lower()
    [said] = result.answered_without_asking
    assert said.startswith(
        "ev asked “Please provide inputs for the following fields:”, answered without asking anyone"
    )
    assert "declined by the answers given with the call: unknown field(s) in the answers: emial" in said
    assert pool.call("ev", "echo", {"message": "hi"}).answered_without_asking == []  # per call


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_logs_and_progress_land_on_the_call(pool, era):
    pool.connect("demo", **demo_command(), era=era)
    seen = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    ctx = CallContext(on_progress=on_progress)
    pool.call("demo", "progress", {"steps": 3}, context=ctx)
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

    logged = CallContext()
    assert pool.call("demo", "chatty", context=logged).data == "said things"
    assert [(p.level, p.data) for p in logged.logs] == [("info", "starting up"), ("warning", "almost done")]
    shown = pool.call("demo", "chatty")._repr_mimebundle_()
    assert "server log: 2 messages" in shown["text/html"] and "[warning] almost done" in shown["text/plain"]


def test_concurrent_calls_get_their_own_answers(pool, probe):
    probe("modern")

    async def both() -> list[Any]:
        return await asyncio.gather(
            pool.acall("probe", "ask_user", {"question": "A?"}, answers={"answer": "first"}),
            pool.acall("probe", "ask_user", {"question": "B?"}, answers={"answer": "second"}),
        )

    a, b = asyncio.run(both())
    assert a.data["answers"][0]["answer"] == "first"
    assert b.data["answers"][0]["answer"] == "second"


class BrokenPerson(Interaction):
    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        raise OSError("the form could not be shown")


def test_a_broken_interaction_cancels_and_keeps_the_connection(pool, probe, caplog):
    caplog.set_level(logging.DEBUG, logger="mcpnb")
    pool.interaction = BrokenPerson()
    probe("modern")
    result = pool.call("probe", "ask_user", {"question": "Name?"})
    assert result.data["action"] == "cancel"
    assert result.answered_without_asking == [
        "probe asked “Name?” and asking failed (OSError: the form could not be shown): cancelled"
    ]
    row = pool.status()["probe"]
    assert row.state == "connected" and row.retries == 0
    assert any("asking failed" in e.message for e in pool.connection("probe").events.history)
    # a bug in an interaction of one's own is a WARNING: a script that prints nothing still shows it
    warned = [r.getMessage() for r in caplog.records if r.name == "mcpnb" and r.levelno == logging.WARNING]
    assert [w for w in warned if "asking failed, so the server is told no: OSError: the form could not" in w]


def test_a_long_question_is_quoted_by_its_first_line():
    from mcpnb.client.interaction import quote

    assert quote("Name?") == "“Name?”"
    assert quote("Pick one.\n\nThe long story follows…") == "“Pick one.…”"
    assert quote("x" * 300) == "“" + "x" * 99 + "…”"


def test_an_unanswered_question_is_declined_before_an_sdk_server_forgets_the_call():
    """A 2026-07-28 server built on the SDK keeps a call's requestState for its ttl (ten minutes
    by default): a decline sent at ten reached it as "Invalid or expired requestState" (-32602),
    and the person read a protocol error instead of the decline. Checked against the SDK's own
    default, so a change there shows here; the margin covers the server's clock starting first."""
    import inspect

    from mcp.server.request_state import RequestStateSecurity

    from mcpnb.client.interaction import ELICITATION_TIMEOUT, Interaction

    ttl = inspect.signature(RequestStateSecurity.ephemeral).parameters["ttl"].default
    assert ttl - 30 >= ELICITATION_TIMEOUT and Interaction().timeout == ELICITATION_TIMEOUT


def test_a_policy_a_subclass_sets_is_not_credited_to_the_environment(monkeypatch):
    """A subclass's own ``policy = "defaults"`` (a class attribute, over the property) answered
    "($MCPNB_ELICITATION is 'defaults')" whenever the variable happened to be set too."""
    from mcpnb.client.interaction import Interaction

    class Mine(Interaction):
        policy = "defaults"

    monkeypatch.setenv("MCPNB_ELICITATION", "defaults")
    assert Mine()._policy_reason(None) == ""
    assert Interaction()._policy_reason(None) == "$MCPNB_ELICITATION is 'defaults'"
