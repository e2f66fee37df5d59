"""Give widget messages that reach an awaiting cell the busy/idle status every frontend waits for.

ipykernel 7.4 dispatches ``comm_open``/``comm_msg``/``comm_close`` while an async cell waits
(``Kernel.shell_main`` → ``dispatch_shell(..., concurrent=True)``), which is what lets a form's
click reach a ``%mcp`` cell. In that concurrent path it publishes no ``status`` message. The
ipywidgets frontend (``WidgetModel.sync`` in ``@jupyter-widgets/base``) sends one state update per
widget at a time and holds the next one until the ``idle`` status of the previous one arrives, so
without that status a text typed key by key reached the kernel as its first character, and a field
edited twice kept its first value.

:func:`install_comm_status` wraps the kernel's ``dispatch_shell`` so a concurrently dispatched comm
message gets ``busy`` and ``idle`` with that message as parent, exactly as when the kernel is idle;
then ``busy`` again for the cell that still runs, so the kernel indicator stays honest. Any status
ipykernel itself would publish for that message is dropped (a later ipykernel that fixes this does
not get two ``idle`` for one update). The report for upstream is in the closing note of issue 10.

It also mends the parent that ``shell_main`` puts back after such a message. ``shell_main`` reads
the shell parent (the running cell), awaits the comm's dispatch, then sets that parent again; when
the cell ended and the next one started in between, that parent is stale, and the next cell's
outputs and ``idle`` went to the cell before it. JupyterLab then showed that next cell as never
finished (``[*]``, no execution count): seen in lesson 10, a drawn page's message as a cell ended,
and of quick async cells sent among widget updates about one in four never went idle. So the parent
put back is the one of the request now running on that thread.

And it answers ``comm_info_request`` beside an awaiting cell, as ``comm_open`` is. A tab that opens
a notebook whose cell runs (a second tab, a reloaded page) gets its widgets through the
``jupyter.widget.control`` comm, and when that takes JupyterLab's 4 s (a loaded laptop, a Binder),
through the list of widget comms; that list waited for the cell, so a form the cell waits for never
showed there, and a progress bar came as "model not found" once its cell had ended.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from typing import Any

from mcpnb.notebook.frontend import current_kernel, wrap_shell_feed

_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
#: Read-only, answered beside an awaiting cell by our own hook (shell_main would queue it).
_BESIDE_TYPES = frozenset({"comm_info_request"})
#: Set inside a concurrently dispatched comm message: statuses ipykernel publishes there are ours to send.
_IN_COMM: contextvars.ContextVar[bool] = contextvars.ContextVar("mcpnb_in_comm_dispatch", default=False)
_MARK = "_mcpnb_comm_status"


def needed(kernel: Any) -> bool:
    """True for a kernel that dispatches comm messages concurrently (ipykernel >= 7.4)."""
    dispatch = getattr(type(kernel), "dispatch_shell", None)
    if dispatch is None or not hasattr(kernel, "_publish_status"):
        return False
    try:
        return "concurrent" in inspect.signature(dispatch).parameters
    except (TypeError, ValueError):
        return False


def installed(kernel: Any = None) -> bool:
    kernel = kernel if kernel is not None else current_kernel()
    return kernel is not None and _MARK in vars(kernel)


def install_comm_status(kernel: Any = None) -> bool:
    """Patch this kernel (once); returns whether the patch is in place."""
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None or not needed(kernel):
        return False
    if installed(kernel):
        return True
    original_dispatch = kernel.dispatch_shell
    original_publish = kernel._publish_status
    original_set_parent = kernel.set_parent
    #: per thread (a subshell has its own), the (ident, parent) of the request that holds the shell
    running: dict[int, tuple[Any, Any]] = {}
    #: parents read by shell_main before a concurrent comm dispatch, which it will set again after
    to_put_back: list[Any] = []

    def set_parent(ident: Any, parent: Any, channel: str = "shell") -> None:
        if channel == "shell" and not _IN_COMM.get():
            put_back = next((i for i, p in enumerate(to_put_back) if p is parent), None)
            if put_back is not None:
                del to_put_back[put_back]
                ident, parent = running.get(threading.get_ident(), (ident, parent))
            running[threading.get_ident()] = (ident, parent)
        original_set_parent(ident, parent, channel)

    def publish_status(status: Any, channel: Any, parent: Any = None) -> None:
        if _IN_COMM.get():
            return  # inside a concurrent comm dispatch we publish the statuses ourselves
        original_publish(status, channel, parent)

    async def beside_the_cell(msg: Any, subshell_id: Any, header: dict[str, Any], cell: Any) -> Any:
        """Dispatch a message while a cell holds the shell, with that message's own busy/idle."""
        original_publish("busy", "shell", header)
        token = _IN_COMM.set(True)
        try:
            return await original_dispatch(msg, subshell_id=subshell_id, concurrent=True)
        finally:
            _IN_COMM.reset(token)
            original_publish("idle", "shell", header)
            if _holds_shell(kernel, subshell_id):  # a cell still runs: this one, or the next by now
                _ident, now = running.get(threading.get_ident(), (None, cell))
                if now:
                    original_publish("busy", "shell", now)

    async def dispatch_shell(msg: Any, /, subshell_id: Any = None, *, concurrent: bool = False) -> Any:
        if not concurrent:
            return await original_dispatch(msg, subshell_id=subshell_id)
        header = _header(kernel, msg, _COMM_TYPES)
        if header is None:
            return await original_dispatch(msg, subshell_id=subshell_id, concurrent=True)
        cell = kernel.get_parent("shell")  # what shell_main read, and sets again after this
        to_put_back.append(cell)
        del to_put_back[:-64]  # a kernel whose shell_main puts nothing back must not grow this
        return await beside_the_cell(msg, subshell_id, header, cell)

    installing_cell = kernel.get_parent("shell")  # holds the shell until `running` records the next

    def answering_comm_info(shell_main: Any) -> Any:
        def on_shell_message(msg: Any) -> Any:
            if _holds_shell(kernel, None):
                header = _header(kernel, msg, _BESIDE_TYPES)
                if header is not None:
                    answer = beside_the_cell(msg, None, header, installing_cell)
                    return asyncio.create_task(answer, context=contextvars.copy_context())
            return shell_main(msg)

        return on_shell_message

    kernel.dispatch_shell = dispatch_shell
    kernel._publish_status = publish_status
    kernel.set_parent = set_parent
    wrap_shell_feed(kernel, answering_comm_info)
    setattr(kernel, _MARK, True)  # for the kernel's life: a form shown before %unload_ext still needs it
    return True


def _header(kernel: Any, msg: Any, types: frozenset[str]) -> dict[str, Any] | None:
    """The message as a parent (its header only), when it is of one of ``types``."""
    try:
        _idents, frames = kernel.session.feed_identities(msg, copy=False)
        parsed = kernel.session.deserialize(frames, content=False, copy=False)
    except Exception:
        return None
    if parsed.get("header", {}).get("msg_type") not in types:
        return None
    return {"header": parsed["header"]}


def _holds_shell(kernel: Any, subshell_id: Any) -> bool:
    """Whether a shell request still holds the lock the comm message went around."""
    lock = getattr(kernel, "_main_asyncio_lock", None)
    if subshell_id is not None:
        try:
            lock = kernel.shell_channel_thread.manager.get_subshell_asyncio_lock(subshell_id)
        except Exception:
            return False
    return bool(lock is not None and lock.locked())
