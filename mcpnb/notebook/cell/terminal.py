"""A line read from the terminal that can be given up: terminal IPython's text questions.

``input()`` in a thread cannot be taken back: after Ctrl-C ended the call that asked, the thread
still waited on stdin, and took the next line the person typed at ``In [N]`` (which IPython then
never ran). Here the thread waits on the terminal with ``select``, beside a pipe that wakes it
when the call ends (:meth:`TerminalReads.stop`), and reads no more: what is typed after the
question ended goes to IPython. Where stdin is no terminal (a pipe, Windows), it is Python's own
``input()`` and ``getpass()``, as before.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

#: How long a read waits on the terminal between looks whether its question was given up (a
#: stop wakes it at once; this bounds a wake-up that went missing).
STEP = 0.5


class TerminalReads:
    """The terminal reads of one call's questions, given up together when the call ends.

    :meth:`stop` wakes each read at once (a pipe it waits on beside the terminal) and waits for
    it to put the terminal back: a read of a secret restores the echo, and were that to come after
    IPython's next prompt had set the terminal up, the prompt would run on a terminal set wrong
    (keys echoed twice, Tab waiting for Enter)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._stopped = False
        self._waking: set[int] = set()  # the write end of each read's wake-up pipe

    def stop(self, wait: float = 1.0) -> None:
        with self._lock:
            self._stopped = True
            for fd in self._waking:
                with contextlib.suppress(OSError):
                    os.write(fd, b"!")
            self._lock.wait_for(lambda: not self._waking, timeout=wait)

    def read_line(self, prompt: str, *, secret: bool = False) -> str:
        """One line typed on the terminal, without its newline; ``EOFError`` when the terminal is
        closed or the reads were stopped first (the question ended: a person gone, as
        :mod:`.questions` reads it). ``secret``: not echoed, as ``getpass`` reads a password."""
        fd = _terminal_fd()
        if fd is None:
            import getpass

            return getpass.getpass(prompt) if secret else input(prompt)
        wake, woken = os.pipe()
        with self._lock:
            if self._stopped:
                os.close(wake), os.close(woken)
                raise EOFError
            self._waking.add(woken)
        try:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            with _echo_off(fd) if secret else contextlib.nullcontext():
                line = self._read(fd, wake)
            if secret:
                sys.stdout.write("\n")  # the Enter a hidden line did not echo
                sys.stdout.flush()
            return line
        finally:
            with self._lock:  # the terminal is as it was: stop() may return
                self._waking.discard(woken)
                self._lock.notify_all()
            os.close(wake), os.close(woken)

    def _read(self, fd: int, wake: int) -> str:
        """Bytes up to a newline; the terminal hands over a whole line per read once Enter is pressed."""
        import select

        got = b""
        while not self._stopped:
            ready, _, _ = select.select([fd, wake], [], [], STEP)
            if self._stopped or wake in ready:  # given up while it waited: the line typed is IPython's
                break
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:  # Ctrl-D on an empty line: the terminal is closed
                raise EOFError
            got += chunk
            if got.endswith(b"\n"):
                return got[:-1].decode(sys.stdin.encoding or "utf-8", "replace")
        raise EOFError


def _terminal_fd() -> int | None:
    """stdin's descriptor where it is a terminal ``select`` can wait on, else None."""
    if sys.platform == "win32":
        return None
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if os.isatty(fd) else None


@contextlib.contextmanager
def _echo_off(fd: int) -> Iterator[None]:
    import termios

    before = termios.tcgetattr(fd)
    hidden = before[:]
    hidden[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSAFLUSH, hidden)
    try:
        yield
    finally:  # TCSADRAIN, not FLUSH: what was typed since is the next prompt's, not to be lost
        termios.tcsetattr(fd, termios.TCSADRAIN, before)
