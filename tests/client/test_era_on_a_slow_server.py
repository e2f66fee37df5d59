"""A server slow to answer its first request is no legacy server.

With era 'auto' the SDK probes ``server/discover`` and takes *any* error for "a legacy server",
its own 10 s timeout included: a 2026-07-28 server that was still starting (a cold instance, a
loaded machine, workers still importing) got a 2025-11-25 ``initialize`` session, mcpnb remembered
"legacy" and every automatic reconnect went straight to ``initialize`` (against probe-kit with
several workers, which keep 2026-07-28 sessions only, that ended in "Session not found"). Nothing
in the log said the era was a guess made on a timeout.

The stand-in is :mod:`tests.servers.slow_discover_server`, a real stdio process that speaks both
eras and answers ``initialize`` too, so the era it ends up with says which handshake was sent.
The SDK's probe wait is its module constant, read at each probe: shortened here to keep the test
quick (the behaviour is the same at 10 s).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).resolve().parents[1] / "servers" / "slow_discover_server.py"
QUICK = {"retry_delay": 0.05, "max_retries": 3, "health_check_interval": 0, "startup_timeout": 30}


@pytest.fixture
def short_probe(monkeypatch: pytest.MonkeyPatch) -> float:
    import mcp.client.session

    monkeypatch.setattr(mcp.client.session, "DISCOVER_TIMEOUT_SECONDS", 1.0)
    return 1.0


def era_lines(pool: Any, name: str) -> list[str]:
    return [line for line in pool.logs(name) if "server/discover" in line]


@pytest.mark.timeout(60)
def test_a_discover_answered_late_is_asked_again_not_taken_for_a_legacy_server(pool, short_probe):
    pool.connect("slow", command=sys.executable, args=[str(SERVER), "--delay", "1.5"], **QUICK)
    assert pool.status()["slow"].era == "modern"
    assert pool.call("slow", "which_era", {}).text == "modern"
    said = era_lines(pool, "slow")
    assert any("no answer in 1 s" in line and "2026-07-28" in line for line in said), pool.logs("slow")


@pytest.mark.timeout(60)
def test_a_discover_never_answered_falls_back_but_is_not_remembered_as_the_era(pool, short_probe):
    """A server that drops the method it does not know still gets the handshake, and the log says
    it was a guess; an automatic reconnect asks again instead of going straight to initialize."""
    pool.connect("silent", command=sys.executable, args=[str(SERVER), "--silent"], **QUICK)
    assert pool.status()["silent"].era == "legacy"
    assert pool.call("silent", "which_era", {}).text == "legacy"
    said = era_lines(pool, "silent")
    assert any("no answer in 1 s" in line and "initialize" in line for line in said), pool.logs("silent")
    assert pool.connection("silent").learned_era is None


@pytest.mark.timeout(60)
def test_era_modern_on_a_server_that_never_answers_discover_says_so(pool, short_probe):
    """Not "it only speaks the handshake era": it never said which it speaks."""
    from mcpnb.client.errors import McpnbError

    quick = {**QUICK, "max_retries": 0}
    with pytest.raises(McpnbError, match="server/discover got no answer in 1 s") as caught:
        pool.connect("silent", command=sys.executable, args=[str(SERVER), "--silent"], era="modern", **quick)
    assert "only speaks" not in str(caught.value)


@pytest.mark.timeout(90)
def test_after_a_guess_an_automatic_reconnect_probes_once(pool, short_probe):
    """The server that drops discover is lost (its process killed): the automatic reconnect asks
    discover once more, not three times (each unanswered probe costs the SDK's full wait)."""
    import os
    import signal

    from conftest import wait_until

    pool.connect("silent", command=sys.executable, args=[str(SERVER), "--silent"], **QUICK)
    first = len(pool.connection("silent")._unanswered_probes)
    assert first == 3, era_lines(pool, "silent")  # a person's connect: asked while startup_timeout allows
    pid = int(pool.call("silent", "pid", {}).text)
    os.kill(pid, signal.SIGKILL)
    assert wait_until(
        lambda: pool.status()["silent"].retries >= 1 and pool.status()["silent"].state == "connected"
    )
    assert int(pool.call("silent", "pid", {}).text) != pid
    assert len(pool.connection("silent")._unanswered_probes) == 1, era_lines(pool, "silent")
    assert pool.status()["silent"].era == "legacy"
