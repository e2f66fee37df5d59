"""Starting up: ``%load_ext mcpnb``, the SDK's import, and the first connect in a fresh interpreter.

Each number comes from a new Python process, so nothing is warm: the first connect includes
importing the SDK, which is what a person's first ``%mcp connect`` in a new kernel pays. mcpnb's
bytecode is compiled first, as installing it does (``load_ext.compile_mcpnb``).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from string import Template
from typing import Any

from suite.common import DEMO, PYTHON, ROOT, Row, Scale, Tick, failed, median, ratio
from suite.servers import Servers

SECTION = "startup"
FIRST_CONNECT_TRANSPORTS = ("stdio", "http-modern")

SDK_IMPORT = """
import json, time
t0 = time.perf_counter()
from mcp import Client
print(json.dumps({"s": time.perf_counter() - t0}))
"""

POOL_CONNECT = """
import json, time
t0 = time.perf_counter()
import mcpnb
pool = mcpnb.Pool()
pool.connect("first", **$options)
elapsed = time.perf_counter() - t0
pool.close()
print(json.dumps({"s": elapsed}))
"""

RAW_CONNECT = """
import json, os, time
t0 = time.perf_counter()
import asyncio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    if $transport == "stdio":
        params = StdioServerParameters(command=$python, args=[$demo, "stdio"])
        target = stdio_client(params, errlog=open(os.devnull, "w"))
    else:
        target = $url
    async with Client(target) as client:
        elapsed = time.perf_counter() - t0
    return elapsed

print(json.dumps({"s": asyncio.run(main())}))
"""


def fresh(code: str, timeout: float = 120) -> float:
    """Seconds reported by ``code`` run in a new interpreter."""
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip().splitlines() or ["(no output)"])[-1])
    return json.loads(out.stdout.strip().splitlines()[-1])["s"]


def load_ext_row(scale: Scale) -> Row:
    import load_ext  # bench/load_ext.py: a new interpreter per run, %load_ext alone is timed

    key, label = f"{SECTION}/load-ext", "%load_ext mcpnb in a fresh interpreter"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs = [load_ext.one_run(Path(tmp)) for _ in range(scale.load_ext_runs)]
    except Exception as exc:
        return failed(SECTION, key, label, exc)
    heavy = sorted({m for r in runs for m in r["heavy"]})
    return Row(
        SECTION,
        key,
        label,
        median([r["ms"] for r in runs]),
        target=f"≤ {load_ext.TARGET_MS:.0f} ms",
        detail=f"n={len(runs)}, heavy modules imported: {', '.join(heavy) or 'none'}",
    )


def first_connect_rows(transport: str, scale: Scale, servers: Servers) -> list[Row]:
    options: dict[str, Any]
    if transport == "stdio":
        options = {"command": PYTHON, "args": [str(DEMO), "stdio"]}
        url = None
    else:
        url = servers.demo_url
        options = {"url": url, "era": "modern"}
    raw_code = Template(RAW_CONNECT).substitute(
        transport=repr(transport), python=repr(PYTHON), demo=repr(str(DEMO)), url=repr(url)
    )
    pool_code = Template(POOL_CONNECT).substitute(options=repr(options))
    keys = {
        "raw": (
            f"{SECTION}/first-connect/{transport}/raw",
            f"first connect over {transport}, mcp.Client (raw)",
        ),
        "pool": (f"{SECTION}/first-connect/{transport}/pool", f"first connect over {transport}, mcpnb Pool"),
    }
    try:
        raw = [fresh(raw_code) for _ in range(scale.first_connect_runs)]
        pooled = [fresh(pool_code) for _ in range(scale.first_connect_runs)]
    except Exception as exc:
        return [failed(SECTION, key, label, exc) for key, label in keys.values()]
    detail = f"n={scale.first_connect_runs}, SDK import included"
    raw_ms, pool_ms = median(raw) * 1000, median(pooled) * 1000
    return [
        Row(SECTION, *keys["raw"], raw_ms, detail=detail),
        Row(SECTION, *keys["pool"], pool_ms, ratio=ratio(pool_ms, raw_ms), versus="raw", detail=detail),
    ]


def measure(scale: Scale, servers: Servers, tick: Tick) -> list[Row]:
    import load_ext

    tick("compiling mcpnb's bytecode")
    load_ext.compile_mcpnb()
    tick("%load_ext mcpnb")
    rows = [load_ext_row(scale)]
    tick("importing the SDK")
    key, label = f"{SECTION}/sdk-import", "import mcp (Client) in a fresh interpreter"
    try:
        rows.append(
            Row(SECTION, key, label, median([fresh(SDK_IMPORT) * 1000 for _ in range(scale.load_ext_runs)]))
        )
    except Exception as exc:
        rows.append(failed(SECTION, key, label, exc))
    for transport in FIRST_CONNECT_TRANSPORTS:
        tick(f"first connect over {transport}")
        rows += first_connect_rows(transport, scale, servers)
    return rows
