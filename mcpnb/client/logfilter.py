"""Other people's loggers: credentials hidden, and the SDK's warnings kept out of the running cell.

The HTTP client logs every request URL at INFO (``httpx2``: ``HTTP Request: POST http://user:pass@…
?token=…``), the SDK logs messages and URLs at DEBUG, httpcore logs response headers. One
``logging.basicConfig(level=logging.INFO)`` in a notebook, and a token is in the saved file. So a
filter on those loggers rewrites each record before any handler sees it: URLs through
:func:`~mcpnb.client.redact.redact_url`, secret-named headers (``Authorization: Bearer …``,
``(b'cookie', b'…')``) replaced, and every secret a live connection knows scrubbed. A filter on a
logger sees only the records logged on that logger, not those its children pass up to it, and a
library creates a child logger whenever it likes (httpcore's ``httpcore2.http11`` during the first
request): so a log record factory puts the filter on each watched logger as it makes its first
record, before any filter or handler sees that record.

The SDK also logs tracebacks at WARNING and above from its transport tasks (a server that prints
garbage, an SSE stream that dies, "Session termination failed" on disconnect). Without a handler,
Python prints those to stderr, which in a kernel is whichever cell is running. A record logged in a
connection's own tasks (:data:`SERVER_LOG` is set there) goes to that server's log instead
(``%mcp logs NAME``). So do a server's run in-process (an ``MCPServer``, a low-level ``Server``, a
FastMCP server): its tasks are the connection's, and a tool that raises would otherwise print a
framed traceback into the cell. There the record is one line that names the innermost cause (the
SDK logs a raising tool as its ``UnexpectedToolError`` wrapper; the person needs the ``ValueError``
under it), followed by the whole traceback as lines of the log, as a stdio server's stderr would
show it: for a server written in a cell, the log is the only place its author sees the line that
failed.

Python warnings raised there (an ``MCPDeprecationWarning`` from a server's ``ctx.info()``) are the
server's too: while :data:`SERVER_LOG` is set they go to its log, not to the cell's stderr.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import threading
import traceback
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from mcpnb.client.redact import REDACTED, counts_tokens, redact_url, scrub


class Route(Protocol):
    """Where a connection's log lines go: ``route(line, kind)``, and ``traceback=`` the lines of
    the traceback that goes with ``line`` (empty when there is none)."""

    def __call__(self, line: str, kind: str, /, traceback: Sequence[str] = ...) -> None: ...


#: Set in a connection's owner task (inherited by the SDK tasks it starts) and around its requests:
#: where its SDK warnings go (kind ``sdk``, ``server`` for FastMCP's own logger, ``warning`` for a
#: Python warning).
SERVER_LOG: contextvars.ContextVar[Route | None] = contextvars.ContextVar("mcpnb_server_log", default=None)

#: The most lines of one traceback kept in a server's log (the event history is bounded: one huge
#: exception group must not push everything else out); the middle of a longer one is left out.
TRACEBACK_LINES = 120
#: The longest one-line summary of a cause (characters).
SUMMARY_CHARS = 300

#: The SDK's loggers (its session logs as plain "client"), and FastMCP's: what a connection's own
#: tasks log at WARNING and above goes to its server's log.
SERVER_LOGGERS = ("mcp", "mcp_types", "client", "fastmcp")
#: Loggers whose records are rewritten, with every child logger (``httpcore2.http11``), whenever made.
WATCHED = ("httpx2", "httpx", "httpcore2", "httpcore", *SERVER_LOGGERS, "sse_starlette", "uvicorn")
_WATCHED_ROOTS = frozenset(WATCHED)

_URL = re.compile(r"""\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>`]+""")
# ... and session ids, which let whoever reads them act in the session: httpcore's response header
# ``(b'mcp-session-id', b'…')``, the SDK's "Received session ID: …" (a space in the name).
_SECRET_NAME = (
    r"[\w-]*(?:authorization|cookie|token|secret|passw(?:or)?d|api[-_]?key|[-_]key"
    r"|session(?:[-_\s]?id)?)[\w-]*"
)
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
    text = _HEADER.sub(_hidden_value, text)
    return scrub(text, known_secrets())


def _hidden_value(match: re.Match[str]) -> str:
    """A secret-named field with its value hidden, unless the name only counts tokens."""
    if counts_tokens(match.group("name")):
        return match.group(0)
    return f"{match.group('name')}{match.group('sep')}{REDACTED}"


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
                cause, lines = _cause(record)
                route(f"[{record.levelname.lower()}] {text}{cause}", kind, traceback=lines)
                return False
        except Exception:  # a filter must never break logging
            return True
        return True


def _is_servers(name: str) -> bool:
    return name.split(".", 1)[0] in SERVER_LOGGERS


def _cause(record: logging.LogRecord) -> tuple[str, list[str]]:
    """What a record's exception says, redacted: `` (ValueError: bad x)`` naming the innermost cause,
    and the lines of its traceback (none when there is nothing beyond that one line)."""
    if not record.exc_text:
        return "", []
    exc = record.exc_info[1] if record.exc_info else None
    if exc is not None:
        summary = summarize(exc)
    else:  # only the text is left: its last line is the outermost exception's
        summary = redact_text(record.exc_text.strip().splitlines()[-1])[:SUMMARY_CHARS]
    lines = record.exc_text.rstrip().splitlines()
    return f" ({summary})", _kept(lines) if len(lines) > 1 else []


def innermost(exc: BaseException) -> BaseException:
    """The exception at the bottom of ``exc``'s chain of causes (``raise Wrapper(...) from exc``, as
    the SDK and FastMCP wrap what a tool raised), inside a group of one (anyio wraps a task's
    failure so). An exception raised while handling another (``__context__``) is the news itself:
    the one it interrupted is in the traceback, not the summary."""
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        elif exc.__cause__ is not None:
            exc = exc.__cause__
        else:
            break
    return exc


def summarize(exc: BaseException) -> str:
    """The innermost cause of ``exc`` in one redacted line: ``ValueError: bad x: hello``; a pydantic
    ``ValidationError`` as where and what (``tools[2] ("get_weather").inputSchema.type: Input
    should be 'object'``), since its own text spreads over lines and echoes the whole value."""
    cause = innermost(exc)
    said = validation_summary(cause)
    if said is None:
        said = " ".join(str(cause).split())
    text = f"{type(cause).__name__}: {said}" if said else type(cause).__name__
    return redact_text(text)[:SUMMARY_CHARS]


def validation_summary(exc: BaseException) -> str | None:
    """A pydantic ``ValidationError``'s first complaints as where and what, the items on the way
    named where they have a name (``tools[2] ("get_weather").inputSchema.type: Input should be
    'object'``); None for any other exception. Not redacted: :func:`summarize` does that."""
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ != "ValidationError" or not callable(errors):
        return None
    try:
        found = errors(include_url=False, include_input=False)
        said = "; ".join(
            f"{_where(e.get('loc', ()), _validated(exc, e.get('loc', ())))}: {e.get('msg', '')}"
            for e in found[:3]
        )
    except Exception:  # a summary falls back to the exception's text
        return None
    return said + (f"; … ({len(found) - 3} more)" if len(found) > 3 else "")


def _validated(exc: BaseException, loc: Sequence[Any]) -> Any:
    """The value pydantic was given when it raised ``exc``, if the code that asked still holds it:
    pydantic keeps only the failing leaf (``'string'``), not the tool around it. The frames of the
    traceback keep their variables (the SDK's ``raw`` answer, its server's ``dumped`` result);
    the first mapping that ``loc`` leads into is it. None when none does."""
    frames = [frame for frame, _line in traceback.walk_tb(exc.__traceback__)]
    for frame in reversed(frames):  # the innermost first: the value closest to the validation
        for value in list(frame.f_locals.values()):
            if isinstance(value, dict) and _leads_into(value, loc):
                return value
    return None


def _leads_into(value: Any, loc: Sequence[Any]) -> bool:
    """Whether the path ``loc`` walks into ``value`` as far as its last container (a key or index
    pydantic found missing or wrong may be absent from it)."""
    for part in loc[:-1]:
        value = _item(value, part)
    return bool(loc) and isinstance(value, (dict, list))


def explain(exc: BaseException) -> tuple[str, list[str]]:
    """``exc`` for a server's log: its one-line :func:`summarize` and its whole traceback (every
    chained exception) as redacted lines."""
    text = "".join(traceback.format_exception(exc)).rstrip()
    return summarize(exc), _kept(redact_text(text).splitlines())


#: The longest name of an item said in a validation path (``tools[2] ("get_weather")``).
NAME_CHARS = 60


def _where(loc: Sequence[Any], root: Any = None) -> str:
    """A pydantic error location as a path a person reads: ``tools[2].inputSchema.type``; with the
    ``root`` value it was found in, an item that has a ``name`` is named: ``tools[2] ("get_weather")``."""
    out = ""
    value = root
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
        value = _item(value, part)
        name = value.get("name") if isinstance(part, int) and isinstance(value, dict) else None
        if isinstance(name, str) and name:
            out += f" ({json.dumps(name[:NAME_CHARS], ensure_ascii=False)})"
    return out or "(the value)"


def _item(value: Any, part: Any) -> Any:
    """``value[part]`` where it is there, else None."""
    if isinstance(value, dict):
        return value.get(part)
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return value[part]
    return None


def _kept(lines: list[str]) -> list[str]:
    """``lines``, or their head and tail with the count of those left out between."""
    if len(lines) <= TRACEBACK_LINES:
        return lines
    half = TRACEBACK_LINES // 2
    return [*lines[:half], f"… ({len(lines) - 2 * half} lines not kept)", *lines[-half:]]


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning``: a warning raised in a connection's tasks (its in-process server's
    code, the SDK's for it) goes to that server's log; every other one is shown as before."""
    if file is not None or not to_server_log(message, category, filename, lineno):
        _previous_show(message, category, filename, lineno, file, line)


def to_server_log(message: Warning | str, category: type[Warning], filename: str, lineno: int) -> bool:
    """Put a warning raised in a connection's tasks in that server's log (True); False for any
    other, which is the person's to see. For whatever shows warnings meanwhile (a magic that
    shows them as plain text, :func:`mcpnb.notebook.magics._warnings_as_text`)."""
    route = SERVER_LOG.get()
    if route is None:
        return False
    try:
        where = filename.rsplit("site-packages/", 1)[-1]
        route(redact_text(f"{category.__name__}: {message} ({where}:{lineno})"), "warning")
    except Exception:  # showing a warning must never break the code that raised it
        return False
    return True


_previous_show = warnings.showwarning


_FILTER = CredentialFilter()


def route_warnings() -> None:
    """Make :func:`_show_warning` show warnings again (idempotent, cheap: run after anything that
    put back another, such as a ``warnings.catch_warnings`` block that began before it was set)."""
    global _previous_show
    if warnings.showwarning is not _show_warning:  # put back by whoever replaced it since (pytest)
        _previous_show, warnings.showwarning = warnings.showwarning, _show_warning


@contextlib.contextmanager
def warnings_shown_by(show: Callable[..., None]) -> Iterator[None]:
    """While the block runs, warnings show through ``show``; after it, as they did before it. A
    connect inside the block routes warnings (:func:`install`): what it found showing them was
    ``show``, which must not stay what shows them after (every warning went to a closed list)."""
    global _previous_show
    before = _previous_show
    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            yield
    finally:
        _previous_show = before
        route_warnings()  # the block put back what showed them before it: a connect in it routed them


class _FilterNewLoggers:
    """A log record factory (:func:`logging.setLogRecordFactory`): the one it replaced makes the
    record, then a watched logger that has no filter yet is given one. A logger makes its record
    before it runs its filters, so the record that a logger created since :func:`install` logs
    first is already rewritten. Per record of a watched logger, a look-up and a glance at its
    filters; the records of other loggers are left alone (see :func:`install`)."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.previous(*args, **kwargs)
        name = getattr(record, "name", None)
        if isinstance(name, str) and name.partition(".")[0] in _WATCHED_ROOTS:
            _watch(logging.root.manager.loggerDict.get(name))
        return record


_adding = threading.Lock()


def _watch(logger: Any) -> None:
    """Put the filter on ``logger`` (a placeholder, which logs nothing, is skipped)."""
    if isinstance(logger, logging.Logger) and _FILTER not in logger.filters:
        with _adding:  # two threads logging at once must not add it twice
            if _FILTER not in logger.filters:
                logger.addFilter(_FILTER)


def install() -> None:
    """Put the filter on every watched logger that exists now and on any made later, and route
    warnings raised in a connection's tasks (idempotent, cheap: run per session). The record
    factory is put back in front if another has replaced it since (one that chains to it, a
    ``LogRecord`` subclass that does not); the loggers are also filtered now for those whose own
    ``makeRecord`` passes it by. A logger of the person's own code (``myapp``) is not filtered:
    what its code said is logged as it was said, a secret included."""
    route_warnings()
    with _adding:
        factory = logging.getLogRecordFactory()
        if not isinstance(factory, _FilterNewLoggers):
            logging.setLogRecordFactory(_FilterNewLoggers(factory))
    names = [
        name for name in list(logging.root.manager.loggerDict) if name.partition(".")[0] in _WATCHED_ROOTS
    ]
    for name in {*WATCHED, *names}:
        _watch(logging.getLogger(name))
