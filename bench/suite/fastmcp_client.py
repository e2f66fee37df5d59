"""FastMCP's ``Client`` calling the demo server, in a process of its own; prints one JSON line.

    python bench/suite/fastmcp_client.py '{"transport": "stdio", "url": null, "tool": "add",
        "args": {"a": 1, "b": 2}, "warmup": 20, "calls": 900, "budget": 60}'

Answers ``{"times": [seconds per call, ...], "version": "..."}`` or ``{"error": "..."}``. A separate
process because FastMCP imports and configures much more than the SDK (rich logging among it), and
so that a FastMCP whose pins ever stop fitting ours can be given a virtualenv of its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "tests" / "servers" / "demo_server.py"


def transport_for(spec: dict) -> object:
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

    kind = spec["transport"]
    if kind == "inprocess":
        sys.path.insert(0, str(DEMO.parent))
        from demo_server import create_server

        return create_server()
    if kind == "stdio":
        return StdioTransport(command=sys.executable, args=[str(DEMO), "stdio"], log_file=Path(os.devnull))
    return StreamableHttpTransport(spec["url"])


async def measure(spec: dict) -> list[float]:
    from fastmcp import Client

    mode = "legacy" if spec["transport"] == "http-legacy" else "auto"
    async with Client(transport_for(spec), mode=mode, timeout=30) as client:
        for _ in range(spec["warmup"]):
            await client.call_tool(spec["tool"], spec["args"])
        # the budget is the measuring loop's, and it bounds how many calls, not whether any: on a
        # loaded machine, counted from before the connect, it was spent before the first call
        end = time.monotonic() + spec["budget"]
        times = []
        for _ in range(spec["calls"]):
            t = time.perf_counter()
            await client.call_tool(spec["tool"], spec["args"])
            times.append(time.perf_counter() - t)
            if time.monotonic() >= end:
                break
        return times


def main() -> None:
    spec = json.loads(sys.argv[1])
    try:
        import fastmcp
    except ImportError:
        print(json.dumps({"error": "FastMCP is not installed: pip install -e '.[bench]'"}))
        return
    times = asyncio.run(measure(spec))
    print(json.dumps({"times": times, "version": fastmcp.__version__}))


if __name__ == "__main__":
    main()
