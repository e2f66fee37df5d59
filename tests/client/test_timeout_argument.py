"""A call's ``timeout=`` is checked before anything is sent. ``0``, ``-1`` and ``nan`` used to send
the request and cancel it at once ("timed out after -1 s"); ``"5"`` failed deep inside the call
("CallError … TypeError: '>' not supported"). Now each is a clear ``ValueError``/``TypeError`` that
says what was given and what is accepted, and the server never sees the call."""

from __future__ import annotations

import asyncio
import math
from decimal import Decimal

import pytest
from conftest import demo_server_object

from mcpnb.client.timeouts import checked_timeout

ACCEPTED = "accepted: seconds greater than 0, at most 86400, or None for the server's tool_timeout"
BAD = [
    (0, ValueError, "timeout= must be greater than 0, got 0; "),
    (-1, ValueError, "timeout= must be greater than 0, got -1; "),
    (-0.5, ValueError, "timeout= must be greater than 0, got -0.5; "),
    (math.nan, ValueError, "timeout= expected a number of seconds, got nan; "),
    (math.inf, ValueError, "timeout= must be at most 86400 s (a day), got inf; "),
    (86401, ValueError, "timeout= must be at most 86400 s (a day), got 86401; "),
    (Decimal("-1"), ValueError, "timeout= must be greater than 0, got Decimal('-1'); "),
    (Decimal("NaN"), ValueError, "timeout= expected a number of seconds, got nan; "),
    (Decimal("sNaN"), ValueError, "timeout= expected a number of seconds, got nan; "),
    (Decimal("1e400"), ValueError, "timeout= must be at most 86400 s (a day), got Decimal('1E+400'); "),
    ("5", TypeError, "timeout= expected a number of seconds, got a string ('5'); "),
    (True, TypeError, "timeout= expected a number of seconds, got true/false; "),
    ([5], TypeError, "timeout= expected a number of seconds, got a list; "),
]


@pytest.fixture
def demo(pool):
    pool.connect("demo", server=demo_server_object())
    return pool


def ran(pool) -> int:
    """How many times the server ran ``echo`` (it records every run)."""
    return pool.call("demo", "calls").data.count("echo")


@pytest.mark.parametrize(("timeout", "error", "said"), BAD, ids=[repr(b[0]) for b in BAD])
def test_a_bad_timeout_is_refused_before_anything_is_sent(demo, timeout, error, said):
    before = ran(demo)
    with pytest.raises(error) as sync:
        demo.call("demo", "echo", {"text": "hi"}, timeout=timeout)
    with pytest.raises(error) as awaited:
        asyncio.run(demo.acall("demo", "echo", {"text": "hi"}, timeout=timeout))
    assert str(sync.value) == str(awaited.value) == said + ACCEPTED
    assert ran(demo) == before  # the server never saw either call
    assert demo.call("demo", "echo", {"text": "still fine"}).text == "still fine"


@pytest.mark.parametrize("timeout", [None, 5, 0.25, 86400, Decimal("2.5")])
def test_a_good_timeout_still_calls(demo, timeout):
    assert demo.call("demo", "echo", {"text": "hi"}, timeout=timeout).text == "hi"
    assert asyncio.run(demo.acall("demo", "echo", {"text": "hi"}, timeout=timeout)).text == "hi"


def test_checked_timeout_gives_seconds_as_a_float():
    assert checked_timeout(None) is None
    assert checked_timeout(3) == 3.0 and isinstance(checked_timeout(3), float)
    assert checked_timeout(Decimal("0.5")) == 0.5 and isinstance(checked_timeout(Decimal("0.5")), float)
    with pytest.raises(ValueError, match=r"^--timeout must be greater than 0, got -1; accepted"):
        checked_timeout(-1, "--timeout")  # a magic's option, named as it is typed
