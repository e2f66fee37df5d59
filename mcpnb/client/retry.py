"""When to try again, and how long to wait: exponential backoff with jitter, and error classes.

Retrying is only worth it for failures that time can fix (a process that died, a server restarting,
a dropped connection). A typo in a command, a rejected token or an unsupported protocol version
will fail the same way every time, so those go straight to ``failed`` with their reason.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcpnb.client.errors import AuthError, CallError, McpnbError, root_cause
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


def http_status_of(exc: BaseException) -> int | None:
    response = getattr(root_cause(exc), "response", None)
    return getattr(response, "status_code", None)


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

    An error that time cannot fix ends the attempts at once, with its own reason.
    """
    await conn.end_session()
    conn.cancel_background()
    attempts = conn.config.max_retries
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
            if not is_retryable(exc, http_status=conn.http_status):
                break
            continue
        conn.set_state(State.CONNECTED, conn.connected_message(), attempts=attempt + 1)
        return
    conn.set_state(State.FAILED, f"gave up reconnecting: {reason}", attempts=attempts)


async def renew_session(conn: Connection) -> None:
    """A Streamable HTTP session the server forgot (404): open a new one at once, no backoff."""
    conn.emit("session", "the server forgot our session (HTTP 404): starting a new one")
    await conn.halt(None)  # not ended on purpose: calls on the old session fail as they would
    conn.set_state(State.RECONNECTING, "session expired: re-initializing")
    try:
        await conn.open_session()
    except Exception as exc:
        conn.set_state(
            State.FAILED, f"session expired and re-initializing failed: {conn.failure_reason(exc)}"
        )
        raise CallError(f"the session of {conn.name!r} expired and could not be renewed") from None
    conn.set_state(State.CONNECTED, conn.connected_message())
