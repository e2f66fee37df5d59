"""Sequential latency: the same trivial call (``add``) through every client, on every transport.

Clients: the raw ``mcp.Client`` (its own loop, no thread hop), the same raw client held on mcpnb's
runtime thread and called through ``runtime.run`` / ``await runtime.arun`` (the floor of any
synchronous API in a kernel, whose own loop is already running: one cross-thread round trip),
mcpnb's ``pool.call`` from the main thread and ``await pool.acall`` from a loop on the main thread
(as a notebook cell calls them), FastMCP's ``Client`` (a subprocess of its own, see
fastmcp_client.py) and a client that opens a new session for every call. The first five take turns
in blocks of ``scale.block`` calls, so load that comes and goes on a shared machine lands on all
alike; ratios are the median per call over the raw client's median, and for the pool also over
the hop floor's (what the pool itself adds).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Any

from suite.common import PYTHON, Deadline, Row, Scale, Tick, blocks, failed, latency_row, median
from suite.owned import OwnedClient, RuntimeClient
from suite.servers import Servers, declared_client, demo_server, no_progress, pool_options, raw_client

SECTION = "sequential"
TOOL, ARGS = "add", {"a": 1, "b": 2}
CLIENTS = {
    "raw": "mcp.Client (raw)",
    "hop-sync": "mcp.Client on the runtime thread, runtime.run (hop floor)",
    "hop-async": "mcp.Client on the runtime thread, await runtime.arun (hop floor)",
    "hop-declared": "mcp.Client on the runtime thread declaring what mcpnb declares, runtime.run",
    "pool-sync": "mcpnb pool.call",
    "pool-async": "mcpnb await pool.acall",
    "fastmcp": "FastMCP Client",
    "per-call": "new session per call",
}
#: The clients that take turns in blocks (the others run on their own afterwards).
TURNS = ("raw", "hop-sync", "hop-async", "hop-declared", "pool-sync", "pool-async")
#: The pool against the hop floor: the same median, divided by the floor's.
OVER_HOP = {
    "pool-over-hop-sync": "mcpnb pool.call over the hop floor",
    "pool-over-hop-async": "mcpnb await pool.acall over the hop floor",
    "pool-over-hop-declared": "mcpnb pool.call over the hop floor declaring what mcpnb declares",
}
#: Each over-the-floor row: (the pool's client, the floor's client, what the ratio says).
OVER_WHAT = {
    "pool-over-hop-sync": ("pool-sync", "hop-sync", "what the pool adds to one cross-thread round trip"),
    "pool-over-hop-async": ("pool-async", "hop-async", "what the pool adds to one cross-thread round trip"),
    "pool-over-hop-declared": (
        "pool-sync",
        "hop-declared",
        "what the pool's own code adds: the floor's client declares sampling, elicitation, MCP Apps "
        "and a log level too, which 2026-07-28 servers read on every request",
    ),
}
FASTMCP_SCRIPT = __file__.replace("sequential.py", "fastmcp_client.py")


def target_for(transport: str, client: str) -> str:
    if client.startswith("pool"):
        return "≤ 1.10" if transport == "inprocess" else "≤ 1.05"
    return ""


def timed(call: Callable[[], Any], n: int, deadline: Deadline) -> list[float]:
    """Seconds per call of up to ``n`` calls of ``call`` (fewer once ``deadline`` passes)."""
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return times


async def atimed(call: Callable[[], Awaitable[Any]], n: int, deadline: Deadline) -> list[float]:
    """:func:`timed` for a call that is awaited."""
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        await call()
        times.append(time.perf_counter() - t)
    return times


async def per_call_block(
    transport: str, url: str | None, errlog: Any, n: int, deadline: Deadline
) -> list[float]:
    server = demo_server() if transport == "inprocess" else None  # one server, a new session each call

    async def one_session() -> None:
        async with raw_client(transport, url, errlog, server) as client:
            await client.call_tool(TOOL, ARGS)

    return await atimed(one_session, n, deadline)


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
    url = servers.url_for(transport)
    errlog = servers.procs.devnull
    name = f"seq-{transport}"
    times: dict[str, list[float]] = {key: [] for key in TURNS}
    rows: list[Row] = []

    def make() -> Any:
        return raw_client(transport, url, errlog)

    raw, held = OwnedClient(loop, make), RuntimeClient(pool.runtime, make)
    declared = RuntimeClient(pool.runtime, lambda: declared_client(transport, url, errlog))
    runtime = pool.runtime
    try:
        tick(f"{transport}: connecting")
        client, on_runtime, declaring = raw.start(), held.start(), declared.start()
        pool.connect(name, **pool_options(transport, url))
        turns = {
            "raw": lambda n, d: loop.run_until_complete(atimed(lambda: client.call_tool(TOOL, ARGS), n, d)),
            "hop-sync": lambda n, d: timed(lambda: runtime.run(on_runtime.call_tool(TOOL, ARGS)), n, d),
            "hop-async": lambda n, d: loop.run_until_complete(
                atimed(lambda: runtime.arun(on_runtime.call_tool(TOOL, ARGS)), n, d)
            ),
            "hop-declared": lambda n, d: timed(
                lambda: runtime.run(declaring.call_tool(TOOL, ARGS, progress_callback=no_progress)), n, d
            ),
            "pool-sync": lambda n, d: timed(lambda: pool.call(name, TOOL, ARGS, timeout=30), n, d),
            "pool-async": lambda n, d: loop.run_until_complete(
                atimed(lambda: pool.acall(name, TOOL, ARGS, timeout=30), n, d)
            ),
        }
        warm = Deadline(scale.budget)
        for turn in turns.values():
            turn(scale.warmup, warm)
        phase = Deadline(len(turns) * scale.budget)  # the clients share it, block after block
        plan = blocks(scale.calls * scale.reps, scale.block)
        for i, n in enumerate(plan):
            if phase.passed:
                break
            if i % 5 == 0:
                tick(f"{transport}: raw / hop floor / pool, block {i + 1} of {len(plan)}")
            for key, turn in turns.items():
                times[key] += turn(n, phase)
    except Exception as exc:
        return [
            failed(SECTION, f"{SECTION}/{transport}/{c}", f"{transport} · {label}", exc)
            for c, label in {**CLIENTS, **OVER_HOP}.items()
        ]
    finally:
        raw.close()
        held.close()
        declared.close()
        if name in pool:
            pool.disconnect(name)

    reference = median(times["raw"]) if times["raw"] else None
    for client_key in TURNS:
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
    for key, label in OVER_HOP.items():
        pooled_key, floor_key, note = OVER_WHAT[key]
        pooled, floor = times[pooled_key], times[floor_key]
        rows.append(
            latency_row(
                SECTION,
                f"{SECTION}/{transport}/{key}",
                f"{transport} · {label}",
                pooled,
                reference=median(floor) if floor else None,
                versus="hop floor",
                note=note,
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
