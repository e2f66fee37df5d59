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
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcpnb.client.errors import (
    AuthError,
    CallError,
    McpnbError,
    NotConnectedError,
    http_status_of,
    out_of_reach,
    root_cause,
)
from mcpnb.client.events import State

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection

_RETRYABLE_CODES = {-32000, -32001}


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
    if status in (401, 403):
        return False
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
    for attempt in range(attempts):
        delay = conn.backoff.delay(attempt)
        conn.retries += 1
        conn.set_state(
            State.RECONNECTING,
            f"reconnecting (attempt {attempt + 1}/{attempts}) in {delay:.2f} s after: {reason}",
            attempt=attempt + 1,
            max_retries=attempts,
            delay=delay,
        )
        conn.emit(
            "retry", f"attempt {attempt + 1}/{attempts} in {delay:.2f} s", attempt=attempt + 1, delay=delay
        )
        await asyncio.sleep(delay)
        try:
            await conn.open_session()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = conn.failure_reason(exc)
            if not conn.time_may_fix(exc):
                revivable = False
                break
            continue
        conn.set_state(State.CONNECTED, conn.connected_message(), attempts=attempt + 1)
        return
    conn.revivable = revivable
    then = AGAIN if revivable else ""
    said = "gave up reconnecting" if revivable else "stopped reconnecting"  # not worn out: told no
    conn.set_state(State.FAILED, f"{said}: {reason}{then}", attempts=attempts)


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
    """
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
    try:
        await conn.open_session()
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        conn.revivable = is_retryable(exc, http_status=conn.http_status)
        conn.set_state(State.FAILED, f"still failing: {conn.failure_reason(exc)}")
        return
    conn.set_state(State.CONNECTED, conn.connected_message())


async def open_patiently(conn: Connection, wait: float) -> None:
    """The first session: one attempt, or with ``wait`` > 0 attempts with backoff until the server
    answers or ``wait`` seconds have passed (each attempt still bounded by ``startup_timeout``)."""
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
            delay = min(conn.backoff.delay(attempt), remaining)
            attempt += 1
            why = conn.failure_reason(exc)
            conn.set_state(
                State.CONNECTING,
                f"waiting for the server (attempt {attempt}, next in {delay:.1f} s): {why}",
                attempt=attempt,
                delay=delay,
            )
            await asyncio.sleep(delay)


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
    failed = conn.state is State.FAILED
    why = conn.last_error.removesuffix(AGAIN) if failed and conn.last_error else ""
    if why.startswith("still failing: "):
        said = f"is {why}"  # "server 'db' is still failing: ...", not "is failed: still failing: ..."
    elif failed:
        said = f"failed: {why}" if why else "failed"
    else:
        said = f"is {conn.state}"
    again = failed and conn.revivable
    then = "the next call tries again, or " if again else ""
    # a 401/403 says itself what to change before reconnecting (a reconnect alone resends the same)
    advice = (
        ""
        if failed and conn.http_status in (401, 403)
        else f"; {then}reconnect it with pool.reconnect({conn.name!r})"
    )
    return NotConnectedError(
        f"server {conn.name!r} {said}{advice}",
        model_text=f"server {conn.name!r} {said}; try again in a moment, or tell the user"
        if again or conn.state is State.RECONNECTING
        else out_of_reach(f"server {conn.name!r} {said}"),
    )
