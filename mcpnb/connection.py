"""One server: its owner task, its state machine, and the requests that go through it.

The SDK's ``Client`` must be exited in the task that entered it, and a transport crash lands in that
task. So each connection has exactly one long-lived owner task on the runtime loop; callers use the
entered client from their own tasks and only ever see clean errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .errors import (
    CallError,
    CallTimeoutError,
    ConnectError,
    McpnbError,
    NotConnectedError,
    ToolNotFoundError,
    describe,
    did_you_mean,
    root_cause,
)
from .events import ConnectionEvent, EventLog, State
from .redact import scrub
from .results import ToolResult
from .status import ServerStatus
from .tools import ToolInfo

if TYPE_CHECKING:
    from .config import ServerConfig

#: How long a stopping owner task may take: stdio servers that ignore EOF need 2 s + SIGTERM + 2 s.
STOP_GRACE = 8.0
#: Last lines of a stdio server's stderr kept per connection.
STDERR_LINES = 500

_MODES = {"auto": "auto", "legacy": "legacy", "modern": "2026-07-28"}
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


async def _skip_sdk_validation(name: str, result: Any) -> None:
    """Replaces the SDK's strict outputSchema check, which raises and drops the payload."""


class Connection:
    """A live (or failed, or disabled) connection to one MCP server. Lives on the runtime loop."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.events = EventLog()
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.state = State.DISABLED if not config.enabled else State.DISCONNECTED
        self.since = datetime.now()
        self.last_error: str | None = None
        self.last_latency_ms: float | None = None
        self.client: Any = None
        self.protocol_version: str | None = None
        self.server_info: Any = None
        self.capabilities: Any = None
        self.instructions: str | None = None
        self._tools: dict[str, ToolInfo] | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._secrets = config.secrets()

    # ------------------------------------------------------------------ identity and state
    @property
    def name(self) -> str:
        return self.config.name

    @property
    def era(self) -> str | None:
        """``"modern"`` (2026-07-28, stateless) or ``"legacy"`` (handshake) once connected."""
        if self.protocol_version is None:
            return None
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        return "modern" if self.protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"

    @property
    def server_name(self) -> str | None:
        return getattr(self.server_info, "name", None)

    @property
    def server_version(self) -> str | None:
        return getattr(self.server_info, "version", None)

    def safe(self, text: str) -> str:
        """``text`` with every secret this server's config knows replaced by ``***``."""
        return scrub(text, self._secrets)

    def _set_state(self, state: State, message: str = "", **detail: Any) -> None:
        previous, self.state, self.since = self.state, state, datetime.now()
        if state is State.FAILED:
            self.last_error = self.safe(message)
        text = self.safe(message) if message else f"{previous} -> {state}"
        self.events.emit(ConnectionEvent(self.name, "state", text, state, previous, detail))

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.config.transport,
            state=str(self.state),
            era=self.era,
            protocol_version=self.protocol_version,
            server_name=self.server_name,
            server_version=self.server_version,
            tools=None if self._tools is None else len(self._tools),
            last_latency_ms=self.last_latency_ms,
            last_error=self.last_error,
            since=self.since,
        )

    def __repr__(self) -> str:
        return f"<Connection {self.name} {self.config.transport} {self.state}>"

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Connect, bounded by ``startup_timeout``; raise :class:`ConnectError` and stay ``failed``."""
        if self.state is State.DISABLED:
            return
        if self._owner is not None:
            await self.stop()
        self._set_state(State.CONNECTING, f"connecting to {self.config.target}")
        timeout = self.config.startup_timeout
        started = time.monotonic()
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "exception not retrieved"
        self._stop = asyncio.Event()
        self._owner = asyncio.get_running_loop().create_task(
            self._own(ready), name=f"mcpnb-owner-{self.name}"
        )
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), timeout)
            self._install(client)
            await asyncio.wait_for(self._refresh_tools(), max(0.1, timeout - (time.monotonic() - started)))
        except BaseException as exc:
            reason = self._connect_failure(exc, timeout)
            await self._end_owner()
            self._set_state(State.FAILED, reason)
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise ConnectError(self.name, self.safe(reason)) from None
        self.last_error = None
        self._set_state(
            State.CONNECTED, f"connected: {self.server_name or '?'} {self.server_version or ''}".strip()
        )

    def _connect_failure(self, exc: BaseException, timeout: float) -> str:
        if isinstance(exc, TimeoutError):
            return (
                f"no answer within startup_timeout={timeout:g} s; "
                f"raise startup_timeout for server {self.name!r} if it is just slow"
            )
        if isinstance(exc, asyncio.CancelledError):
            return "connect cancelled"
        reason = describe(exc)
        if self.config.transport == "stdio" and self.stderr:
            reason += f" (server stderr: {self.stderr[-1][:200]})"
        return reason

    async def _own(self, ready: asyncio.Future[Any]) -> None:
        """The owner task: enter the transport and client, wait for stop, exit in this same task."""
        from mcp import Client
        from mcp.types import Implementation

        from . import __version__
        from .transports import open_target

        try:
            async with contextlib.AsyncExitStack() as stack:
                target = await stack.enter_async_context(open_target(self.config, on_stderr=self._on_stderr))
                client = Client(
                    target,
                    mode=_MODES[self.config.era],
                    client_info=Implementation(name="mcpnb", version=__version__),
                )
                await stack.enter_async_context(client)
                ready.set_result(client)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not (self._stop and self._stop.is_set()):
                self._died(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if not ready.done():
                ready.set_exception(ConnectionError("the connection ended before it was ready"))

    def _install(self, client: Any) -> None:
        client.session.validate_tool_result = _skip_sdk_validation
        self.client = client
        self.protocol_version = client.protocol_version
        self.server_info = client.server_info
        self.capabilities = client.server_capabilities
        self.instructions = client.instructions

    def _died(self, exc: BaseException) -> None:
        """The transport ended while we were connected (process died, HTTP server gone)."""
        if self.state is State.CONNECTED:
            self.client = None
            self._set_state(State.FAILED, f"connection lost: {describe(exc)}")

    def _on_stderr(self, line: str) -> None:
        line = self.safe(line)
        self.stderr.append(line)
        self.events.emit(ConnectionEvent(self.name, "stderr", line))

    async def stop(self) -> None:
        """Close the session (the child process exits); state becomes ``disconnected``."""
        await self._end_owner()
        self.client = None
        if self.state is not State.DISABLED:
            self._set_state(State.DISCONNECTED, "disconnected")

    async def _end_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        done, _ = await asyncio.wait({owner}, timeout=STOP_GRACE)
        if not done:
            owner.cancel()
            await asyncio.wait({owner}, timeout=STOP_GRACE)
        if owner.done() and not owner.cancelled():
            owner.exception()  # retrieved: a crash was already reported through _died

    # ------------------------------------------------------------------ requests
    def _require_client(self) -> Any:
        if self.state is State.CONNECTED and self.client is not None:
            return self.client
        if self.state is State.DISABLED:
            raise NotConnectedError(f"server {self.name!r} is disabled (enabled: false in its config)")
        why = f": {self.last_error}" if self.state is State.FAILED and self.last_error else ""
        raise NotConnectedError(
            f"server {self.name!r} is {self.state}{why}; reconnect it with pool.reconnect({self.name!r})"
        )

    async def _request(self, what: str, coro_factory: Any, timeout: float | None = None) -> Any:
        """Run one request, turning SDK failures into mcpnb errors (and a dead transport into ``failed``)."""
        from mcp import MCPError

        client = self._require_client()
        started = time.monotonic()
        try:
            result = await coro_factory(client)
        except MCPError as exc:
            if exc.code == _REQUEST_TIMEOUT:
                raise CallTimeoutError(
                    f"{what} on {self.name!r} timed out after {timeout:g} s and was cancelled on the server; "
                    f"raise tool_timeout for server {self.name!r} (or pass timeout=)"
                ) from None
            if exc.code == _CONNECTION_CLOSED:
                self._lost(exc)
                raise CallError(
                    f"{what} failed: the connection to {self.name!r} closed ({self.safe(exc.message)}); "
                    f"reconnect with pool.reconnect({self.name!r})"
                ) from None
            raise CallError(f"{what} on {self.name!r} failed: {self.safe(describe(exc))}") from None
        except (McpnbError, asyncio.CancelledError):
            raise
        except Exception as exc:
            leaf = root_cause(exc)
            if isinstance(leaf, OSError) or type(leaf).__module__.startswith(("httpx", "anyio")):
                self._lost(exc)
            raise CallError(f"{what} on {self.name!r} failed: {self.safe(describe(exc))}") from None
        self.last_latency_ms = (time.monotonic() - started) * 1000
        return result

    def _lost(self, exc: BaseException) -> None:
        if self.state is State.CONNECTED:
            self.client = None
            self._set_state(State.FAILED, f"connection lost: {describe(exc)}")
            if self._stop is not None:
                self._stop.set()  # let the owner task close what is left of the transport

    async def _refresh_tools(self) -> None:
        if self.capabilities is not None and self.capabilities.tools is None:
            self._tools = {}
            return
        tools: dict[str, ToolInfo] = {}
        cursor = None
        while True:
            page = await self.client.list_tools(cursor=cursor, cache_mode="refresh")
            for tool in page.tools:
                tools[tool.name] = ToolInfo.from_sdk(self.name, tool)
            cursor = page.next_cursor
            if not cursor:
                break
        self._tools = tools

    async def list_tools(self, *, refresh: bool = False) -> list[ToolInfo]:
        """The server's tools (as listed at connect time unless ``refresh``)."""
        if refresh or self._tools is None:
            await self._request("tools/list", lambda _client: self._refresh_tools())
        return list((self._tools or {}).values())

    async def tool(self, name: str) -> ToolInfo:
        """One tool by name; a clear error with a suggestion when there is no such tool."""
        if self._tools is None or name not in self._tools:  # unknown here: the list may be stale
            await self.list_tools(refresh=True)
        tools = self._tools or {}
        if name not in tools:
            hint = did_you_mean(name, tools)
            raise ToolNotFoundError(
                f"server {self.name!r} has no tool {name!r}" + (f"; did you mean {hint!r}?" if hint else "")
            )
        return tools[name]

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> ToolResult:
        """Call a tool; the result keeps its payload even when it does not match ``outputSchema``."""
        info = await self.tool(name)
        timeout = self.config.tool_timeout if timeout is None else timeout
        started = time.monotonic()
        result = await self._request(
            f"{name}()",
            lambda client: client.call_tool(name, arguments or {}, read_timeout_seconds=timeout),
            timeout,
        )
        return ToolResult.from_sdk(
            self.name, name, result, elapsed=time.monotonic() - started, output_schema=info.output_schema
        )

    async def list_resources(self) -> list[Any]:
        result = await self._request("resources/list", lambda c: c.list_resources())
        return list(result.resources)

    async def read_resource(self, uri: str) -> Any:
        return await self._request(f"resources/read {uri}", lambda c: c.read_resource(uri))

    async def list_prompts(self) -> list[Any]:
        result = await self._request("prompts/list", lambda c: c.list_prompts())
        return list(result.prompts)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        return await self._request(f"prompts/get {name}", lambda c: c.get_prompt(name, arguments))
