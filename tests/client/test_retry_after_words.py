"""Reading a ``Retry-After`` and saying it: the header is the server's (or a proxy's) text, read in
the HTTP client's response hook, so no content of it may raise there (RFC 9110 §10.2.3:
delay-seconds = 1*DIGIT, ASCII digits; or an HTTP-date). The fault tests with real servers
(tests/faults/test_retry_after.py) show what a person is told; these pin the reading itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from mcpnb.client import retry
from mcpnb.client.requests import scope_asked
from mcpnb.client.retry import RETRY_AFTER_CAP, RetryAfter, retry_after_seconds

NOW = datetime(2026, 12, 5, 22, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "\uff13", "1e3", "-5", "+5", "5.5", "0x10", "3 s"])
def test_only_ascii_digits_are_seconds(value):
    assert retry_after_seconds(value, NOW) is None


@pytest.mark.parametrize(
    "value",
    [
        "999999999999",
        "100000000000000",
        "9" * 5000,  # beyond int()'s digit limit
        "Fri, 31 Dec 9999 23:59:59 GMT",
        format_datetime(NOW + timedelta(days=400), usegmt=True),
    ],
)
def test_a_wait_beyond_a_year_is_read_as_a_year_and_a_day(value):
    assert retry_after_seconds(value, NOW) == 366 * 86400  # retry.LONGEST_ASKED


@pytest.mark.parametrize("value", ["Fri, 31 Dec 9999 23:59:59 +9999", "Fri, 99 Foo 2026 25:61:61 GMT"])
def test_a_date_no_calendar_has_is_no_wait(value):
    assert retry_after_seconds(value, NOW) is None


@pytest.mark.parametrize("value", ["999999999999", "\u00b2", "1" * 400, "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_asking_never_raises_and_never_waits_longer_than_the_cap(value):
    asked = RetryAfter.asked(value)
    if asked is None:
        return
    assert asked.remaining() <= RETRY_AFTER_CAP
    # the time the words give is when mcpnb asks again: within the cap, not in 317 years
    assert asked.until_wall - datetime.now() <= timedelta(seconds=RETRY_AFTER_CAP)
    assert asked.words().startswith(
        "the server asks to wait more than a year (Retry-After; mcpnb waits 5 min"
    )


def test_a_wait_within_the_cap_is_said_as_asked():
    asked = RetryAfter.asked("30")
    assert asked is not None and asked.seconds == 30
    assert asked.words().startswith("the server asks to wait 30 s (Retry-After, until ")


@pytest.mark.parametrize(
    ("seconds", "said"),
    [("7200", "2 h"), ("600", "10 min"), ("259200", "3 days"), ("31536001", "more than a year")],
)
def test_a_long_wait_is_said_in_its_unit_and_what_mcpnb_waits_of_it(seconds, said):
    asked = RetryAfter.asked(seconds)
    assert asked is not None
    assert asked.words().startswith(
        f"the server asks to wait {said} (Retry-After; mcpnb waits 5 min of it, until "
    )


def test_a_time_not_today_is_said_with_its_date():
    before_midnight = datetime(2026, 12, 5, 23, 58, 0)
    assert retry.wall_clock(datetime(2026, 12, 5, 23, 59, 30), before_midnight) == "23:59:30"
    assert retry.wall_clock(datetime(2026, 12, 6, 0, 3, 7), before_midnight) == "2026-12-06 00:03:07"


def test_a_reconnect_attempt_across_midnight_says_its_dates():
    """The status table keeps these words: read the next day, a bare 23:59:50 named the wrong day."""
    attempt = retry.Attempt(2, 5, datetime(2025, 12, 5, 23, 59, 50), 30)
    assert attempt.words() == (
        "attempt 2/5 under way since 2025-12-05 23:59:50 (it gives up by 2025-12-06 00:00:20 at the "
        "latest: startup_timeout=30 s)"
    )
    today = retry.Attempt(1, None, datetime.now().replace(microsecond=0), 0)
    assert today.words().startswith(f"an attempt under way since {today.since:%H:%M:%S} (")


def test_a_scope_challenge_beyond_ascii_is_read():
    # httpx2 decodes a header (UTF-8, else Latin-1) and encodes a str one as ASCII: this raised
    assert scope_asked(403, 'Bearer error="insufficient_scope", scope="écrire"') == "écrire"
    assert scope_asked(401, 'Bearer error="insufficient_scope", scope="x"') is None
