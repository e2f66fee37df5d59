"""``%mcp call`` against ``pool.call`` in a real kernel (jupyter_client plays the frontend).

The clock runs inside the kernel: ``time.perf_counter`` around each call, the four ways taking
turns call by call, so whatever else the machine does lands on all four alike (in blocks of 50 of
each way, a stdio server's drift from block to block swung the magic's difference from 0.3 to
1.1 ms between runs of the same code). The difference of the median calls is what the magic adds
(parsing, the tool lookup, the calling cell's context), not the kernel's messaging. Two pairs: the
synchronous path (a magic inside a loop or a function) against ``pool.call``, and the awaited path
a top-level ``%mcp`` cell takes (the input transformer rewrites it into
``await arun_line_magic(...)``) against ``await pool.acall``.
Replies and output are matched to the request by their parent msg_id.
"""

from __future__ import annotations

import json
import queue
import time
from string import Template
from typing import Any

from suite.common import DEMO, PYTHON, ROOT, Deadline, Row, Scale, Tick, failed, median, ratio

SECTION = "kernel"
MARK = "BENCH-JSON "

SETUP = f"""
%load_ext mcpnb
import json, time
import mcpnb
from mcpnb.notebook.cell import arun_line_magic
pool = mcpnb.default_pool()
pool.connect("demo", command={PYTHON!r}, args=[{str(DEMO)!r}, "stdio"])
print(pool.status()["demo"].state)
"""

MEASURE = """
_clock = time.perf_counter
_got = {"pool": [], "magic": [], "apool": [], "amagic": []}

async def _turns(n, keep):
    for _ in range(n):
        t = _clock()
        pool.call("demo", "add", {"a": 1, "b": 2})
        t1 = _clock()
        %mcp call demo.add a=1 b=2
        t2 = _clock()
        await pool.acall("demo", "add", {"a": 1, "b": 2})
        t3 = _clock()
        # what a top-level `%mcp call demo.add a=1 b=2` cell is rewritten into
        await arun_line_magic("mcp", "call demo.add a=1 b=2")
        t4 = _clock()
        if keep:
            for way, took in zip(_got, (t1 - t, t2 - t1, t3 - t2, t4 - t3)):
                _got[way].append(took)

await _turns($warm, False)
await _turns($n, True)
print($mark + json.dumps(_got))
"""

LABELS = {
    "pool-call": "pool.call in a kernel",
    "magic-call": "%mcp call in a kernel (synchronous path)",
    "magic-overhead": "%mcp call minus pool.call, per call",
    "pool-acall": "await pool.acall in a kernel",
    "magic-await": "%mcp call in a kernel (awaited, top-level cell)",
    "magic-await-overhead": "awaited %mcp call minus await pool.acall, per call",
}
#: The rows of each way of calling: the pool alone, the magic, and what the magic adds.
KEYS = {
    "call": ("pool-call", "magic-call", "magic-overhead"),
    "await": ("pool-acall", "magic-await", "magic-await-overhead"),
}


def execute(kc: Any, code: str, timeout: float) -> str:
    """Run ``code``; return its stdout. Raises with the kernel's error if the cell failed."""
    msg_id = kc.execute(code)
    deadline = Deadline(timeout)
    out: list[str] = []
    error = None
    while True:  # iopub until this request's idle
        if deadline.passed:
            raise TimeoutError(f"the kernel did not finish within {timeout} s")
        try:
            msg = kc.get_iopub_msg(timeout=min(0.5, deadline.left))
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream" and content.get("name") == "stdout":
            out.append(content["text"])
        elif kind == "error":
            error = f"{content['ename']}: {content['evalue']}"
        elif kind == "status" and content["execution_state"] == "idle":
            break
    while True:  # then this request's reply on the shell channel
        if deadline.passed:
            raise TimeoutError(f"no execute_reply within {timeout} s")
        try:
            reply = kc.get_shell_msg(timeout=min(0.5, deadline.left))
        except queue.Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    if reply["content"]["status"] != "ok" or error:
        raise RuntimeError(error or reply["content"].get("evalue", "cell failed"))
    return "".join(out)


def measure(scale: Scale, tick: Tick) -> list[Row]:
    from jupyter_client.manager import start_new_kernel

    tick("starting a kernel")
    km = kc = None
    try:
        km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT), startup_timeout=120)
        tick("kernel: %load_ext mcpnb and connect")
        state = execute(kc, SETUP, 120).strip().splitlines()[-1]
        if state != "connected":
            raise RuntimeError(f"demo server not connected in the kernel: {state}")
        n = scale.kernel_calls * scale.reps
        tick(f"kernel: {n} calls each way, taking turns")
        code = Template(MEASURE).substitute(warm=scale.warmup, n=n, mark=repr(MARK))
        started = time.monotonic()
        out = execute(kc, code, scale.budget * 4 + 60)
        got = json.loads(next(line for line in out.splitlines() if line.startswith(MARK))[len(MARK) :])
        tick(f"kernel: measured in {time.monotonic() - started:.0f} s")
        execute(kc, "pool.close()", 60)
    except Exception as exc:
        return [failed(SECTION, f"{SECTION}/{k}", label, exc) for k, label in LABELS.items()]
    finally:
        if kc is not None:
            kc.stop_channels()
        if km is not None:
            km.shutdown_kernel(now=True)

    ms = {k: median(v) * 1000 for k, v in got.items()}
    detail = f"median per call, n={len(got['pool'])}, the four ways taking turns, timed inside the kernel"
    rows = []
    for base, magic, (pool_key, magic_key, overhead_key), versus in (
        ("pool", "magic", KEYS["call"], "pool.call"),
        ("apool", "amagic", KEYS["await"], "await pool.acall"),
    ):
        rows += [
            Row(SECTION, f"{SECTION}/{pool_key}", LABELS[pool_key], ms[base], detail=detail),
            Row(
                SECTION,
                f"{SECTION}/{magic_key}",
                LABELS[magic_key],
                ms[magic],
                ratio=ratio(ms[magic], ms[base]),
                versus=versus,
                detail=detail,
            ),
            Row(
                SECTION,
                f"{SECTION}/{overhead_key}",
                LABELS[overhead_key],
                ms[magic] - ms[base],
                target="≤ 0.5 ms",
            ),
        ]
    return rows
