"""Which frontend shows our output: a Jupyter kernel, or a terminal (IPython or plain Python).

The answer decides how things look and ask: only a kernel has widgets, outputs that change in place
(display ids) and an input box per cell; in a terminal what is printed stays printed, so live views
print what is new, and questions are asked on the terminal's stdin.
"""

from __future__ import annotations

from typing import Any


def current_kernel() -> Any:
    """The running ipykernel ``Kernel``, or None outside one (terminal IPython, plain Python)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    shell = get_ipython()
    return getattr(shell, "kernel", None) if shell is not None else None
