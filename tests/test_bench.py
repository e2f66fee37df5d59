"""bench/run.py runs in one go and reports every row (a smoke run with tiny sizes; never timings).

The bench's numbers are for people (docs/performance.md); what a test can hold it to is that every
section ran against the real servers, every client on every transport produced a number, and the
report was written. Which numbers came out is never asserted.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys

import pytest
from conftest import DEMO, ROOT

FAULTY = str(ROOT / "tests" / "servers" / "faulty_server.py")

TRANSPORTS = ("inprocess", "stdio", "http-legacy", "http-modern")
SIZES = (200, 2000)
KERNEL = {
    "call": ("pool-call", "magic-call", "magic-overhead"),
    "await": ("pool-acall", "magic-await", "magic-await-overhead"),
}


def expected_keys() -> list[str]:
    keys = []
    for t in TRANSPORTS:
        clients = (
            "raw",
            "hop-sync",
            "hop-async",
            "hop-declared",
            "pool-sync",
            "pool-async",
            "fastmcp",
            "per-call",
        )
        keys += [f"sequential/{t}/{c}" for c in clients]
        keys += [f"sequential/{t}/pool-over-hop-{way}" for way in ("sync", "async", "declared")]
    keys += [f"placement/{where}/{k}" for where in ("free", "one-cpu") for k in ("round_trip", "raw", "pool")]
    for t in TRANSPORTS:
        keys += [
            f"concurrency/{t}/{c}"
            for c in ("raw", "floor", "pool-async", "pool-over-floor", "one-by-one", "speed-up")
        ]
    for way in ("call", "await"):
        keys += [f"kernel/{k}" for k in KERNEL[way]]
    keys += ["startup/load-ext", "startup/sdk-import"]
    keys += [f"startup/first-connect/{t}/{c}" for t in ("stdio", "http-modern") for c in ("raw", "pool")]
    for n in SIZES:
        keys += [f"large/{n}/{step}" for step in ("call", "df", "render", "total", "peak-memory")]
    small = min(SIZES)
    keys += [f"large/{small}/{k}" for k in ("raw", "wire", "client-share")]
    keys += [f"large/{small}/call/{t}" for t in ("inprocess", "stdio", "http-legacy")]
    keys += [f"probekit/{era}/{k}" for era in ("http-legacy", "http-modern") for k in ("run", "probekit")]
    return keys


def _finite(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def test_fastmcps_row_has_a_call_even_when_its_budget_is_spent_before_it_measures():
    """On a loaded machine FastMCP's connect and warm-up took the whole budget, and its rows said
    "no call completed": the budget bounds how many calls are measured, never whether any is."""
    spec = {"transport": "stdio", "url": None, "tool": "add", "args": {"a": 1, "b": 2}}
    spec |= {"warmup": 1, "calls": 50, "budget": 0}
    script = ROOT / "bench" / "suite" / "fastmcp_client.py"
    out = subprocess.run(
        [sys.executable, str(script), json.dumps(spec)], capture_output=True, text=True, timeout=120
    )
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(answer["times"]) == 1, answer  # one measured call, and the budget stopped the rest
    assert _finite(answer["times"][0])


@pytest.mark.timeout(900)
def test_quick_run_reports_every_row(tmp_path):
    rows_file = tmp_path / "rows.json"
    rows_arg = ",".join(str(n) for n in SIZES)
    cmd = [sys.executable, "bench/run.py", "--quick", "--rows", rows_arg, "--out", str(tmp_path)]
    run = subprocess.run(
        [*cmd, "--json", str(rows_file)], cwd=ROOT, capture_output=True, text=True, timeout=840
    )
    assert rows_file.exists(), run.stderr[-3000:]
    rows = {r["key"]: r for r in json.loads(rows_file.read_text())}

    failed = {k: r["error"] for k, r in rows.items() if r["error"]}
    assert not failed, failed
    missing = [k for k in expected_keys() if k not in rows]
    assert not missing, missing
    unexpected = [k for k in rows if k not in expected_keys()]
    assert not unexpected, unexpected  # a new row belongs in expected_keys() (and in the docs)
    not_numbers = [k for k, r in rows.items() if not _finite(r["value"])]
    assert not not_numbers, not_numbers
    # the per-client rows compare with the raw client measured in the same run
    assert all(rows[f"sequential/{t}/pool-sync"]["ratio"] is not None for t in TRANSPORTS)
    assert run.returncode == 0, run.stderr[-3000:]

    table = run.stdout  # the printed table has one line per row
    assert all(r["label"] in table for r in rows.values())
    report = (tmp_path / "performance.md").read_text()
    table_lines = [line for line in report.splitlines() if line.startswith("| ")]
    for r in rows.values():
        assert any(line.startswith(f"| {r['label']} |") for line in table_lines), r["label"]
    assert "cores (nproc)" in report and "| mcp |" in report
    assert (tmp_path / "performance.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "performance.png" in report


@pytest.mark.parametrize(
    "server", [[DEMO, "http"], [DEMO, "sse"], [FAULTY, "http"]], ids=["demo-http", "demo-sse", "faulty"]
)
def test_a_server_accepts_as_soon_as_it_prints_its_url(server):
    """The bench connects the moment a server prints its URL; CI once lost every HTTP row of a run
    because the port was bound but not listening until uvicorn started. Stopped right after the
    print, the server must still accept: the kernel's backlog answers for a socket that listens."""
    proc = subprocess.Popen([sys.executable, *server, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        os.kill(proc.pid, signal.SIGSTOP)
        port = int(url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            assert conn.getpeername() == ("127.0.0.1", port)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


@pytest.mark.timeout(300)
def test_a_quick_classroom_run_prints_and_leaves_the_docs_alone():
    """``bench/classroom.py --quick`` is a smoke run (one pass of a small class): it rewrote the
    committed table in docs/classroom.md and its PNG with it. A real class of 6 here, one worker,
    SQLite (the run starts and stops its own probe-kit)."""
    docs = [ROOT / "docs" / "classroom.md", ROOT / "docs" / "classroom-bench.png"]
    before = [p.read_bytes() for p in docs]
    run = subprocess.run(
        [
            sys.executable,
            "bench/classroom.py",
            "--quick",
            "--students",
            "6",
            "--workers",
            "1",
            "--stores",
            "sqlite",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "6 students" in run.stdout and "sqlite" in run.stdout
    assert "--quick: nothing written into docs/" in run.stderr
    assert [p.read_bytes() for p in docs] == before
