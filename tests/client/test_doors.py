"""The session's one door: every step mcpnb takes on a request, once, in the written order."""

from __future__ import annotations

import pytest
from conftest import demo_command, demo_server_object

from mcpnb import CallContext
from mcpnb.client import doors
from mcpnb.client.tasks.optin import CAPABILITIES_META, TASKS_EXTENSION
from mcpnb.client.transcript import Transcript


def test_a_session_is_wrapped_once(pool):
    pool.connect("demo", server=demo_server_object())
    session = pool.connection("demo").client.session
    door = session._dispatcher.send_raw_request
    assert door.__qualname__ == "install.<locals>.door"
    doors.install(session)  # a second install (a TasksClient over the same session) changes nothing
    assert session._dispatcher.send_raw_request is door
    assert pool.call("demo", "add", {"a": 2, "b": 3}).data == 5


@pytest.mark.parametrize("transport", ["stdio", "inprocess"])
def test_the_transcript_shows_the_request_as_sent(pool, transport):
    """The tasks extension the SDK stamps on every modern request is taken off a plain call
    before the transcript records it: what a person reads is what the server got."""
    target = demo_command() if transport == "stdio" else {"server": demo_server_object()}
    pool.connect("demo", **target, era="modern")
    result = pool.call("demo", "add", {"a": 1, "b": 2}, context=CallContext(transcript=Transcript()))
    sent = result.transcript.messages[0]
    assert (sent.kind, sent.method) == ("request", "tools/call")
    caps = sent.payload["_meta"][CAPABILITIES_META]
    assert TASKS_EXTENSION not in (caps.get("extensions") or {})
    assert "elicitation" in caps  # the rest of the client's ad went out as it was


def test_the_transcript_keeps_the_structured_result_the_call_hands_over(pool):
    """The lean hand-over gives the session an empty stand-in for ``structuredContent``; the
    transcript records the answer before that, and the result gets the real value back."""
    pool.connect("demo", server=demo_server_object(), era="modern")
    result = pool.call("demo", "point", {"x": 3, "y": 4}, context=CallContext(transcript=Transcript()))
    answer = result.transcript.messages[-1]
    assert (answer.kind, answer.method) == ("response", "tools/call")
    assert answer.payload["structuredContent"] == {"x": 3, "y": 4}
    assert result.structured == {"x": 3, "y": 4}
