"""A stdio server that ignores SIGTERM and stdin EOF, started from a real kernel: a restart and a
shutdown through jupyter_client (as JupyterLab does) leave no server process behind.

jupyter_client asks the kernel to shut down, sends SIGTERM 2.5 s later and SIGKILL at 5 s; the
server lives in its own process group (so the kernel's Ctrl-C does not kill it), so only mcpnb's
shutdown hook can end it in time.
"""

from __future__ import annotations

import os
import signal
import sys

from conftest import alive, started_kernel, wait_until

from faults.conftest import FAULTY
from tests.frontend import iopub_until_idle, is_idle


def _run(kc, code: str, timeout: float = 120) -> str:
    """Execute ``code``; its stdout (replies matched by msg_id)."""
    msgs = iopub_until_idle(kc, kc.execute(code), timeout)
    if not msgs or not is_idle(msgs[-1]):
        raise AssertionError(f"no answer to {code!r}")
    out = []
    for msg in msgs:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            raise AssertionError("\n".join(msg["content"]["traceback"]))
    return "".join(out)


def _start_deaf_server(kc, marks) -> int:
    code = (
        "import mcpnb\n"
        "pool = mcpnb.default_pool()\n"
        f"pool.connect('deaf', command={sys.executable!r}, args=[{FAULTY!r}, 'stdio', '--ignore-term', "
        f"'--marks', {str(marks.path)!r}], health_check_interval=0)\n"
        "print(pool.call('deaf', 'pid').data)\n"
    )
    return int(_run(kc, code).strip())


def test_kernel_restart_and_shutdown_end_a_server_that_ignores_sigterm(marks):
    km, kc = started_kernel()
    pids: list[int] = []
    try:
        pids.append(_start_deaf_server(kc, marks))
        km.restart_kernel(now=False)  # what JupyterLab's "Restart Kernel" does
        assert wait_until(lambda: not alive(pids[0]), timeout=10), "the server outlived the restart"

        kc.wait_for_ready(timeout=60)
        pids.append(_start_deaf_server(kc, marks))
        kc.stop_channels()
        km.shutdown_kernel(now=False)  # "Shut Down Kernel"
        assert wait_until(lambda: not alive(pids[1]), timeout=10), "the server outlived the shutdown"
        assert marks.pids() == set(pids)
    finally:
        for pid in marks.pids():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if km.is_alive():
            km.shutdown_kernel(now=True)
