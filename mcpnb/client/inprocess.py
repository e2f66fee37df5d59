"""Server objects run in this process: the SDK's (``MCPServer``, a low-level ``Server``, a transport)
and FastMCP's.

A ``FastMCP`` server is what most people write in Python; the SDK's client cannot run one as it
is. FastMCP's own in-memory transport runs its low-level server (an SDK ``Server``) inside the
server's lifespan, and so does this. fastmcp is never imported here: an object that has both
parts is run that way.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcpnb.client.errors import McpnbError

#: What a transport object that was used already is told, at a reconnect (a person's or automatic).
SPENT_TRANSPORT = (
    "a transport object given as server= can be used once, and this one was used already (entered "
    "outside mcpnb?): connect again with a new one, or give url=... (or command=...) so mcpnb makes "
    "its own each time"
)


def one_shot_transport(server: Any) -> bool:
    """Whether ``server`` is a transport made by an ``@asynccontextmanager`` function: the SDK's
    ``streamable_http_client(...)``, ``sse_client(...)``, ``stdio_client(...)``. Such an object
    can be entered once; what it was called with (kept until then) makes a new one each time."""
    return isinstance(server, contextlib._AsyncGeneratorContextManager)  # type: ignore[attr-defined]


def transport_label(server: Any) -> str | None:
    """The function that made a one-shot transport (``streamable_http_client``), for status rows;
    None for anything else. Its arguments are not shown: a URL or headers may hold credentials."""
    if not one_shot_transport(server):
        return None
    func = getattr(server, "func", None) or getattr(getattr(server, "gen", None), "__name__", None)
    return getattr(func, "__name__", func if isinstance(func, str) else None)


def _fresh(server: Any) -> Any:
    """A new, unused copy of a one-shot transport, so each session (a reconnect, automatic or a
    person's) enters its own: entering the object itself twice failed with "AttributeError:
    '_AsyncGeneratorContextManager' object has no attribute 'args'". The object given stays unused.
    A transport entered elsewhere already cannot be copied: said so."""
    if not hasattr(server, "func"):  # entered once: CPython drops what made it
        raise McpnbError(SPENT_TRANSPORT)
    return server.__class__(server.func, server.args, server.kwds)


def fastmcp_lowlevel(server: Any) -> Any | None:
    """The SDK ``Server`` inside a FastMCP server (None for anything else)."""
    from mcp.server.lowlevel import Server

    lowlevel = getattr(server, "_mcp_server", None)
    if isinstance(lowlevel, Server) and callable(getattr(server, "_lifespan_manager", None)):
        return lowlevel
    return None


def runnable(server: Any) -> bool:
    """Whether the SDK's client can run ``server`` in-process (with :func:`in_process`): the SDK's
    ``MCPServer`` or low-level ``Server``, a transport, or a FastMCP server."""
    from mcp.server.lowlevel import Server
    from mcp.server.mcpserver import MCPServer

    return (
        isinstance(server, (MCPServer, Server))
        or hasattr(server, "__aenter__")
        or fastmcp_lowlevel(server) is not None
    )


@contextlib.asynccontextmanager
async def in_process(server: Any) -> AsyncIterator[Any]:
    """What ``mcp.Client(...)`` takes for ``server``: an ``MCPServer`` itself; a low-level ``Server``
    or a FastMCP server's low-level server served over in-memory JSON-RPC streams (a FastMCP one
    while its lifespan runs: its startup and shutdown hooks, as FastMCP's own in-memory client).

    Why streams: handed a low-level ``Server`` (an ``MCPServer`` is one inside), the SDK's client
    runs a 2026-07-28 connection through its direct dispatcher, which passes a progress callback
    beside the request and puts no ``progressToken`` in its ``_meta``. A handler that sends progress
    against that token (``ctx.meta["progress_token"]`` and ``send_progress_notification``, as the
    SDK's 1.x examples and FastMCP's ``ctx.report_progress`` do) then sends none; only the SDK's own
    ``ctx.session.report_progress`` reaches the callback. Over streams the SDK's JSON-RPC dispatcher
    writes the token, as over stdio and HTTP, and both ways arrive. An ``MCPServer`` keeps the direct
    path: its tools report progress through ``Context.report_progress``, which uses the callback.
    A transport made by an ``@asynccontextmanager`` function (``streamable_http_client(url)``) is
    made anew from what it was called with, each session (:func:`_fresh`).
    The price is JSON-RPC framing per message, paid only by the servers that need it: 0.25-0.3 ms a
    FastMCP call (at best 0.84 against 1.10 ms), about 0.5 ms a low-level ``Server`` call (1.08
    against 0.54 ms, median of 2000 calls alternating with the direct path), on the 2-core machine."""
    from mcp.client._memory import InMemoryTransport
    from mcp.server.lowlevel import Server

    if one_shot_transport(server):
        yield _fresh(server)
        return
    if isinstance(server, Server):
        yield InMemoryTransport(server)
        return
    lowlevel = fastmcp_lowlevel(server)
    if lowlevel is None:
        yield server
        return
    async with server._lifespan_manager():
        yield InMemoryTransport(lowlevel)
