"""A 2026-07-28 result without ``resultType`` is read as ``"complete"``, as the spec tells clients to.

The revision gives every result a ``resultType`` that servers MUST send, and says a client MUST
treat an absent one as ``"complete"``. The SDK checks a modern result against its wire type, which
requires the field, so a server that leaves it out of plain results (the C# SDK did:
csharp-sdk#1676) got every call refused with a ``ValidationError`` although its answer was whole.
The conformance suite checks this (``sep-2322-default-result-type-complete``). :func:`filler`
fills the field in before the session checks the result, and says so once per connection, since it
is the server's mistake to fix. It is one step of the session's door (:mod:`mcpnb.client.doors`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def filler(session: Any, note: Callable[[str], None]) -> Callable[[str, Any], Any]:
    """The step :mod:`mcpnb.client.doors` applies to each raw result of ``session``; ``note`` hears
    of the first result it fills in."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    said: list[str] = []

    def fill(method: str, raw: Any) -> Any:
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

    return fill
