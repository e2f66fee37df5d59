"""Transcripts: a call's traffic recorded in every era and transport, shown under its result."""

from __future__ import annotations

import pytest
from conftest import demo_command, demo_server_object

from mcpnb import CallContext, serve_probekit
from mcpnb.client.transcript import Transcript


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize("transport", ["stdio", "inprocess"])
def test_a_call_records_request_progress_and_response(pool, era, transport):
    if transport == "stdio":
        pool.connect("demo", **demo_command(), era=era)
    else:
        pool.connect("demo", server=demo_server_object(), era=era)
    ctx = CallContext(transcript=Transcript())
    result = pool.call("demo", "progress", {"steps": 2}, context=ctx)
    kinds = [(m.direction, m.kind, m.method) for m in result.transcript.messages]
    assert kinds[0] == ("→", "request", "tools/call")
    assert kinds[-1] == ("←", "response", "tools/call")
    assert kinds.count(("←", "notification", "notifications/progress")) == 2
    assert result.transcript.messages[0].payload["name"] == "progress"
    assert [m.at for m in result.transcript.messages] == sorted(m.at for m in result.transcript.messages)


def test_only_calls_that_ask_are_recorded(pool):
    pool.connect("demo", **demo_command())
    assert pool.call("demo", "add", {"a": 1, "b": 2}).transcript is None


def test_an_elicitation_round_is_in_the_transcript(pool):
    serve_probekit("probe", pool=pool, era="legacy")
    ctx = CallContext(transcript=Transcript(), answers={"answer": "Ada"})
    result = pool.call("probe", "ask_user", {"question": "Name?"}, context=ctx)
    methods = [(m.direction, m.kind, m.method) for m in result.transcript.messages]
    asked = methods.index(("←", "request", "elicitation/create"))  # as sent (transcript_wire tests more)
    assert result.transcript.messages[asked].payload["message"] == "Name?"
    # and the client's answer went back (it was missing from 2025-11-25 transcripts)
    answered = methods.index(("→", "response", "elicitation/create"))
    assert asked < answered
    assert result.transcript.messages[answered].payload == {"action": "accept", "content": {"answer": "Ada"}}


def test_rendered_collapsed_under_the_result(pool):
    pool.connect("demo", **demo_command())
    result = pool.call("demo", "add", {"a": 1, "b": 2}, context=CallContext(transcript=Transcript()))
    bundle = result._repr_mimebundle_()
    assert "<details class='mcpnb-transcript'>" in bundle["text/html"]
    assert "transcript: 2 messages" in bundle["text/html"]
    assert "→ request      tools/call" in bundle["text/plain"]
