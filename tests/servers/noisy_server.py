"""The demo server over stdio, with a thread that writes ``NOISY_LINES`` numbered lines to stderr as
fast as it can once the server starts (a debug loop, a log level left at TRACE); with ``NOISY_EXIT``
set, it then says why it stops and exits with code 3.

Run: ``NOISY_LINES=200000 python tests/servers/noisy_server.py``.
"""

from __future__ import annotations

import os
import sys
import threading

from demo_server import create_server


def flood(lines: int) -> None:
    for i in range(1, lines + 1):
        sys.stderr.write(f"noise line {i} of {lines}\n")
    sys.stderr.flush()
    if os.environ.get("NOISY_EXIT"):  # then crash, saying why last (a traceback's last line)
        sys.stderr.write("fatal: out of patience\n")
        sys.stderr.flush()
        os._exit(3)


if __name__ == "__main__":
    threading.Thread(target=flood, args=(int(os.environ.get("NOISY_LINES", "100000")),), daemon=True).start()
    create_server().run()
