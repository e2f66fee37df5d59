"""Logging as a lesson: ``logging/setLevel`` per client, and log notifications from the tools.

The two eras filter differently, and probe-kit shows both. On 2025-11-25 a client sends
``logging/setLevel`` once and the *server* must drop what is below that level for that connection
(the SDK leaves this to the application, so it lives here). On 2026-07-28 there is no setLevel: each
request opts in with a level in its ``_meta`` and the SDK filters. Tools call :func:`log` and never
care which era they are in.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from mcp import types

#: RFC 5424 severities in the order the spec lists them, least severe first.
LEVELS: tuple[str, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: What a client that never called ``logging/setLevel`` gets.
DEFAULT_LEVEL = "info"
LOGGER = "probe-kit"


def connection_of(session: Any) -> Any:
    """The per-client connection behind a per-request ``ServerSession`` (the object to key state on)."""
    return getattr(session, "_connection", session)


class LogLevels:
    """The level each connected client chose; forgotten with the connection."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def set(self, session: Any, level: str) -> None:
        self._levels[connection_of(session)] = level

    def get(self, session: Any) -> str:
        try:
            return self._levels.get(connection_of(session), DEFAULT_LEVEL)
        except TypeError:  # an object that cannot be weakly referenced: no choice was stored
            return DEFAULT_LEVEL

    def allows(self, session: Any, level: str) -> bool:
        return LEVELS.index(level) >= LEVELS.index(self.get(session))

    async def handle_set_level(self, ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        """``logging/setLevel``: remember the level for this client; answer ``{}``."""
        self.set(ctx.session, params.level)
        return types.EmptyResult()


async def log(ctx: Any, level: str, message: Any, levels: LogLevels | None = None) -> bool:
    """Send one ``notifications/message`` on the calling request's stream, if the client wants it.

    ``ctx`` is the tool's ``Context``. Returns whether it was sent (a test can see the filter work).
    The notification is sent directly: the SDK's ``send_log_message`` warns that logging is
    deprecated in 2026-07-28, a warning a notebook would show on every call.
    """
    from mcp.server.connection import allowed_log_levels
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if ctx is None:
        return False
    request = ctx.request_context
    if request.protocol_version in MODERN_PROTOCOL_VERSIONS:
        if level not in allowed_log_levels(request.protocol_version, request.meta):
            return False  # 2026-07-28: this request did not opt in at this level
    elif levels is not None and not levels.allows(request.session, level):
        return False  # 2025-11-25: below what this client chose with logging/setLevel
    note = types.LoggingMessageNotification(
        params=types.LoggingMessageNotificationParams(level=level, data=message, logger=LOGGER)
    )
    with contextlib.suppress(Exception):  # a client that went away must not fail the tool
        await request.session.send_notification(note, related_request_id=ctx.request_id)
        return True
    return False
