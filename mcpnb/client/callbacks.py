"""What a live session calls back into its connection: stderr lines, SDK log lines, HTTP responses,
server notifications and the server's ``roots/list``.

The transport and the SDK call these from the session's own tasks, while the connection's lifecycle
(:mod:`.connection`) decides when sessions start and end; keeping them apart lets each be read on
its own. A mixin of :class:`~mcpnb.client.connection.Connection`: it uses the connection's name,
config, event log, stderr buffer, tool cache, watched resources and stop event.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
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
    _stop: asyncio.Event | None

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
        """``roots/list``: the directories the server's config offers (``roots``), as file URIs."""
        from mcp import types

        roots = [types.Root(uri=Path(p).as_uri(), name=Path(p).name or p) for p in self.config.roots]
        return types.ListRootsResult(roots=roots)

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
            PromptListChangedNotification,
            ResourceUpdatedNotification,
            ToolListChangedNotification,
        )

        if isinstance(message, Exception):
            requests.transport_failed(self, message, self._stop)
            return
        if isinstance(message, ToolListChangedNotification):
            self.tool_cache.invalidate()
            self.emit("cache", "tool list changed on the server: cache invalidated", reason="list_changed")
        elif isinstance(message, PromptListChangedNotification):
            self.prompt_cache.clear()
            self.emit("cache", "prompt list changed on the server: cache invalidated", reason="list_changed")
        elif isinstance(message, ResourceUpdatedNotification):
            self.watch.updated(str(message.params.uri))
        elif isinstance(message, ElicitCompleteNotification):
            said = message.params.elicitation_id
            if self.pages.complete(said):
                self.emit(
                    "ask", f"the server says the page it asked to open is done ({said})", elicitation_id=said
                )
