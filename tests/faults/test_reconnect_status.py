"""A reconnect attempt that hangs (a port that accepts and never answers) is said to be under way.

The status kept "reconnecting (attempt 1/3) in 1.04 s after: …" long after the 1.04 s had passed,
while the attempt waited up to startup_timeout; a call then said "reconnect it with
pool.reconnect('b')", which only started the same wait again. Now the status says the attempt is
under way since when and until when at the latest, and the call says the same instead.

The SDK's ``MCPServer`` behind the gate of :mod:`faults.test_retry_after`: a call's answer is cut
off (the session is lost), then every request is accepted and never answered.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import wait_until

from faults.conftest import QUICK
from faults.test_retry_after import Gate, Rule, cut, gated, hang
from mcpnb import CallError
from mcpnb.client.errors import NotConnectedError


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    yield from gated()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_hanging_reconnect_attempt_is_said_to_be_under_way_and_no_reconnect_is_advised(pool, gate, era):
    gate_, url = gate
    pool.connect("b", url=url, era=era, **{**QUICK, "startup_timeout": 120})
    gate_.rules = [Rule({"tools/call"}, cut, count=1), Rule(None, hang)]
    with pytest.raises(CallError, match="was lost"):
        pool.call("b", "echo", {"text": "x"})

    def under_way() -> bool:
        return "under way since" in (pool.status()["b"].last_error or "")

    assert wait_until(under_way), pool.status()["b"].last_error
    row = pool.status()["b"]
    assert row.state == "reconnecting"
    assert row.last_error.startswith("reconnecting: attempt 1/3 under way since "), row.last_error
    assert "startup_timeout=120 s" in row.last_error and "connection lost" in row.last_error
    with pytest.raises(NotConnectedError) as waiting:
        pool.call("b", "echo", {"text": "x"}, timeout=0.3)
    message = str(waiting.value)
    assert message.startswith("server 'b' is reconnecting: attempt 1/3 under way since "), message
    assert "gives up by" in message and "pool.reconnect" not in message, message
    assert "it keeps trying on its own" in message
    pool.disconnect("b")  # ends the hanging attempt
