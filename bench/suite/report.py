"""The results as a console table, as docs/performance.md, and as a PNG plot."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from suite.common import ROOT, TRANSPORTS, Row

SECTION_TITLES = {
    "sequential": "Sequential latency (median per call; ratio to the raw mcp.Client on the same server)",
    "placement": "The hop floor and CPU placement (in-process, fresh processes)",
    "concurrency": "Concurrent calls on one connection",
    "kernel": "%mcp call over pool.call in a real kernel",
    "startup": "Starting up (fresh interpreters)",
    "large": "Large structured results (N rows × 5 columns, outputSchema declared)",
    "probekit": "probe-kit over HTTP against MCPServer.run()'s server (same tool, raw client)",
}
#: What a reader needs to read a section's numbers right (shown under its title in the markdown).
SECTION_NOTES = {
    "sequential": (
        "The *hop floor* is the raw client held on mcpnb's runtime thread and called through"
        " `runtime.run` / `await runtime.arun`: what any synchronous MCP API in a kernel pays, since the"
        " kernel's own loop is already running and the session must live on another thread. The"
        " *over the hop floor* rows divide the pool's median by the floor's: what the pool itself adds."
        " The *declaring* floor's client also declares what mcpnb's sessions declare (sampling, forms"
        " and URL elicitation, MCP Apps, a log level) and asks for progress: a 2026-07-28 server reads"
        " a client's capabilities in every request, so the pool over that floor is its own code alone."
        " In-process servers pay the most for the hop: their call is pure Python on the client's own"
        " threads, and a synchronous tool also runs in a worker thread, so a pooled call wakes four"
        " threads in turn where the raw client wakes two; a wake-up on another CPU costs tens of µs on"
        " a virtual machine."
    ),
    "placement": (
        "Where the in-process hop floor comes from. The same in-process calls in two fresh processes:"
        " one whose threads run on any CPU (as everywhere else in this report), one bound to a single"
        " CPU before its first thread starts. A thread that hands work to another wakes it; on a"
        " virtual machine, waking a thread that sleeps on the other virtual CPU is an interrupt"
        " between virtual CPUs, and that is most of the round trip. Bound to one CPU, the raw client"
        " (which wakes a worker thread for a synchronous tool) gets faster too, so the pool's ratio to"
        " it changes less than its time does: the floor is the machine's wake-up, not the pool."
    ),
    "concurrency": (
        "A burst of 100 HTTP calls is CPU-bound on 2 cores (server, client and its runtime thread"
        " share them), so its time swings with whatever else runs; each value is the median of"
        " several bursts, the three clients taking turns. The *floor* is the raw client held on mcpnb's"
        " runtime thread, declaring what mcpnb declares and asking for progress, awaited through"
        " `runtime.arun`: the same threads and the same requests as the pool's (on 2026-07-28 every"
        " request carries the client's capabilities, and the server reads them each time), so the pool"
        " over the floor is its own code alone."
    ),
    "startup": (
        "mcpnb's bytecode is compiled before these runs, as installing a package compiles it (the SDK's"
        " is): a checkout run with `PYTHONDONTWRITEBYTECODE` compiles every mcpnb module in each new"
        " interpreter, which is not what a person who installed mcpnb waits for."
    ),
    "large": (
        "The peak memory rows give the multiple of the result's own size (compact JSON) in the notes."
        " mcpnb parses large messages with jiter and skips the SDK session's throw-away copy of"
        " `structuredContent` (`mcpnb/client/lean.py`). The *server's answer alone* row POSTs the same"
        " request with a bare HTTP client and reads the bytes without parsing them: the server's own work"
        " (the SDK's MCPServer builds, validates and serializes the rows, and mirrors them as a JSON text"
        " block) plus the wire, which every client pays. The row after it takes that off the total: what"
        " mcpnb itself spends."
    ),
}


def value_text(row: Row) -> str:
    if row.error:
        return "failed"
    if row.value is None:
        return "–"
    if row.unit == "ms":
        return f"{row.value:.3f} ms" if abs(row.value) < 10 else f"{row.value:.1f} ms"
    if row.unit == "s":
        return f"{row.value:.3f} s" if row.value < 10 else f"{row.value:.1f} s"
    if row.unit == "MB":
        return f"{row.value:,.0f} MB"
    return f"{row.value:.1f}{row.unit}"


def ratio_text(row: Row) -> str:
    return f"{row.ratio:.2f}" if row.ratio is not None and not row.error else ""


def note_text(row: Row) -> str:
    return f"failed: {row.error}" if row.error else row.detail


def console_table(rows: Sequence[Row]) -> str:
    """Plain text, one block per section: measurement, value, ratio (vs what), target."""
    lines: list[str] = []
    width = max((len(r.label) for r in rows), default=20)
    for section, title in SECTION_TITLES.items():
        block = [r for r in rows if r.section == section]
        if not block:
            continue
        lines += ["", title, "-" * len(title)]
        lines.append(f"{'measurement':<{width}}  {'value':>11}  {'ratio':>6}  {'vs':<16} {'target':<10}")
        for r in block:
            ratio = ratio_text(r)
            versus = r.versus if ratio else ""
            line = f"{r.label:<{width}}  {value_text(r):>11}  {ratio:>6}  {versus:<16} {r.target:<10}"
            if r.error:
                line += f"  {r.error}"
            lines.append(line.rstrip())
    return "\n".join(lines)


def machine() -> dict[str, str]:
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "?"
    return {
        "cores (nproc)": str(os.cpu_count()),
        "cpu": cpu,
        "python": sys.version.split()[0],
        "mcp": version("mcp"),
        "mcpnb": f"{version('mcpnb')} (git {commit})",
        "fastmcp": version("fastmcp"),
        "platform": platform.platform(),
    }


def load_note(load_before: tuple[float, ...], load_after: tuple[float, ...]) -> str:
    cores = os.cpu_count() or 1
    # The run itself keeps about one core busy (the clients, the servers), so the load at the end
    # says little about other work; the load when it started does.
    before = load_before[0]
    text = (
        f"Load average (1/5/15 min) at the start: {'/'.join(f'{x:.2f}' for x in load_before)}, "
        f"at the end: {'/'.join(f'{x:.2f}' for x in load_after)} on {cores} cores."
    )
    if before > 0.5 * cores:
        text += (
            " **The machine was busy with other work when this run started: the numbers are noisy (absolute"
            " times high, ratios less so). Rerun `python bench/run.py` on a quiet machine before"
            " quoting them.**"
        )
    return text


def markdown(
    rows: Sequence[Row],
    *,
    started: datetime.datetime,
    seconds: float,
    command: str,
    load_before: tuple[float, ...],
    load_after: tuple[float, ...],
    setup: dict[str, str],
    plot: str | None,
    caveat: str | None = None,
) -> str:
    out = [
        "# Performance",
        "",
        f"Generated by `{command}` on {started:%Y-%m-%d %H:%M} UTC in {seconds / 60:.1f} min. Every number"
        " below is from that one run; the file is rewritten by the next run, so it always holds the"
        " numbers of its last run. Ratios compare clients on the same server in the same run; targets"
        " are those of issue 13. Tests never assert these numbers.",
        "",
    ]
    if caveat:
        out += [f"> **Caveat:** {caveat}", ""]
    out += [f"> {load_note(load_before, load_after)}", "", "## Machine", "", "| | |", "| --- | --- |"]
    out += [f"| {k} | {v} |" for k, v in setup.items()]
    if plot:
        out += ["", f"![latency, ratios, concurrency and large results]({plot})"]
    for section, title in SECTION_TITLES.items():
        block = [r for r in rows if r.section == section]
        if not block:
            continue
        out += ["", f"## {title}", ""]
        if section in SECTION_NOTES:
            out += [SECTION_NOTES[section], ""]
        out += ["| measurement | value | ratio | vs | target | notes |"]
        out.append("| --- | ---: | ---: | --- | --- | --- |")
        for r in block:
            ratio = ratio_text(r)
            cells = [r.label, value_text(r), ratio, r.versus if ratio else "", r.target, note_text(r)]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    out += [
        "",
        "How each number is made: `bench/suite/` (one module per section; the docstrings say what is timed).",
        "",
    ]
    return "\n".join(out)


def plot(rows: Sequence[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key = {r.key: r for r in rows if not r.error and r.value is not None}
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    fig.suptitle("mcpnb performance (bench/run.py)")
    x = range(len(TRANSPORTS))

    def bars(ax: Any, series: dict[str, list[float | None]], width: float = 0.8) -> None:
        step = width / max(1, len(series))
        for i, (label, values) in enumerate(series.items()):
            xs = [t + i * step - width / 2 + step / 2 for t in x]
            ax.bar(xs, [v if v is not None else 0 for v in values], step, label=label)
        ax.set_xticks(list(x), TRANSPORTS)

    def get(key: str, attr: str = "value") -> float | None:
        row = by_key.get(key)
        return getattr(row, attr) if row else None

    clients = {
        "raw": "mcp.Client",
        "pool-sync": "pool.call",
        "pool-async": "pool.acall",
        "fastmcp": "FastMCP",
        "per-call": "session per call",
    }
    ax = axes[0][0]
    bars(ax, {label: [get(f"sequential/{t}/{c}") for t in TRANSPORTS] for c, label in clients.items()})
    ax.set_yscale("log")
    ax.set_ylabel("ms per call (median, log scale)")
    ax.set_title("Sequential latency")
    ax.legend(fontsize=8)

    ax = axes[0][1]
    bars(
        ax,
        {
            label: [get(f"sequential/{t}/{c}", "ratio") for t in TRANSPORTS]
            for c, label in clients.items()
            if c in ("pool-sync", "pool-async", "fastmcp")
        },
    )
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.05, color="green", linestyle="--", linewidth=0.8, label="target 1.05")
    ax.set_ylabel("ratio to the raw mcp.Client")
    ax.set_title("Overhead over the raw SDK")
    ax.legend(fontsize=8)

    ax = axes[1][0]
    bars(
        ax,
        {
            "raw, at once": [get(f"concurrency/{t}/raw") for t in TRANSPORTS],
            "pool.acall, at once": [get(f"concurrency/{t}/pool-async") for t in TRANSPORTS],
            "pool.call, one by one": [get(f"concurrency/{t}/one-by-one") for t in TRANSPORTS],
        },
    )
    ax.set_yscale("log")
    ax.set_ylabel("seconds (log scale)")
    ax.set_title("Slow calls on one connection")
    ax.legend(fontsize=8)

    ax = axes[1][1]
    sizes = sorted({int(r.key.split("/")[1]) for r in rows if r.section == "large" and r.key.count("/") == 2})
    bottom = [0.0] * len(sizes)
    for step in ("call", "df", "render"):
        values = [get(f"large/{n}/{step}") or 0.0 for n in sizes]
        ax.bar([f"{n:,} rows" for n in sizes], values, bottom=bottom, label=step)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_ylabel("seconds")
    ax.set_title("Large structured results (pool over HTTP)")
    ax.legend(fontsize=8)

    for ax in axes.flat:
        if not any(p.get_height() for p in ax.patches):
            ax.text(0.5, 0.5, "not measured in this run", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
