"""startup_timeout measures the server, not mcpnb: the first connect of a process imports the SDK
(seconds on a busy machine) before the clock starts, off the runtime loop."""

from __future__ import annotations

import subprocess
import sys

from conftest import demo_command

#: Makes the first import of the SDK's client take 8 s, as a cold import on a very loaded machine can.
SLOW_IMPORT = """
import importlib.abc, sys, time

class Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "mcp.client.client":
            sys.meta_path.remove(self)
            time.sleep(8)
        return None

sys.meta_path.insert(0, Slow())
"""


def test_the_first_connect_does_not_spend_startup_timeout_on_importing_the_sdk(tmp_path):
    code = (
        SLOW_IMPORT
        + "import mcpnb\n"
        + "pool = mcpnb.Pool()\n"
        + f"pool.connect('demo', **{demo_command()!r}, startup_timeout=7, health_check_interval=0)\n"
        + "print(pool.call('demo', 'echo', {'text': 'connected'}).data)\n"
        + "pool.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "connected"
