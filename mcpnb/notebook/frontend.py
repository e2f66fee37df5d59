"""Which frontend shows our output: a Jupyter kernel, or a terminal (IPython or plain Python).

The answer decides how things look and ask: only a kernel has widgets, outputs that change in place
(display ids) and an input box per cell; in a terminal what is printed stays printed, so live views
print what is new, and questions are asked on the terminal's stdin.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def current_kernel() -> Any:
    """The running ipykernel ``Kernel``, or None outside one (terminal IPython, plain Python)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    shell = get_ipython()
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
