"""mcpnb's benchmark suite, in one go: latency, concurrency, the kernel, startup, large results, probe-kit.

    python bench/run.py                # everything, a few minutes on 2 cores; writes docs/performance.md
    python bench/run.py --quick        # a smoke run of tiny sizes (seconds, not minutes)
    python bench/run.py --sections sequential,concurrency --transports stdio
    python bench/run.py --rows 100000 --sections large

Needs the bench extra (``pip install -e '.[bench]'``: tqdm, matplotlib, FastMCP). It prints a table
of ratios (each client against the raw ``mcp.Client`` on the same server, in the same run) and, for
a full run (or with ``--out DIR``), writes ``performance.md`` and ``performance.png`` there. Every
server it starts listens on 127.0.0.1 and is stopped at the end; every loop is bounded in count and
time. Tests never assert these timings (tests/test_bench.py only checks that every row is there).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from suite import concurrency, kernel, large, placement, probekit, report, sequential, startup
from suite.common import FULL, QUICK, ROOT, TRANSPORTS, Row, Scale
from suite.servers import Processes, Servers

Job = Callable[[Callable[[str], None]], list[Row]]
SECTIONS = ("sequential", "placement", "concurrency", "kernel", "startup", "large", "probekit")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not numbers to quote")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"comma list of {', '.join(SECTIONS)}")
    p.add_argument(
        "--transports", default=",".join(TRANSPORTS), help=f"comma list of {', '.join(TRANSPORTS)}"
    )
    p.add_argument("--calls", type=int, help="sequential calls per client and round (full: 300)")
    p.add_argument("--reps", type=int, help="rounds, interleaved between clients (full: 3)")
    p.add_argument("--rows", help="comma list of result sizes for the large section (full: 100000,1000000)")
    p.add_argument(
        "--out", type=Path, help="write performance.md and performance.png here (a full run: docs/)"
    )
    p.add_argument("--json", type=Path, help="also write every row as JSON to this file")
    p.add_argument("--verbose", action="store_true", help="log every step with its time, under the bar")
    p.add_argument("--caveat", help="a line to put at the top of performance.md (e.g. about the machine)")
    opts = p.parse_args(argv)
    for name, given, allowed in (
        ("section", opts.sections, SECTIONS),
        ("transport", opts.transports, TRANSPORTS),
    ):
        unknown = [x for x in given.split(",") if x not in allowed]
        if unknown:
            p.error(f"unknown {name} {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return opts


def scale_for(opts: argparse.Namespace) -> Scale:
    scale = QUICK if opts.quick else FULL
    changes: dict[str, Any] = {}
    if opts.calls:
        changes["calls"] = opts.calls
    if opts.reps:
        changes["reps"] = opts.reps
    if opts.rows:
        changes["sizes"] = tuple(int(x) for x in opts.rows.split(","))
    return replace(scale, **changes)


def plan(
    sections: list[str], transports: list[str], scale: Scale, servers: Servers, state: dict[str, Any]
) -> list[tuple[str, Job]]:
    """(name, job) pairs; each job takes a ``tick(message)`` and returns its rows."""

    def pool() -> Any:
        if "pool" not in state:
            from mcpnb import Pool

            state["pool"] = Pool()
        return state["pool"]

    def shared() -> tuple[Scale, Servers, Any, asyncio.AbstractEventLoop]:
        return scale, servers, pool(), state["loop"]  # the loop is made anew for each job

    jobs: list[tuple[str, Job]] = []
    for t in transports if "sequential" in sections else []:
        jobs.append((f"sequential {t}", lambda tick, t=t: sequential.measure(t, *shared(), tick)))
    if "placement" in sections and "inprocess" in transports:
        jobs.append(("placement", lambda tick: placement.measure(scale, tick)))
    for t in transports if "concurrency" in sections else []:
        jobs.append((f"concurrency {t}", lambda tick, t=t: concurrency.measure(t, *shared(), tick)))
    if "kernel" in sections:
        jobs.append(("kernel", lambda tick: kernel.measure(scale, tick)))
    if "startup" in sections:
        jobs.append(("startup", lambda tick: startup.measure(scale, servers, tick)))
    if "large" in sections:
        jobs.append(("large results", lambda tick: large.measure(scale, servers, tick)))
    if "probekit" in sections:
        jobs.append(("probe-kit", lambda tick: probekit.measure(scale, servers, state["loop"], tick)))
    return jobs


def shown_command(args: list[str]) -> str:
    """The command line for performance.md (the caveat is shown on its own, not in the command)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--caveat":
            skip = True
        elif not arg.startswith("--caveat="):
            kept.append(arg)
    return shlex.join(["python", "bench/run.py", *kept])


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a job left on its loop (nothing, normally) and close it."""
    leftovers = asyncio.all_tasks(loop)
    for task in leftovers:
        task.cancel()
    if leftovers:
        loop.run_until_complete(asyncio.wait(leftovers, timeout=10))
    loop.close()


def main(argv: list[str] | None = None) -> int:
    opts = parse(argv)
    # a terminated run unwinds like Ctrl-C does, so every server it started is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        from tqdm import tqdm
    except ImportError:
        print("bench/run.py needs its extra: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    scale = scale_for(opts)
    sections, transports = opts.sections.split(","), opts.transports.split(",")
    out = opts.out
    if out is None and not opts.quick and sections == list(SECTIONS) and transports == list(TRANSPORTS):
        out = ROOT / "docs"
    command = shown_command(sys.argv[1:] if argv is None else argv)
    started = datetime.datetime.now(datetime.UTC)
    t0 = time.monotonic()
    load_before = os.getloadavg()
    setup = report.machine()  # now: the git state before this run writes its own files
    rows: list[Row] = []
    took: dict[str, float] = {}
    state: dict[str, Any] = {}
    with Processes() as procs:
        servers = Servers(procs)
        try:
            jobs = plan(sections, transports, scale, servers, state)
            with tqdm(total=len(jobs), unit="step", dynamic_ncols=True) as bar:
                for name, job in jobs:
                    bar.set_description(name)
                    began = time.monotonic()

                    def tick(msg: str, bar: Any = bar, began: float = began, name: str = name) -> None:
                        bar.set_postfix_str(msg[:60], refresh=True)
                        if opts.verbose:
                            bar.write(f"{time.monotonic() - began:7.1f} s  {name}: {msg}", file=sys.stderr)

                    state["loop"] = asyncio.new_event_loop()  # each job on a clean loop of its own
                    try:
                        rows += job(tick)
                    finally:
                        close_loop(state.pop("loop"))
                    took[name] = time.monotonic() - began
                    bar.update()
        finally:
            if "pool" in state:
                state["pool"].close()
    seconds = time.monotonic() - t0
    load_after = os.getloadavg()

    print(report.console_table(rows))
    print(f"\n{len(rows)} rows in {seconds:.0f} s; {sum(1 for r in rows if r.error)} failed.")
    print("time per step: " + ", ".join(f"{name} {s:.0f} s" for name, s in took.items()))
    if opts.json:
        opts.json.parent.mkdir(parents=True, exist_ok=True)
        opts.json.write_text(json.dumps([r.to_json() for r in rows], indent=1))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        png = out / "performance.png"
        report.plot(rows, png)
        text = report.markdown(
            rows,
            started=started,
            seconds=seconds,
            command=command,
            load_before=load_before,
            load_after=load_after,
            setup=setup,
            plot=png.name,
            caveat=opts.caveat,
        )
        (out / "performance.md").write_text(text)
        print(f"wrote {out / 'performance.md'} and {png}")
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
