"""Where the in-process hop floor comes from: the same calls with threads free, then all on one CPU.

Two fresh processes (placement_child.py) time a cross-thread round trip that does nothing
(``runtime.run``), the raw ``mcp.Client`` and ``pool.call`` on the demo server in-process: one with
its threads free to run on any CPU, one bound to a single CPU. On this kind of machine (virtual
CPUs) most of a round trip is one thread waking another on the other CPU; bound to one, the same
wake-up is a switch on the CPU itself. Linux only (``os.sched_setaffinity``).
"""

from __future__ import annotations

import json
import subprocess

from suite.common import PYTHON, Row, Scale, Tick, failed, ratio

SECTION = "placement"
CHILD = __file__.replace("placement.py", "placement_child.py")
WHERE = {"free": "threads on any CPU", "one-cpu": "every thread on one CPU"}
LABELS = {
    "round_trip": "a coroutine that does nothing, through runtime.run",
    "raw": "inprocess · mcp.Client (raw)",
    "pool": "inprocess · mcpnb pool.call",
}


def child(pin: bool, scale: Scale) -> dict[str, float]:
    spec = {"pin": pin, "calls": scale.calls, "reps": scale.reps}
    out = subprocess.run([PYTHON, CHILD, json.dumps(spec)], capture_output=True, text=True, timeout=300)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RuntimeError((out.stderr.strip().splitlines() or ["(no output)"])[-1])
    return json.loads(lines[-1])


def measure(scale: Scale, tick: Tick) -> list[Row]:
    got: dict[str, dict[str, float] | Exception] = {}
    for where, pin in (("free", False), ("one-cpu", True)):
        tick(f"in-process calls, {WHERE[where]}")
        try:
            got[where] = child(pin, scale)
        except Exception as exc:  # the row says why (e.g. no sched_setaffinity off Linux)
            got[where] = exc

    def row(where: str, key: str, versus: str = "", reference: str = "") -> Row:
        times, label = got[where], f"{LABELS[key]}, {WHERE[where]}"
        if isinstance(times, Exception):
            return failed(SECTION, f"{SECTION}/{where}/{key}", label, times)
        base = got["free" if versus == "threads free" else where]
        ref = base.get(reference) if versus and isinstance(base, dict) else None
        return Row(
            SECTION,
            f"{SECTION}/{where}/{key}",
            label,
            value=times[key] * 1000,
            ratio=ratio(times[key], ref),
            versus=versus if ref else "",
            detail=f"median of {scale.calls * scale.reps} calls",
        )

    return [
        row("free", "round_trip"),
        row("free", "raw"),
        row("free", "pool", "raw", "raw"),
        row("one-cpu", "round_trip", "threads free", "round_trip"),
        row("one-cpu", "raw", "threads free", "raw"),
        row("one-cpu", "pool", "raw", "raw"),
    ]
