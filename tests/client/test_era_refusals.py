"""A 2026-07-28-only server asked for the handshake era (``era='legacy'``) says which era to use.

Such a server refuses ``initialize`` with a 400: "Method not found" (-32601), or "Unsupported
protocol version" (-32022) listing the versions it speaks, as the TypeScript SDK's modern-only
endpoint does. mcpnb took the 400 for a wrong transport, tried legacy SSE at the same URL and
reported both refusals ("…; as legacy SSE: HTTP 400 … (Missing session ID)"), without a word of
the era. The other way round (``era='modern'`` to a handshake-only server) already named it.

The SDK's ``MCPServer`` behind the gate of :mod:`faults.test_retry_after`, which refuses
``initialize`` as a modern-only server does; ``era='auto'`` then connects as 2026-07-28.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from faults.test_retry_after import Gate, gated, refuse

from mcpnb import ConnectError

QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0}

METHOD_NOT_FOUND = {"code": -32601, "message": "Method not found: initialize"}
#: The TypeScript SDK's answer to initialize at a modern-only endpoint (modernOnlyStrictRejection).
UNSUPPORTED = {
    "code": -32022,
    "message": "Unsupported protocol version: the request did not name a protocol version",
    "data": {"supported": ["2026-07-28"]},
}


@pytest.fixture
def gate() -> Iterator[tuple[Gate, str]]:
    yield from gated()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "error", [METHOD_NOT_FOUND, UNSUPPORTED], ids=["method-not-found", "unsupported-version"]
)
def test_a_modern_only_server_asked_for_the_handshake_era_names_the_era_to_use(pool, gate, error):
    gate_, url = gate
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "error": error})
    gate_.answer({"initialize"}, refuse(400, "application/json", body))
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", **QUICK)
    message = str(failed.value)
    assert "the server speaks only 2026-07-28 (it refused initialize: " in message, message
    assert message.endswith("; use era 'auto' or 'modern'"), message
    assert error["message"] in message, message  # the server's own words
    assert "legacy SSE" not in message and ("GET", None) not in gate_.seen, gate_.seen  # no SSE tried
    assert pool.status()["s"].last_error == message.removeprefix("could not connect to 's': ")
    # what the words advise works
    row = pool.connect("s", url=url, era="auto", **QUICK)
    assert row.state == "connected" and row.era == "modern"


@pytest.mark.timeout(60)
def test_a_handshake_version_refused_is_no_modern_only_server(pool, gate):
    """A -32022 that lists handshake versions is some other disagreement: no era advice."""
    gate_, url = gate
    error = {**UNSUPPORTED, "data": {"supported": ["2024-11-05"]}}
    gate_.answer(
        {"initialize"},
        refuse(400, "application/json", json.dumps({"jsonrpc": "2.0", "id": 0, "error": error})),
    )
    with pytest.raises(ConnectError) as failed:
        pool.connect("s", url=url, era="legacy", **QUICK)
    assert "speaks only" not in str(failed.value) and "Unsupported protocol version" in str(failed.value)
