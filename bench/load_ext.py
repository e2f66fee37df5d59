"""How long ``%load_ext mcpnb`` takes in a fresh interpreter, against the 300 ms target.

Each run starts a new Python, builds an IPython shell (not timed), then times ``%load_ext mcpnb``
alone, and reports which heavy modules the load pulled in (it should pull in none). mcpnb's bytecode
is compiled first, as installing it does. With
``--config`` the working directory has a ``.mcp.json``, to include the default-config check.

    python bench/load_ext.py [--runs 5] [--config]

Prints numbers only; tests never assert timings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_MS = 300.0
HEAVY = (
    "pandas",
    "ipywidgets",
    "anywidget",
    "jsonschema",
    "mcp",
    "httpx",
    "httpx2",
    "pydantic",
    "anyio",
    "uvicorn",
)

PROBE = f"""
import json, sys, time
HEAVY = {HEAVY!r}
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
before = set(sys.modules)
t0 = time.perf_counter()
ip.run_line_magic("load_ext", "mcpnb")
elapsed = (time.perf_counter() - t0) * 1000
heavy = sorted(m for m in HEAVY if m in sys.modules and m not in before)
print(json.dumps({{"ms": elapsed, "heavy": heavy, "modules": len(set(sys.modules) - before)}}))
"""


def compile_mcpnb() -> None:
    """Compile mcpnb's bytecode, as ``pip install`` does for the SDK and every other package.

    A checkout run with ``PYTHONDONTWRITEBYTECODE`` (this machine sets it), or read-only, has no
    bytecode for mcpnb's own modules: each fresh interpreter then compiles all of them, which
    about tripled ``%load_ext`` here (539 ms against 181 ms) and put 0.3 s on mcpnb's side of the first
    connect, where the SDK's modules, compiled when installed, pay nothing. (Stale bytecode is
    never used: Python compares it with its source.)"""
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parent.parent / "mcpnb", quiet=1)


def one_run(cwd: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=cwd, capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--config", action="store_true", help="run where a default .mcp.json exists")
    args = parser.parse_args()
    compile_mcpnb()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        if args.config:
            servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
            (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
        runs = [one_run(cwd) for _ in range(args.runs)]
    times = [r["ms"] for r in runs]
    median = statistics.median(times)
    print(f"%load_ext mcpnb, {args.runs} fresh interpreters{' (with .mcp.json)' if args.config else ''}:")
    print(f"  median {median:.1f} ms   min {min(times):.1f} ms   max {max(times):.1f} ms")
    print(f"  target {TARGET_MS:.0f} ms -> {median / TARGET_MS:.2f} of the budget")
    print(f"  modules imported by the load: {runs[0]['modules']}")
    heavy = sorted({m for r in runs for m in r["heavy"]})
    print(f"  heavy modules imported: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
