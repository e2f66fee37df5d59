"""What every section shares: the row a measurement becomes, the scale, statistics, deadlines."""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "servers" / "demo_server.py"
PYTHON = sys.executable

#: The four ways to reach a server, in table order. "http-legacy" speaks 2025-11-25 (the
#: initialize handshake and SSE), "http-modern" 2026-07-28 (stateless, plain JSON answers).
TRANSPORTS = ("inprocess", "stdio", "http-legacy", "http-modern")


@dataclass
class Row:
    """One line of the results table.

    ``key`` is stable (tests/test_bench.py checks that every expected key is present); ``value`` is
    the measurement in ``unit``; ``ratio`` compares it with what ``versus`` names (None when there is
    nothing to compare with); ``target`` is the issue's goal for it, in words; ``error`` says why a
    measurement could not be made (the row is kept so a failure is visible, not silently absent).
    """

    section: str
    key: str
    label: str
    value: float | None = None
    unit: str = "ms"
    ratio: float | None = None
    versus: str = ""
    target: str = ""
    detail: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Scale:
    """How much of everything: ``full`` for the numbers we publish, ``quick`` for a smoke run."""

    calls: int = 300  # sequential calls per client and repetition
    reps: int = 3  # repetitions
    # calls are made in blocks of this many, client after client, so load that comes and goes on a
    # shared machine lands on every client alike (ratios are then fair even when times are not)
    block: int = 50
    warmup: int = 20
    # a new session per call costs a connect each: far fewer of those (per transport)
    per_call_sessions: dict[str, int] = field(
        default_factory=lambda: {"inprocess": 100, "stdio": 8, "http-legacy": 30, "http-modern": 30}
    )
    concurrent: int = 100  # calls of the slow tool at once on one connection
    # bursts per client, interleaved: one burst lasts ~0.1-0.3 s and its time swings by half on a
    # shared machine, so the median needs more of them than the sequential section's reps
    concurrent_reps: int = 15
    slow_seconds: float = 0.05
    one_by_one: int = 10  # sequential slow calls measured (scaled to `concurrent`)
    kernel_calls: int = 200  # per repetition, the four ways taking turns call by call
    load_ext_runs: int = 5
    first_connect_runs: int = 3
    sizes: tuple[int, ...] = (100_000, 1_000_000)
    raw_large_limit: int = 100_000  # the raw client validates every row: only up to this size
    probekit_calls: int = 200
    budget: float = 60.0  # seconds any one measuring loop may take before it stops early


FULL = Scale()
QUICK = Scale(
    calls=20,
    reps=1,
    block=10,
    warmup=3,
    per_call_sessions={"inprocess": 3, "stdio": 1, "http-legacy": 2, "http-modern": 2},
    concurrent=10,
    concurrent_reps=1,
    slow_seconds=0.02,
    one_by_one=2,
    kernel_calls=10,
    load_ext_runs=1,
    first_connect_runs=1,
    sizes=(1_000, 10_000),
    raw_large_limit=10_000,
    probekit_calls=10,
    budget=20.0,
)


class Deadline:
    """A loop's time budget: every measuring loop is bounded in count *and* in time."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.end

    @property
    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())


def blocks(total: int, size: int) -> list[int]:
    """``total`` calls cut into blocks of at most ``size`` (interleaved between clients)."""
    full, rest = divmod(total, size)
    return [size] * full + ([rest] if rest else [])


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def p95(xs: Sequence[float]) -> float:
    """The 95th percentile (nearest rank): what one call in twenty is slower than."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def ratio(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return value / reference


def latency_row(
    section: str,
    key: str,
    label: str,
    seconds: Sequence[float],
    *,
    reference: float | None = None,
    versus: str = "",
    target: str = "",
    note: str = "",
) -> Row:
    """A row for per-call times: median in ms, p95 and the count in the detail."""
    if not seconds:
        return Row(section, key, label, error="no call completed")
    mid = median(seconds)
    detail = f"p95 {p95(seconds) * 1000:.2f} ms, n={len(seconds)}" + (f", {note}" if note else "")
    return Row(
        section,
        key,
        label,
        value=mid * 1000,
        unit="ms",
        ratio=ratio(mid, reference),
        versus=versus,
        target=target,
        detail=detail,
    )


def failed(section: str, key: str, label: str, exc: BaseException, **kw: Any) -> Row:
    """A row that records why a measurement could not be made (first line of the error only)."""
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:200]
    return Row(section, key, label, error=text, **kw)


Tick = Callable[[str], None]
