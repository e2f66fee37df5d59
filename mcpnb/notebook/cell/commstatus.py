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
"""

from __future__ import annotations

import contextvars
import inspect
import threading
from typing import Any

from mcpnb.notebook.frontend import current_kernel

_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
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

    async def dispatch_shell(msg: Any, /, subshell_id: Any = None, *, concurrent: bool = False) -> Any:
        if not concurrent:
            return await original_dispatch(msg, subshell_id=subshell_id)
        comm = _comm_header(kernel, msg)
        if comm is None:
            return await original_dispatch(msg, subshell_id=subshell_id, concurrent=True)
        cell = kernel.get_parent("shell")  # what shell_main read, and sets again after this
        to_put_back.append(cell)
        del to_put_back[:-64]  # a kernel whose shell_main puts nothing back must not grow this
        original_publish("busy", "shell", comm)
        token = _IN_COMM.set(True)
        try:
            return await original_dispatch(msg, subshell_id=subshell_id, concurrent=True)
        finally:
            _IN_COMM.reset(token)
            original_publish("idle", "shell", comm)
            if _holds_shell(kernel, subshell_id):  # a cell still runs: this one, or the next by now
                _ident, now = running.get(threading.get_ident(), (None, cell))
                if now:
                    original_publish("busy", "shell", now)

    kernel.dispatch_shell = dispatch_shell
    kernel._publish_status = publish_status
    kernel.set_parent = set_parent
    setattr(kernel, _MARK, (original_dispatch, original_publish))
    return True


def uninstall_comm_status(kernel: Any = None) -> None:
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None or not installed(kernel):
        return
    vars(kernel).pop("dispatch_shell", None)
    vars(kernel).pop("_publish_status", None)
    vars(kernel).pop("set_parent", None)
    delattr(kernel, _MARK)


def _comm_header(kernel: Any, msg: Any) -> dict[str, Any] | None:
    """The message as a parent (its header only), when it is a comm message."""
    try:
        _idents, frames = kernel.session.feed_identities(msg, copy=False)
        parsed = kernel.session.deserialize(frames, content=False, copy=False)
    except Exception:
        return None
    if parsed.get("header", {}).get("msg_type") not in _COMM_TYPES:
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
