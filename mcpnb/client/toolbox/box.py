"""``Toolbox``: a notebook's MCP tools as Python functions, as tool specs for an LLM, and the dispatcher
that runs the model's tool calls.

``pool.functions()`` builds one. It is a read-only mapping from flat name (``mcp__probe__ui_search``)
to a function; ``toolbox.short`` has the same functions under bare tool names where no two servers
share one. ``toolbox.specs("anthropic")`` gives the ``tools=`` list for that API, and
``toolbox.run(call)`` / ``run_all(calls)`` execute what the model asked for and return the messages to
send back. A mistake of the model (bad JSON, an unknown tool, arguments the schema refuses, a tool
that fails, a server that is down) comes back as an error result it can read and fix, never as an
exception that ends your loop, unless you pass ``raise_errors=True``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mcpnb.client.apps import for_model, view_uri
from mcpnb.client.errors import (
    CallError,
    McpnbError,
    ToolNotFoundError,
    did_you_mean,
    did_you_mean_text,
)
from mcpnb.client.toolbox.approval import Approve, ask, asks, check_approve
from mcpnb.client.toolbox.calls import ToolCall, find_calls, parse_call
from mcpnb.client.toolbox.functions import ToolFunction, make_function
from mcpnb.client.toolbox.nulls import drop_optional_nulls
from mcpnb.client.toolbox.pages import PageNews
from mcpnb.client.toolbox.replies import MAX_TEXT_CHARS, error_reply, result_reply
from mcpnb.client.toolbox.schema import normal_form
from mcpnb.client.toolbox.specs import (
    OPENAI_FORMATS,
    SHOWN_ROWS,
    Entry,
    ToolSpecs,
    build_specs,
    check_format,
    entries,
)
from mcpnb.client.toolbox.strict import make_strict
from mcpnb.client.toolbox.table import COLUMNS, text_table
from mcpnb.client.toolinfo import flat_name, split_flat_name

logger = logging.getLogger("mcpnb")

#: How many tool names an "unknown tool" error lists.
_LISTED = 20

if TYPE_CHECKING:
    from mcpnb.client.arguments import Terms
    from mcpnb.client.pool import Pool
    from mcpnb.client.results import ToolResult
    from mcpnb.client.server_skills import ServerSkill
    from mcpnb.client.toolinfo import ToolInfo


async def tools_of(pool: Pool, servers: tuple[str, ...], refresh: bool) -> list[ToolInfo]:
    """The tools a toolbox of ``servers`` holds (every connected server's when none is named; a
    server named twice counts once). Runs on the runtime loop (see ``Pool.functions``)."""
    if not servers:
        return await pool._tools(None, refresh)  # the pool's own gathering: servers that fail are skipped
    found: list[ToolInfo] = []
    for server in dict.fromkeys(servers):
        found += await pool.connection(server).list_tools(refresh=refresh)
    return found


async def contents_of(
    pool: Pool, servers: tuple[str, ...], refresh: bool, skills: bool
) -> tuple[list[ToolInfo], list[ServerSkill], dict[str, str]]:
    """The tools of ``servers``, their skills when asked (the servers named, or every connected
    one), and why a server's skills could not be listed. Runs on the runtime loop."""
    tools = await tools_of(pool, servers, refresh)
    if not skills:
        return tools, [], {}
    from mcpnb.client.toolbox.skills import skills_of

    found, missed = await skills_of(pool, list(dict.fromkeys(servers)) if servers else pool.names)
    return tools, found, missed


class ToolFailedError(CallError):
    """The tool ran and reported an error (``isError``); raised by ``run`` only with ``raise_errors``."""

    def __init__(self, message: str, result: ToolResult) -> None:
        super().__init__(message)
        self.result = result


#: The mapping's methods: a tool of one of these names is the attribute with an underscore.
_MAPPING_METHODS = frozenset({"get", "keys", "items", "values"})


def _shadowed(method: str) -> str:
    return (
        f"short.{method} is the mapping's {method}(); the tool {method!r} is short.{method}_ "
        f"(or short[{method!r}])"
    )


class ShortNames(Mapping[str, ToolFunction]):
    """The toolbox's functions under bare tool names (``toolbox.short["get-sum"]``), and as attributes
    under their Python names (``toolbox.short.get_sum``) for tab completion. Names that two servers
    share are left out: use the flat name for those. So is an attribute two tools would share
    (``get-sum`` and ``get_sum`` are both ``get_sum`` in Python): the attribute would call one of
    them unseen; the bare name reaches each.

    A tool named as a method of the mapping (a key-value server's ``get``, ``keys``, ``items``,
    ``values``) is the attribute with an underscore, ``short.get_``, as a keyword's is (``class_``):
    the mapping stays one (``dict(short)``, ``short.keys()``), and ``short.get(key="a")``, which
    quietly answered None, says where the tool is."""

    def __init__(self, functions: dict[str, ToolFunction]) -> None:
        self._functions = functions
        named: dict[str, list[str]] = {}
        for name, function in functions.items():
            attr = function.__name__
            named.setdefault(attr + "_" if attr in _MAPPING_METHODS else attr, []).append(name)
        self._attrs = {attr: functions[names[0]] for attr, names in named.items() if len(names) == 1}
        self._shared = {attr: names for attr, names in named.items() if len(names) > 1}

    def __getitem__(self, name: str) -> ToolFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(
                f"no tool {name!r} under a bare name{did_you_mean_text(name, self._functions)}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._functions and "get" in self._functions:  # short.get(key="a"): the tool's words
            raise TypeError(_shadowed("get"))
        return super().get(key, default)

    def keys(self, *args: Any, **kwargs: Any) -> Any:
        return self._mapping("keys", args, kwargs)

    def items(self, *args: Any, **kwargs: Any) -> Any:
        return self._mapping("items", args, kwargs)

    def values(self, *args: Any, **kwargs: Any) -> Any:
        return self._mapping("values", args, kwargs)

    def _mapping(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The mapping's ``keys``/``items``/``values``; called with arguments, meant for a tool of
        that name: say where it is."""
        if args or kwargs:
            raise TypeError(
                _shadowed(method) if method in self._functions else f"{method}() takes no arguments"
            )
        return getattr(super(), method)()

    def __getattr__(self, name: str) -> ToolFunction:
        attrs = self.__dict__.get("_attrs", {})
        if name in attrs:
            return attrs[name]
        shared = self.__dict__.get("_shared", {}).get(name)
        if shared:
            which = " or ".join(f"short[{n!r}]" for n in shared)
            raise AttributeError(
                f"tools {' and '.join(map(repr, shared))} are both {name!r} in Python: use {which}"
            )
        raise AttributeError(f"no tool {name!r} under a bare name{did_you_mean_text(name, attrs)}")

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self._attrs]

    def __repr__(self) -> str:
        return f"<short names: {', '.join(self._functions) or 'none'}>"


class Toolbox(Mapping[str, ToolFunction]):
    """MCP tools as Python functions, LLM tool specs and a tool-call dispatcher (see the module doc)."""

    def __init__(
        self,
        pool: Pool,
        tools: list[ToolInfo],
        *,
        approve: Approve = "never",
        skills: list[ServerSkill] | None = None,
        skills_missed: dict[str, str] | None = None,
        max_text_chars: int | None = MAX_TEXT_CHARS,
        max_image_bytes: int | None = None,
    ) -> None:
        self.pool = pool
        self.approve = approve
        #: the most characters of text one result sends back to the model (the rest is cut, with a
        #: note; ``None``: all of it) and the largest image it sends (``None``: each API's own
        #: documented limit, :data:`~mcpnb.client.toolbox.replies.MAX_IMAGE_BYTES`)
        self.max_text_chars = max_text_chars
        self.max_image_bytes = max_image_bytes
        self._turn: asyncio.Lock | None = None  # one approval question at a time (made on mcpnb's loop)
        #: servers whose tools are missing from a toolbox of every server, and why (a model is not
        #: told of tools that are not here: the person should know)
        self.not_listed: dict[str, str] = dict(getattr(tools, "not_listed", None) or {})
        self.not_listed.update(skills_missed or {})
        #: tools their server keeps for its own pages (MCP Apps ``visibility: ["app"]``): a host must
        #: not offer them to a model, so the toolbox leaves them out, by ``server.tool``
        self.pages_only: list[str] = [f"{t.server}.{t.name}" for t in tools if not for_model(t)]
        tools = [t for t in tools if for_model(t)]
        self._functions: dict[str, ToolFunction] = {t.flat_name: make_function(pool, t) for t in tools}
        #: the servers' skills the model may load (``skills=True``): listed in :attr:`instructions`,
        #: loaded by one more function, ``load_skill``, that runs here (:mod:`.skills`)
        self.skills: list[ServerSkill] = list(skills or ())
        if self.skills:
            from mcpnb.client.toolbox.skills import make_loader

            loader = make_loader(pool, self.skills)
            self._functions[loader.flat_name] = loader
            tools = [*tools, loader.tool]
        counts: dict[str, int] = {}
        for tool in tools:
            counts[tool.name] = counts.get(tool.name, 0) + 1
        self.short = ShortNames({t.name: self._functions[t.flat_name] for t in tools if counts[t.name] == 1})
        self._entries: dict[str, dict[str, Entry]] = {}
        self._news = PageNews()

    # ------------------------------------------------------------------ the mapping
    def __getitem__(self, name: str) -> ToolFunction:
        try:
            return self._functions[name]
        except KeyError:
            hint = did_you_mean_text(name, self._functions)
            raise KeyError(f"no tool {name!r} in this toolbox{hint}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)

    def __getattr__(self, name: str) -> Any:
        """``tools.estimate`` is a natural first try: say where the tool is instead of Python's bare
        AttributeError (tools are not attributes here, where a tool named ``run`` would be hidden)."""
        short = self.__dict__.get("short")
        if name.startswith("_") or short is None:
            raise AttributeError(name)
        attrs = short.__dict__["_attrs"]
        if name in attrs:
            hint = f"the tool is .short.{name} (or [{attrs[name].tool.flat_name!r}])"
        else:
            close = did_you_mean(name, list(attrs))
            hint = f"did you mean .short.{close}?" if close else "tools are under .short, by their bare names"
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}; {hint}")

    @property
    def approve(self) -> Approve:
        """Which of the model's calls wait for a person's yes (:mod:`~mcpnb.client.toolbox.approval`):
        ``"never"``, ``"destructive"``, ``"writes"``, ``"always"`` or ``(tool, arguments) -> bool``."""
        return self._approve

    @approve.setter
    def approve(self, value: Approve) -> None:
        self._approve = check_approve(value)

    @property
    def tools(self) -> list[ToolInfo]:
        return [f.tool for f in self._functions.values()]

    @property
    def instructions(self) -> str:
        """What the servers of these tools wrote for the model that uses them (``initialize``'s
        ``instructions``), one section per server, and the skills it may load, for your system
        prompt; empty when there is neither."""
        sections = []
        for server in dict.fromkeys(t.server for t in self.tools if not _runs_here(t)):
            try:
                text = self.pool.connection(server).instructions
            except McpnbError:  # disconnected since the toolbox was made: nothing to add
                continue
            if text and text.strip():
                sections.append(f"## {server}\n{text.strip()}")
        if self.skills:
            from mcpnb.client.toolbox.skills import instructions

            sections.append(instructions(self.skills))
        return "\n\n".join(sections)

    # ------------------------------------------------------------------ specs
    def entries(self, fmt: str) -> Mapping[str, Entry]:
        """Provider name → how that tool appears to ``fmt`` (its name, renamed keys, the way back)."""
        key = "openai" if fmt in OPENAI_FORMATS else check_format(fmt)
        if key not in self._entries:
            self._entries[key] = entries(list(self._functions.values()), key)
        return MappingProxyType(self._entries[key])

    def specs(self, fmt: str, *, strict: bool | None = None) -> ToolSpecs:
        """The tool specs for ``fmt``: ``"openai"`` (Chat Completions), ``"openai-responses"``,
        ``"anthropic"`` or ``"gemini"`` (function declarations).

        ``strict=True`` (OpenAI formats) applies strict mode where the schema allows it; a tool whose
        schema cannot be strict goes out with ``strict: false`` and a :class:`StrictModeWarning` that
        names the keyword in the way. ``strict=None`` leaves Chat Completions' ``strict`` unset and
        sends ``strict: false`` to Responses (a required field there).
        """
        check_format(fmt)
        return build_specs(dict(self.entries(fmt)), fmt, strict, stacklevel=2)

    def rows(self, limit: int | None = None) -> list[list[str]]:
        """One row per tool: flat name, server, tool, parameters (* required), can it be strict;
        the first ``limit`` tools only, when given (what a display draws)."""
        rows = []
        functions = list(self._functions.values())[:limit]
        for function in functions:  # flat names: a provider's name clash cannot break this
            tool = function.tool
            schema, _ = normal_form(tool.input_schema)
            required = set(schema.get("required") or [])
            params = ", ".join(k + ("*" if k in required else "") for k in schema["properties"])
            _, blocker = make_strict(schema)
            rows.append(
                [tool.flat_name, tool.server, tool.name, params, f"no: {blocker.short}" if blocker else "yes"]
            )
        return rows

    # ------------------------------------------------------------------ running the model's calls
    def tool_calls(self, reply: Any) -> list[Any]:
        """The tool calls in a model's reply (a response, a message, a list of content blocks)."""
        return find_calls(reply)

    def run(self, call: Any, *, raise_errors: bool = False, timeout: float | None = None) -> dict[str, Any]:
        """Run one tool call of any supported SDK and return the message that answers it."""
        return self.pool.runtime.run(self.arun(call, raise_errors=raise_errors, timeout=timeout))

    async def arun(
        self, call: Any, *, raise_errors: bool = False, timeout: float | None = None
    ) -> dict[str, Any]:
        """Coroutine twin of :meth:`run`."""
        parsed = parse_call(call)  # not a tool call at all: a TypeError, that is a bug in the loop
        known = self.entries(parsed.format)  # two tools under one name: an error for you, not the model
        try:
            function, arguments = self._resolve(parsed, known)
            if await asks(self._approve, function.tool, arguments):
                self._turn = self._turn or asyncio.Lock()
                await ask(self.pool, function.tool, arguments, self._turn)
            result = await self._call(function, arguments, timeout)
        except McpnbError as exc:
            if raise_errors:
                raise
            # advice only a person can follow is left out
            return error_reply(parsed, exc.for_model, max_text_chars=self.max_text_chars)
        if result.is_error and raise_errors:
            raise ToolFailedError(f"{function.server}.{function.tool.name} failed: {result.text}", result)
        return result_reply(
            parsed, result, max_text_chars=self.max_text_chars, max_image_bytes=self.max_image_bytes
        )

    async def _call(self, function: ToolFunction, arguments: dict[str, Any], timeout: float | None) -> Any:
        """The model's call, with its tool's page drawn first where someone watches (a notebook):
        the page hears the arguments at once and the result, or why there is none, as it lands."""
        pool, tool = self.pool, function.tool
        if getattr(function, "runs_here", False):  # load_skill: no server to call
            return await function.acall(**arguments)
        context = pool.asking_context(awaited=pool.awaited_here())
        page = None
        if view_uri(tool) is not None:
            try:
                page = await pool.effective_interaction.draw_page(pool, tool, arguments, context)
            except Exception as exc:  # a page that cannot be drawn never costs the model its call
                logger.warning("%s.%s's page (an MCP App) was not drawn: %s", tool.server, tool.name, exc)
        if page is not None:
            self._news.add(page)
        try:
            result = await pool.acall(function.server, tool.name, arguments, timeout=timeout, context=context)
        except BaseException as exc:
            if page is not None:
                page.deliver(exc)
            raise
        if page is not None:
            page.deliver(result)
        return result

    # ------------------------------------------------------------------ what pages said for the model
    @property
    def pages(self) -> list[Any]:
        """The pages (MCP Apps) drawn for the model's calls, oldest first: what each did is on it
        (``.calls``, ``.messages``, ``.context``)."""
        return list(self._news.pages)

    def from_pages(self, fmt: str) -> list[dict[str, Any]]:
        """What the pages of the model's calls said for the model since the last time you asked,
        as one user message of ``fmt`` (or ``[]``): each page's newest model context
        (``ui/update-model-context``), marked as the page's, then its messages (``ui/message``).
        Add it to the conversation before the next model call: ``messages += tools.from_pages(fmt)``."""
        caps = {"max_text_chars": self.max_text_chars, "max_image_bytes": self.max_image_bytes}
        return self._news.take(check_format(fmt), **caps)

    def run_all(
        self, calls: Any, *, raise_errors: bool = False, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Run every tool call in ``calls`` concurrently; the replies come back in the calls' order.

        ``calls`` is a list of calls, or a whole reply (``ChatCompletion``, ``Response``, Anthropic
        ``Message`` or its ``content`` list, Gemini response): what is not a tool call is skipped.
        With ``raise_errors``, every call still runs; the first error is raised once all have ended,
        with ``.replies`` on it: each call's reply in the calls' order, None for each that raised
        (the calls that ran are not lost with the turn).
        """
        return self.pool.runtime.run(self.arun_all(calls, raise_errors=raise_errors, timeout=timeout))

    async def arun_all(
        self, calls: Any, *, raise_errors: bool = False, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        found = find_calls(calls)
        replies = await asyncio.gather(
            *(self.arun(c, raise_errors=raise_errors, timeout=timeout) for c in found),
            return_exceptions=raise_errors,
        )
        failed = [r for r in replies if isinstance(r, BaseException)]
        if failed:
            answered = [None if isinstance(r, BaseException) else r for r in replies]
            first = failed[0]
            if isinstance(first, Exception):  # not a cancellation: what ran goes with the error
                first.replies = answered  # type: ignore[attr-defined]
                ran = len(answered) - len(failed)
                if ran:
                    first.add_note(
                        f"{ran} other call{'s' if ran != 1 else ''} of this turn answered: .replies"
                    )
            raise first
        return list(replies)

    def _resolve(self, call: ToolCall, known: Mapping[str, Entry]) -> tuple[ToolFunction, dict[str, Any]]:
        """The function the model meant and the arguments to send (checked); McpnbError if not."""
        entry = known.get(call.name)
        if entry is None and call.name in self._functions:  # a flat name, from specs made elsewhere
            entry = next(e for e in known.values() if e.function.flat_name == call.name)
        if entry is None:
            raise ToolNotFoundError(_unknown_tool(call.name, known))
        arguments = entry.server_arguments(call.arguments())
        arguments = drop_optional_nulls(arguments, entry.original, entry.original)
        from mcpnb.client.arguments import check_arguments

        return entry.function, check_arguments(entry.function.tool, arguments, _model_terms(entry))

    # ------------------------------------------------------------------ display
    def left_out(self) -> list[str]:
        """What is not in this toolbox and why, and what its pages said that the model has not
        been handed yet, one line each (a gap is never silent)."""
        lines = []
        if self.not_listed:
            missed = ", ".join(f"{name} ({why})" for name, why in self.not_listed.items())
            lines.append(f"not in this toolbox: {missed}")
        if self.pages_only:
            lines.append(
                f"kept for their servers' pages (MCP Apps), never a model's: {', '.join(self.pages_only)}"
            )
        waiting = self._news.waiting()
        if waiting:
            said = "1 thing" if waiting == 1 else f"{waiting} things"
            lines.append(f"its pages said {said} for the model, not handed over yet: .from_pages(fmt)")
        return lines

    def __repr__(self) -> str:
        return self.text()

    def head(self) -> str:
        """The line above the table: how many tools, from which servers, and the skills loader."""
        servers = sorted({t.server for t in self.tools if not _runs_here(t)})
        head = f"Toolbox: {len(self)} tool{'s' if len(self) != 1 else ''} from {', '.join(servers)}"
        if self.skills:
            from mcpnb.client.toolbox.skills import LOADER, label

            head += f"; {LOADER} loads a skill: {', '.join(label(s) for s in self.skills)}"
        return head

    def more(self, limit: int) -> str:
        """``… 806 more tools (…)`` under a table cut at ``limit`` rows; "" when it is whole."""
        hidden = len(self) - limit
        return f"… {hidden} more tools (every one is in the toolbox: toolbox.tools)" if hidden > 0 else ""

    def text(self, limit: int = SHOWN_ROWS) -> str:
        """The toolbox as a text table of at most ``limit`` rows (1006 tools drew 529 KB)."""
        tail = "".join(f"\n{line}" for line in self.left_out())
        if not self:
            return "Toolbox: no tools (no server is connected, or its tool filters hide every tool)" + tail
        more = self.more(limit)
        table = text_table(COLUMNS, self.rows(limit))
        return self.head() + "\n" + table + (f"\n{more}" if more else "") + tail

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


def _unknown_tool(name: str, known: Mapping[str, Entry]) -> str:
    """What a model reads for a tool name it made up: the tool it may have meant, and the tools
    there are, those of the server it named first.

    Names are compared by their tool part, first among the tools of the server the model named
    (``mcp__fm__subtract`` against fm's ``add``, ``paint`` …), then among every tool: whole flat
    names share their ``mcp__fm__`` prefix, which made any tool of that server look close
    (``subtract`` got ``paint``)."""
    parts = {n: _tool_part(n, e) for n, e in known.items()}
    server, wanted = _named_server(name, known)
    ours = [n for n, e in known.items() if e.function.tool.server == server]
    names = [*ours, *(n for n in known if n not in ours)]
    bare = [n for n, e in known.items() if name in (e.function.tool.name, parts[n])]
    if bare:  # the tool's own name, not the one we gave it
        hint = f"; did you mean {' or '.join(map(repr, bare))}?"
    else:
        hint = ""
        for among in (ours, names):  # as the model sees each tool, and as its server named it
            seen = {known[n].function.tool.name: n for n in reversed(among)}
            seen.update({parts[n]: n for n in reversed(among)})  # the first tool wins a shared part
            close = did_you_mean(wanted, seen)
            if close is not None:
                meant = seen[close]
                hint = did_you_mean_text(name, [meant]) or f"; did you mean {meant!r}?"
                break
    listed = ", ".join(names[:_LISTED]) + (
        f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    )
    return f"there is no tool {name!r}{hint} (the tools: {listed})"


def _tool_part(name: str, entry: Entry) -> str:
    """The tool part of a provider name: after the ``mcp__{server}__`` it starts with (the tool's
    own name when the provider's rule rewrote that prefix too)."""
    prefix = flat_name(entry.function.tool.server, "")
    return (
        name[len(prefix) :]
        if name.startswith(prefix) and len(name) > len(prefix)
        else entry.function.tool.name
    )


def _named_server(name: str, known: Mapping[str, Entry]) -> tuple[str | None, str]:
    """The server a made-up flat name names (the longest server whose ``mcp__{server}__`` it starts
    with), and the tool part of the name; ``None`` and the name's tail after any ``mcp__x__`` when
    it names no server of the toolbox."""
    servers = sorted({e.function.tool.server for e in known.values()}, key=len, reverse=True)
    for server in servers:
        prefix = flat_name(server, "")
        if name.startswith(prefix) and len(name) > len(prefix):
            return server, name[len(prefix) :]
    try:
        return None, split_flat_name(name)[1]
    except ValueError:
        return None, name


def _runs_here(tool: ToolInfo) -> bool:
    from mcpnb.client.toolbox.skills import HERE, LOADER

    return (tool.server, tool.name) == (HERE, LOADER)


def _model_terms(entry: Entry) -> Terms:
    """The names the model knows, for its argument errors: its tool name, renamed keys included, and
    its own signature line (``mcp__s__get_weather(city_name*: string)``, not the server's
    ``get weather(city name*: string)``, keys the model must not send)."""
    from mcpnb.client.arguments import Terms, signature_of

    schema = entry.schema
    line = signature_of(entry.name, schema, schema["properties"], schema.get("required") or [])
    return Terms(entry.name, line, {server: model for model, server in entry.keys.items()})
