"""When to try again, and how long to wait: exponential backoff with jitter, and error classes.

Retrying is only worth it for failures that time can fix (a process that died, a server restarting,
a dropped connection). A typo in a command, a rejected token or an unsupported protocol version
will fail the same way every time, so those go straight to ``failed`` with their reason.

Three ways back to a live session, all here:

- :func:`reconnect_with_backoff`: a live session died; up to ``max_retries`` attempts with capped
  backoff, then ``failed``. A server that stays down longer is not given up on for good: the
  connection stays *revivable*, and the next call (or ``pool.reconnect``) tries again at once
  (:func:`revive`), so a server that came back is used without a manual step.
- :func:`renew_session`: the server forgot our HTTP session (a 404, or a 400 that says so): a new
  one at once; if the server is not there, backoff takes over.
- :func:`open_patiently`: a first connect that may wait (``connect(..., wait=60)``) for a server
  that is still starting (a container, a first ``npx`` download).

A server (or the proxy before it) that answers 429 or 503 with ``Retry-After`` says when to come
back: none of the three asks it sooner (:func:`asked_wait`), up to :data:`RETRY_AFTER_CAP`.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from mcpnb.client.errors import (
    AuthError,
    CallError,
    McpnbError,
    NotConnectedError,
    client_certificate_refused,
    http_status_of,
    out_of_reach,
    root_cause,
    tls_verify_failed,
    wrong_protocol,
)
from mcpnb.client.events import State

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection

_RETRYABLE_CODES = {-32000, -32001}

#: The longest wait a ``Retry-After`` is obeyed for: 5 minutes. A server that asks for an hour (a
#: quota that resets at midnight, say) is asked again after five minutes, not left alone for the
#: rest of the day with the connection ``reconnecting``; its words still say what it asked for.
RETRY_AFTER_CAP = 300.0

#: The longest ``Retry-After`` read as what it says: a year and a day. A longer one (twelve digits of
#: seconds, an HTTP-date in the year 9999) says "not any time soon" all the same, and is read as
#: this: no datetime can hold it, and no one waits for it (:data:`RETRY_AFTER_CAP` does the waiting).
LONGEST_ASKED = 366 * 86400.0

#: A session a reconnect opened that dies sooner than this after is a quick loss
#: (``Connection.quick_losses``): the next reconnect counts on from the last one's attempts.
CRASH_LOOP_WINDOW = 10.0

#: RFC 9110 §10.2.3: delay-seconds = 1*DIGIT, ASCII digits only (``str.isdigit`` also takes "²" and
#: "٣", which ``float`` then refuses or reads as another number).
_DELAY_SECONDS = re.compile(r"[0-9]+")


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks for (RFC 9110 §10.2.3: delay-seconds or an
    HTTP-date), 0 for a date already past, at most :data:`LONGEST_ASKED`; None when there is none
    or it says neither. Never raises: the header is the server's (or a proxy's) text, and this runs
    in the HTTP client's response hook, where an exception would lose the answer it came with."""
    text = (value or "").strip()
    if not text:
        return None
    if _DELAY_SECONDS.fullmatch(text):
        return min(float(text), LONGEST_ASKED)  # float, not int: no digit limit, inf at worst
    try:
        when = parsedate_to_datetime(text)
        if when.tzinfo is None:  # an HTTP-date is GMT
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(seconds, 0.0), LONGEST_ASKED)


@dataclass(frozen=True)
class RetryAfter:
    """A ``Retry-After`` as it arrived: what the server asked for, and when mcpnb asks again (after
    that wait, or :data:`RETRY_AFTER_CAP` when it asked for longer)."""

    seconds: float  # what the server asked for (at most LONGEST_ASKED)
    waits: float  # what mcpnb waits of it: seconds, at most RETRY_AFTER_CAP
    until: float  # time.monotonic() when that wait is over
    until_wall: datetime  # the same, on the wall clock (what a person reads)

    @classmethod
    def asked(cls, value: str | None) -> RetryAfter | None:
        seconds = retry_after_seconds(value)
        if seconds is None:
            return None
        # capped here, not only when slept: a revive or a call waits for ``until``, not a sleep
        waits = min(seconds, RETRY_AFTER_CAP)
        return cls(seconds, waits, time.monotonic() + waits, datetime.now() + timedelta(seconds=waits))

    def remaining(self) -> float:
        """What is left of the wait (0 once it is over), never more than :data:`RETRY_AFTER_CAP`."""
        return min(max(self.until - time.monotonic(), 0.0), RETRY_AFTER_CAP)

    def words(self) -> str:
        """``the server asks to wait 30 s (Retry-After, until 22:41:07)``: a clock time, so the
        words are still true when read a minute later (the status table's); a longer ask than
        mcpnb waits for says both (``… wait 2 h (Retry-After; mcpnb waits 5 min of it, until …)``)."""
        asked = f"the server asks to wait {_seconds(self.seconds)}"
        until = wall_clock(self.until_wall)
        if self.waits >= self.seconds:
            return f"{asked} (Retry-After, until {until})"
        return f"{asked} (Retry-After; mcpnb waits {_seconds(self.waits)} of it, until {until})"


def _seconds(seconds: float) -> str:
    """A wait in the unit a person reads it in: 45 s, 30 min, 5 h, 3 days."""
    if seconds > 365 * 86400:
        return "more than a year"
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{math.ceil(seconds):g} s"


def wall_clock(when: datetime, now: datetime | None = None) -> str:
    """``22:41:07`` today, ``2026-12-06 00:03:07`` another day: a bare time of day for a moment
    that is not today reads as the wrong one."""
    if when.date() == (now or datetime.now()).date():
        return f"{when:%H:%M:%S}"
    return f"{when:%Y-%m-%d %H:%M:%S}"


def asked_wait(conn: Connection) -> float:
    """How long the last HTTP error's ``Retry-After`` still asks mcpnb to stay away (0: it gave
    none, or its wait is over), at most :data:`RETRY_AFTER_CAP`."""
    answer = conn.http_answer
    asked = answer.retry_after if answer is not None else None
    return asked.remaining() if asked is not None else 0.0


@dataclass(frozen=True)
class Attempt:
    """A reconnect attempt under way: the status says so, and a call that waited for it in vain
    is told when it ends at the latest, not to start the same wait again with pool.reconnect()."""

    number: int
    of: int | None  # None: one attempt on its own (a failed server tried again at once)
    since: datetime
    limit: float  # startup_timeout: the attempt ends by since + limit

    def words(self) -> str:
        until = self.since + timedelta(seconds=self.limit)
        which = f"attempt {self.number}/{self.of}" if self.of else "an attempt"
        return (
            f"{which} under way since {wall_clock(self.since)} (it gives up by {wall_clock(until)} at the "
            f"latest: startup_timeout={self.limit:g} s)"
        )


@dataclass
class Backoff:
    """delay(n) = min(initial * 2**n, maximum) plus up to ``jitter`` of it, random but seedable."""

    initial: float = 1.0
    maximum: float = 30.0
    jitter: float = 0.1
    rng: random.Random = field(default_factory=random.Random, repr=False)

    def delay(self, attempt: int) -> float:
        """The wait before retry number ``attempt`` (0-based)."""
        base = min(self.initial * (2**attempt), self.maximum)
        return base + base * self.jitter * self.rng.random()

    def delays(self, attempts: int) -> list[float]:
        return [self.delay(n) for n in range(attempts)]


def is_retryable(exc: BaseException, *, http_status: int | None = None) -> bool:
    """Whether waiting and trying again can fix ``exc`` (``http_status``: the last one the hook saw)."""
    leaf = root_cause(exc)
    status = http_status_of(exc) or http_status
    if isinstance(leaf, AuthError):
        return leaf.retryable
    if status in (401, 403, 407):
        return False  # credentials (a proxy's, for 407): sending them again changes nothing
    if type(leaf).__name__ in ("ConnectError", "ProxyError", "SSLCertVerificationError", "SSLError") and (
        tls_verify_failed(leaf) or wrong_protocol(leaf) or str(leaf).startswith("407")
    ):
        return False  # a certificate not trusted, https:// to a plain-HTTP port: no wait fixes them
    if client_certificate_refused(leaf) is not None:
        return False  # mutual TLS: a client certificate missing or refused, until the config changes
    if isinstance(leaf, (FileNotFoundError, PermissionError, NotADirectoryError)):
        return False  # command not found, not executable, bad cwd
    if isinstance(leaf, McpnbError):
        return False  # config errors and the like: the message says what to fix
    if status is not None and (status >= 500 or status == 404):
        return True  # 5xx: the server's trouble; 404: an expired session
    if type(leaf).__name__ == "MCPError":
        return getattr(leaf, "code", None) in _RETRYABLE_CODES  # closed, timed out; not bad requests
    if isinstance(leaf, (OSError, TimeoutError, EOFError)):
        return True  # refused, reset, broken pipe, timed out
    # httpx2/httpcore transport errors and anyio's closed/broken streams: the wire went away
    return type(leaf).__module__.startswith(("httpx", "httpcore", "anyio"))


async def reconnect_with_backoff(conn: Connection, reason: str) -> None:
    """Replace a lost session: up to ``max_retries`` attempts with backoff; ``failed`` after the last.

    An error that time cannot fix ends the attempts at once, with its own reason; one that time may
    still fix leaves the connection revivable (the next call tries again at once).
    """
    await conn.end_session()
    conn.cancel_background()
    attempts = conn.config.max_retries
    revivable = True
    first = min(conn.quick_losses, attempts)  # a crash loop goes on counting where it was
    if first:
        reason += crash_loop_words(conn)
    for attempt in range(first, attempts):
        backoff, asked = conn.backoff.delay(attempt), asked_wait(conn)
        delay = max(backoff, asked)  # never sooner than Retry-After
        # why so long, where the reason is not the answer that asked (a cut call's probe got a 503)
        why = (
            f"; {conn.http_answer.retry_after.words()}"
            if asked > backoff and "Retry-After" not in reason
            else ""
        )
        conn.retries += 1
        conn.set_state(
            State.RECONNECTING,
            f"reconnecting (attempt {attempt + 1}/{attempts}) in {delay:.2f} s after: {reason}{why}",
            attempt=attempt + 1,
            max_retries=attempts,
            delay=delay,
        )
        conn.emit(
            "retry", f"attempt {attempt + 1}/{attempts} in {delay:.2f} s", attempt=attempt + 1, delay=delay
        )
        await asyncio.sleep(delay)
        try:
            now = Attempt(attempt + 1, attempts, datetime.now(), conn.startup_timeout)
            await _attempt(conn, now, f"reconnecting: {now.words()} after: {reason}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = conn.failure_reason(exc)
            if not conn.time_may_fix(exc):
                revivable = False
                break
            continue
        conn.reopened = True
        conn.set_state(State.CONNECTED, conn.connected_message(), attempts=attempt + 1)
        return
    conn.revivable = revivable
    then = AGAIN if revivable else ""
    said = "gave up reconnecting" if revivable else "stopped reconnecting"  # not worn out: told no
    conn.set_state(State.FAILED, f"{said}: {reason}{then}", attempts=attempts)


def crash_loop_words(conn: Connection) -> str:
    """`` (it died within 10 s of each of its last 2 starts)``: why a reconnect counts on from
    where the last one stopped."""
    n = conn.quick_losses
    starts = "its last start" if n == 1 else f"each of its last {n} starts"
    return f" (it died within {CRASH_LOOP_WINDOW:g} s of {starts})"


async def _attempt(conn: Connection, attempt: Attempt, said: str) -> None:
    """One reconnect attempt, the status saying (``said``) it is under way while it lasts: it may
    take up to startup_timeout (a server that accepts connections and answers nothing), long after
    the backoff's "in 1.04 s" has passed."""
    conn.attempt = attempt
    conn.set_state(State.RECONNECTING, said, attempt=attempt.number, max_retries=attempt.of)
    try:
        await conn.open_session()
    finally:
        conn.attempt = None


def start_recovery(conn: Connection, reason: str) -> None:
    """``reconnecting`` now, and the backoff loop in the background (no-op if one already runs)."""
    if conn._recovery is not None and not conn._recovery.done():
        return
    conn.set_state(State.RECONNECTING, reason, attempt=0, max_retries=conn.config.max_retries)
    conn._recovery = asyncio.get_running_loop().create_task(
        reconnect_with_backoff(conn, reason), name=f"mcpnb-recover-{conn.name}"
    )


async def revive(conn: Connection) -> None:
    """A ``failed`` server that time may have fixed: one attempt now, shared by concurrent callers.

    Runs as the connection's recovery task, so disconnecting or reconnecting by hand cancels it.
    Not while the server's ``Retry-After`` still asks to wait: the call is told until when instead.
    """
    if asked_wait(conn) > 0:
        return
    task = conn._recovery
    if task is None or task.done():
        task = conn._recovery = asyncio.get_running_loop().create_task(
            _revive_once(conn), name=f"mcpnb-revive-{conn.name}"
        )
    await asyncio.shield(task)


async def _revive_once(conn: Connection) -> None:
    before = conn.last_error or "it failed"
    conn.set_state(State.RECONNECTING, f"trying again at once (it had failed: {before})", attempt=1)
    await conn.end_session()
    conn.cancel_background()
    conn.retries += 1
    now = Attempt(1, None, datetime.now(), conn.startup_timeout)
    try:
        await _attempt(conn, now, f"trying again at once: {now.words()} (it had failed: {before})")
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        conn.revivable = is_retryable(exc, http_status=conn.http_status)
        reason = conn.failure_reason(exc)
        # the same reason again is no news: each call to a server that stays down tries it once,
        # and the caller's error already says so (a WARNING per call filled a cell's log)
        # the same words but for numbers (a time stamp, a pid in its last words): no news
        same = _digitless(conn.safe(reason)) in _digitless(before)
        conn.set_state(State.FAILED, f"still failing: {reason}", repeated=same)
        return
    conn.reopened = True
    conn.set_state(State.CONNECTED, conn.connected_message())


def _digitless(text: str) -> str:
    """``text`` with the numbers of the server's last words as one mark (a time stamp, a pid):
    the reason itself (an exit code) keeps its own."""
    head, sep, said = text.partition(" (server stderr: ")
    return head + sep + re.sub(r"\d+", "#", said)


async def open_patiently(conn: Connection, wait: float) -> None:
    """The first session: one attempt, or with ``wait`` > 0 attempts with backoff until the server
    answers or ``wait`` seconds have passed (each attempt still bounded by ``startup_timeout``).

    A ``Retry-After`` longer than what is left of ``wait`` ends the waiting at once: asking sooner
    would only be refused again (and would ignore what the server asked of its clients)."""
    if wait <= 0:
        await conn.open_session()
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    attempt = 0
    while True:
        try:
            await conn.open_session()
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            remaining = deadline - loop.time()
            if not is_retryable(exc, http_status=conn.http_status) or remaining <= 0:
                if attempt and remaining <= 0:
                    raise McpnbError(
                        f"not connected after waiting {wait:g} s ({attempt + 1} attempts); "
                        f"last: {conn.failure_reason(exc)}"
                    ) from None
                raise
            asked = asked_wait(conn)
            if asked > remaining:
                raise McpnbError(
                    f"not connected: {conn.failure_reason(exc)}; that is longer than the {remaining:.0f} s "
                    f"left of wait={wait:g}: connect again then, or with a longer wait"
                ) from None
            delay = min(max(conn.backoff.delay(attempt), asked), remaining)
            attempt += 1
            why = conn.failure_reason(exc)
            conn.set_state(
                State.CONNECTING,
                f"waiting for the server (attempt {attempt}, next in {delay:.1f} s): {why}",
                attempt=attempt,
                delay=delay,
            )
            await asyncio.sleep(delay)
            conn.set_state(
                State.CONNECTING,
                f"waiting for the server: attempt {attempt + 1} under way since {datetime.now():%H:%M:%S} "
                f"(last: {why})",
                attempt=attempt + 1,
            )


async def renew_session(conn: Connection) -> None:
    """A Streamable HTTP session the server forgot (404, or a 400 that says so): a new one at once.

    If the server is not there to give one (refused: it is restarting), backoff takes over.
    """
    answer = conn.http_answer
    said = answer.text() if answer is not None else f"HTTP {conn.http_status or 404}"
    conn.emit("session", f"the server forgot our session ({said}): starting a new one")
    await conn.halt(None)  # not ended on purpose: calls on the old session fail as they would
    conn.set_state(State.RECONNECTING, "session expired: re-initializing")
    try:
        await conn.open_session()
    except Exception as exc:
        reason = f"session expired and re-initializing failed: {conn.failure_reason(exc)}"
        if is_retryable(exc, http_status=conn.http_status) and conn.config.max_retries > 0:
            start_recovery(conn, reason)
            raise CallError(
                f"the session of {conn.name!r} expired and the server is not answering; "
                "reconnecting in the background"
            ) from None
        conn.set_state(State.FAILED, reason)
        raise CallError(f"the session of {conn.name!r} expired and could not be renewed") from None
    conn.set_state(State.CONNECTED, conn.connected_message())


AGAIN = "; the next call tries again"


def not_connected(conn: Connection) -> NotConnectedError:
    """Why a request finds no live session, and what to do: never ``pool.reconnect()`` while an
    attempt is under way (that only starts the same wait again), nor "the next call tries again"
    while the server's ``Retry-After`` still asks to wait."""
    failed = conn.state is State.FAILED
    why = conn.last_error.removesuffix(AGAIN) if failed and conn.last_error else ""
    attempt = conn.attempt if conn.state is State.RECONNECTING else None
    if why.startswith("still failing: "):
        said = f"is {why}"  # "server 'db' is still failing: ...", not "is failed: still failing: ..."
    elif failed:
        said = f"failed: {why}" if why else "failed"
    elif attempt is not None:
        said = f"is reconnecting: {attempt.words()}"
    else:
        said = f"is {conn.state}"
    again = failed and conn.revivable
    asked = conn.http_answer.retry_after if again and conn.http_answer is not None else None
    if asked is not None and asked.remaining() > 0:
        then = f"the next call after {wall_clock(asked.until_wall)} tries again, or "
    else:
        then = "the next call tries again, or " if again else ""
    # a 401/403 says itself what to change before reconnecting (a reconnect alone resends the same)
    if failed and conn.http_status in (401, 403):
        advice = ""
    elif attempt is not None:
        advice = "; it keeps trying on its own: call again once that attempt is over"
    else:
        advice = f"; {then}reconnect it with pool.reconnect({conn.name!r})"
    return NotConnectedError(
        f"server {conn.name!r} {said}{advice}",
        model_text=f"server {conn.name!r} {said}; try again in a moment, or tell the user"
        if again or conn.state is State.RECONNECTING
        else out_of_reach(f"server {conn.name!r} {said}"),
    )
