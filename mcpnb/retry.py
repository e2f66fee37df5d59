"""When to try again, and how long to wait: exponential backoff with jitter, and error classes.

Retrying is only worth it for failures that time can fix (a process that died, a server restarting,
a dropped connection). A typo in a command, a rejected token or an unsupported protocol version
will fail the same way every time, so those go straight to ``failed`` with their reason.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .errors import AuthError, McpnbError, root_cause

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
