"""Pool overhead against the raw SDK, same server, same run. Prints a table with pool/raw ratios.

    python bench/pool_overhead.py [--calls 1000] [--transports inprocess,stdio,http]

What is compared: N sequential trivial calls (``add``) through ``mcp.Client`` directly (inside
``asyncio.run``, the best case for the SDK) and through ``mcpnb.Pool`` as a notebook uses it (the
synchronous ``pool.call`` from the main thread, so the runtime-thread hop is included). Then 100
concurrent calls of a 50 ms tool on one pooled connection against the same calls made one by one.
Targets (never asserted in tests): ratio <= 1.10 for in-process and stdio; concurrency >= 20x.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "servers" / "demo_server.py"
sys.path.insert(0, str(DEMO.parent))


def raw_target(transport: str, url: str | None):
    from demo_server import create_server
    from mcp import StdioServerParameters

    if transport == "inprocess":
        return create_server()
    if transport == "stdio":
        return StdioServerParameters(command=sys.executable, args=[str(DEMO), "stdio"])
    return url


async def raw_run(transport: str, url: str | None, calls: int) -> list[float]:
    from mcp import Client

    async with Client(raw_target(transport, url)) as client:
        for _ in range(20):
            await client.call_tool("add", {"a": 1, "b": 2})
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            await client.call_tool("add", {"a": 1, "b": 2})
            times.append(time.perf_counter() - t)
        return times


def pool_run(pool, transport: str, url: str | None, calls: int) -> list[float]:
    from demo_server import create_server

    if transport == "inprocess":
        pool.connect("b", server=create_server())
    elif transport == "stdio":
        pool.connect("b", command=sys.executable, args=[str(DEMO), "stdio"])
    else:
        pool.connect("b", url=url)
    for _ in range(20):
        pool.call("b", "add", {"a": 1, "b": 2})
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        pool.call("b", "add", {"a": 1, "b": 2})
        times.append(time.perf_counter() - t)
    pool.disconnect("b")
    return times


def concurrency(pool, n: int = 100, seconds: float = 0.05) -> tuple[float, float]:
    pool.connect("c", command=sys.executable, args=[str(DEMO), "stdio"])
    pool.call("c", "slow", {"seconds": 0})
    t = time.perf_counter()
    for _ in range(10):
        pool.call("c", "slow", {"seconds": seconds})
    sequential_per_call = (time.perf_counter() - t) / 10

    async def burst() -> None:
        await asyncio.gather(*(pool.acall("c", "slow", {"seconds": seconds}) for _ in range(n)))

    t = time.perf_counter()
    asyncio.run(burst())
    concurrent = time.perf_counter() - t
    pool.disconnect("c")
    return sequential_per_call * n, concurrent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--transports", default="inprocess,stdio,http")
    opts = parser.parse_args()

    from mcpnb import Pool

    pool = Pool()
    server = None
    url = None
    transports = opts.transports.split(",")
    if "http" in transports:
        server = subprocess.Popen(
            [sys.executable, str(DEMO), "http", "--port", "0"], stdout=subprocess.PIPE, text=True
        )
        url = server.stdout.readline().strip()
    try:
        print(f"{opts.calls} sequential trivial calls (median per call; ratio = pool / raw)")
        print(
            f"{'transport':<10} {'raw ms':>8} {'pool ms':>8} {'ratio':>6} "
            f"{'raw calls/s':>12} {'pool calls/s':>12}"
        )
        for transport in transports:
            raw = asyncio.run(raw_run(transport, url, opts.calls))
            pooled = pool_run(pool, transport, url, opts.calls)
            r, p = statistics.median(raw), statistics.median(pooled)
            print(
                f"{transport:<10} {r * 1000:8.3f} {p * 1000:8.3f} {p / r:6.2f} "
                f"{len(raw) / sum(raw):12.0f} {len(pooled) / sum(pooled):12.0f}"
            )
        seq, conc = concurrency(pool)
        print(
            f"\n100 calls of a 50 ms tool on one stdio connection: one by one {seq:.2f} s, "
            f"concurrent {conc:.2f} s, speed-up {seq / conc:.1f}x"
        )
    finally:
        pool.close()
        if server is not None:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
