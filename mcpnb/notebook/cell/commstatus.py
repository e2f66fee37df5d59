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
"""

from __future__ import annotations

import contextvars
import inspect
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
        cell = kernel.get_parent("shell")  # the request that holds the shell: the awaiting cell
        original_publish("busy", "shell", comm)
        token = _IN_COMM.set(True)
        try:
            return await original_dispatch(msg, subshell_id=subshell_id, concurrent=True)
        finally:
            _IN_COMM.reset(token)
            original_publish("idle", "shell", comm)
            if cell and _holds_shell(kernel, subshell_id):
                original_publish("busy", "shell", cell)  # the cell is still running

    kernel.dispatch_shell = dispatch_shell
    kernel._publish_status = publish_status
    setattr(kernel, _MARK, (original_dispatch, original_publish))
    return True


def uninstall_comm_status(kernel: Any = None) -> None:
    kernel = kernel if kernel is not None else current_kernel()
    if kernel is None or not installed(kernel):
        return
    vars(kernel).pop("dispatch_shell", None)
    vars(kernel).pop("_publish_status", None)
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
