"""probe-kit over HTTP against the same server run by ``MCPServer.run()`` (uvicorn host/port).

probe-kit binds its own socket (so a notebook can serve it on a running loop); ``MCPServer.run()``
lets uvicorn bind. The same probe-kit tool is called through a raw ``mcp.Client`` in both eras,
in alternating blocks, so the ratio is the listener's cost alone (a Nagle stall shows as ~40 ms).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from suite.common import PYTHON, Deadline, Row, Scale, Tick, blocks, failed, latency_row, median
from suite.owned import OwnedClient
from suite.servers import Servers, first_line, free_port, wait_listening

SECTION = "probekit"
TOOL = "gen_mock"
ARGS = {"schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
ERAS = {"http-legacy": "legacy", "http-modern": "auto"}
SERVED_BY = {"run": "MCPServer.run() (uvicorn host/port)", "probekit": "python -m mcpnb.probekit --http"}


def start_servers(servers: Servers) -> dict[str, str]:
    probekit = servers.procs.start([PYTHON, "-m", "mcpnb.probekit", "--http", "--port", "0"])
    port = free_port()
    code = (
        "from mcpnb.probekit import create_server\n"
        f"create_server().run('streamable-http', host='127.0.0.1', port={port})"
    )
    run = servers.procs.start([PYTHON, "-c", code])
    urls = {"probekit": first_line(probekit)}
    wait_listening(port, run)
    urls["run"] = f"http://127.0.0.1:{port}/mcp"
    return urls


async def block(client: Any, n: int, deadline: Deadline) -> list[float]:
    times = []
    for _ in range(n):
        if deadline.passed:
            break
        t = time.perf_counter()
        result = await client.call_tool(TOOL, ARGS)
        times.append(time.perf_counter() - t)
        if result.is_error:
            raise RuntimeError(f"{TOOL} failed: {result.content}")
    return times


def measure(scale: Scale, servers: Servers, loop: asyncio.AbstractEventLoop, tick: Tick) -> list[Row]:
    from mcp import Client

    def keys(era: str) -> dict[str, tuple[str, str]]:
        return {k: (f"{SECTION}/{era}/{k}", f"{era} · {SERVED_BY[k]}") for k in SERVED_BY}

    tick("starting probe-kit twice")
    try:
        urls = start_servers(servers)
    except Exception as exc:
        return [failed(SECTION, key, label, exc) for era in ERAS for key, label in keys(era).values()]
    rows: list[Row] = []
    for era, mode in ERAS.items():
        clients = {
            k: OwnedClient(loop, lambda url=url, mode=mode: Client(url, mode=mode)) for k, url in urls.items()
        }
        times: dict[str, list[float]] = {k: [] for k in clients}
        try:
            tick(f"probe-kit {era}: connecting")
            live = {k: c.start() for k, c in clients.items()}
            for client in live.values():
                loop.run_until_complete(block(client, scale.warmup, Deadline(scale.budget)))
            phase = Deadline(2 * scale.budget)
            plan = blocks(scale.probekit_calls * scale.reps, scale.block)
            for i, n in enumerate(plan):
                if i % 5 == 0:
                    tick(f"probe-kit {era}: block {i + 1} of {len(plan)}")
                for k, client in live.items():
                    times[k] += loop.run_until_complete(block(client, n, phase))
        except Exception as exc:
            rows += [failed(SECTION, key, label, exc) for key, label in keys(era).values()]
            continue
        finally:
            for c in clients.values():
                c.close()
        reference = median(times["run"]) if times["run"] else None
        names = keys(era)
        rows.append(latency_row(SECTION, *names["run"], times["run"]))
        rows.append(
            latency_row(
                SECTION,
                *names["probekit"],
                times["probekit"],
                reference=reference,
                versus="MCPServer.run()",
                target="≤ 1.2",
            )
        )
    return rows
