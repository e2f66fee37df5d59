"""The one error type OAuth failures become, so a person reads what to fix, never a token."""

from __future__ import annotations

from ..errors import McpnbError


class AuthError(McpnbError):
    """OAuth could not produce a usable token for a server; the message says what to change.

    ``retryable`` is False when trying again unchanged cannot help (a rejected client, a refused
    authorization) and True when the cause may pass by itself (the authorization server was
    unreachable), so the pool's retry policy need not parse messages.
    """

    def __init__(self, message: str, *, server: str | None = None, retryable: bool = False) -> None:
        self.server, self.retryable = server, retryable
        super().__init__(f"server {server!r}: {message}" if server else message)
