"""Make ``%mcp`` cells awaitable, so a widget click can reach a cell that waits for it.

ipykernel >= 7.4 handles comm messages (widget clicks) while an *async* cell waits, never while a
synchronous one blocks. An input transformer rewrites a top-level ``%mcp``/``%%mcp`` (which IPython
has already turned into ``get_ipython().run_line_magic('mcp', ...)``) into an ``await`` of
:func:`arun_line_magic`, which runs the magic in a worker thread and waits in short ticks, so the
kernel's loop stays free for clicks and for interrupts. Indented uses (inside a ``def``) are left
alone: they take the synchronous path, where :class:`~.live.LiveCall` takes over.
"""

from __future__ import annotations

import asyncio
import contextvars
import re
from typing import Any

from mcpnb.notebook.cell.commstatus import install_comm_status
from mcpnb.notebook.cell.live import AWAITING, CELL_CALLS

_MAGIC_CALL = re.compile(r"get_ipython\(\)\.run_(line|cell)_magic\('mcp', ")
_REPLACEMENT = r"await __import__('mcpnb.notebook.cell', fromlist=['_']).arun_\1_magic('mcp', "


def supported() -> bool:
    """ipykernel 7.4 is the first to dispatch comm messages while an async cell waits."""
    try:
        from ipykernel import version_info
    except ImportError:
        return False
    return tuple(version_info[:2]) >= (7, 4)


def transform(lines: list[str]) -> list[str]:
    """Rewrite top-level ``%mcp`` lines into awaits (indented ones stay synchronous)."""
    return [line if line[:1] in (" ", "\t") else _MAGIC_CALL.sub(_REPLACEMENT, line) for line in lines]


def install_async_cells(shell: Any) -> bool:
    """Add the transformer in a kernel that supports it; returns whether it was added."""
    if getattr(shell, "kernel", None) is None or not supported():
        return False
    install_comm_status(shell.kernel)  # without it, typing in a form reaches the cell one key only
    if transform not in shell.input_transformers_post:
        shell.input_transformers_post.append(transform)
    return True


def uninstall_async_cells(shell: Any) -> None:
    if transform in shell.input_transformers_post:
        shell.input_transformers_post.remove(transform)


async def arun_line_magic(name: str, line: str) -> Any:
    """``%name line``, run so the cell awaits it."""
    return await _arun(name, line, None)


async def arun_cell_magic(name: str, line: str, cell: str) -> Any:
    """``%%name line`` + body, run so the cell awaits it."""
    return await _arun(name, line, cell)


async def _arun(name: str, line: str, cell: str | None) -> Any:
    from IPython import get_ipython
    from IPython.core.displayhook import DisplayHook

    from mcpnb.client.runtime import TICK

    shell = get_ipython()
    fn = shell.find_cell_magic(name) if cell is not None else shell.find_line_magic(name)
    if fn is None:  # the extension was unloaded: run it the ordinary way (raises the usual error)
        return (
            shell.run_cell_magic(name, line, cell) if cell is not None else shell.run_line_magic(name, line)
        )
    kwargs: dict[str, Any] = {"local_ns": shell.user_ns} if getattr(fn, "needs_local_scope", False) else {}
    args = (line,) if cell is None else (line, cell)
    started: list[Any] = []
    tokens = AWAITING.set(True), CELL_CALLS.set(started)
    context = contextvars.copy_context()  # the cell's parent header goes along: output lands here
    AWAITING.reset(tokens[0])
    CELL_CALLS.reset(tokens[1])
    job = asyncio.get_running_loop().run_in_executor(None, context.run, lambda: fn(*args, **kwargs))
    try:
        while True:
            done, _ = await asyncio.wait({job}, timeout=TICK)  # wake up often: interrupts land then
            if done:
                result = job.result()
                break
    except BaseException:
        for future in started:
            future.cancel()  # the SDK tells the server; the worker thread then ends on its own
        raise
    silenced = getattr(fn, "_ipython_magic_output_can_be_silenced", False)
    if silenced and DisplayHook.semicolon_at_end_of_expression(line if cell is None else cell):
        return None
    return result
