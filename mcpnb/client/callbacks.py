"""What a live session calls back into its connection: stderr lines, SDK log lines, HTTP responses,
server notifications and the server's ``roots/list``.

The transport and the SDK call these from the session's own tasks, while the connection's lifecycle
(:mod:`.connection`) decides when sessions start and end; keeping them apart lets each be read on
its own. A mixin of :class:`~mcpnb.client.connection.Connection`: it uses the connection's name,
config, event log, stderr buffer, tool cache, watched resources and stop event.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client import requests
from mcpnb.client.events import ConnectionEvent, EventLog

if TYPE_CHECKING:
    from mcpnb.client.cache import TTLCache
    from mcpnb.client.config import ServerConfig
    from mcpnb.client.elicitation.completions import PageCompletions
    from mcpnb.client.toolinfo import ToolInfo
    from mcpnb.client.watching import ResourceWatch

#: The longest stderr line kept (characters): the rest of a longer one is counted, not kept.
STDERR_LINE_CHARS = 4000
#: Characters past the kept ones that are still scanned for secrets before the cut (a token cut in
#: two must not leave its head unredacted); the rest of a 200 MB line is only counted.
SECRET_MARGIN = 2000
#: The stray stdout lines of one start kept to say why it failed (see ``Connection._silence_reason``).
STDOUT_LINES_KEPT = 5
#: The progress tokens this client never issued that a connection's log names, each once; the
#: ones past them are only counted (a server that makes up a token per notification is no news).
STRAY_TOKENS_NAMED = 3


class SessionCallbacks:
    """The callbacks a session is given when it opens (see ``Connection._own``)."""

    config: ServerConfig
    name: str
    events: EventLog
    stderr: deque[str]
    stderr_count: int
    session_stdout: list[str]
    sdk_said: str | None
    tool_cache: TTLCache[dict[str, ToolInfo]]
    prompt_cache: TTLCache[list[Any]]
    watch: ResourceWatch
    pages: PageCompletions
    client: Any
    _stop: asyncio.Event | None
    #: list_changed notices not said since the last one said, by list (see :meth:`_list_changed`);
    #: made on first use, the mixin has no ``__init__``.
    _unsaid_changes: dict[str, int] | None = None
    _stray_progress: StrayProgress | None = None

    if TYPE_CHECKING:

        def safe(self, text: str) -> str: ...
        def emit(self, kind: str, message: str, **detail: Any) -> None: ...

    def _on_stderr(self, line: str) -> None:
        line = self._log_line(line)
        self.stderr.append(line)
        self.stderr_count += 1
        self.events.emit(ConnectionEvent(self.name, "stderr", line))

    def _on_stdout(self, line: str) -> None:
        """A line a stdio server printed on stdout that is not JSON-RPC (a ``print`` left in): the
        session ignores it, its log shows it as kind ``stdout``, apart from what it wrote on
        stderr, and the first few of a start say why that start got no answer."""
        line = self._log_line(line)
        if len(self.session_stdout) < STDOUT_LINES_KEPT:
            self.session_stdout.append(line)
        self.events.emit(ConnectionEvent(self.name, "stdout", line))

    def _log_line(self, line: str) -> str:
        """``line`` redacted, then cut at :data:`STDERR_LINE_CHARS` (a dumped blob is not a log line:
        its start is kept, the rest counted). Redacted first, so a cut never leaves the head of a
        secret; a huge line has only its head scanned."""
        if len(line) <= STDERR_LINE_CHARS:
            return self.safe(line)
        more = len(line) - STDERR_LINE_CHARS
        head = self.safe(line[: STDERR_LINE_CHARS + SECRET_MARGIN])
        return f"{head[:STDERR_LINE_CHARS]} … ({more:,} more characters not kept)"

    def _check_roots(self) -> None:
        """A root that is no folder would be offered to the server as a place it cannot work in."""
        from mcpnb.client.stdio import check_folder

        for root in self.config.roots:
            check_folder(root, self.name, "roots", "the root")

    async def _list_roots(self, context: Any) -> Any:
        """``roots/list``: the directories the server's config offers (``roots``), as file URIs.

        A folder whose name is not UTF-8 (raw bytes on Linux) keeps its bytes in the URI, percent-
        encoded, and its name shows them as U+FFFD: JSON cannot carry the undecodable characters
        Python reads them as, and one such name failed the whole list (the server got no roots)."""
        from mcp import types

        roots = []
        for p in self.config.roots:
            if not os.path.isdir(p):  # checked at the connect: deleted or moved since
                self.emit("roots", f"roots/list: the root {p!r} is no folder any more: not offered")
                continue
            roots.append(types.Root(uri=Path(p).as_uri(), name=self._root_name(Path(p).name or p)))
        return types.ListRootsResult(roots=roots)

    @staticmethod
    def _root_name(name: str) -> str:
        """``name`` with each lone surrogate (an undecodable byte of a file name) as U+FFFD."""
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in name)

    def _on_sdk_log(self, line: str, kind: str = "sdk", traceback: Sequence[str] = ()) -> None:
        """A record the SDK (or an in-process server) logged in this connection's tasks, with the
        lines of its traceback: each its own line of the log, as a stdio server's stderr shows it."""
        if kind == "sdk":
            self.sdk_said = line
        self.emit(kind, line)
        for text in traceback:
            self.emit(kind, text)

    def _on_session_end_error(self, exc: BaseException) -> None:
        """The session was ended on purpose (disconnect, reconnect, close), but ending it raised: an
        in-process server's lifespan that fails after its ``yield`` (closing a database, say). The
        disconnect itself is done and stays done; what failed, with its traceback, goes to the
        server's log, where the person who wrote that teardown looks.

        Only an in-process server's: ending an HTTP session with a server that is already gone
        raises too (a refused connection, a stream cut short), which is no news of the server's."""
        from mcpnb.client.errors import leaves
        from mcpnb.client.logfilter import explain

        if self.config.transport != "inprocess":
            return
        if all(isinstance(leaf, (GeneratorExit, asyncio.CancelledError)) for leaf in leaves(exc)):
            return  # cut short by us (it took too long): no failure of the server's
        summary, lines = explain(exc)
        said = f"[error] shutting the server down raised {summary} (it is disconnected all the same)"
        self._on_sdk_log(said, "server", lines)

    def _in_process_words(self) -> str | None:
        """What an in-process server logged while this start failed (its handler's invalid result:
        which field, and why): the SDK's answer to the client says only "internal error"."""
        if self.config.transport != "inprocess" or not self.sdk_said:
            return None
        return self.sdk_said.removeprefix("[error] ").removeprefix("[warning] ")

    def _on_response(
        self,
        status: int,
        request_headers: Any,
        message: str | None = None,
        challenge: str | None = None,
        retry_after: str | None = None,
    ) -> None:
        """Every HTTP response. A successful one carries a message only when it is a web page (its
        title, :func:`~mcpnb.client.transports.page_title`): kept, so a sign-in page in front of
        the server is named where the SDK says only "Unexpected content type: text/html"."""
        if status < 300 and message:
            self.web_page = self.safe(message)
        requests.note_response(self, status, request_headers, message, challenge, retry_after)

    async def _on_message(self, message: Any) -> None:
        """Server notifications: ``list_changed`` (legacy push or teed from modern ``listen()``),
        resource updates; a transport error the SDK hands over (an SSE stream that broke) means the
        session is lost."""
        from mcp.types import (
            ElicitCompleteNotification,
            ProgressNotification,
            PromptListChangedNotification,
            ResourceUpdatedNotification,
            ToolListChangedNotification,
        )

        if isinstance(message, Exception):
            requests.transport_failed(self, message, self._stop)
            return
        if isinstance(message, ToolListChangedNotification):
            self._list_changed("tool", self.tool_cache, self.tool_cache.invalidate)
        elif isinstance(message, PromptListChangedNotification):
            self._list_changed("prompt", self.prompt_cache, self.prompt_cache.clear)
        elif isinstance(message, ProgressNotification):
            self._check_progress_token(message.params.progress_token)
        elif isinstance(message, ResourceUpdatedNotification):
            self.watch.updated(str(message.params.uri))
        elif isinstance(message, ElicitCompleteNotification):
            said = message.params.elicitation_id
            if self.pages.complete(said):
                self.emit(
                    "ask", f"the server says the page it asked to open is done ({said})", elicitation_id=said
                )

    def _list_changed(self, which: str, cache: TTLCache[Any], invalidate: Callable[[], None]) -> None:
        """A ``list_changed`` notice: the cache is marked stale each time, the log says so once per
        burst. A server that sent 200 of them in a row filled the connection's log (its last 200
        lines) with the same line and pushed out what had happened before (an error, a stderr
        line). Said again only once the list was read since (the cache holds a list again): before
        that, a notice changes nothing anyone sees, the next read gets the new list either way."""
        unsaid = self._unsaid_changes
        if unsaid is None:
            unsaid = self._unsaid_changes = {}
        stale = cache.age is None  # nothing read since the last notice (or since the start)
        invalidate()
        before = unsaid.get(which)
        if before is not None and stale:
            unsaid[which] = before + 1
            return
        unsaid[which] = 0
        more = f" ({before} more notices came before it was read again)" if before else ""
        self.emit(
            "cache",
            f"{which} list changed on the server: cache invalidated{more}; more notices are said "
            "once the list has been read again",
            reason="list_changed",
        )

    def _check_progress_token(self, token: Any) -> None:
        """Progress for a token this client never issued is ignored (the SDK matches a token to the
        request that sent it), and a call that waits on its own token then times out "without
        progress" while the server was busy reporting it on another: the log says so, once per
        token, for the first :data:`STRAY_TOKENS_NAMED` tokens, then only counts (at 10, 100, ...).
        A token of a request this session sent (still waited for or not: a task's progress may
        outlive its request) is no stray."""
        from mcpnb.client.answers import awaited

        dispatcher = getattr(getattr(self.client, "session", None), "_dispatcher", None)
        if dispatcher is None or not hasattr(dispatcher, "_pending") or awaited(dispatcher, token):
            return  # a direct dispatcher (in process) sends no tokens: nothing to match
        strays = self._stray_progress
        if strays is None:
            strays = self._stray_progress = StrayProgress()
        for said in strays.heard(token):
            self.emit("progress", said, token=str(token))


class StrayProgress:
    """The progress notifications of one connection for tokens it never issued: which tokens were
    named in its log, how many came."""

    def __init__(self) -> None:
        self.named: list[str] = []
        self.others: set[str] = set()  # tokens past the named ones (a few kept to count; bounded)
        self.count = 0

    def heard(self, token: Any) -> list[str]:
        """The lines to say for one more notice on ``token`` (usually none)."""
        self.count += 1
        key = repr(token)[:80]
        said: list[str] = []
        if key not in self.named and key not in self.others:
            if len(self.named) < STRAY_TOKENS_NAMED:
                self.named.append(key)
                said.append(
                    f"progress for token {key}, which no request of this session waits on (never issued, or "
                    "an earlier session's, or a token given by hand), ignored: no call "
                    "hears it (a call waiting on its own token may time out 'without progress'); "
                    "more on it are counted, not said"
                )
            elif len(self.others) < 10_000:
                self.others.add(key)
                if len(self.others) == 1:
                    said.append(
                        "progress for more tokens this client never issued, ignored: counted, "
                        "the tokens not named"
                    )
        if self.count >= 10 and str(self.count).rstrip("0") == "1":  # 10, 100, 1000, ...
            n = len(self.others)
            others = f" and {n:,}{'+' if n >= 10_000 else ''} other tokens" if n else ""
            said.append(
                f"{self.count:,} progress notifications so far for tokens this client never "
                f"issued ({', '.join(self.named)}{others}), all ignored"
            )
        return said
