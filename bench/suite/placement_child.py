"""Where the hop floor comes from: the same in-process calls with threads free, or all on one CPU.

    python bench/suite/placement_child.py '{"pin": true, "calls": 300, "reps": 3}'

With ``pin``, the process is bound to one CPU before any thread starts (every thread inherits it):
a thread then wakes the next on the CPU it runs on, where it would otherwise wake one on the other
CPU (on a virtual machine, an interrupt between virtual CPUs). Prints one JSON line of per-call
seconds: ``round_trip`` (a coroutine that does nothing, through ``runtime.run``), ``raw`` (the demo
server's ``add`` in-process through a raw ``mcp.Client``, awaited in one task on its own loop) and
``pool`` (the same through mcpnb's ``pool.call``), each the median of its blocks taken in turns.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

spec = json.loads(sys.argv[1])
if spec["pin"]:  # before anything starts a thread
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import asyncio  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "servers"))
from demo_server import create_server  # noqa: E402
from mcp import Client  # noqa: E402

from mcpnb.client.pool import Pool  # noqa: E402
from mcpnb.client.runtime import Runtime  # noqa: E402

ARGS = {"a": 1, "b": 2}


async def nothing() -> None:
    return None


def timed(call: object, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        call()  # type: ignore[operator]
        out.append(time.perf_counter() - t)
    return out


async def atimed(client: Client, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await client.call_tool("add", ARGS)
        out.append(time.perf_counter() - t)
    return out


async def measure(runtime: Runtime, pool: Pool) -> dict[str, float]:
    """Blocks of each in turns, so load that comes and goes on a shared machine lands on all alike
    (the sync calls block this loop while they run, as a kernel's cell does)."""
    async with Client(create_server()) as client:
        calls = {
            "round_trip": lambda n: timed(lambda: runtime.run(nothing()), n),
            "pool": lambda n: timed(lambda: pool.call("demo", "add", ARGS), n),
        }
        times: dict[str, list[float]] = {"round_trip": [], "raw": [], "pool": []}
        for warm_up in (True, *([False] * spec["reps"])):
            n = 20 if warm_up else spec["calls"]
            got = {"raw": await atimed(client, n), **{key: call(n) for key, call in calls.items()}}
            for key, xs in got.items():
                times[key] += [] if warm_up else xs
    return {key: statistics.median(xs) for key, xs in times.items()}


def main() -> None:
    runtime = Runtime(name="mcpnb-bench-placement")
    pool = Pool(runtime)
    try:
        pool.connect("demo", server=create_server())
        print(json.dumps(asyncio.run(measure(runtime, pool))))
    finally:
        pool.close()
        runtime.close()


if __name__ == "__main__":
    main()
