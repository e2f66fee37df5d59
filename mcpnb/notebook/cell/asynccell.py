"""Make ``%mcp`` cells awaitable, so a widget click can reach a cell that waits for it.

ipykernel >= 7.4 handles comm messages (widget clicks) while an *async* cell waits, never while a
synchronous one blocks. An input transformer rewrites each top-level ``%mcp``/``%%mcp`` (which IPython
has already turned into ``get_ipython().run_line_magic('mcp', ...)``) into an ``await`` of
:func:`arun_line_magic`. That parses the line on the kernel's thread; ``%mcp call`` then awaits the
server on the kernel's own loop, and any other subcommand runs in a thread of its own
(:func:`off_loop`), since it may block. Either way the cell waits in short ticks, so the kernel's
loop stays free for clicks and for interrupts.

The cell is parsed (``ast``), not searched with a pattern: only real calls are rewritten, never text
inside a string, and only where ``await`` is allowed and means the same thing: in the cell's own
top-level statements (and the blocks of a top-level ``if``/``for``/``with``/``try``), outside any
``lambda``, ``def``, ``class``, comprehension or f-string. The rest (a ``%mcp`` inside a ``def``,
``get_ipython().run_line_magic("mcp", ...)`` in a lambda) takes the synchronous path, where
:class:`~.live.LiveCall` takes over.
"""

from __future__ import annotations

import ast
import concurrent.futures
import contextvars
import functools
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from mcpnb.client.runtime import STARTED
from mcpnb.notebook.cell.commstatus import install_comm_status
from mcpnb.notebook.cell.live import AWAITING
from mcpnb.notebook.frontend import current_shell

T = TypeVar("T")

#: What a rewritten call reads in a traceback, as IPython's own ``get_ipython().run_line_magic(``
#: does: the shell carries the awaited twins (:func:`install_async_cells`). (It read
#: ``__import__('mcpnb.notebook.cell', fromlist=['_'])``, where a newcomer looked for their line.)
_AWAITED = "(await get_ipython().arun_{kind}_magic("
#: Where ``await`` would be a syntax error or change the meaning: leave calls under these alone.
_OWN_SCOPE = (
    ast.Lambda,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)


def supported() -> bool:
    """ipykernel 7.4 is the first to dispatch comm messages while an async cell waits."""
    try:
        from ipykernel import version_info
    except ImportError:
        return False
    return tuple(version_info[:2]) >= (7, 4)


def transform(lines: list[str]) -> list[str]:
    """Rewrite the top-level ``%mcp`` calls of a cell into awaits; anything else stays as it is.

    Only a cell the kernel is about to run: a cell that is running already transforms text of its
    own with ``%%time``, ``%time``, ``%%timeit`` or ``%prun`` (which compile it where ``await`` is
    "outside function", a SyntaxError), or runs it with ``%%capture`` (whose nested run did nothing
    at all: no call, no error, no variable), ``%run`` or ``run_cell``. There the magic runs as in a
    ``def``."""
    source = "".join(lines)
    if "run_line_magic" not in source and "run_cell_magic" not in source:
        return lines
    if _a_cell_runs():
        return lines
    if not _awaits_on_asyncio():  # `%autoawait off`: an `await` is a SyntaxError; trio: no asyncio loop
        return lines
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # IPython reports it; a transformer must not
        return lines
    calls = [
        call
        for statement in tree.body
        if not isinstance(statement, _OWN_SCOPE)
        for call in _awaitable_calls(statement)
    ]
    if not calls:
        return lines
    encoded = [line.encode() for line in source.splitlines(keepends=True)]
    for call, kind in sorted(calls, key=lambda c: (c[0].lineno, c[0].col_offset), reverse=True):
        _rewrite(encoded, call, kind)  # last first: earlier offsets stay valid
    return b"".join(encoded).decode().splitlines(keepends=True)


def _a_cell_runs() -> bool:
    """Whether a cell's own code is on this thread's stack: the text is then a running cell's (its
    magic's, or its ``run_cell``'s), never the kernel's next cell. Asked of the stack, not counted
    with ``pre_execute``/``post_execute``: an empty cell ends without having started, so a
    ``%run notebook.ipynb`` with an empty cell lost count, and its next ``%mcp`` cell, rewritten
    inside the running one, failed with "This event loop is already running"."""
    cells = getattr(getattr(current_shell(), "compile", None), "_filename_map", None)
    if not isinstance(cells, dict):
        return False
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in cells:
            return True
        frame = frame.f_back
    return False


def _awaits_on_asyncio() -> bool:
    """The shell runs a top-level ``await`` on the kernel's asyncio loop, the only place the awaited
    magic may run. Rewritten under ``%autoawait off`` every ``%mcp`` line failed with
    "SyntaxError: 'await' outside function"; under ``%autoawait trio`` the cell would not run on
    the kernel's loop at all. Then the magic runs synchronously, as in a ``def``."""
    shell = current_shell()
    if shell is None:  # called directly, outside any shell: only the rewrite is asked for
        return True
    try:
        from IPython.core.async_helpers import _asyncio_runner
    except ImportError:  # an IPython that names it otherwise: do not guess
        return False
    return bool(getattr(shell, "autoawait", False)) and getattr(shell, "loop_runner", None) is _asyncio_runner


def _awaitable_calls(node: ast.AST) -> list[tuple[ast.Call, str]]:
    """``get_ipython().run_{line,cell}_magic('mcp', ...)`` calls under ``node``, outside own scopes."""
    found = []
    if isinstance(node, ast.Call):
        kind = _magic_kind(node)
        if kind is not None:
            found.append((node, kind))
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _OWN_SCOPE):
            found += _awaitable_calls(child)
    return found


def _magic_kind(call: ast.Call) -> str | None:
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in ("run_line_magic", "run_cell_magic")
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "get_ipython"
        and not func.value.args
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == "mcp"
    ):
        return None
    return func.attr.split("_")[1]  # "line" or "cell"


def _rewrite(encoded: list[bytes], call: ast.Call, kind: str) -> None:
    """Replace ``get_ipython().run_X_magic(`` by the awaited twin and close the parenthesis."""
    assert call.end_lineno is not None and call.end_col_offset is not None
    first_arg = call.args[0]
    start_line, start = call.lineno - 1, call.col_offset  # ast offsets count UTF-8 bytes
    arg_line, arg_start = first_arg.lineno - 1, first_arg.col_offset
    end_line, end = call.end_lineno - 1, call.end_col_offset
    encoded[end_line] = encoded[end_line][:end] + b")" + encoded[end_line][end:]
    head = _AWAITED.format(kind=kind).encode()
    if arg_line == start_line:
        encoded[start_line] = encoded[start_line][:start] + head + encoded[start_line][arg_start:]
    else:  # the arguments start on a later line: drop the rest of the head's line
        encoded[start_line] = encoded[start_line][:start] + head + b"\n"
        encoded[arg_line] = encoded[arg_line][arg_start:]


_threads: concurrent.futures.ThreadPoolExecutor | None = None


def _magic_threads() -> concurrent.futures.ThreadPoolExecutor:
    """Where awaited magics run: threads of their own, not the kernel loop's default executor
    (user code may fill that one; a magic waiting behind it would look hung)."""
    global _threads
    if _threads is None:
        _threads = concurrent.futures.ThreadPoolExecutor(thread_name_prefix="mcpnb-magic")
    return _threads


def install_async_cells(shell: Any) -> bool:
    """Add the transformer in a kernel that supports it; returns whether it was added."""
    if getattr(shell, "kernel", None) is None or not supported():
        return False
    install_comm_status(shell.kernel)  # without it, typing in a form reaches the cell one key only
    from mcpnb.notebook.forms.rerun import install as watch_reruns

    watch_reruns(shell.kernel)  # from now on, so a run that comes before the first form is seen
    shell.arun_line_magic, shell.arun_cell_magic = arun_line_magic, arun_cell_magic  # what cells await
    if transform not in shell.input_transformers_post:
        shell.input_transformers_post.append(transform)
    return True


def uninstall_async_cells(shell: Any) -> None:
    """Stop rewriting cells. The shell keeps its awaited twins: a cell rewritten before it ran
    ``%unload_ext mcpnb`` still awaits them on its later lines, and they say what IPython says of a
    magic that is not there ("UsageError: Line magic function `%mcp` not found"), where an
    AttributeError on ``arun_line_magic`` told nothing."""
    if transform in shell.input_transformers_post:
        shell.input_transformers_post.remove(transform)


async def arun_line_magic(name: str, line: str) -> Any:
    """``%name line``, run so the cell awaits it."""
    return await _arun(name, line, None)


async def arun_cell_magic(name: str, line: str, cell: str) -> Any:
    """``%%name line`` + body, run so the cell awaits it."""
    return await _arun(name, line, cell)


async def _arun(name: str, line: str, cell: str | None) -> Any:
    from IPython.core.displayhook import DisplayHook

    from mcpnb.notebook.magics import McpMagics

    shell = current_shell()
    interruptible_rest(shell)
    fn = shell.find_cell_magic(name) if cell is not None else shell.find_line_magic(name)
    if fn is None:  # the extension was unloaded: run it the ordinary way (raises the usual error)
        return (
            shell.run_cell_magic(name, line, cell) if cell is not None else shell.run_line_magic(name, line)
        )
    magics = getattr(fn, "__self__", None)
    if isinstance(magics, McpMagics):
        return await magics.arun(line, cell, shell.user_ns)  # it silences its own ';'
    # another magic under our name: it may block, so it runs in a thread
    kwargs: dict[str, Any] = {"local_ns": shell.user_ns} if getattr(fn, "needs_local_scope", False) else {}
    args = (line,) if cell is None else (line, cell)
    result = await off_loop(fn, *args, **kwargs)
    silenced = getattr(fn, "_ipython_magic_output_can_be_silenced", False)
    if silenced and DisplayHook.semicolon_at_end_of_expression(line if cell is None else cell):
        return None
    return result


def interruptible_rest(shell: Any) -> None:
    """Let the ■ button stop the rest of this cell too. A rewritten cell is async, and while an async
    cell runs ipykernel's SIGINT handler only cancels it at its next ``await``: the cell's own code
    after a ``%mcp`` line (``time.sleep(30)``, ``job.result()``) ran to its end, the interrupt
    unheard. So, for this cell, the handler is wrapped: ipykernel's runs, and where the signal
    finds the cell's own code running (its frame on the stack, not suspended at an ``await``),
    ``KeyboardInterrupt`` is raised there, as in a synchronous cell. At an ``await`` (a call
    waiting on its server) ipykernel's handling is left as it was. ipykernel puts its saved handler
    back when the cell ends."""
    current = signal.getsignal(signal.SIGINT)
    cells = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if not callable(current) or getattr(current, "mcpnb_cell", False) or not isinstance(cells, dict):
        return
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: Any) -> None:
        current(signum, frame)
        depth = 0
        while frame is not None and depth < 500:
            if frame.f_code.co_filename in cells:  # the cell's own code is running: stop it here
                raise KeyboardInterrupt
            frame, depth = frame.f_back, depth + 1

    handler.mcpnb_cell = True  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, handler)


async def off_loop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run the blocking part of an awaited magic in a thread, while the kernel's loop stays free.

    The thread sees the cell's context (its output lands in the cell) and knows the cell awaits
    (:data:`~.live.AWAITING`: a form is answered in place). If the cell is interrupted, the calls
    the thread started are cancelled on the server.
    """
    from mcpnb.client.bridge import await_in_ticks

    started: list[Any] = []
    tokens = AWAITING.set(True), STARTED.set(started)
    context = contextvars.copy_context()  # the cell's parent header goes along: output lands here
    AWAITING.reset(tokens[0])
    STARTED.reset(tokens[1])
    job = _magic_threads().submit(context.run, functools.partial(fn, *args, **kwargs))
    try:
        return await await_in_ticks(job)  # the kernel's loop wakes often: interrupts land then
    except BaseException:
        for future in started:
            future.cancel()  # the SDK tells the server
        raise
