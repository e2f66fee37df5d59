"""Point from a failed tool call to what its server logged meanwhile.

A tool that raises usually answers with a bare "Error executing tool boom" (the SDK's ``MCPServer``
keeps the exception's text on the server, on purpose), while the traceback that says why went to
the server's stderr, or, for an in-process server, to the SDK's logger: both land in the
connection's log, where nobody looks unless told. So a failed result says how many lines its
server logged during the call, the first exception among them, and how to see them all.

The log notifications a call received, as its result keeps them (``result.logs``), are bounded
by size as they arrive (:func:`cut_message`, :class:`KeptLogs`),
not only by count (the newest :data:`~mcpnb.client.interaction.LOG_LIMIT`): a server that logged
200 messages of 5 MB each made one call hold 1 GB, and its result for as long as the notebook's
``Out`` kept it. A message's data is kept whole up to :data:`MESSAGE_CHARS`, past which its start
is kept and how much more there was is said; the newest messages are kept up to
:data:`TOTAL_CHARS` in all, and the earlier ones are counted in ``result.logs_dropped`` (shown
under the result as "the last N of M messages (K dropped)").
"""

from __future__ import annotations

import copy
import re
from collections import deque
from typing import Any

from mcpnb.client.asking import cut
from mcpnb.client.events import log_data_text

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
#: The most of one log message a result keeps (characters of its data, as text or JSON): well past
#: what any message meant for a person holds (a server's whole configuration, a traceback), so such
#: a message stays whole, its data as sent.
MESSAGE_CHARS = 2_000_000
#: The most characters of log messages one result keeps in all (the newest first).
TOTAL_CHARS = 10_000_000
#: The most of a logger's name kept, as in the connection's log.
LOGGER_CHARS = 200


def logged_during(conn: Any, since: float) -> str | None:
    """What to add to a failed call's warnings about its server's log since ``since`` (the call's
    start, on :func:`time.monotonic`'s clock, as events are stamped), or None when the server
    logged nothing about a failure then.

    From the call's start, not "the last N seconds" counted when this runs: on a loaded machine
    the time between the answer and this look (the loop yields first, for the stderr read) was
    longer than a quick call, and the traceback its server wrote fell outside the window."""
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


class KeptLogs:
    """The newest log notifications of one call or page: at most ``limit``, each cut to its size
    bound and all within :data:`TOTAL_CHARS` (the newest always kept); :attr:`dropped` counts the
    ones that fell out (a server may log 50,000 lines in one call, an MCP App page at every
    event for as long as it stays open)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.dropped = limit, 0
        self._kept: deque[Any] = deque()
        self._sizes: deque[int] = deque()
        self._chars = 0

    def add(self, params: Any) -> None:
        params, size = cut_message(params)
        self._kept.append(params)
        self._sizes.append(size)
        self._chars += size
        while len(self._kept) > self.limit or (self._chars > TOTAL_CHARS and len(self._kept) > 1):
            self._kept.popleft()
            self._chars -= self._sizes.popleft()
            self.dropped += 1

    def kept(self) -> list[Any]:
        """The ones kept, oldest first."""
        return list(self._kept)


#: A log notification's own fields: the rest are a server's additions, bounded as its data is.
_OWN_FIELDS = frozenset({"level", "logger", "data"})


def _extras(params: Any) -> dict[str, Any]:
    if isinstance(params, dict):
        return {k: v for k, v in params.items() if k not in _OWN_FIELDS}
    extra = dict(getattr(params, "model_extra", None) or {})
    meta = getattr(params, "meta", None)
    if meta is not None:
        extra["meta"] = meta
    return extra


def cut_message(params: Any) -> tuple[Any, int]:
    """One log notification within :data:`MESSAGE_CHARS` and :data:`LOGGER_CHARS`, and its size:
    the SDK's params, or a page's as JSON (a dict)."""
    get = params.get if isinstance(params, dict) else lambda key: getattr(params, key, None)
    data, logger = get("data"), get("logger")
    text = data if isinstance(data, str) else log_data_text(data)
    changes: dict[str, Any] = {}
    if len(text) > MESSAGE_CHARS:
        changes["data"] = text = cut(text, MESSAGE_CHARS)
    if isinstance(logger, str) and len(logger) > LOGGER_CHARS:
        changes["logger"] = logger = cut(logger, LOGGER_CHARS)
    size = len(text) + (len(logger) if isinstance(logger, str) else 0)
    for key, value in _extras(params).items():  # fields a server added besides (its own _meta too)
        said = log_data_text(value)
        if len(said) > MESSAGE_CHARS:
            said = cut(said, MESSAGE_CHARS)
            changes[key] = {"cut": said} if key == "meta" else said  # (_meta stays an object)
        size += len(said)
    if not changes:
        return params, size
    if isinstance(params, dict):
        return {**params, **changes}, size
    if hasattr(params, "model_copy"):  # the SDK's LoggingMessageNotificationParams
        return params.model_copy(update=changes), size
    params = copy.copy(params)
    for name, value in changes.items():
        setattr(params, name, value)
    return params, size
