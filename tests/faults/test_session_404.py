"""A request refused with 404 for a session the server no longer knows did not run.

The 2025-11-25 transports: a server that ended a session "MUST respond to requests containing that
session ID with HTTP 404 Not Found", and the client then starts a new session. The 404 is the
answer *instead of* running the request, so a call that is not idempotent is sent once more on the
new session (it runs once, as asked), where mcpnb said it "may or may not have run" and left it.

The SDK's ``MCPServer`` (its ``increment`` tool is not idempotent) behind the gate of
:mod:`faults.test_retry_after`, which answers the call with a proxy's HTML 404 page.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from faults.conftest import QUICK
from faults.test_retry_after import Gate, gated, refuse
from mcpnb import CallError

NOT_FOUND = "<html><head><title>404 Not Found</title></head><body><h1>404 Not Found</h1></body></html>"


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    yield from gated()


@pytest.mark.timeout(60)
def test_a_call_refused_for_an_unknown_session_runs_once_on_the_new_session(pool, gate):
    gate_, url = gate
    pool.connect("s", url=url, era="legacy", **QUICK)
    before = pool.call("s", "count").data  # (the demo server's counter is its process's)
    gate_.answer({"tools/call"}, refuse(404, "text/html", NOT_FOUND), count=1)
    assert pool.call("s", "increment").data == before + 1  # sent again on the new session, where it ran
    assert gate_.posts("tools/call") == 3 and gate_.posts("initialize") == 2, gate_.seen
    assert pool.call("s", "count").data == before + 1  # it ran once in all
    assert any("retrying increment() once on the new session" in line for line in pool.logs("s"))


@pytest.mark.timeout(60)
def test_a_call_refused_again_on_the_new_session_says_it_did_not_run(pool, gate):
    gate_, url = gate
    pool.connect("s", url=url, era="legacy", **QUICK)
    before = pool.call("s", "count").data
    gate_.answer({"tools/call"}, refuse(404, "text/html", NOT_FOUND))
    with pytest.raises(CallError) as failed:
        pool.call("s", "increment")
    message = str(failed.value)
    assert "the call did not run" in message and "may or may not" not in message, message
    assert gate_.posts("tools/call") == 3, gate_.seen  # count(), then increment() twice: never thrice
    gate_.open()
    assert pool.call("s", "count").data == before
