"""A server's tools: fetched page by page, cached with a TTL, filtered for listing and calling.

``tools/list`` is asked for constantly (listings, completion, argument checks, the output schema of
every call) and changes rarely, and the server says when it does (``list_changed``): a hit on the
cache does no I/O. The filters hide tools from both listing and calling, before anything is sent.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mcpnb.client.cache import TTLCache
from mcpnb.client.errors import McpnbError, ToolNotFoundError, did_you_mean_text
from mcpnb.client.events import State
from mcpnb.client.paging import every_page
from mcpnb.client.toolinfo import Stale, ToolFilter, ToolInfo

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection


class ToolCatalog:
    """The tools of one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.cache: TTLCache[dict[str, ToolInfo]] = TTLCache(conn.config.cache_ttl, conn.clock)
        self.filter = ToolFilter(conn.config.enabled_tools, conn.config.disabled_tools)

    async def fetch(self, *, refresh: bool = False) -> dict[str, ToolInfo]:
        """Every page of ``tools/list`` from the live session, into the cache, and said in the log
        (the connect's own fetch too: a log that began with "served from cache" hid where the list
        came from)."""
        conn = self.conn
        from mcpnb.client.tasks.optin import effective_task_support

        tools: dict[str, ToolInfo] = {}
        listed, generation = None, self.cache.generation
        if conn.capabilities is None or conn.capabilities.tools is not None:
            listed = await self._listed()
            if self.cache.generation != generation:  # list_changed came meanwhile: it may be old
                conn.emit("cache", "the server's tools changed while they were listed: listed again")
                generation = self.cache.generation  # once: a server that says so each time is believed
                listed = await self._listed()
            for tool in listed:
                info = tool if isinstance(tool, ToolInfo) else ToolInfo.from_sdk(conn.name, tool)
                support = effective_task_support(info.task_support, conn.capabilities, conn.era)
                tools[tool.name] = replace(info, task_support=support)
                for problem in info.schema_problems:  # its author reads the log; the listing says it too
                    conn.emit("schema", f"tool {tool.name!r}: {problem}", tool=tool.name)
        self.cache.put(tools, fetched_in=generation)  # kept stale if list_changed came meanwhile
        # after, not before: a server that is down fetched nothing, and its log should not say so
        said = (
            f"tools/list fetched from the server ({len(tools)} tool{'' if len(tools) == 1 else 's'})"
            if listed is not None
            else "no tools/list sent: the server declares no tools capability"
        )
        conn.emit("cache", said, hit=False, refresh=refresh)
        if self.filter.active:
            hidden = sum(not self.filter.allows(n) for n in tools)
            conn.emit("filter", f"{hidden} of {len(tools)} tools hidden by the tool filters", hidden=hidden)
            for said in self.unmatched():
                conn.emit("filter", said)
        return tools

    async def _listed(self) -> list[Any]:
        """Every page of ``tools/list``: the SDK's tools, and a :class:`ToolInfo` for each tool it
        refused the page for (see :meth:`_page`)."""
        conn = self.conn
        return await every_page(
            self._page, "tools", on_cut=lambda why: conn.emit("paging", f"tools/list: {why}")
        )

    async def _page(self, cursor: str | None) -> Any:
        """One page. The SDK refuses a whole page for one tool MCP does not allow (an inputSchema
        that is no object, a tool without a name), and with it every sound tool of the server: the
        page is read again from the answer as sent, each tool on its own. A bad tool is kept as
        listed, with what is wrong said in the listing and the log (:meth:`ToolInfo.from_listing`);
        one without a name cannot be called and is left out, said in the log. An answer that is
        wrong elsewhere fails with where (``nextCursor: Input should be a valid string``)."""
        from pydantic import ValidationError

        from mcpnb.client.doors import KEPT
        from mcpnb.client.logfilter import redact_text, validation_summary

        conn = self.conn
        kept: list[Any] = []
        token = KEPT.set(kept)
        try:
            return await conn.client.list_tools(cursor=cursor, cache_mode="refresh")
        except ValidationError as exc:
            page = self._sound_part(kept[-1] if kept else None)
            if page is None:
                said = validation_summary(exc) or str(exc)
                raise McpnbError(f"the server's tools/list answer is invalid: {redact_text(said)}") from exc
            return page
        finally:
            KEPT.reset(token)

    def _sound_part(self, answer: Any) -> Any:
        """``answer`` (a refused ``tools/list`` page as sent) read tool by tool; None when its
        tools are not what is wrong with it."""
        from types import SimpleNamespace

        from mcp.types import Tool
        from mcp_types.methods import validate_server_result
        from pydantic import ValidationError

        from mcpnb.client.logfilter import redact_text, validation_summary

        items = answer.get("tools") if isinstance(answer, dict) else None
        cursor = answer.get("nextCursor") if isinstance(answer, dict) else None
        if not isinstance(items, list) or not (cursor is None or isinstance(cursor, str)):
            return None
        conn, version = self.conn, self.conn.protocol_version or "2025-11-25"
        tools: list[Any] = []
        for at, item in enumerate(items):
            try:
                validate_server_result("tools/list", version, {"tools": [item]})
                tools.append(Tool.model_validate(item, by_name=False))
                continue
            except ValidationError as exc:
                said = redact_text(validation_summary(exc) or str(exc)).removeprefix("tools[0]")
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str) or not name:  # nothing to call it by
                conn.emit("schema", f"tools/list: left out tools[{at}] ({said.lstrip('.')}): it has no name")
                continue
            # kept: fetch() says what is wrong with it, as for any tool's schema problems
            tools.append(
                ToolInfo.from_listing(conn.name, item, said.removeprefix(f' ("{name}")').lstrip("."))
            )
        if not any(isinstance(t, ToolInfo) for t in tools) and len(tools) == len(items):
            return None  # every tool is sound: the answer is wrong elsewhere
        return SimpleNamespace(tools=tools, next_cursor=cursor)

    def unmatched(self) -> list[str]:
        """Filter patterns that match none of the cached tools, said in words (a typo, usually)."""
        tools = self.cache.peek()
        return self.filter.unmatched(list(tools)) if tools is not None and self.filter.active else []

    def stale(self) -> Stale | None:
        """What a listing says above the tools when the server is not connected now: they came
        from the cache (a server that is down answers nothing), so it says so and since when, as
        the status does. None while it is connected, or when nothing was ever listed."""
        from datetime import datetime, timedelta

        from mcpnb.client.retry import wall_clock

        conn, age = self.conn, self.cache.age
        row = conn.status()
        if row.state == "connected" or age is None:
            return None
        since = f" since {wall_clock(row.since)}" if row.since else ""
        said = f"{conn.name} is {row.state}{since}" + (f": {row.last_error}" if row.last_error else "")
        at = wall_clock(datetime.now() - timedelta(seconds=age))
        again = f"%mcp reconnect {conn.name} (pool.reconnect({conn.name!r}))"
        return Stale(row.state, said, f"as listed at {at}, while it was connected; {again} starts it again")

    def learn_task_support(self, name: str, support: str) -> None:
        """What a call taught us (a -32021 "tasks required"): later calls ask for a task at once."""
        tools = self.cache.peek()
        if tools is not None and name in tools:
            tools[name] = replace(tools[name], task_support=support)

    async def all(self, refresh: bool = False) -> dict[str, ToolInfo]:
        """Every tool, filtered or not: from the cache while fresh, else from the server."""
        cached = None if refresh else self.cache.get()
        if cached is not None:
            self.conn.emit("cache", "tools/list served from cache", hit=True)
            return cached
        return await self.conn.request("tools/list", lambda _client: self.fetch(refresh=refresh))

    def cached(self, name: str) -> ToolInfo | None:
        """The tool from a fresh cache, if it is there and not filtered out; never any I/O.

        Safe from any thread (it only reads the cached dictionary), so a magic can check a call's
        arguments without a hop onto the runtime loop and back.
        """
        tools = self.cache.get()
        tool = tools.get(name) if tools is not None else None
        return tool if tool is not None and self.filter.allows(name) else None

    def listed(self) -> list[ToolInfo] | None:
        """The visible tools as last listed, fresh or stale; None when never listed. No I/O and no
        hop onto the runtime loop: what completion offers on a keypress (a server of 5000 tools
        took seconds to list again, in-process too)."""
        tools = self.cache.peek()
        return None if tools is None else [t for n, t in tools.items() if self.filter.allows(n)]

    async def visible(self, refresh: bool = False) -> list[ToolInfo]:
        """The tools a listing shows. An in-process server's are asked afresh each time it is
        connected: a cell that adds one to it sends no ``list_changed``. Asking costs no network,
        but it is a whole listing (about a millisecond a tool), so only listings ask afresh:
        completion reads :meth:`listed`, and calls and a call's lookup read the cache (:meth:`get`)."""
        fresh = self.conn.transport == "inprocess" and self.conn.state is State.CONNECTED
        tools = await self.all(refresh or fresh)  # down: its cached list, said so (stale())
        return [t for n, t in tools.items() if self.filter.allows(n)]

    async def relisted(self, name: str) -> ToolInfo | None:
        """``name`` from a list asked again, where the one at hand is stale (``list_changed`` marked
        it, or it expired): arguments the stale one refused may be parameters added since. None
        where the list is fresh: its word stands."""
        if self.cache.get() is not None:
            return None
        await self.all(refresh=True)
        return await self.get(name)

    async def get(self, name: str, *, unlisted: bool = False) -> ToolInfo:
        """One tool by name; a clear error (and no request) for filtered or unknown tools.

        ``unlisted``: a tool the server does not list is a bare :class:`ToolInfo` (no schema) instead
        of an error, to be sent unchecked (``validate=False``): a server's author tests the error
        their server gives for an unknown tool. A filtered one stays refused: the filters are the
        person's own word on what is called."""
        server = self.conn.name
        hidden = self.filter.active and self.filter.why_hidden(name)
        if hidden:
            raise ToolNotFoundError(
                f"tool {name!r} of server {server!r} is filtered out ({hidden}); nothing was sent"
            )
        tools = self.cache.peek()
        if tools is None or name not in tools:  # unknown here: the list may be stale
            tools = await self.all(refresh=True)
        if name in tools:
            return tools[name]
        if unlisted:
            return ToolInfo(server, name)
        # the hint compares names composed (NFC), and says so when that is all that differs
        hint = did_you_mean_text(name, [n for n in tools if self.filter.allows(n)])
        raise ToolNotFoundError(f"server {server!r} has no tool {name!r}{hint}")
