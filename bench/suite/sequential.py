"""Sequential latency: the same trivial call (``add``) through every client, on every transport.

Clients: the raw ``mcp.Client`` (its own loop, no thread hop: the floor), mcpnb's ``pool.call``
from the main thread and ``await pool.acall`` from a loop on the main thread (as a notebook cell
calls them), FastMCP's ``Client`` (a subprocess of its own, see fastmcp_client.py) and a client that
opens a new session for every call. Raw, sync and async take turns in blocks of ``scale.block``
calls, so load that comes and goes on a shared machine lands on all three alike; ratios are the
median per call over the raw client's median.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from typing import Any

from suite.common import PYTHON, Deadline, Row, Scale, Tick, blocks, failed, latency_row, median
from suite.owned import OwnedClient
from suite.servers import Servers, demo_server, pool_options, raw_mode, raw_target

SECTION = "sequential"
TOOL, ARGS = "add", {"a": 1, "b": 2}
CLIENTS = {
    "raw": "mcp.Client (raw)",
    "pool-sync": "mcpnb pool.call",
    "pool-async": "mcpnb await pool.acall",
    "fastmcp": "FastMCP Client",
    "per-call": "new session per call",
}
FASTMCP_SCRIPT = __file__.replace("sequential.py", "fastmcp_client.py")


def target_for(transport: str, client: str) -> str:
    if client.startswith("pool"):
        return "≤ 1.10" if transport == "inprocess" else "≤ 1.05"
    return ""


async def raw_block(client: Any, n: int, deadline: Deadline) -> list[float]:
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        await client.call_tool(TOOL, ARGS)
        times.append(time.perf_counter() - t)
    return times


def sync_block(pool: Any, name: str, n: int, deadline: Deadline) -> list[float]:
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        pool.call(name, TOOL, ARGS, timeout=30)
        times.append(time.perf_counter() - t)
    return times


async def async_block(pool: Any, name: str, n: int, deadline: Deadline) -> list[float]:
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        await pool.acall(name, TOOL, ARGS, timeout=30)
        times.append(time.perf_counter() - t)
    return times


async def per_call_block(
    transport: str, url: str | None, errlog: Any, n: int, deadline: Deadline
) -> list[float]:
    from mcp import Client

    server = demo_server() if transport == "inprocess" else None  # one server, a new session each call
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        async with Client(raw_target(transport, url, errlog, server), mode=raw_mode(transport)) as client:
            await client.call_tool(TOOL, ARGS)
        times.append(time.perf_counter() - t)
    return times


def fastmcp_times(transport: str, url: str | None, scale: Scale) -> list[float]:
    """FastMCP's numbers, from a process of its own (it configures logging and imports much more)."""
    spec = {
        "transport": transport,
        "url": url,
        "tool": TOOL,
        "args": ARGS,
        "warmup": scale.warmup,
        "calls": scale.calls * scale.reps,
        "budget": scale.budget,
    }
    out = subprocess.run(
        [PYTHON, FASTMCP_SCRIPT, json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=scale.budget + 120,
    )
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"FastMCP run failed (exit {out.returncode}): {tail}")
    answer = json.loads(lines[-1])
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer["times"]


def measure(
    transport: str,
    scale: Scale,
    servers: Servers,
    pool: Any,
    loop: asyncio.AbstractEventLoop,
    tick: Tick,
) -> list[Row]:
    from mcp import Client

    url = servers.url_for(transport)
    errlog = servers.procs.devnull
    name = f"seq-{transport}"
    times: dict[str, list[float]] = {"raw": [], "pool-sync": [], "pool-async": []}
    rows: list[Row] = []
    raw = OwnedClient(loop, lambda: Client(raw_target(transport, url, errlog), mode=raw_mode(transport)))
    try:
        tick(f"{transport}: connecting")
        client = raw.start()
        pool.connect(name, **pool_options(transport, url))
        warm = Deadline(scale.budget)
        loop.run_until_complete(raw_block(client, scale.warmup, warm))
        sync_block(pool, name, scale.warmup, warm)
        loop.run_until_complete(async_block(pool, name, scale.warmup, warm))
        phase = Deadline(3 * scale.budget)  # the three clients share it, block after block
        plan = blocks(scale.calls * scale.reps, scale.block)
        for i, n in enumerate(plan):
            if phase.passed:
                break
            if i % 5 == 0:
                tick(f"{transport}: raw / pool.call / pool.acall, block {i + 1} of {len(plan)}")
            times["raw"] += loop.run_until_complete(raw_block(client, n, phase))
            times["pool-sync"] += sync_block(pool, name, n, phase)
            times["pool-async"] += loop.run_until_complete(async_block(pool, name, n, phase))
    except Exception as exc:
        return [
            failed(SECTION, f"{SECTION}/{transport}/{c}", f"{transport} · {label}", exc)
            for c, label in CLIENTS.items()
        ]
    finally:
        raw.close()
        if name in pool:
            pool.disconnect(name)

    reference = median(times["raw"]) if times["raw"] else None
    for client_key in ("raw", "pool-sync", "pool-async"):
        rows.append(
            latency_row(
                SECTION,
                f"{SECTION}/{transport}/{client_key}",
                f"{transport} · {CLIENTS[client_key]}",
                times[client_key],
                reference=reference,
                versus="raw",
                target=target_for(transport, client_key),
            )
        )

    key, label = f"{SECTION}/{transport}/fastmcp", f"{transport} · {CLIENTS['fastmcp']}"
    tick(f"{transport}: FastMCP Client")
    try:
        rows.append(
            latency_row(
                SECTION, key, label, fastmcp_times(transport, url, scale), reference=reference, versus="raw"
            )
        )
    except Exception as exc:
        rows.append(failed(SECTION, key, label, exc))

    key, label = f"{SECTION}/{transport}/per-call", f"{transport} · {CLIENTS['per-call']}"
    tick(f"{transport}: a new session per call")
    n = scale.per_call_sessions[transport]
    try:
        per_call = loop.run_until_complete(per_call_block(transport, url, errlog, n, Deadline(scale.budget)))
        rows.append(latency_row(SECTION, key, label, per_call, reference=reference, versus="raw"))
    except Exception as exc:
        rows.append(failed(SECTION, key, label, exc))
    return rows
