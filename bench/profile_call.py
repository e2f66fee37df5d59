"""Where a pooled call spends its time: cProfile on both threads a ``pool.call`` crosses.

    python bench/profile_call.py [--transport inprocess|stdio|http-legacy|http-modern] [--calls 2000]
                                 [--magic] [--top 25]

The calling thread and mcpnb's runtime thread are profiled separately (cProfile sees one thread
each) over the same N calls of the demo server's ``add``, after a warm-up; ``--magic`` calls through
``%mcp call`` on an IPython shell instead of ``pool.call``. Prints the top functions of each
thread by own time and by cumulative time. For finding hot spots, not for timing: the profiler
itself slows every Python call down.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite.common import TRANSPORTS
from suite.servers import Processes, Servers, pool_options


def report(title: str, prof: cProfile.Profile, top: int) -> None:
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(order).print_stats(top)
        body = out.getvalue()
        print(f"\n=== {title}, by {order} ===\n{body[body.find('   ncalls') :]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--transport", default="inprocess", choices=TRANSPORTS)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--magic", action="store_true", help="call through %%mcp call on an IPython shell")
    p.add_argument("--top", type=int, default=25)
    opts = p.parse_args()

    from mcpnb import default_pool

    pool = default_pool()
    with Processes() as procs:
        try:
            pool.connect("demo", **pool_options(opts.transport, Servers(procs).url_for(opts.transport)))
            if opts.magic:
                from IPython.core.interactiveshell import InteractiveShell

                shell = InteractiveShell.instance()
                shell.run_line_magic("load_ext", "mcpnb")

                def call() -> object:
                    return shell.run_line_magic("mcp", "call demo.add a=1 b=2")
            else:

                def call() -> object:
                    return pool.call("demo", "add", {"a": 1, "b": 2})

            for _ in range(50):
                call()
            caller, runtime = cProfile.Profile(), cProfile.Profile()

            async def switch(on: bool) -> None:
                runtime.enable() if on else runtime.disable()

            pool.runtime.run(switch(True))
            t = time.perf_counter()
            caller.enable()
            for _ in range(opts.calls):
                call()
            caller.disable()
            elapsed = time.perf_counter() - t
            pool.runtime.run(switch(False))
        finally:
            pool.close()
    way = "%mcp call" if opts.magic else "pool.call"
    per_call = elapsed / opts.calls * 1000
    print(f"{opts.calls} × {way} over {opts.transport}: {per_call:.3f} ms per call (profiled)")
    report("calling thread", caller, opts.top)
    report("runtime thread", runtime, opts.top)


if __name__ == "__main__":
    main()
