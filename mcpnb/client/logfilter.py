"""Other people's loggers: credentials hidden, and the SDK's warnings kept out of the running cell.

The HTTP client logs every request URL at INFO (``httpx2``: ``HTTP Request: POST http://user:pass@…
?token=…``), the SDK logs messages and URLs at DEBUG, httpcore logs response headers. One
``logging.basicConfig(level=logging.INFO)`` in a notebook, and a token is in the saved file. So a
filter on those loggers rewrites each record before any handler sees it: URLs through
:func:`~mcpnb.client.redact.redact_url`, secret-named headers (``Authorization: Bearer …``,
``(b'cookie', b'…')``) replaced, and every secret a live connection knows scrubbed.

The SDK also logs tracebacks at WARNING and above from its transport tasks (a server that prints
garbage, an SSE stream that dies, "Session termination failed" on disconnect). Without a handler,
Python prints those to stderr, which in a kernel is whichever cell is running. A record logged in a
connection's own tasks (:data:`SERVER_LOG` is set there) goes to that server's log instead
(``%mcp logs NAME``), as one line. So do a FastMCP server's, run in-process: its tasks are the
connection's, and a tool that raises would otherwise print a framed traceback into the cell (a
stdio server's stderr goes to its log as well).
"""

from __future__ import annotations

import contextvars
import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from mcpnb.client.redact import REDACTED, redact_url, scrub

#: Set in a connection's owner task (inherited by the SDK tasks it starts): where its SDK warnings go,
#: as ``route(line, kind)`` (kind ``sdk``, or ``server`` for an in-process server's own logger).
SERVER_LOG: contextvars.ContextVar[Callable[[str, str], None] | None] = contextvars.ContextVar(
    "mcpnb_server_log", default=None
)

#: The SDK's loggers (its session logs as plain "client"), and FastMCP's: what a connection's own
#: tasks log at WARNING and above goes to its server's log.
SERVER_LOGGERS = ("mcp", "mcp_types", "client", "fastmcp")
#: Loggers whose records are rewritten (with every child logger that exists when :func:`install` runs).
WATCHED = ("httpx2", "httpx", "httpcore", *SERVER_LOGGERS, "sse_starlette", "uvicorn")

_URL = re.compile(r"""\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>`]+""")
_SECRET_NAME = r"[\w-]*(?:authorization|cookie|token|secret|passw(?:or)?d|api[-_]?key|[-_]key)[\w-]*"
# name, then what joins it to its value in the shapes loggers print: "Authorization: Bearer x",
# "token=x", "'authorization': 'Bearer x'", "(b'cookie', b'x')"; the value up to a quote or delimiter.
_HEADER = re.compile(
    rf"""(?ix)
    (?P<name>\b{_SECRET_NAME})
    (?P<sep>['"]?\s*[:=]\s*(?:b?['"])?|['"],\s*b['"])
    (?P<value>(?:(?:bearer|basic|token|digest)\s+)?[^\s'",;)}}\]&]+)
    """
)

_secrets: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def remember_secrets(owner: Any, secrets: Iterable[str]) -> None:
    """Scrub ``secrets`` from every watched record while ``owner`` (a connection) is alive."""
    with _lock:
        _secrets[owner] = frozenset(s for s in secrets if s)


def known_secrets() -> set[str]:
    with _lock:
        return {s for values in _secrets.values() for s in values}


def redact_text(text: str) -> str:
    """``text`` with credentials in URLs, secret-named headers and known secret values hidden."""
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _HEADER.sub(lambda m: f"{m.group('name')}{m.group('sep')}{REDACTED}", text)
    return scrub(text, known_secrets())


class CredentialFilter(logging.Filter):
    """Rewrites a record's message (and traceback text) with :func:`redact_text`; routes SDK warnings."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = redact_text(record.getMessage())
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = redact_text(record.exc_text)
            record.msg, record.args = text, None
            route = SERVER_LOG.get()
            if route is not None and record.levelno >= logging.WARNING and _is_servers(record.name):
                kind = "server" if record.name.split(".", 1)[0] == "fastmcp" else "sdk"
                route(f"[{record.levelname.lower()}] {text}{_cause(record)}", kind)
                return False
        except Exception:  # a filter must never break logging
            return True
        return True


def _is_servers(name: str) -> bool:
    return name.split(".", 1)[0] in SERVER_LOGGERS


def _cause(record: logging.LogRecord) -> str:
    """The last line of a record's traceback (``ValueError: …``), already redacted, or ''."""
    if not record.exc_text:
        return ""
    last = record.exc_text.strip().splitlines()[-1]
    return f" ({last[:300]})"


_FILTER = CredentialFilter()


def install() -> None:
    """Put the filter on every watched logger that exists now (idempotent, cheap: run per session)."""
    names = [name for name in list(logging.root.manager.loggerDict) if name.split(".", 1)[0] in WATCHED]
    for name in {*WATCHED, *names}:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
