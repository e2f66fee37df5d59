"""Subcommands that look at what servers offer and use it: tools, call, resources, read, prompts,
prompt. Arguments are parsed and checked here, before any request is sent."""

from __future__ import annotations

import argparse
import contextlib
import functools
import re
import shlex
import warnings
from collections.abc import Callable, Collection
from typing import Any

from IPython.core.error import UsageError

from mcpnb.client.errors import (
    ArgumentsError,
    McpnbError,
    ToolNotFoundError,
    UrlRequiredError,
    did_you_mean_text,
)
from mcpnb.client.interaction import CallContext
from mcpnb.client.results import ToolResult
from mcpnb.client.toolinfo import ToolList, one_left
from mcpnb.notebook.cell import acall_in_cell, call_in_cell, off_loop, url_retry
from mcpnb.notebook.magics.parser import (
    Parser,
    bare_argument,
    cell_magic_below,
    cell_magic_first,
    colon_pair,
    is_bare_value,
    not_a_pair,
    parse_body,
    parse_pairs,
    refuse_spaced_equals,
    safe_token,
    split_target,
)
from mcpnb.notebook.magics.pasted import pasted_call, tool_in_paste
from mcpnb.notebook.magics.registry import (
    Context,
    arguments,
    awaited,
    command,
    hint_if_empty,
    known_server,
    server_listing,
    servers_named,
    skip_unsupported,
    unreachable_unless_asked,
)


def check_spaced(ctx: Context, command: str, target: str, words: list[str], kind: str = "tool") -> None:
    """``%mcp call probe ui_search q=1``, a space for the dot, read ``ui_search`` as a malformed
    ``key=value``: say how to write it instead."""
    if "." in target or target not in ctx.pool.names or not words or "=" in words[0]:
        return
    named = f"{target}.{words[0]}"
    more = " key=value …" if len(words) > 1 else ""
    raise UsageError(f"write the {kind} as {named}, with a dot: %mcp {command} {named}{more}")


def find_tool(ctx: Context, target: str, *, unlisted: bool = False) -> Any:
    """The :class:`~mcpnb.client.toolinfo.ToolInfo` for ``NAME.TOOL`` (or a bare tool name that is unique).
    ``unlisted`` (``--no-validate``): a tool ``NAME`` does not list is sent all the same."""
    server, name = split_target(target)
    if server is None:
        matches = [t for t in ctx.pool.tools() if t.name == name]
        if len(matches) == 1:
            return matches[0]
        if matches:
            where = ", ".join(f"{t.server}.{t.name}" for t in matches)
            raise UsageError(f"tool {name!r} exists on several servers: say which ({where})")
        if name in ctx.pool.names:
            raise UsageError(
                f"{name!r} is a server: name one of its tools, {name}.TOOL (%mcp tools {name} lists them)"
            )
        every = [f"{t.server}.{t.name}" for t in ctx.pool.tools()]
        hint = did_you_mean_text(name, [t.split(".", 1)[1] for t in every] + every)
        raise UsageError(f"no connected server has a tool {name!r}{hint} (write NAME.TOOL)")
    cached = ctx.pool.cached_tool(server, name)  # the common case: no round trip to the runtime loop
    if cached is not None:
        return cached
    known_server(ctx, server)
    if unlisted:  # the server's own unknown-tool error is what is tested (a filtered tool is refused)
        return ctx.pool.find_tool(server, name, unlisted=True)
    # as pool.call looks it up: the last list, stale or not (list_changed, or past its TTL), asked
    # again only when it lacks the name; never the whole list before each call (5000 tools: seconds)
    catalog = ctx.pool.connection(server).catalog
    try:
        return ctx.pool.find_tool(server, name)
    except ToolNotFoundError as exc:
        if catalog.filter.active and catalog.filter.why_hidden(name):  # "filtered out (…)"
            raise UsageError(str(exc)) from None
    tools = {t.name: t for t in catalog.listed() or ()}  # as listed just now, by find_tool
    spaced = sorted(t for t in tools if t.startswith(f"{name} "))  # "my tool" typed unquoted
    elsewhere = server_listing(ctx, name, but=server)  # demo's echo typed as probe.echo
    hint = (
        f"; did you mean {server}.{shlex.quote(spaced[0])}? (a name with a space is quoted)"
        if spaced
        else f"; did you mean {elsewhere}.{name}?"
        if elsewhere
        else did_you_mean_text(name, tools)
    )
    raise UsageError(f"server {server!r} has no tool {name!r}{hint} (%mcp tools {server} lists them)")


# ---------------------------------------------------------------- tools
def _tools_args(p: Parser) -> None:
    p.add_argument(
        "name",
        nargs="?",
        help="one server (default: every connected server), or NAME.TOOL: that tool in full",
    )
    p.add_argument("pattern", nargs="?", help="as --filter: %%mcp tools probe review")
    p.add_argument(
        "--filter",
        metavar="PATTERN",
        help="keep tools whose name holds PATTERN or whose title or description has a word "
        "starting with it; a glob (get_*) matches names",
    )
    p.add_argument("--refresh", action="store_true", help="ask the server again instead of the cached list")


@command(
    "tools",
    "List tools: server, tool, description, parameters (* = required), and title and hints where "
    "a tool has them; "
    "NAME.TOOL shows one tool in full (each parameter's type, default and description).",
)
@arguments(_tools_args)
def tools(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.pattern and ns.filter:
        raise UsageError("%mcp tools: give the pattern once (after the server, or as --filter)")
    pattern = ns.pattern or ns.filter
    one = ns.name and ns.name not in ctx.pool.names and ("." in ns.name or ns.name.startswith("mcp__"))
    if one:  # %mcp tools db.execute_sql (or its flat name, mcp__db__execute_sql)
        if pattern:
            raise UsageError(
                f"%mcp tools {ns.name} shows one tool: a pattern filters a listing (%mcp tools NAME PATTERN)"
            )
        if ns.refresh:
            ctx.pool.tools(known_server(ctx, split_target(ns.name)[0] or ""), refresh=True)
        card = find_tool(ctx, ns.name)
        stale = ctx.pool.connection(card.server).catalog.stale()
        if stale is not None:  # its card as listed before, under what is wrong now
            from mcpnb.client.printable import printable

            print(printable(stale.text("card")))
        return card
    if ns.name:
        known_server(ctx, ns.name)
    else:
        hint_if_empty(ctx)
    found = ctx.pool.tools(ns.name, refresh=ns.refresh)
    if pattern:
        where, listing = (ns.name, f"%mcp tools {ns.name}") if ns.name else ("any server", "%mcp tools")
        # not "(no tools)", which reads as if the server had none
        empty = f"no tool of {where} matches {pattern!r} ({len(found)} tools: {listing} lists them)"
        kept = (t for t in found if _matches(pattern, t))
        found = ToolList(kept, not_listed=found.not_listed, empty=empty, stale=found.stale)
    return found


def _matches(pattern: str, tool: Any) -> bool:
    """A glob (``get_*``) matches the name; plain words match inside the name, or at the start of a
    word of the title or description ("ui" finds ``genui`` and "UI components", not "required")."""
    import fnmatch

    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(tool.name.lower(), pattern.lower())
    words = pattern.lower()
    if words in tool.name.lower():
        return True
    text = " ".join(p for p in (tool.title, tool.description) if p).lower()
    return re.search(rf"(?<![a-z0-9]){re.escape(words)}", text) is not None


# ---------------------------------------------------------------- call
def _call_args(p: Parser) -> None:
    p.add_argument("target", metavar="NAME.TOOL", help="server and tool, e.g. probe.ui_search")
    p.add_argument(
        "pairs",
        nargs="*",
        default=(),
        metavar="key=value",
        help="arguments (values read as JSON if they parse)",
    )
    p.add_argument("--timeout", type=float, metavar="S", help="seconds before the call is cancelled")
    p.add_argument(
        "--raw",
        action="store_true",
        help="show the result as wire JSON (--transcript shows it exactly as sent)",
    )
    p.add_argument(
        "--transcript",
        action="store_true",
        help="show the call's JSON-RPC traffic (collapsed) under the result",
    )
    p.add_argument(
        "--answers", metavar="VAR", help="a dict variable answering the server's form (nobody is asked)"
    )
    p.add_argument(
        "--no-validate",
        action="store_true",
        dest="no_validate",
        help="send the arguments as given, unchecked, even to a tool the server does not list: the "
        "server's own validation answers (testing it)",
    )
    p.add_argument("--task", action="store_true", help="run as a task: a live handle (status, cancel)")
    p.add_argument(
        "--ttl",
        type=int,
        metavar="MS",
        help="with --task (or a tool that runs only as a task): how long the server keeps it",
    )
    p.add_argument(
        "--no-view",
        action="store_true",
        help="a tool with a page of its own (an MCP App): show the result without drawing the page",
    )


@command(
    "call",
    "Call a tool. Arguments are checked against the tool's inputSchema before anything is sent.",
    takes_cell=True,
    epilog="examples (after %mcp serve probe-kit):\n"
    '  %mcp call probe.ui_search query="date picker" limit=3\n'
    '  %mcp call probe.ui_search "date picker"\n'
    '  r = %mcp call probe.code_review source="eval(input())"\n'
    "  %%mcp call probe.ui_search -o hits      (then a body of 'key: value' lines or a JSON object;\n"
    "  query: login {{topic}}                   {{var}} inserts a notebook variable)\n"
    "a tool's one text parameter (a query, SQL, a URL) goes bare: one quoted word on the line, or\n"
    "a body that is the text itself, sent as written but for {{name}} of a notebook variable; so\n"
    "does the one the line leaves: %%mcp call ds.execute_sql database=shop, the query below;\n"
    "a tools/call pasted whole (from the Inspector, a transcript) sends its arguments:\n"
    '  %%mcp call probe      (then {"name": "ui_search", "arguments": {"query": "date"}})',
    remember=True,
)
@arguments(_call_args)
def call(ctx: Context, ns: argparse.Namespace) -> Any:
    _target_in_paste(ctx, ns)
    check_spaced(ctx, "call", ns.target, ns.pairs)
    tool = find_tool(ctx, ns.target, unlisted=ns.no_validate)
    values, answers = _checked(ctx, ns, tool, _call_arguments(ctx, ns, tool))
    if ns.task or tool.task_support == "required":
        from mcpnb.client.tasks.pooled import unsent_ttl

        _refuse_plain_only(ctx, tool)
        why = unsent_ttl(ctx.pool, tool.server, ns.ttl)
        if why is not None:
            raise UsageError(f"--ttl: {why}; leave --ttl out (nothing was started)")
        if ns.transcript:
            raise UsageError(
                f"--transcript records one call's traffic, and {tool.name} runs as a task (its traffic "
                "spans many requests, polls included): leave --transcript out; nothing was started"
            )
        from mcpnb.notebook.taskview import TaskCell

        # the task may ask later: its questions go to this cell, whose context is captured now
        cell = TaskCell(ctx.settings.elicitation)
        later = CallContext(answers=answers, ui=cell)
        page = _page(ctx, ns, tool, values)  # the page hears the task's result when it ends
        cell.reserve(f"{tool.server}.{tool.name}")
        try:
            handle = ctx.pool.start_task(tool.server, tool.name, values, ttl_ms=ns.ttl, context=later)
        except BaseException as exc:
            cell.withdraw("did not start as a task")
            _landed(page, exc)
            raise
        _landed(page, handle)
        # the cell's output follows the task to its end (what a saved notebook keeps); the handle
        # is still the cell's value (h = %mcp call ... --task), shown there only once
        cell.follow(handle)
        return handle

    page = _page(ctx, ns, tool, values)
    try:
        result = call_in_cell(
            ctx.pool, tool.server, tool.name, values, info=tool, **_in_cell(ctx, ns, answers)
        )
    except UrlRequiredError as needs_page:  # a consent panel with "retry the call", where one can click
        # an awaiting cell waits there and gets the retried result (None when the person said no)
        result = url_retry(ctx.pool, needs_page, values, mode=ctx.settings.elicitation, timeout=ns.timeout)
    except BaseException as exc:
        _landed(page, exc)
        raise
    _landed(page, result)
    return _shown(result, ns)


@awaited("call")
async def acall(ctx: Context, ns: argparse.Namespace) -> Any:
    """``%mcp call`` in an awaiting cell: the server is awaited on the kernel's loop, no thread between.

    A task, or a tool whose list is not cached yet, takes the blocking path in a thread instead.
    """
    _target_in_paste(ctx, ns)
    server, name = split_target(ns.target)
    tool = ctx.pool.cached_tool(server, name) if server is not None else None
    if tool is None or ns.task or tool.task_support == "required":
        return await off_loop(call, ctx, ns)
    values, answers = _checked(ctx, ns, tool, _call_arguments(ctx, ns, tool))
    page = await _apage(ctx, ns, tool, values)
    try:
        result = await acall_in_cell(
            ctx.pool, tool.server, tool.name, values, info=tool, **_in_cell(ctx, ns, answers)
        )
    except UrlRequiredError as needs_page:  # the consent panel holds the cell until the retry or a no
        retry = functools.partial(url_retry, mode=ctx.settings.elicitation, timeout=ns.timeout)
        result = await off_loop(retry, ctx.pool, needs_page, values)
    except BaseException as exc:
        _landed(page, exc)
        raise
    _landed(page, result)
    return _shown(result, ns)


def _call_arguments(ctx: Context, ns: argparse.Namespace, tool: Any) -> Any:
    """The call's arguments from the line and the cell body (a key in both is an error).

    A tool with one text parameter (``ToolInfo.text_parameter``: ``sql``, ``query``, ``url``) takes
    it bare: one word on the line (quoted if it has spaces), or a body that is not ``key: value``
    lines, sent as written but for ``{{name}}`` of a notebook variable (JupySQL's ``%%sql`` cell);
    so does the one left once the line gave the others (``%%mcp call ds.execute_sql database=shop``
    over the query)."""
    refuse_spaced_equals(ns.pairs)  # "timezone = UTC" is no text to quote
    args, loose, bare = _spaced_text(ctx, ns.pairs, tool) or _line_arguments(
        ctx, ns.pairs, tool.text_parameter_left, tool.parameters
    )
    if loose:  # two words, or more, where the one text parameter was meant
        first = loose[0] if safe_token(loose[0]) == repr(loose[0]) else ""  # never a secret
        raise UsageError(
            f"{tool.name} takes its {bare!r} bare, as one word: quote it "
            f'(%mcp call {tool.server}.{tool.name} "{first} …"), or write it on the lines '
            f"below %%mcp call {tool.server}.{tool.name}"
        )
    if ctx.cell is not None:  # the line's arguments may leave one text parameter for the body
        bare, under = tool.text_parameter_left(args), cell_magic_first(ctx.cell)
        if under is not None and bare is None:
            raise UsageError(f"{cell_magic_below(under)}: nothing was sent")
        if under is not None:  # code for a tool that runs it (%%bash for a notebook server) may be meant
            warnings.warn(
                f"{cell_magic_below(under)}: the body went out as the text of {bare!r}", stacklevel=2
            )
        body = parse_body(ctx.cell, ctx.namespaces, bare=bare, params=tool.parameters)
        ctx.silent = ctx.silent and not body.text_body  # "SELECT ...;" is a query, not "show nothing"
        pasted = None if body.text_body else pasted_call(body, tool.parameters, as_task=ns.task)
        if pasted is not None:  # a tools/call copied whole (the Inspector, a transcript)
            named, body = pasted
            if named is not None and named != tool.name:
                raise UsageError(
                    f"the cell body is a call of {named!r}, and the line names {tool.server}.{tool.name}: "
                    f"call {tool.server}.{named}, or put {tool.name}'s arguments alone in the body"
                )
        args = _joined(args, body)
    return args


def _target_in_paste(ctx: Context, ns: argparse.Namespace) -> None:
    """``%%mcp call probe`` over a pasted call that names its tool: that tool of ``probe``."""
    if "." not in ns.target and ns.target in ctx.pool.names:
        ns.target = tool_in_paste(ns.target, ctx.cell) or ns.target


def _spaced_text(ctx: Context, words: list[str], tool: Any) -> tuple[Any, list[str], str] | None:
    """``%mcp call calc.evaluate "x = 1"``: one quoted word with spaces around its ``=``, whose left
    side the tool has no parameter of, is its one text (code, a formula), as a prompt's one
    argument takes it; it was read as an argument named ``x``, "unknown argument"."""
    spaced = [w for w in words if _SPACED_EQUALS.match(w)]
    if len(spaced) != 1 or any(is_bare_value(w, ctx.namespaces, tool.parameters) for w in words):
        return None
    if spaced[0].partition("=")[0].strip() in tool.parameters:
        return None
    others = parse_pairs([w for w in words if w is not spaced[0]], ctx.namespaces)
    bare = tool.text_parameter_left(others)
    if bare is None:
        return None
    return _joined(others, bare_argument(bare, spaced[0], ctx.namespaces)), [], bare


def _line_arguments(
    ctx: Context,
    words: list[str],
    left: Callable[[Collection[str]], str | None],
    params: Collection[str] | None = None,
) -> tuple[Any, list[str], str | None]:
    """The line's arguments; one bare word goes to the argument the named ones leave (``left``
    says which: a tool's one text parameter, a prompt's one argument). Several bare words where
    one is meant are returned, with that argument, for the caller to say how to write them.
    ``params``: the tool's, for :func:`~mcpnb.notebook.magics.parser.is_prose`."""
    loose = [w for w in words if is_bare_value(w, ctx.namespaces, params)]
    if loose:
        named = parse_pairs([w for w in words if w not in loose], ctx.namespaces)
        bare = left(named)
        for word in loose:  # "name:Ada" for greet's one text "name", a body line's way: sent as "name:Ada"
            # (a search's "repo:octo/hello is:open" for its query, beside a repo parameter, is meant)
            if bare is not None and colon_pair(word) == bare and not any(c.isspace() for c in word):
                raise UsageError(f"expected key=value, got {not_a_pair(word, '', words)}")
        if bare is not None and len(loose) == 1:
            return _joined(named, bare_argument(bare, loose[0], ctx.namespaces)), [], bare
        if bare is not None:
            return named, loose, bare
    return parse_pairs(words, ctx.namespaces), [], None  # a loose word nothing takes: said there


def _joined(line: Any, more: Any) -> Any:
    """The line's arguments and those of the body (or of a bare word); a key in both is an error."""
    for key in more:
        if key in line:
            raise UsageError(f"argument {key!r} is given on the magic line and in the cell body")
    line.update(more)
    line.raw.update(more.raw)
    line.lines.update(more.lines)
    return line


def _checked(
    ctx: Context, ns: argparse.Namespace, tool: Any, args: Any
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The arguments checked against the tool's inputSchema, and the form answers given, if any."""
    from mcpnb.client.arguments import check_arguments, unchecked_arguments
    from mcpnb.client.timeouts import checked_timeout

    try:
        values = unchecked_arguments(tool, args) if ns.no_validate else check_arguments(tool, args)
    except ArgumentsError:
        fresh = None if ns.no_validate else ctx.pool.relisted_tool(tool.server, tool.name)
        if fresh is None:  # a fresh list said so: the arguments are wrong
            raise
        values = check_arguments(fresh, args)
    try:
        checked_timeout(ns.timeout, "--timeout", unset="no --timeout")
    except ValueError as exc:  # nan, 0, a year: "timed out after nan s" once sent
        raise UsageError(str(exc)) from None
    answers = _answers(ctx, ns.answers)
    if ns.ttl is not None and not ns.task and tool.task_support != "required":
        raise UsageError("--ttl goes with --task")
    if ns.ttl is not None and ns.ttl < 0:
        raise UsageError(f"--ttl must be 0 or more milliseconds (got {ns.ttl})")
    return values, answers


def _refuse_plain_only(ctx: Context, tool: Any) -> None:
    """``--task`` for a listed tool that runs only as a plain call: said in the magic's words before
    the cell shows "starting … as a task" (the pool's own refusal speaks of ``task=True``). A tool
    the server does not list (``--no-validate``) is left to the pool, which says it is unknown."""
    listed = ctx.pool.connection(tool.server).tool_cache.peek() or {}  # the last list, fresh or not
    if tool.task_support != "forbidden" or tool.name not in listed:
        return
    from mcpnb.client.tasks.optin import server_offers_tasks

    conn = ctx.pool.connection(tool.server)
    why = (
        "its execution.taskSupport is forbidden"
        if server_offers_tasks(conn.capabilities, conn.era)
        else f"{tool.server!r} offers no tasks"
    )
    raise UsageError(
        f"{tool.server}.{tool.name} does not run as a task ({why}): call it without --task; "
        "nothing was started"
    )


def _in_cell(ctx: Context, ns: argparse.Namespace, answers: dict[str, Any] | None) -> dict[str, Any]:
    """How the cell makes the call: its timeout, given answers, and whether to keep a transcript."""
    return {
        "timeout": ns.timeout,
        "answers": answers,
        "transcript": ns.transcript or ctx.settings.show_transcript,
    }


def _shown(result: Any, ns: argparse.Namespace) -> Any:
    """What the cell shows: the result or its JSON (``--raw``); a :class:`~mcpnb.notebook.cell.LiveCall`
    (a person is asked in this cell, the result shows there later) or a declined retry's None as is."""
    if not isinstance(result, ToolResult):
        return result
    return RawJson(result.json()) if ns.raw else result


# MCP Apps: a tool with a page of its own gets it drawn before the call is sent (render/app_view)
def _page(ctx: Context, ns: argparse.Namespace, tool: Any, values: Any) -> Any:
    if ns.raw or ns.no_view:
        return None
    from mcpnb.notebook.render.app_view import page_for_call

    return page_for_call(ctx.pool, tool, values)


async def _apage(ctx: Context, ns: argparse.Namespace, tool: Any, values: Any) -> Any:
    if ns.raw or ns.no_view:
        return None
    from mcpnb.notebook.render.app_view import apage_for_call

    return await apage_for_call(ctx.pool, tool, values)


def _landed(page: Any, outcome: Any) -> None:
    if page is not None:
        page.deliver(outcome)


def _answers(ctx: Context, name: str | None) -> dict[str, Any] | None:
    if name is None:
        return None
    from mcpnb.notebook.magics.parser import lookup

    value = lookup(name, ctx.namespaces, label=f"--answers {name}")
    if not isinstance(value, dict):
        raise UsageError(f"--answers {name}: expected a dict of field -> value, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------- explore
@command(
    "explore", "Pick a server and a tool, fill a form made from its input schema, and call it (widgets)."
)
@arguments(lambda p: p.add_argument("name", nargs="?", help="the server to start with"))
def explore(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.cell import CellUI, ToolExplorer

    if ns.name:
        known_server(ctx, ns.name)
    if CellUI(ctx.settings.elicitation).mode != "widget":
        raise UsageError(
            "explore needs a widget frontend (JupyterLab, Notebook); use %mcp tools and %mcp call"
        )
    try:
        return ToolExplorer(ctx.pool, ns.name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# ---------------------------------------------------------------- tasks
def _tasks_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="one server")
    p.add_argument(
        "--attach",
        metavar="ID",
        help="a live handle for task ID on that server, started elsewhere (another notebook, a restart)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="list expired tasks too (ones the server no longer has: their TTL ran out)",
    )


@command(
    "tasks",
    "Tasks this notebook started (and, on 2025-11-25 servers, every task the server lists); "
    "expired ones only with --all.",
)
@arguments(_tasks_args)
def tasks(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.magics.listings import TaskList

    if ns.name:
        known_server(ctx, ns.name)
    if ns.attach is not None:
        if not ns.name:
            raise UsageError("--attach needs the server: %mcp tasks NAME --attach ID")
        from mcpnb.notebook.magics.parser import fill_text
        from mcpnb.notebook.taskview import TaskCell

        task_id = fill_text(ns.attach, ctx.namespaces).strip()  # {{tid}}: the id a notebook kept
        # the task may ask later: its questions go to this cell, whose context is captured now
        cell = TaskCell(ctx.settings.elicitation)
        cell.reserve(f"task {task_id} on {ns.name}", attaching=True)
        try:
            handle = ctx.pool.attach_task(ns.name, task_id, context=CallContext(ui=cell))
        except BaseException:
            cell.withdraw("could not be followed")
            raise
        cell.follow(handle)  # followed to its end in this cell's output, as %mcp call --task does
        return handle
    return TaskList(ctx.pool.tasks(ns.name), everything=ns.everything)


class RawJson(dict[str, Any]):
    """``--raw``: the wire result as JSON (a dict), shown expanded in JupyterLab."""

    def __repr__(self) -> str:
        import json

        return json.dumps(self, indent=2, ensure_ascii=False, default=str)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"application/json": dict(self), "text/plain": repr(self)}


# ---------------------------------------------------------------- resources and prompts
@command(
    "resources",
    "List resources and resource templates of one server (default: every connected server).",
)
@arguments(lambda p: p.add_argument("name", nargs="?", help="one server"))
def resources(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.magics.completion import remember_resource_uris
    from mcpnb.notebook.magics.listings import ResourceList

    rows: list[tuple[str, Any]] = []
    missed = unreachable_unless_asked(ctx, ns.name)
    for server in (s for s in servers_named(ctx, ns.name) if s not in missed):
        fetch = functools.partial(ctx.pool.resources, server)
        listed = list(skip_unsupported(ctx, ns.name, server, "resources", fetch, missed))
        if server not in missed:  # what Tab after %mcp read NAME offers next
            remember_resource_uris(ctx.pool, server, (getattr(r, "uri", "") for r in listed))
        rows += [(server, r) for r in listed]
        with contextlib.suppress(McpnbError):  # templates are optional: a server may list none
            rows += [(server, t) for t in ctx.pool.resource_templates(server)]
    return ResourceList(rows, not_listed=missed)


def _read_args(p: Parser) -> None:
    p.add_argument("name", help="the server (may be left out where one server has the URI)")
    p.add_argument("uri", nargs="?", help="the resource URI (from %%mcp resources or a resource link)")


#: A URI's scheme (``rp:``, ``file:``, ``https:``): what no server name starts with.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@command("read", "Read one resource: text shown, binary contents summarised.")
@arguments(_read_args)
def read(ctx: Context, ns: argparse.Namespace) -> Any:
    if ns.uri is None:
        ns.name, ns.uri = _server_of(ctx, ns.name), ns.name
    known_server(ctx, ns.name)
    placeholder = re.search(r"\{[^{}]+\}", ns.uri)
    if placeholder:  # copied from a template's row of %mcp resources
        raise UsageError(
            f"{ns.uri} is a resource template: fill in {placeholder.group(0)} first, "
            f"e.g. %mcp read {ns.name} {ns.uri[: placeholder.start()]}VALUE{ns.uri[placeholder.end() :]}"
        )
    return ctx.pool.read(ns.name, ns.uri)


def _server_of(ctx: Context, word: str) -> str:
    """The server a lone ``%mcp read URI`` means: the one connected, or the one of several that lists
    that URI. A word with no scheme is a server named without its URI: say to give both."""
    if word in ctx.pool.names or not _SCHEME.match(word):
        raise UsageError(
            f"%mcp read {word} needs the resource's URI too: %mcp read NAME URI (%mcp resources lists them)"
        )
    names = ctx.pool.names
    if len(names) == 1:
        return names[0]
    if not names:
        hint_if_empty(ctx)
        raise UsageError(f"no server is connected to read {word} from")
    listing = []
    for server in names:
        with contextlib.suppress(McpnbError):  # one that lists none, or is down, is not the one
            if any(str(r.uri) == word for r in ctx.pool.resources(server)):
                listing.append(server)
    if len(listing) == 1:
        return listing[0]
    which = f" ({', '.join(listing)} list it)" if listing else ""
    raise UsageError(f"name the server to read {word} from{which}: %mcp read NAME {word}")


def _prompts_args(p: Parser) -> None:
    p.add_argument("name", nargs="?", help="one server, or NAME.PROMPT: that prompt in full")
    p.add_argument("--refresh", action="store_true", help="ask the server again instead of the cached list")


@command(
    "prompts",
    "List prompt templates of one server (default: every connected server); NAME.PROMPT shows one "
    "prompt in full (each argument's description).",
)
@arguments(_prompts_args)
def prompts(ctx: Context, ns: argparse.Namespace) -> Any:
    from mcpnb.notebook.magics.listings import PromptCard, PromptList

    if ns.name and ns.name not in ctx.pool.names and "." in ns.name:  # %mcp prompts ev.args-prompt
        server, name = split_target(ns.name, "prompt")
        server = known_server(ctx, server or "")
        if ns.refresh:
            ctx.pool.prompts(server, refresh=True)
        try:
            return PromptCard(server, ctx.pool.find_prompt(server, name))
        except ArgumentsError as exc:
            raise UsageError(f"{exc} (%mcp prompts {server} lists them)") from None
    rows: list[tuple[str, Any]] = []
    missed = unreachable_unless_asked(ctx, ns.name)
    for server in (s for s in servers_named(ctx, ns.name) if s not in missed):
        fetch = functools.partial(ctx.pool.prompts, server, refresh=ns.refresh)
        rows += [(server, p) for p in skip_unsupported(ctx, ns.name, server, "prompts", fetch, missed)]
    return PromptList(rows, not_listed=missed)


def _prompt_arguments(ctx: Context, server: str, name: str, words: list[str]) -> Any:
    """The line's arguments; one bare word goes, as with ``%mcp call``, to the prompt's one
    argument the named ones leave (its one required, or its only one; the server's list is read
    only for a bare word)."""

    @functools.cache
    def arguments() -> list[Any]:
        found = next((p for p in ctx.pool.prompts(server) if p.name == name), None)
        return list(getattr(found, "arguments", None) or [])

    def left(given: Collection[str]) -> str | None:
        said = arguments()
        return one_left([a.name for a in said if a.required], [a.name for a in said], given)

    spaced = [w for w in words if _SPACED_EQUALS.match(w)]
    if len(spaced) == 1 and not any(is_bare_value(w, ctx.namespaces) for w in words):
        # "x = 1", quoted: code for a prompt's one argument, not an argument named x (none is)
        key = spaced[0].partition("=")[0].strip()
        others = parse_pairs([w for w in words if w is not spaced[0]], ctx.namespaces)
        bare = left(others) if key not in {a.name for a in arguments()} else None
        if bare is not None:
            return _joined(others, bare_argument(bare, spaced[0], ctx.namespaces))
    args, loose, _ = _line_arguments(ctx, words, left)
    return parse_pairs(words, ctx.namespaces) if loose else args  # several loose words: said there


#: A word with spaces around its first ``=`` (``"x = 1"``, quoted on the line): Python, not ``key=value``.
_SPACED_EQUALS = re.compile(r"^[^=]*?\S(?:\s+=\s*|=\s+)", re.DOTALL)


def _prompt_args(p: Parser) -> None:
    p.add_argument("target", metavar="NAME.PROMPT", help="server and prompt, e.g. probe.explain_tool")
    p.add_argument("pairs", nargs="*", default=(), metavar="key=value", help="prompt arguments (text)")


@command("prompt", "Render a prompt template with arguments and show its messages.")
@arguments(_prompt_args)
def prompt(ctx: Context, ns: argparse.Namespace) -> Any:
    check_spaced(ctx, "prompt", ns.target, ns.pairs, "prompt")
    server, name = split_target(ns.target, "prompt")
    if server is None:
        also = f": name one of its prompts, {name}.PROMPT (%mcp prompts {name} lists them)"
        raise UsageError(f"expected NAME.PROMPT, got {ns.target!r}{also if name in ctx.pool.names else ''}")
    known_server(ctx, server)
    parsed = _prompt_arguments(ctx, server, name, ns.pairs)
    # Prompt arguments are strings on the wire: keep what was typed, not its JSON reading.
    args = {k: parsed.raw.get(k, v) for k, v in parsed.items()}
    try:
        return ctx.pool.prompt(server, name, args)
    except ArgumentsError as exc:
        raise UsageError(f"{exc} (%mcp prompts {server} lists them)") from None
