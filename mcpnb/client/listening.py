"""Keep a 2026-07-28 ``subscriptions/listen`` stream open for as long as its session lasts.

Two streams ride one session: the connection's list_changed listener (``Connection._listen``) and
the resource watch (:mod:`.watching`). A middlebox closes either while it is quiet, as they do,
and the server's later news then reached nobody; the SDK replays nothing ("re-listen and
refetch"). Both follow one policy, here: a lost stream is opened again after :data:`LISTEN_RETRY`
seconds, doubling up to :data:`LISTEN_RETRY_MAX` while it keeps being lost; ``reopened()`` then
lets its owner ask again for what may have changed meanwhile. A stream the server closed itself,
or refused, is not opened again; nor after :data:`LISTEN_FAILURES` tries in a row that got no
acknowledgment, nor once its session is no longer the connection's (a new one listens for itself).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import describe, leaves
from mcpnb.client.events import State

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection

#: A lost ``subscriptions/listen`` stream is opened again after this many seconds, doubling while it
#: keeps being lost, up to the most; this many tries in a row without the server's acknowledgment
#: end it.
LISTEN_RETRY = 0.5
LISTEN_RETRY_MAX = 30.0
LISTEN_FAILURES = 5
#: The SDK's JSON-RPC code for a stream that ended or broke (CONNECTION_CLOSED).
_CONNECTION_CLOSED = -32000


async def keep_listening(
    conn: Connection,
    listen: Callable[[Any], AbstractAsyncContextManager[Any]],
    *,
    stream: str,
    unheard: str,
    reopened: Callable[[], None],
    ready: asyncio.Future[None] | None = None,
) -> str | None:
    """Follow ``listen(client)`` on ``conn``'s current session, opening it again when it is lost.

    ``stream`` names it in the log ("the subscriptions/listen stream"), ``unheard`` says what goes
    unheard once it is given up on. ``reopened()`` runs each time it is acknowledged again after a
    loss. ``ready`` (optional) is resolved at the first acknowledgment, or fails with the first
    open's error: whoever asked for the stream is told at once, and nothing is tried again.
    Returns why a refused stream ended (None when it ended otherwise).
    """
    from mcp.client.subscriptions import SubscriptionLost

    client = conn.client
    delay, failures, opened = LISTEN_RETRY, 0, 0
    while True:
        acked, opened_at = False, conn.clock()
        error: BaseException
        try:
            async with listen(client) as events:
                acked, opened = True, opened + 1
                opened_at = conn.clock()
                if ready is not None and not ready.done():
                    ready.set_result(None)
                if opened > 1:
                    reopened()
                async for _event in events:
                    delay = LISTEN_RETRY  # it carried news: the next loss is no pattern yet
            return None  # closed by the server: its choice
        except (SubscriptionLost, ConnectionError, TimeoutError) as exc:
            error, refused = exc, False
        except Exception as exc:
            error, refused = exc, not _connection_closed(exc)
        if ready is not None and not ready.done():
            ready.set_exception(error)  # never opened: the one who asked hears why
            return describe(error) if refused else None
        if refused:
            return describe(error)  # the server does not offer it: asking again changes nothing
        why = describe(error)
        if conn.client is not client or conn.state is not State.CONNECTED:
            return None  # the session ended or was lost: a new one listens for itself
        failures = 0 if acked else failures + 1
        if acked and conn.clock() - opened_at > delay:
            delay = LISTEN_RETRY  # it lived longer than the last wait: a quiet stream's cut, not a pattern
        if failures >= LISTEN_FAILURES:
            conn.emit("transport", f"{stream} could not be opened again ({why}): {unheard}")
            return None
        conn.emit("transport", f"{stream} broke ({why}): listening again in {delay:g} s")
        await asyncio.sleep(delay)
        delay = min(delay * 2, LISTEN_RETRY_MAX)
        if conn.client is not client or conn.state is not State.CONNECTED:
            return None


def _connection_closed(exc: BaseException) -> bool:
    """The SDK's CONNECTION_CLOSED: a stream that ended or broke, not the server's refusal."""
    return any(
        type(leaf).__name__ == "MCPError" and getattr(leaf, "code", None) == _CONNECTION_CLOSED
        for leaf in leaves(exc)
    )
