"""Point from a failed tool call to what its server logged meanwhile.

A tool that raises usually answers with a bare "Error executing tool boom" (the SDK's ``MCPServer``
keeps the exception's text on the server, on purpose), while the traceback that says why went to
the server's stderr, or, for an in-process server, to the SDK's logger: both land in the
connection's log, where nobody looks unless told. So a failed result says how many lines its
server logged during the call, the first exception among them, and how to see them all.
"""

from __future__ import annotations

import re
import time
from typing import Any

#: Kinds of event that are the server's own words: its stderr, and the SDK's or FastMCP's logger
#: (an in-process server's tracebacks), see :mod:`mcpnb.client.logfilter`.
LOG_KINDS = frozenset({"stderr", "sdk", "server"})
#: A line naming an exception as runtimes print them: Python's ``ZeroDivisionError: ...``
#: (inside rich's box too), Node's ``TypeError: ...``, a ``(ValueError: ...)`` summary.
_EXCEPTION = re.compile(
    r"(?:^|(?P<open>\()|[\s│|])(?P<said>(?:\w+\.)*(?:[A-Z]\w*)?(?:Error|Exception)(?::[^│]*|\s*$))"
)
#: Besides an exception's line, what begins a crash's report (Python's, Go's, a fatal log line): only
#: then is the log worth pointing to (the SDK logs each refusal at INFO, in the words the result
#: already has, and servers log each request).
_CRASH = re.compile(r"Traceback \(most recent call last\)|\bpanic:|\bFATAL\b")
#: The most of an exception line quoted.
QUOTED_CHARS = 200
#: The most lines after an exception's own joined to it, where its line says nothing by itself.
JOINED_LINES = 8
#: Text that says something: a letter or a digit.
_WORDY = re.compile(r"[^\W_]")


def logged_during(conn: Any, elapsed: float) -> str | None:
    """What to add to a failed call's warnings about its server's log over the last ``elapsed``
    seconds, or None when the server logged nothing about a failure then."""
    since = time.monotonic() - elapsed
    recent = [e for e in conn.events.history if e.monotonic >= since]
    lines = [e.message for e in recent if e.kind in LOG_KINDS]
    if not any(_EXCEPTION.search(line) or _CRASH.search(line) for line in lines):
        return None
    count = f"{len(lines)} line{'' if len(lines) == 1 else 's'}"
    first = next(
        (_quoted(m, lines[i + 1 :]) for i, line in enumerate(lines) if (m := _EXCEPTION.search(line))), None
    )
    quoted = ""
    if first is not None:
        cut = first if len(first) <= QUOTED_CHARS else first[: QUOTED_CHARS - 1] + "…"
        quoted = f" (the first exception: {cut})"
    return (
        f"The server logged {count} during the call{quoted}: %mcp logs {conn.name} -n {len(recent)} "
        f"shows them (pool.logs({conn.name!r}) in Python)."
    )


def _quoted(match: re.Match[str], after: list[str]) -> str:
    """The exception's line; where its message says nothing by itself (``ValueError: {``, the head
    of a JSON object a server raised with), the lines that follow it too, until the bracket it
    opened is closed, up to :data:`JOINED_LINES` or :data:`QUOTED_CHARS`, one space between them;
    with none to follow, the exception's name alone (``ValueError: {`` was quoted as it was)."""
    said = _said(match)
    name, colon, message = said.partition(":")
    if not colon or _WORDY.search(message):
        return said
    more = [line.strip(" \t│|") for line in after[:JOINED_LINES]]
    more = [line for line in more if line]
    if not more:
        return name
    joined, depth = said, _depth(message)
    for line in more:
        if len(joined) > QUOTED_CHARS or depth <= 0:  # long enough, or the bracket it opened is closed
            break
        joined += f" {line}"
        depth += _depth(line)
    return joined


def _depth(text: str) -> int:
    """How many more brackets ``text`` opens than it closes (roughly: brackets in strings count)."""
    return sum(map(text.count, "{[(")) - sum(map(text.count, "}])"))


def _said(match: re.Match[str]) -> str:
    """The exception's line, without the parenthesis a one-line summary put it in."""
    said = match["said"].strip()
    return said.removesuffix(")") if match["open"] else said
