"""``%mcp`` and ``%%mcp``: a thin parser over the public :class:`~mcpnb.client.pool.Pool` API.

Loading stays fast (IPython and the standard library only; the SDK, pandas and jsonschema load when
a subcommand needs them) and never fails because of a broken default ``.mcp.json``: it warns.
Errors follow JupySQL/BigQuery: a usage problem is a ``UsageError`` with "did you mean"; a server
problem is one short red line (its own exception type, so ``except mcpnb.CallError`` still works);
``--verbose`` shows the full traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import builtins
import contextlib
import functools
import keyword
import re
import sys
import warnings
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    line_cell_magic,
    magics_class,
    needs_local_scope,
    no_var_expand,
)
from IPython.core.magic_arguments import argument, magic_arguments

from mcpnb.client import logfilter
from mcpnb.client.errors import (
    ArgumentsError,
    McpnbError,
    ToolNotFoundError,
    UnknownServerError,
    did_you_mean_text,
)
from mcpnb.client.printable import printable
from mcpnb.notebook.frontend import current_shell
from mcpnb.notebook.magics.commands import COMMANDS, Command, Context, overview
from mcpnb.notebook.magics.connect import stale_note
from mcpnb.notebook.magics.parser import (
    HelpShown,
    cell_magic_below,
    cell_magic_first,
    split_line,
    without_final_semicolon,
)

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.notebook.settings import Mcp

__all__ = ["Interrupted", "McpMagics", "load_ipython_extension", "unload_ipython_extension"]

_VERBOSE = "--verbose"


@magics_class
class McpMagics(Magics):
    """The ``%mcp`` magics. ``pool`` is the process-wide default pool unless a test or app swaps it."""

    def __init__(self, shell: Any, settings: Mcp) -> None:
        super().__init__(shell)
        self.settings = settings
        self._pool: Pool | None = None

    @property
    def pool(self) -> Pool:
        if self._pool is None or self._pool.runtime.closed:
            from mcpnb.client.pool import default_pool

            return default_pool()
        return self._pool

    @pool.setter
    def pool(self, pool: Pool | None) -> None:
        self._pool = pool

    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    @magic_arguments()
    @argument("subcommand", nargs="?", help="what to do (default: status); see the list below")
    @argument("args", nargs="*", help="the subcommand's arguments; %%mcp SUBCOMMAND -h explains them")
    @argument("--verbose", action="store_true", help="show the full traceback on errors")
    def mcp(self, line: str, cell: str | None = None, local_ns: Mapping[str, Any] | None = None) -> Any:
        """Explore MCP servers: connect, list tools, call them, read resources, render prompts.

        Write ``{{var}}`` to insert a notebook variable, or ``{{expr}}`` a Python expression
        (``{{len(rows)}}``; quote it on the line if it has spaces). IPython's ``{var}`` and ``$var``
        are not expanded (JSON has braces): naming a notebook variable that way is an error that
        says so. A ``key: |`` block is sent as written, braces and all; a body that is a tool's one
        text (a query) fills only ``{{name}}`` of a notebook variable, as JupySQL does.
        A final ``;`` hides the output, as in Python (``r = %mcp call ...;`` still keeps the
        result); a ``%%mcp`` body's final ``;`` too, but for a tool's one text, whose ``;`` is its own.
        """
        return self.run(line, cell, local_ns)

    def run(self, line: str, cell: str | None, local_ns: Mapping[str, Any] | None = None) -> Any:
        """Parse and run one ``%mcp`` line (and ``%%mcp`` body); errors become short messages."""
        line, tokens, verbose, silent = _read_line(line, cell)
        with _short_errors(line, tokens, verbose), _warnings_as_text():
            found = self._prepare(tokens, cell, local_ns, silent)
            if found is not None:
                command, ctx, ns = found
                with _edited_servers(ctx, tokens[0] if tokens else "status", ns):
                    result = command.run(ctx, ns)
                return self._given(ctx, _keep(ctx, ns, result))
        return None  # only help was shown

    async def arun(self, line: str, cell: str | None, local_ns: Mapping[str, Any] | None = None) -> Any:
        """:meth:`run` for a cell that awaits: parsed on the kernel's thread, then the subcommand's
        awaited twin runs on the kernel's loop (``%mcp call``), or the subcommand in a thread."""
        from mcpnb.notebook.cell import off_loop

        line, tokens, verbose, silent = _read_line(line, cell)
        with _short_errors(line, tokens, verbose), _warnings_as_text():
            found = self._prepare(tokens, cell, local_ns, silent)
            if found is not None:
                command, ctx, ns = found
                with _edited_servers(ctx, tokens[0] if tokens else "status", ns):
                    if command.awaited is not None:
                        result = await command.awaited(ctx, ns)
                    else:
                        result = await off_loop(command.run, ctx, ns)
                return self._given(ctx, _keep(ctx, ns, result))
        return None  # only help was shown

    def _given(self, ctx: Context, result: Any) -> Any:
        """The result, always (``r = %mcp call ...;`` keeps it); a final ``;`` only hides its display."""
        if ctx.silent and result is not None and self.shell is not None:
            _quiet_once(self.shell)
        return result

    def _prepare(
        self, tokens: list[str], cell: str | None, local_ns: Mapping[str, Any] | None, silent: bool = False
    ) -> tuple[Command, Context, argparse.Namespace] | None:
        """The subcommand, what it may use and its parsed arguments; None when only help was asked."""
        if not tokens:
            tokens = ["status"]
        sub, rest = tokens[0], tokens[1:]
        if sub in ("-h", "--help"):
            print(overview())
            return None
        command = COMMANDS.get(sub)
        later = next((t for t in rest if t in COMMANDS), None) if sub.startswith("-") else None
        if command is None and later is not None:  # "%mcp --timeout 5 call ...": argparse's order
            option = sub.split("=", 1)[0]
            raise UsageError(f"{option} goes after the subcommand: %mcp {later} … {option}")
        if command is None:
            raise UsageError(
                f"unknown subcommand {sub!r}{did_you_mean_text(sub, COMMANDS)} (%mcp help lists them)"
            )
        if cell is not None and cell.strip() and not command.takes_cell:
            raise UsageError(f"%%mcp {sub} takes no cell body; use the line magic %mcp {sub}")
        under = cell_magic_first(cell) if sub != "call" else None  # (call: where the tool is known)
        if under is not None:
            raise UsageError(cell_magic_below(under))
        user_ns = self.shell.user_ns if self.shell is not None else {}
        namespaces = [ns_ for ns_ in (local_ns, user_ns) if ns_ is not None]
        if sub == "connect":
            from mcpnb.notebook.magics.connect import split_command

            rest, tail = split_command(command.parser, rest, namespaces)
        ns = command.parser.parse(rest)
        if sub == "connect":
            ns.command = tail
        out = getattr(ns, "out", None)
        if out is not None and (not out.isidentifier() or keyword.iskeyword(out)):
            raise UsageError(f"-o needs a Python variable name, got {out!r}")
        if out is not None and hasattr(builtins, out):  # "-o print": the next print() would fail
            raise UsageError(f"-o {out} would hide Python's own {out}; choose another name")
        return command, Context(self.pool, self.settings, namespaces, user_ns, cell, silent), ns


def _read_line(line: str, cell: str | None) -> tuple[str, list[str], bool, bool]:
    """The line without a silencing ``;``, its words without ``--verbose``, that flag, and whether
    the output is silenced (a trailing ``;`` on the line, or on the body of a ``%%mcp`` cell)."""
    said = line if cell is None else cell
    silent = without_final_semicolon(said) != said
    if cell is None:
        line = without_final_semicolon(line)  # not an argument
    tokens = list(_remembered_words(line)) if _remembers(line) else split_line(line)
    cut = tokens.index("--") if "--" in tokens else len(tokens)
    verbose = _VERBOSE in tokens[:cut]
    if verbose:
        tokens = [t for i, t in enumerate(tokens) if t != _VERBOSE or i > cut]
    return line, tokens, verbose, silent


def _quiet_once(shell: Any) -> None:
    """Keep this cell's display hook from showing a value, as ``expr;`` does in Python.

    IPython reads the ``;`` of the code it runs, and a magic's line becomes a call there
    (``get_ipython().run_line_magic(...)``, no ``;``): so the magic says it. The hook is quiet until
    the cell ends; an assignment (``r = %mcp call ...;``) never reaches it and keeps the value.
    """
    hook = shell.displayhook
    if "quiet" in vars(hook):  # already quiet for this cell (a loop of silenced calls)
        return
    hook.quiet = lambda: True

    def restore(*_: Any) -> None:  # when the cell ends (or the next starts: a magic run from code)
        vars(hook).pop("quiet", None)
        for event in ("post_execute", "pre_execute"):
            shell.events.unregister(event, restore)

    for event in ("post_execute", "pre_execute"):
        shell.events.register(event, restore)


def _remembers(line: str) -> bool:
    """Whether the line's subcommand keeps what it parsed (``call``; never ``connect``'s secrets)."""
    first = line.split(None, 1)[:1]
    command = COMMANDS.get(first[0]) if first else None
    return command is not None and command.parser.remember


@functools.lru_cache(maxsize=64)
def _remembered_words(line: str) -> tuple[str, ...]:
    """The words of a line run again and again (a loop), split once: splitting costs more than the lookup.

    Only ``call`` lines are remembered, and their ``key=[...]`` / ``key={...}`` values stay JSON."""
    return tuple(split_line(line, json_values=True))


#: The subcommands that use a server's tools, prompts or resources, or show its row: where a
#: server connected as ``{{var}}`` that the notebook has since built anew (its cell edited and run
#: again) is said to be the old one.
_USES_A_SERVER = {"status", "tools", "call", "functions", "resources", "read", "prompts", "prompt"}


@contextlib.contextmanager
def _edited_servers(ctx: Context, sub: str, ns: argparse.Namespace) -> Iterator[None]:
    """Before a subcommand runs, one note per server it concerns whose ``{{var}}`` now holds another
    server object than the one connected (once per new object: the tools listed, the call answered
    are the old code's, which nothing else would say). An error of a call or prompt on such a
    server (an unknown argument, a missing tool: the edit is not connected yet) ends with the same
    advice."""
    if sub not in _USES_A_SERVER:
        yield
        return
    names = _servers_meant(ctx, ns)
    for name in names:
        note = stale_note(ctx, name)
        if note is not None:
            print(f"note: {note}")
    try:
        yield
    except (UsageError, ArgumentsError, ToolNotFoundError) as exc:
        if sub not in ("call", "prompt"):
            raise
        said = next((n for n in map(functools.partial(stale_note, ctx, again=True), names) if n), None)
        if said is None:
            raise
        raise UsageError(f"{exc} ({said})") from None


def _servers_meant(ctx: Context, ns: argparse.Namespace) -> list[str]:
    """The connected servers a subcommand's words name (``NAME``, ``NAME.TOOL``, status's names), or
    every connected one where they name none (``%mcp status``, ``%mcp tools``)."""
    words = [getattr(ns, key, None) for key in ("name", "target")]
    words += list(getattr(ns, "names", None) or [])
    connected = ctx.pool.names
    named = [w.partition(".")[0] for w in words if isinstance(w, str)]
    meant = [n for n in dict.fromkeys(named) if n in connected]
    return meant or (connected if not any(isinstance(w, str) and w for w in words) else [])


def _keep(ctx: Context, ns: argparse.Namespace, result: Any) -> Any:
    """``-o VAR`` keeps the result in the notebook's namespace too."""
    out = getattr(ns, "out", None)
    if out is not None:
        ctx.user_ns[out] = result
    return result


@contextlib.contextmanager
def _short_errors(line: str, tokens: list[str], verbose: bool) -> Iterator[None]:
    """What a failed ``%mcp`` shows (JupySQL-style): one short line, or the full error with
    ``--verbose``; an interrupt says what was cancelled; ``-h`` that printed help is no error."""
    try:
        yield
    except HelpShown:
        pass
    except BaseException as exc:
        if verbose:
            raise
        if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
            # a synchronous cell's Ctrl-C, an awaiting cell's cancellation: the call is already
            # cancelled on the server
            raise interrupted(line, 1 if tokens[:1] == ["call"] else 0) from None
        if isinstance(exc, (UnknownServerError, ToolNotFoundError, ArgumentsError)):
            raise UsageError(str(exc)) from None
        if isinstance(exc, McpnbError):
            _shorten(exc)
        raise


@contextlib.contextmanager
def _warnings_as_text() -> Iterator[None]:
    """A warning a subcommand raises (a tool filter that matches nothing, say) shows as its message:
    Python's own format would lead with a file and line inside mcpnb, which mean nothing to the
    person and bury what to fix. The warning filters in force still decide what shows. One raised
    in a connection's tasks meanwhile (an in-process server's code, the SDK's for it) still goes to
    that server's log: every call printed the SDK's deprecation warnings into the cell."""
    caught: list[tuple[type[Warning], Warning | str]] = []

    def show(
        message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None
    ) -> None:
        if not logfilter.to_server_log(message, category, filename, lineno):
            caught.append((category, message))

    with logfilter.warnings_shown_by(show):
        try:
            yield
        finally:
            for category, message in caught:
                print(f"{category.__name__}: {message}", file=sys.stderr)


class Interrupted(McpnbError):
    """A ``%mcp`` cell stopped by Ctrl-C or the kernel's ■ button.

    An ``Exception``, not a ``KeyboardInterrupt``: raised from an awaiting cell's task, a
    ``KeyboardInterrupt`` would escape asyncio and stop the kernel's loop.
    """


def interrupted(line: str, cancelled_calls: int) -> Interrupted:
    """What an interrupted ``%mcp`` cell says, instead of a bare ``CancelledError`` or traceback."""
    what = " ".join(line.split()[:2])[:80] or "status"  # subcommand and target: arguments may hold secrets
    held = _loop_held()
    if held is not None:  # nothing reached any server: saying "told to cancel" would be untrue
        text = f"%mcp {what}: interrupted; {held}"
    elif cancelled_calls:
        calls = "the call" if cancelled_calls == 1 else f"its {cancelled_calls} calls"
        text = f"%mcp {what}: interrupted; the server was told to cancel {calls}"
    else:
        text = f"%mcp {what}: interrupted"
    exc = Interrupted(text)
    _shorten(exc)
    return exc


def _loop_held() -> str | None:
    """Why nothing could be cancelled, where an in-process tool holds mcpnb's runtime loop now."""
    from mcpnb.client import stalls

    stall = stalls.held_now()
    return stalls.held_words(stall) if stall is not None else None


def _shorten(exc: BaseException) -> None:
    """Show ``Type: message`` only: the traceback of a server problem is mcpnb's, not the user's."""
    exc.__context__ = None
    exc.__cause__ = None
    exc.__suppress_context__ = True
    # The core's advice names the Python API; in a magic cell the magic is the natural next step.
    text = re.sub(r"pool\.reconnect\('([^']+)'\)", r"%mcp reconnect \1", str(exc))
    text = re.sub(
        r"raise tool_timeout for server '([^']+)' \(or pass timeout=\)",
        r"pass --timeout SECONDS to wait longer (%config Mcp.tool_timeout = SECONDS before "
        r"%mcp connect sets it for a server)",
        text,
    )
    text = text.replace("use transport 'http', not 'sse'", "drop --sse").replace(
        "use transport 'sse'", "add --sse"
    )
    if text != str(exc) and len(exc.args) == 1:
        exc.args = (text,)  # the error's one line (nbclient's, VS Code's summary) says the same
    line = printable(f"{type(exc).__name__}: {text}")  # a server's words (its stderr) in a terminal
    exc._render_traceback_ = lambda: [_red(line), "(add --verbose to see the traceback)"]  # type: ignore[attr-defined]


def _red(line: str) -> str:
    """Red, as IPython shows an error, unless the shell shows no colours (``--colors=NoColor``)."""
    shell = current_shell()
    if shell is not None and str(getattr(shell, "colors", "")).lower() == "nocolor":
        return line
    return f"\x1b[0;31m{line}\x1b[0m"


def _plain_help(doc: str) -> str:
    """IPython's generated usage is reST (``::`` and a literal block); ``%mcp?`` shows it as text."""
    doc = doc.removeprefix("::\n\n").replace("``", "")
    first, _, rest = doc.partition("\n")
    return f"Usage: {first.strip()}\n{rest}"


# `%mcp?` shows the generated usage followed by every subcommand's usage line.
McpMagics.mcp.__doc__ = _plain_help(McpMagics.mcp.__doc__ or "") + "\n" + overview()

_loaded: dict[int, McpMagics] = {}


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext mcpnb``: register the magics, ``%config Mcp``, completion; check the default config."""
    from mcpnb.client.interaction import default_interaction, set_default_interaction
    from mcpnb.notebook.cell import NotebookInteraction, install_async_cells
    from mcpnb.notebook.magics.completion import make_hook, make_matcher
    from mcpnb.notebook.settings import attach_to_shell

    with _warnings_as_text():  # an ipython_config.py typo: said without mcpnb's file and line
        settings = attach_to_shell(ip)
    if not isinstance(default_interaction(), NotebookInteraction):
        set_default_interaction(NotebookInteraction())  # servers' questions go to the calling cell
    install_async_cells(ip)  # ipykernel >= 7.4: %mcp cells await, so a form's click reaches them
    magics = McpMagics(ip, settings)
    ip.register_magics(magics)
    _loaded[id(ip)] = magics
    try:
        ip.Completer.custom_matchers.append(make_matcher(lambda: magics.pool))
    except ImportError:  # IPython before 8.6 has no matcher API v2: the hook, listed after Jedi's
        for key in ("%mcp", "%%mcp"):
            ip.set_hook("complete_command", make_hook(lambda: magics.pool), str_key=key)
    with _warnings_as_text():
        _warn_on_broken_default_config()


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext mcpnb``: remove the magics and hooks. Open connections stay open (the pool owns them)."""
    from mcpnb.notebook.cell import uninstall_async_cells
    from mcpnb.notebook.settings import detach_from_shell

    uninstall_async_cells(ip)
    magics = _loaded.pop(id(ip), None)
    manager = ip.magics_manager
    for kind in ("line", "cell"):
        manager.magics[kind].pop("mcp", None)
    if magics is not None and magics in manager.registry.values():
        for key in [k for k, v in manager.registry.items() if v is magics]:
            del manager.registry[key]
    # register_magics listed it among the shell's configurables too: each %reload_ext left one more
    # there, holding the old magics (and the pool it was given) for the kernel's life
    ip.configurables[:] = [c for c in ip.configurables if not isinstance(c, McpMagics)]
    ip.Completer.custom_matchers[:] = [
        m for m in ip.Completer.custom_matchers if getattr(m, "__name__", "") != "mcp_matcher"
    ]
    dispatch = ip.strdispatchers.get("complete_command")
    if dispatch is not None:
        for key in ("%mcp", "%%mcp"):
            dispatch.strs.pop(key, None)
    detach_from_shell(ip)


def get_magics(ip: Any) -> McpMagics | None:
    """The loaded magics of a shell (tests swap ``.pool`` through this)."""
    return _loaded.get(id(ip))


def _warn_on_broken_default_config() -> None:
    """Read the default ``.mcp.json`` files as plain JSON and warn about what is unusable.

    Full validation needs jsonschema (seconds to import in some environments), so it waits until a
    command reads the configuration; a syntax slip is what this catches early.
    """
    import json

    try:
        from mcpnb.notebook.magics.completion import default_config_files

        files = default_config_files()
    except Exception as exc:  # never let a config problem stop the extension from loading
        warnings.warn(f"mcpnb: could not look for .mcp.json: {exc}", stacklevel=3)
        return
    from mcpnb.client.config.layers import config_json_problem
    from mcpnb.client.config.validate import read_text

    for path in files:
        text = ""
        try:
            text = read_text(path)  # UTF-8, BOM or not, or UTF-16 with one (as --config reads it)
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
                raise ValueError("expected an object with an 'mcpServers' object")
        except Exception as exc:
            reason = config_json_problem(text, exc) if isinstance(exc, json.JSONDecodeError) else str(exc)
            warnings.warn(
                f"mcpnb: ignoring {path}: {reason}. "
                "The magics work; fix the file before %mcp connect --config.",
                stacklevel=3,
            )
