"""A line read from the terminal that can be given up: terminal IPython's text questions.

``input()`` in a thread cannot be taken back: after Ctrl-C ended the call that asked, the thread
still waited on stdin, and took the next line the person typed at ``In [N]`` (which IPython then
never ran). Here the thread waits for the terminal with ``select`` in short steps and stops reading
once ``stop`` is set, so what is typed after the question ended goes to IPython. Where stdin is no
terminal (a pipe, Windows), it is Python's own ``input()`` and ``getpass()``, as before.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

#: How often a waiting read looks whether its question was given up.
STEP = 0.1


def read_line(prompt: str, stop: threading.Event, *, secret: bool = False) -> str:
    """One line typed on the terminal, without its newline; ``EOFError`` when the terminal is
    closed or ``stop`` is set first (the question ended: a person gone, as :mod:`.questions` reads it).
    ``secret``: not echoed, as ``getpass`` reads a password."""
    fd = _terminal_fd()
    if fd is None:
        import getpass

        return getpass.getpass(prompt) if secret else input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    with _echo_off(fd) if secret else contextlib.nullcontext():
        line = _read(fd, stop)
    if secret:
        sys.stdout.write("\n")  # the Enter a hidden line did not echo
        sys.stdout.flush()
    return line


def _terminal_fd() -> int | None:
    """stdin's descriptor where it is a terminal ``select`` can wait on, else None."""
    if sys.platform == "win32":
        return None
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if os.isatty(fd) else None


def _read(fd: int, stop: threading.Event) -> str:
    """Bytes up to a newline; the terminal hands over a whole line per read once Enter is pressed."""
    import select

    got = b""
    while not stop.is_set():
        ready, _, _ = select.select([fd], [], [], STEP)
        if not ready or stop.is_set():  # given up while it waited: the line typed is IPython's
            continue
        chunk = os.read(fd, 4096)
        if not chunk:  # Ctrl-D on an empty line: the terminal is closed
            raise EOFError
        got += chunk
        if got.endswith(b"\n"):
            return got[:-1].decode(sys.stdin.encoding or "utf-8", "replace")
    raise EOFError


@contextlib.contextmanager
def _echo_off(fd: int) -> Iterator[None]:
    import termios

    before = termios.tcgetattr(fd)
    hidden = before[:]
    hidden[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSAFLUSH, hidden)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, before)
