"""Which frontend shows our output: a Jupyter kernel, or a terminal (IPython or plain Python).

The answer decides how things look and ask: only a kernel has widgets, outputs that change in place
(display ids) and an input box per cell; in a terminal what is printed stays printed, so live views
print what is new, and questions are asked on the terminal's stdin.

In a kernel, what a page sends also reaches us here first: :func:`wrap_shell_feed` sees the main
shell's requests as they arrive, before ipykernel queues them behind a running cell.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any


def current_shell() -> Any:
    """The running IPython shell, or None (plain Python: IPython is not even imported there).

    Not ``from IPython import get_ipython``: IPython 9 serves that name through its package's
    ``__getattr__``, which imports it anew on every use, ~20 µs each time, and every call a cell
    makes asked several times (where to ask, whether ``%%capture`` holds the output)."""
    if "IPython" not in sys.modules:
        return None
    from IPython.core.getipython import get_ipython

    return get_ipython()


def current_kernel() -> Any:
    """The running ipykernel ``Kernel``, or None outside one (terminal IPython, plain Python)."""
    shell = current_shell()
    return getattr(shell, "kernel", None) if shell is not None else None


def on_kernel_thread(work: Callable[[], None], kernel: Any = None, *, later: bool = False) -> None:
    """Run ``work`` on the kernel's thread, where a click is handled, so a click and what another
    thread does to the same widgets (a call ending on mcpnb's runtime thread, a server's
    notification) never interleave: at once there (``later``: after what runs there now, as a
    click would), or at once without a kernel."""
    kernel = kernel if kernel is not None else current_kernel()
    loop = getattr(kernel, "io_loop", None)
    if loop is None or (threading.current_thread() is threading.main_thread() and not later):
        work()
    else:
        loop.add_callback(work)


#: Two watchers that wrap the main shell's feed at once (from different threads) keep each other.
_feed_lock = threading.Lock()


def _main_shell_feed(kernel: Any) -> Any:
    """The ZMQ stream whose callback starts each message of the main shell, on the kernel's thread,
    before ipykernel queues it behind a running cell (ipykernel 7 with subshells: the inproc pair from
    its shell-channel thread; otherwise the shell stream); None for a kernel of another make."""
    try:
        if getattr(kernel, "_supports_kernel_subshells", False):
            manager = kernel.shell_channel_thread.manager
            stream = manager.get_shell_channel_to_subshell_pair(None).to_stream
        else:
            stream = kernel.shell_stream
    except Exception:
        return None
    return stream if callable(getattr(stream, "_recv_callback", None)) else None


def wrap_shell_feed(kernel: Any, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Any:
    """Put ``wrap(callback)`` in place of the main shell feed's callback; (stream, callback, ours),
    or None without a feed. The stream reads its callback anew for each message, so this is safe
    from any thread."""
    stream = _main_shell_feed(kernel)
    if stream is None:
        return None
    with _feed_lock:
        original = stream._recv_callback
        ours = wrap(original)
        stream._recv_callback = ours
    return stream, original, ours
