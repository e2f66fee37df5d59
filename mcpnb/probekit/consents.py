"""Who a request comes from, and 2025-11-25's URL consent (the -32042 "open this page first"
answer) remembered per client, never per page.

On 2025-11-25, ``open_local_page`` with ``via="error"`` answers -32042 and counts the client's retry
of the same call as "the person saw the page". That memory must belong to the client that was asked:
one student's unanswered request let another student's identical call open without being asked (the
spec: servers MUST bind elicitation requests to the client). On 2025-11-25 the client is its session:
its ``Mcp-Session-Id`` over HTTP; on stdio and in-process the transport has one client.

2026-07-28 has no -32042 (its basic/index: implementations of that version MUST NOT emit it), so
nothing here serves it: that era's URL consent comes back inside the retried call itself
(``inputResponses``, with the sealed ``requestState`` echoed; see ``open_local_page``).

:func:`requester` also tells 2026-07-28 HTTP clients apart, which have no session: probe-kit's HTTP
app gives each one a cookie of its own (:data:`CLIENT_COOKIE`, set by
:class:`~mcpnb.probekit.sessionera.SessionEra`), which HTTP clients send back by themselves
(``dice_history`` keeps each client's own rolls by it).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

#: The cookie that tells probe-kit's HTTP clients apart (random, set on the first answer).
CLIENT_COOKIE = "probekit-client"
#: Consents waiting for their retry, at most (oldest forgotten first: that client is asked again).
MAX_WAITING = 10_000


def requester(request: Any) -> str | None:
    """Who made this request (``request``: the HTTP request, None on stdio and in-process), or None
    when it cannot be told (an HTTP client without session or cookie)."""
    headers = getattr(request, "headers", None)
    if headers is None:
        return "local"
    session = headers.get("mcp-session-id")
    if session:
        return f"session:{session}"
    cookie = getattr(request, "cookies", {}).get(CLIENT_COOKIE)
    return f"client:{cookie}" if cookie else None


def requester_tag(who: str | None) -> str | None:
    """An opaque tag for a :func:`requester` (a hash: the store keeps no session id or cookie), to
    tell whether a task's answer or cancel comes from the client that started it."""
    return None if who is None else "client-" + hashlib.sha256(who.encode()).hexdigest()[:32]


#: What a task says when another client than the one that started it answered or cancelled it. The
#: specs let that happen (a task id is a bearer capability without authorization, and a client that
#: restarts carries on with the ids it kept), so it is said, not refused: the owner is not overruled
#: silently.
ANSWERED_BY_ANOTHER = "{key} was answered by another client than the one that started this task"
CANCELLED_BY_ANOTHER = "cancelled by another client than the one that started this task"
#: Store field prefix of such a note on an answer another worker delivers (``note:input-1``).
NOTE = "note:"


def by_another(owner: str | None, by: str | None) -> bool:
    """Whether ``by`` (a requestor tag) is not ``owner``, the task's creator; unknown either: no."""
    return owner is not None and by is not None and owner != by


def with_notes(message: str, notes: list[str]) -> str:
    """``message`` with the notes it does not say yet, in parentheses (a task's status message
    keeps saying who else answered or cancelled it, whatever it says next)."""
    missing = [note for note in notes if note not in message]
    if not missing:
        return message
    return f"{message} ({'; '.join(missing)})" if message else "; ".join(missing)


def elicitation_id(who: str | None, url: str) -> str:
    """The id of one client's consent to one page: the same for that client's retry, another for
    anyone else (it says nothing about the client: a hash)."""
    return "open-" + hashlib.sha256(f"{who}\n{url}".encode()).hexdigest()[:12]


class UrlConsents:
    """The -32042 answers a worker gave and whose retry it waits for, by client (2025-11-25 only)."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[tuple[str, str], None] = OrderedDict()

    def ask(self, who: str | None, elicitation: str) -> None:
        if who is None:
            return  # nobody to hold it for: the retry is asked again
        self._waiting[(who, elicitation)] = None
        while len(self._waiting) > MAX_WAITING:
            self._waiting.popitem(last=False)

    def came_back(self, who: str | None, elicitation: str) -> bool:
        """True once for the retry of what this very client was asked."""
        if who is None:
            return False
        return self._waiting.pop((who, elicitation), 0) is None
