"""Many slow calls at once on one connection: does the pool overlap them as well as the SDK does?

``concurrent`` calls of the demo server's ``slow`` tool (``slow_seconds`` each) are gathered on one
connection through the raw ``mcp.Client``, through the same client held on mcpnb's runtime thread
declaring what mcpnb declares (``await runtime.arun``: the floor, as in the sequential section) and
through ``await pool.acall``; the same calls made one by one through ``pool.call`` (a few
measured, scaled up) give the speed-up. After one burst each that is not counted, each burst is
repeated ``concurrent_reps`` times, the three taking turns, and the median wall time is kept.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from suite.common import Deadline, Row, Scale, Tick, failed, median, ratio
from suite.owned import OwnedClient, RuntimeClient
from suite.servers import Servers, declared_client, no_progress, pool_options, raw_client

SECTION = "concurrency"


async def burst(call: Any, n: int, budget: float) -> float:
    t = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(call() for _ in range(n))), budget)
    return time.perf_counter() - t


def labels(transport: str, scale: Scale) -> dict[str, str]:
    n, ms = scale.concurrent, scale.slow_seconds * 1000
    return {
        "raw": f"{transport} · {n} × {ms:.0f} ms at once, mcp.Client (raw)",
        "floor": (
            f"{transport} · {n} × {ms:.0f} ms at once, mcp.Client on the runtime thread declaring what "
            "mcpnb declares, await runtime.arun (floor)"
        ),
        "pool-async": f"{transport} · {n} × {ms:.0f} ms at once, mcpnb pool.acall",
        "one-by-one": f"{transport} · {n} × {ms:.0f} ms one by one, mcpnb pool.call",
        "speed-up": f"{transport} · speed-up of the pool's concurrent calls over one by one",
        "pool-over-floor": f"{transport} · {n} × {ms:.0f} ms at once, mcpnb pool.acall over the floor",
    }


def measure(
    transport: str,
    scale: Scale,
    servers: Servers,
    pool: Any,
    loop: asyncio.AbstractEventLoop,
    tick: Tick,
) -> list[Row]:
    url = servers.url_for(transport)
    name = f"conc-{transport}"
    args = {"seconds": scale.slow_seconds}
    names = labels(transport, scale)
    raw = OwnedClient(loop, lambda: raw_client(transport, url, servers.procs.devnull))
    held = RuntimeClient(pool.runtime, lambda: declared_client(transport, url, servers.procs.devnull))
    try:
        tick(f"{transport}: connecting")
        client, declaring = raw.start(), held.start()
        pool.connect(name, **pool_options(transport, url))
        client_warm = loop.run_until_complete(client.call_tool("slow", {"seconds": 0}))
        assert not client_warm.is_error, client_warm
        pool.call(name, "slow", {"seconds": 0})
        raw_times, floor_times, pool_times = [], [], []

        def floor_call() -> Any:
            return pool.runtime.arun(declaring.call_tool("slow", args, progress_callback=no_progress))

        # one burst each first, not counted: the first burst on a connection also pays for what a
        # hundred requests at once set up once (the server's worker threads, buffers, tasks)
        for rep in range(-1, scale.concurrent_reps):
            round_name = "warm-up" if rep < 0 else f"round {rep + 1} of {scale.concurrent_reps}"
            tick(f"{transport}: {scale.concurrent} calls at once, {round_name}")
            raw_s = loop.run_until_complete(
                burst(lambda: client.call_tool("slow", args), scale.concurrent, scale.budget)
            )
            floor_s = loop.run_until_complete(burst(floor_call, scale.concurrent, scale.budget))
            pool_s = loop.run_until_complete(
                burst(lambda: pool.acall(name, "slow", args, timeout=60), scale.concurrent, scale.budget)
            )
            if rep >= 0:
                raw_times.append(raw_s)
                floor_times.append(floor_s)
                pool_times.append(pool_s)
        tick(f"{transport}: one by one")
        deadline = Deadline(scale.budget)
        singles = []
        for _ in range(scale.one_by_one):
            if deadline.passed:
                break
            t = time.perf_counter()
            pool.call(name, "slow", args, timeout=60)
            singles.append(time.perf_counter() - t)
    except Exception as exc:
        return [failed(SECTION, f"{SECTION}/{transport}/{k}", label, exc) for k, label in names.items()]
    finally:
        raw.close()
        held.close()
        if name in pool:
            pool.disconnect(name)

    raw_s, floor_s, pool_s = median(raw_times), median(floor_times), median(pool_times)
    one_by_one = median(singles) * scale.concurrent
    detail = f"median of {scale.concurrent_reps}"

    def row(key: str, value: float, unit: str = "s", **more: Any) -> Row:
        return Row(SECTION, f"{SECTION}/{transport}/{key}", names[key], value, unit, **more)

    def at_once(key: str, value: float, versus: str, over: float, **more: Any) -> Row:
        more.setdefault("detail", detail)
        return row(key, value, ratio=ratio(value, over), versus=f"{versus} at once", **more)

    return [
        row("raw", raw_s, detail=detail),
        at_once("floor", floor_s, "raw", raw_s),
        at_once("pool-async", pool_s, "raw", raw_s, target="≤ 1.15"),
        at_once(
            "pool-over-floor",
            pool_s,
            "floor",
            floor_s,
            detail=f"{detail}, what the pool adds to the same threads and the same requests",
        ),
        row("one-by-one", one_by_one, detail=f"{len(singles)} calls measured, scaled to {scale.concurrent}"),
        row(
            "speed-up",
            one_by_one / pool_s,
            "×",
            # the goal is for stdio (bench/pool_overhead.py's old case); over HTTP even the raw
            # client's 100 calls at once take ~20 of the tool's durations here
            target="≥ 20×" if transport == "stdio" and scale.concurrent >= 100 else "",
        ),
    ]
