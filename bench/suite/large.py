"""Large structured results: N rows × 5 columns with an outputSchema (the demo server's ``rows``).

For each size, a fresh process (large_child.py) calls the tool through the pool over HTTP (modern
era; the server runs apart, so the peak memory is the client's), then ``.df``, then renders the
display bundle, and records its peak RSS. For the smallest size the same process then times the
same request POSTed with a bare HTTP client, its answer read but not parsed (the server's share,
which any client pays), the call through a raw ``mcp.Client`` (strict outputSchema validation), and
the call through the pool over the other transports (all after its peak memory was taken).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from suite.common import PYTHON, TRANSPORTS, Row, Scale, Tick, ratio
from suite.servers import Servers

SECTION = "large"
MAIN_TRANSPORT = "http-modern"
CHILD = __file__.replace("large.py", "large_child.py")


def child(spec: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [PYTHON, CHILD, json.dumps(spec)], capture_output=True, text=True, timeout=spec["timeout"] + 60
    )
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RuntimeError((out.stderr.strip().splitlines() or ["(no output)"])[-1])
    return json.loads(lines[-1])


def timeout_for(n: int) -> float:
    return 120 + n / 1000  # 220 s at 100k (a call per transport too), 1120 s at 1M


def size_rows(n: int, got: dict[str, Any], with_raw: bool) -> list[Row]:
    p = f"{SECTION}/{n}"
    where = f"{n:,} rows"

    def step(name: str, label: str, **kw: Any) -> Row:
        if f"{name}_error" in got:
            return Row(SECTION, f"{p}/{name}", label, unit="s", error=got[f"{name}_error"])
        if name not in got:
            return Row(SECTION, f"{p}/{name}", label, unit="s", error="not reached (an earlier step failed)")
        return Row(SECTION, f"{p}/{name}", label, got[name], "s", **kw)

    rows = [
        step(
            "call",
            f"{where}: pool.call over {MAIN_TRANSPORT}",
            ratio=ratio(got.get("call"), got.get("raw")) if with_raw else None,
            versus="raw call" if with_raw else "",
        ),
        step("df", f"{where}: result.df", detail=f"shape {got.get('shape')}"),
        step(
            "render",
            f"{where}: display bundle (result_bundle)",
            detail=f"schema valid: {got.get('schema_valid')}, {got.get('html_chars', 0):,} chars of HTML",
        ),
    ]
    parts = [got.get(k) for k in ("call", "df", "render")]
    total_label = f"{where}: call + .df + render"
    if all(isinstance(x, float) for x in parts):
        rows.append(
            Row(SECTION, f"{p}/total", total_label, sum(parts), "s", target="≤ 1.5 s" if n == 100_000 else "")
        )
    else:
        rows.append(Row(SECTION, f"{p}/total", total_label, unit="s", error="a step failed"))
    if with_raw:  # the server's share of the call, which no client can take off
        wire = step("wire", f"{where}: the server's answer alone (bare HTTP POST, bytes read, not parsed)")
        rows.append(wire)
        if wire.value is not None and all(isinstance(x, float) for x in parts):
            rows.append(
                Row(
                    SECTION,
                    f"{p}/client-share",
                    f"{where}: call + .df + render, less the server's answer",
                    sum(parts) - wire.value,
                    "s",
                    detail="what mcpnb itself takes: parsing the answer, the result, .df, the display",
                )
            )
    base, peak, payload = got.get("base_mb"), got.get("peak_mb"), got.get("payload_mb")
    detail = f"{peak - base:+.0f} MB over {base:.0f} MB before the call" if base and peak else ""
    if detail and payload:
        detail += f" = {(peak - base) / payload:.1f}× the {payload:.0f} MB result (compact JSON)"
    rows.append(
        Row(
            SECTION,
            f"{p}/peak-memory",
            f"{where}: peak memory of the client process",
            peak,
            "MB",
            detail=detail,
            target="bounded" if n >= 1_000_000 else "",
        )
    )
    if with_raw:
        rows.append(step("raw", f"{where}: raw mcp.Client call over {MAIN_TRANSPORT} (strict validation)"))
    return rows


def measure(scale: Scale, servers: Servers, tick: Tick) -> list[Row]:
    rows: list[Row] = []
    smallest = min(scale.sizes)
    for n in scale.sizes:
        first = n == smallest
        steps = ["call", "df", "render"] + (["wire", "raw"] if first else [])
        also = [t for t in TRANSPORTS if t != MAIN_TRANSPORT] if first else []
        tick(f"{n:,} rows: {', '.join(steps)}" + (f", then the call over {', '.join(also)}" if also else ""))
        spec = {"n": n, "transport": MAIN_TRANSPORT, "url": servers.demo_url, "steps": steps, "also": also}
        try:
            got = child({**spec, "timeout": timeout_for(n)})
        except Exception as exc:
            got = {"call_error": f"{type(exc).__name__}: {exc}"}
        rows += size_rows(n, got, first)
        for transport in also:
            key, label = f"{SECTION}/{n}/call/{transport}", f"{n:,} rows: pool.call over {transport}"
            if f"call/{transport}" in got:
                rows.append(Row(SECTION, key, label, got[f"call/{transport}"], "s"))
            else:
                why = got.get(f"call/{transport}_error", "not reached (an earlier step failed)")
                rows.append(Row(SECTION, key, label, unit="s", error=why))
    return rows
