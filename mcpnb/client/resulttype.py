"""A 2026-07-28 result without ``resultType`` is read as ``"complete"``, as the spec tells clients to.

The revision gives every result a ``resultType`` that servers MUST send, and says a client MUST
treat an absent one as ``"complete"``. The SDK checks a modern result against its wire type, which
requires the field, so a server that leaves it out of plain results (the C# SDK did:
csharp-sdk#1676) got every call refused with a ``ValidationError`` although its answer was whole.
The conformance suite checks this (``sep-2322-default-result-type-complete``). :func:`install`
fills the field in before the session checks the result, and says so once per connection, since it
is the server's mistake to fix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def install(session: Any, note: Callable[[str], None]) -> None:
    """Wrap ``session``'s dispatcher once (idempotent); ``note`` hears of the first result it fills in."""
    dispatcher = session._dispatcher  # every request leaves through it (stdio, HTTP, in-process)
    if getattr(dispatcher, "_mcpnb_result_type", False):
        return
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    send = dispatcher.send_raw_request
    said: list[str] = []

    async def door(method: str, params: Any, *args: Any, **kwargs: Any) -> Any:
        raw = await send(method, params, *args, **kwargs)
        if not isinstance(raw, dict) or "resultType" in raw:
            return raw
        if session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return raw
        if not said:
            said.append(method)
            note(
                f"the server's {method} result has no resultType, which 2026-07-28 servers must send: "
                "read as complete (the spec's rule for clients), here and from now on"
            )
        return {**raw, "resultType": "complete"}

    dispatcher.send_raw_request = door
    dispatcher._mcpnb_result_type = True
