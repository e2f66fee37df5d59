"""Streamable HTTP servers that answer 500, 401, 400 or 404, drop the connection mid-answer, or
die: what the person is told, what the pool says afterwards, and no process left behind."""

from __future__ import annotations

import asyncio

import pytest
from conftest import children, wait_until

from faults.conftest import QUICK, no_process_left
from faults.test_sdk_noise import sdk_warnings_shown
from mcpnb import CallError, NotConnectedError
from mcpnb.client.errors import AuthError

ERA = pytest.mark.parametrize("era", ["legacy", "modern"])


def _fault(pool, tool: str, **arguments) -> None:
    pool.call("web", tool, arguments)


def _recovers(pool) -> None:
    assert wait_until(lambda: pool.status()["web"].state == "connected")
    assert pool.call("web", "add", {"a": 20, "b": 22}).data == 42


@ERA
def test_http_500_is_a_failed_call_and_the_next_one_works(pool, faulty_http, marks, era):
    pool.connect("web", url=faulty_http.url, era=era, **QUICK)
    _fault(pool, "fail_next", status=500)
    with pytest.raises(CallError, match=r"^add\(\) on 'web' failed: "):
        pool.call("web", "add", {"a": 1, "b": 2})
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


REJECTED = "the server rejected the credentials; check its auth settings (token, token_env, headers)"
MISSING = (
    "the server asks for credentials and none were sent; give them in its auth settings (auth with "
    "token or token_env, or an Authorization header)"
)


@ERA
@pytest.mark.parametrize(
    ("headers", "why"), [({"Authorization": "Bearer t0k3n-x"}, REJECTED), ({}, MISSING)], ids=["sent", "none"]
)
def test_http_401_says_whether_the_credentials_were_rejected_or_missing(
    pool, faulty_http, marks, era, headers, why
):
    pool.connect("web", url=faulty_http.url, era=era, headers=headers, **QUICK)
    _fault(pool, "fail_next", status=401)
    with pytest.raises(AuthError) as info:
        pool.call("web", "add", {"a": 1, "b": 2})
    said = '("fault injected: HTTP 401")'  # the answer's own words, quoted
    assert str(info.value) == f"server 'web': HTTP 401 Unauthorized from {faulty_http.url} {said}: {why}"
    assert pool.status()["web"].retries == 0  # no reconnect for a rejected credential
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


@ERA
def test_http_400_is_a_failed_call_not_a_lost_server(pool, faulty_http, marks, era):
    pool.connect("web", url=faulty_http.url, era=era, **QUICK)
    _fault(pool, "fail_next", status=400)
    with pytest.raises(CallError, match=r"^add\(\) on 'web' failed: ") as info:
        pool.call("web", "add", {"a": 1, "b": 2})
    assert "lost" not in str(info.value)
    assert pool.status()["web"].state == "connected" and pool.status()["web"].retries == 0
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


def test_http_404_on_a_session_renews_it(pool, faulty_http, marks):
    pool.connect("web", url=faulty_http.url, era="legacy", **QUICK)
    _fault(pool, "fail_next", status=404)
    # add is not idempotent, but a 404 for the session means it did not run: sent once on the new one
    assert pool.call("web", "add", {"a": 1, "b": 2}).data == 3
    assert any("retrying add() once on the new session" in line for line in pool.logs("web"))
    assert pool.status()["web"].state == "connected"
    _fault(pool, "fail_next", status=404)
    assert pool.call("web", "count").data == 0  # read-only: replayed once on the renewed session
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


#: What a call whose own connection was cut says (its server still answering).
CUT = "add() on 'web' failed: its connection was cut before the answer came ("


@ERA
def test_a_dropped_connection_fails_its_call_alone_while_the_server_answers(pool, faulty_http, marks, era):
    """Half an answer, then the connection closes: a server that still answers the probe after it
    is not lost (a middlebox cuts that way too); the call may or may not have run, and says so."""
    pool.connect("web", url=faulty_http.url, era=era, **QUICK)
    _fault(pool, "drop_next")
    with pytest.raises(CallError) as info:
        pool.call("web", "add", {"a": 1, "b": 2})
    assert str(info.value).startswith(CUT), str(info.value)
    assert "may or may not have run" in str(info.value)
    _recovers(pool)
    assert pool.status()["web"].retries == 0  # no reconnect: the session went on
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


@ERA
def test_a_rejected_credential_is_not_blamed_for_a_later_dropped_connection(pool, faulty_http, marks, era):
    """The 401 was that call's answer; a later call whose connection drops (no answer at all) is a
    cut connection, not "the server rejected the credentials" again."""
    pool.connect("web", url=faulty_http.url, era=era, **QUICK)
    _fault(pool, "fail_next", status=401)
    with pytest.raises(AuthError):
        pool.call("web", "add", {"a": 1, "b": 2})
    _recovers(pool)
    _fault(pool, "drop_next")
    with pytest.raises(CallError) as info:
        pool.call("web", "add", {"a": 1, "b": 2})
    assert not isinstance(info.value, AuthError)
    assert str(info.value).startswith(CUT), str(info.value)
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


@ERA
def test_two_calls_failing_at_once_each_get_their_own_answer(pool, faulty_http, marks, era):
    """While one call waits for an answer that never comes (its connection drops), another is
    answered 401: that 401 is the second call's answer only, not the first one's."""
    pool.connect("web", url=faulty_http.url, era=era, **QUICK)
    _fault(pool, "in_turn", steps=["drop:1", "401"])  # whichever request arrives first is dropped

    async def both() -> list[BaseException]:
        first = asyncio.ensure_future(pool.acall("web", "add", {"a": 1, "b": 2}))
        await asyncio.sleep(0.3)  # its request is at the server, waiting to be dropped
        second = asyncio.ensure_future(pool.acall("web", "add", {"a": 3, "b": 4}))
        return await asyncio.gather(first, second, return_exceptions=True)

    outcomes = asyncio.run(both())
    rejected = [e for e in outcomes if isinstance(e, AuthError)]
    cut = [e for e in outcomes if type(e) is CallError and str(e).startswith(CUT)]
    assert len(rejected) == 1 and len(cut) == 1, outcomes
    _recovers(pool)
    pool.close()
    faulty_http.stop()
    no_process_left(marks)


def test_a_server_that_dies_mid_session_is_failed_after_the_retries(pool, faulty_http, marks, capfd, caplog):
    pool.connect("web", url=faulty_http.url, era="legacy", **QUICK)
    faulty_http.stop()  # kill -9: every connection drops
    # the call finds the loss itself ("was lost"), or the transport saw it first and the retries
    # already ran out: then the call tries once more at once and says why it could not
    with pytest.raises((CallError, NotConnectedError)) as info:
        pool.call("web", "add", {"a": 1, "b": 2})
    message = str(info.value)
    assert "'web' was lost" in message or (
        "gave up reconnecting" in message and "the next call tries again, or reconnect it" in message
    )
    assert wait_until(lambda: pool.status()["web"].state == "failed")
    row = pool.status()["web"]
    assert row.retries == QUICK["max_retries"] and row.last_error.startswith("gave up reconnecting: ")
    pool.close()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err  # the SDK's complaints went to the server's log
    assert sdk_warnings_shown(caplog) == []
    no_process_left(marks)
    assert not children() - marks.children_before


def test_a_tools_listing_names_the_server_whose_listing_failed(pool, faulty_http, marks):
    """One server answers tools/list with HTTP 500: the others' tools are listed, and that one is
    named with why, rather than left out."""
    from conftest import demo_server_object

    pool.connect("web", url=faulty_http.url, **QUICK)
    pool.connect("demo", server=demo_server_object())
    _fault(pool, "fail_next", status=500)
    listed = pool.tools(refresh=True)
    assert {t.server for t in listed} == {"demo"}
    assert list(listed.not_listed) == ["web"] and listed.not_listed["web"].startswith("listing failed: ")
    assert "HTTP 500" in listed.not_listed["web"]
    assert {t.server for t in pool.tools(refresh=True)} == {"demo", "web"}  # the next listing has it
    pool.close()
    faulty_http.stop()
    no_process_left(marks)
