"""What callers ask of one server, as :class:`~mcpnb.client.connection.Connection` methods: tools,
resources, prompts, the log level, completion and resource watching.

Each is a thin request through the live session (:mod:`.requests` does the waiting and the error
mapping, :mod:`.catalog` the tool list, :mod:`.watching` the subscriptions); the connection's own
module is left with the session's lifecycle. A mixin: it uses the connection's ``era``, ``client``,
``catalog``, ``watch`` and ``log_level``. The pool's checks of what a person typed for these
requests (a log level's name, a completion's reference) live here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpnb.client import requests
from mcpnb.client.errors import (
    ArgumentsError,
    CallError,
    McpnbError,
    check_offered,
    did_you_mean,
    did_you_mean_text,
)
from mcpnb.client.paging import every_page

if TYPE_CHECKING:
    from mcpnb.client.cache import TTLCache
    from mcpnb.client.catalog import ToolCatalog
    from mcpnb.client.interaction import CallContext
    from mcpnb.client.results import ToolResult
    from mcpnb.client.toolinfo import ToolInfo
    from mcpnb.client.watching import ResourceWatch

#: MCP log levels (RFC 5424 names), least severe first.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class ConnectionRequests:
    """The requests of one connection; every one waits for a live session (see :mod:`.requests`)."""

    client: Any
    catalog: ToolCatalog
    prompt_cache: TTLCache[list[Any]]
    watch: ResourceWatch
    log_level: str
    restart_note: str | None  # what the first result after an automatic restart says

    if TYPE_CHECKING:

        @property
        def era(self) -> str | None: ...

        def emit(self, kind: str, message: str, **detail: Any) -> None: ...

    async def request(
        self,
        what: str,
        send: Callable[[Any], Awaitable[Any]],
        *,
        idempotent: bool = True,
        wait: float | None = None,
    ) -> Any:
        """Run ``send(client)`` on the live session: see :func:`mcpnb.client.requests.request`."""
        return await requests.request(self, what, send, idempotent=idempotent, wait=wait)

    # ------------------------------------------------------------------ tools
    async def list_tools(self, *, refresh: bool = False) -> list[ToolInfo]:
        """The server's visible tools: cached for ``cache_ttl``; ``refresh`` asks the server again."""
        return await self.catalog.visible(refresh)

    async def tool(self, name: str) -> ToolInfo:
        """One tool by name; a clear error (and no request) for filtered or unknown tools."""
        return await self.catalog.get(name)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        context: CallContext | None = None,
        info: ToolInfo | None = None,
    ) -> ToolResult:
        """Call a tool; the result keeps its payload even when it does not match ``outputSchema``.

        ``timeout`` (default ``tool_timeout``) is the longest silence: progress restarts it, and the
        time a person takes to answer the server does not count; ``max_total_timeout`` caps the
        whole call. On timeout the request is cancelled on the server. ``context`` carries what the
        people-in-the-loop parts need (given answers, a progress callback, where to show forms).
        The first result after an automatic restart says so among its warnings: the server's
        memory went with its old process.
        """
        result = await requests.call_tool(self, name, arguments, timeout=timeout, context=context, info=info)
        self.note_restart(result)
        return result

    def note_restart(self, result: ToolResult) -> None:
        """Put the restart note (:attr:`restart_note`) first among ``result``'s warnings if no
        result has said it yet: whichever result lands first after an automatic restart says it,
        a plain call's or a task's (:class:`~mcpnb.client.tasks.TaskHandle`), and only that one."""
        note, self.restart_note = self.restart_note, None
        if note is not None and note not in result.warnings:
            result.warnings.insert(0, note)

    # ------------------------------------------------------------------ resources and prompts
    async def _every_page(
        self, what: str, send: Callable[[Any, str | None], Awaitable[Any]], field: str
    ) -> list[Any]:
        """Each page its own request (each waits for a live session and maps errors)."""
        return await every_page(
            lambda at: self.request(what, lambda c: send(c, at)),
            field,
            on_cut=lambda why: self.emit("paging", f"{what}: {why}"),
        )

    async def list_resources(self) -> list[Any]:
        """Every resource, page by page."""
        return await self._every_page(
            "resources/list", lambda c, at: c.list_resources(cursor=at), "resources"
        )

    async def list_resource_templates(self) -> list[Any]:
        """Every resource template (``uri_template`` with ``{placeholders}`` to fill before reading)."""
        return await self._every_page(
            "resources/templates/list",
            lambda c, at: c.list_resource_templates(cursor=at),
            "resource_templates",
        )

    async def read_resource(self, uri: str) -> Any:
        """``resources/read``; a refusal of a URI the server does not list gets a did-you-mean
        from its list (looked up only then: servers say "not found" in words of every kind)."""
        try:
            return await self.request(f"resources/read {uri}", lambda c: c.read_resource(uri))
        except CallError as exc:
            close = await self.unlisted_resource(uri) if type(exc) is CallError else None
            if not close or close in str(exc):
                raise
            first, more = str(exc).partition("\n")[::2]  # on its first line, not after the data sent with it
            raise CallError(f"{first}; did you mean {close!r}?" + (f"\n{more}" if more else "")) from exc

    async def unlisted_resource(self, uri: str) -> str | None:
        """For a URI the server lists neither as a resource nor as a template's match (a typo, most
        likely): the listed one it is closest to, or ``""`` when none is close. None when it is
        listed, fits a template, or the lists cannot be read."""
        try:
            listed = [str(r.uri) for r in await self.list_resources()]
            templates = [str(t.uri_template) for t in await self.list_resource_templates()]
        except McpnbError:
            return None
        if uri in listed or any(template_fits(t, uri) for t in templates):
            return None
        return did_you_mean(uri, listed) or ""

    async def list_prompts(self) -> list[Any]:
        """Every prompt, page by page; from the cache while fresh (as the tool list: ``cache_ttl``,
        and the server's ``prompts/list_changed`` ends it)."""
        cached = self.prompt_cache.get()
        if cached is None:
            generation = self.prompt_cache.generation
            cached = await self._every_page(
                "prompts/list", lambda c, at: c.list_prompts(cursor=at), "prompts"
            )
            self.prompt_cache.put(cached, fetched_in=generation)
        return list(cached)  # the caller's to change: the cache keeps its own

    async def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """``prompts/get`` once the name and arguments are checked against the server's list (a
        typo gets a did-you-mean, not each server's own words); values that are not text are sent
        as JSON text, since prompt arguments are strings on the wire. ``None`` is an argument not
        given (it was sent as the text "null": "What's the weather in Paris, null?")."""
        texts = {
            k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            for k, v in (arguments or {}).items()
            if v is not None
        }
        await self._check_prompt(name, texts)
        return await self.request(f"prompts/get {name}", lambda c: c.get_prompt(name, texts or None))

    async def find_prompt(self, name: str) -> Any:
        """``name`` from the server's prompt list; a cached list that lacks it is asked again first
        (a prompt added since: a server that declares no ``listChanged``, FastMCP's on 2026-07-28,
        never says so, and its new prompt was refused for the cache's whole life). An unknown name
        is an :class:`ArgumentsError` with a did-you-mean."""
        return (await self._found_prompt(name))[0]

    async def _found_prompt(self, name: str) -> tuple[Any, bool]:
        """The prompt, and whether its list came from the cache (an older list than the server's)."""
        cached = self.prompt_cache.get() is not None
        listed = {p.name: p for p in await self.list_prompts()}
        if name not in listed and cached:
            self.prompt_cache.clear()
            listed, cached = {p.name: p for p in await self.list_prompts()}, False
        if name not in listed:
            raise ArgumentsError(
                f"server {self.name!r} has no prompt {name!r}{did_you_mean_text(name, listed)}"
            )
        return listed[name], cached

    async def _check_prompt(self, name: str, arguments: Mapping[str, str]) -> None:
        """Refuse a prompt the server does not list, or arguments it does not declare; a refusal
        by a cached list asks the server again first (its arguments may have changed since)."""
        try:
            prompt, cached = await self._found_prompt(name)
            problem = self._arguments_problem(prompt, arguments)
            if problem is not None and cached:
                self.prompt_cache.clear()
                prompt, _ = await self._found_prompt(name)
                problem = self._arguments_problem(prompt, arguments)
        except ArgumentsError:
            raise
        except McpnbError:  # no list to check against: the server says what is wrong, if anything
            return
        if problem is not None:
            raise ArgumentsError(problem)

    def _arguments_problem(self, prompt: Any, arguments: Mapping[str, str]) -> str | None:
        declared = {a.name: a for a in prompt.arguments or ()}
        label = f"{self.name}.{prompt.name}"
        for key in arguments:
            if key not in declared:
                hint, have = did_you_mean_text(key, declared), ", ".join(declared) or "none"
                return f"{label}: unknown argument {key!r}{hint} (its arguments: {have})"
        missing = [a for a, spec in declared.items() if spec.required and a not in arguments]
        return f"{label}: missing required argument {missing[0]!r}" if missing else None

    # ------------------------------------------------------------------ logging, completion, subscriptions
    async def set_log_level(self, level: str) -> None:
        """Ask the server for log lines at ``level`` and above: ``logging/setLevel`` (2025-11-25), or
        the per-request opt-in every later request carries (2026-07-28). Kept across reconnects."""

        check_offered(
            self.name, self.capabilities, "logging", "logging", "it sends no log messages to set a level for"
        )
        self.log_level, self.log_level_chosen = level, True
        if self.era == "modern":
            if self.client is not None:
                _opt_in_logs(self.client.session, level)
            return
        await self.request(f"logging/setLevel {level}", lambda c: send_log_level(c, level))

    async def complete(
        self, ref: Any, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]:
        """``completion/complete``: the server's suggestions for one argument of a prompt or template."""
        check_offered(self.name, self.capabilities, "completions", "completions", "type the value yourself")
        result = await self.request(
            f"completion/complete {argument}",
            lambda c: c.complete(ref, {"name": argument, "value": value}, context_arguments=context),
        )
        values = list(result.completion.values)
        if not values:  # "nothing starts so", or a name we got wrong: the server says the same
            await self._check_completion_target(ref, argument)
        return values

    async def _check_completion_target(self, ref: Any, argument: str) -> None:
        """Name a prompt, template or argument the server does not have (one listing, only for an
        empty answer, and only where the listing works)."""
        try:
            if ref.type == "ref/prompt":
                what, name = "prompt", ref.name
                known = {p.name: [a.name for a in p.arguments or ()] for p in await self.list_prompts()}
            else:
                what, name = "resource template", ref.uri
                templates = await self.list_resource_templates()
                known = {t.uri_template: template_variables(t.uri_template) for t in templates}
        except McpnbError:
            return
        if name not in known:
            raise ArgumentsError(
                f"{self.name!r} has no {what} {name!r}, so nothing completes{did_you_mean_text(name, known)}"
            )
        if argument not in known[name]:
            have = ", ".join(known[name]) or "none"
            raise ArgumentsError(
                f"{what} {name!r} on {self.name!r} has no argument {argument!r}"
                f"{did_you_mean_text(argument, known[name])} (its arguments: {have})"
            )

    async def watch_resource(self, uri: str, watcher: Callable[[str], None]) -> None:
        """Call ``watcher(uri)`` whenever the server says ``uri`` changed (subscribes if needed)."""
        await self.watch.add(uri, watcher)

    async def unwatch_resource(self, uri: str, watcher: Callable[[str], None] | None = None) -> bool:
        return await self.watch.remove(uri, watcher)


async def send_log_level(client: Any, level: str) -> None:
    """2025-11-25's ``logging/setLevel``: kept by the session, so sent again to each new one."""
    from mcp import types

    request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
    await client.session.send_request(request, types.EmptyResult)


def _opt_in_logs(session: Any, level: str) -> None:
    """2026-07-28: every request's ``_meta`` carries the log level. The SDK fixes it when the session
    starts (``Client(log_level=...)``) and only sets it as a default, so ours goes in first; on an SDK
    without that hook the level applies from the next session on."""
    from mcp_types import LOG_LEVEL_META_KEY

    stamp = getattr(session, "_stamp", None)
    if stamp is None:
        return
    original = getattr(stamp, "original", stamp)

    def with_level(data: dict[str, Any], opts: Any) -> None:
        data.setdefault("params", {}).setdefault("_meta", {})[LOG_LEVEL_META_KEY] = level
        original(data, opts)

    with_level.original = original  # type: ignore[attr-defined]
    session._stamp = with_level


def checked_log_level(level: str) -> str:
    """A valid MCP log level (RFC 5424 names), or an error that lists them."""
    from mcpnb.client.errors import McpnbError, did_you_mean_text

    chosen = level.strip().lower()
    if chosen not in LOG_LEVELS:
        hint = did_you_mean_text(chosen, LOG_LEVELS)
        raise McpnbError(f"unknown log level {level!r}{hint} (levels: {', '.join(LOG_LEVELS)})")
    return chosen


def completion_reference(prompt: str, template: str | None) -> Any:
    """What ``completion/complete`` completes: resource ``template`` when given, else ``prompt``."""
    from mcp import types

    if template:
        return types.ResourceTemplateReference(type="ref/resource", uri=template)
    return types.PromptReference(type="ref/prompt", name=prompt)


def template_fits(template: str, uri: str) -> bool:
    """Whether ``uri`` could come from an RFC 6570 ``template`` (each ``{…}`` taken as any text;
    one with an operator, ``{?q}``, ``{#frag}``, ``{/seg}``, as none at all, which is what it
    expands to when its variables are left out: ``find://items`` fits ``find://items{?q}``)."""
    pieces = re.split(r"\{([^}]*)\}", template)  # fixed text, expression, fixed text, …
    pattern = "".join(
        re.escape(piece) if i % 2 == 0 else ".*" if piece[:1] in "?&#/;." else ".+"
        for i, piece in enumerate(pieces)
    )
    return re.fullmatch(pattern, uri, re.DOTALL) is not None


def template_variables(template: str) -> list[str]:
    """The variables of an RFC 6570 URI template: ``{+path}`` and ``{?q,lang*}`` give path, q, lang."""
    names = (n for body in re.findall(r"\{[+#./;?&]?([^}]*)\}", template) for n in body.split(","))
    return [re.sub(r"(\*|:\d+)$", "", n.strip()) for n in names if n.strip()]
