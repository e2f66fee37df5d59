"""A slow, task-capable demo tool: counts primes in blocks, can ask to continue, can fail on purpose.

It exists so a notebook can watch a task go working → input_required → completed, cancel it
half-way, or see a failure, with work small enough to finish in a blink on any machine.
"""

import math
from collections.abc import Callable
from typing import Annotated, Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.mcpserver import Elicit, ElicitationResult, Resolve
from pydantic import BaseModel, Field

from mcpnb.probekit import schemas
from mcpnb.probekit.responses import ProbeError, ok_structured, text_table
from mcpnb.probekit.runio import RunIO, task_tool
from mcpnb.probekit.state import ProbeState

#: The most numbers one slow_task counts through (steps x block): enough to watch, bounded for a class.
MAX_NUMBERS = 2_000_000


class Proceed(BaseModel):
    """The halfway question."""

    proceed: bool = Field(title="Continue?", description="Continue with the second half of the work?")


def primes_in(lo: int, hi: int) -> list[int]:
    """Primes in [lo, hi) by trial division: slow enough to be work, small enough to be instant."""
    out = []
    for n in range(max(lo, 2), hi):
        if all(n % d for d in range(2, math.isqrt(n) + 1)):
            out.append(n)
    return out


def ask_proceed(confirm: bool = False) -> Elicit[Proceed] | None:
    """Resolver: only asks when the caller wants the halfway confirmation."""
    return Elicit("Half of the work is done. Continue?", Proceed) if confirm else None


async def slow_task_run(
    io: RunIO,
    steps: int = 5,
    block: int = 1000,
    delay: float = 0.05,
    confirm: bool = False,
    fail_at: int | None = None,
    answer: Annotated[ElicitationResult[Proceed], Resolve(ask_proceed)] = None,  # type: ignore[assignment]
) -> types.CallToolResult:
    """Count primes block by block (steps x block numbers), sleeping `delay` seconds between blocks.
    With `confirm`, asks at half-way whether to continue; `fail_at` makes that step fail on purpose.
    Supports task-augmented execution (both protocol eras)."""
    if not 1 <= steps <= 1000 or not 1 <= block <= 100_000 or not 0 <= delay <= 10:
        raise ProbeError("steps must be 1–1000, block 1–100000 and delay 0–10 seconds.")
    if steps * block > MAX_NUMBERS:
        raise ProbeError(
            f"steps x block must be at most {MAX_NUMBERS:,} numbers (got {steps * block:,}): "
            "probe-kit is shared, and counting further would take a worker's CPU for minutes."
        )
    rows: list[dict[str, Any]] = []
    confirmed: bool | None = None
    for step in range(1, steps + 1):
        if confirm and confirmed is None and step > steps // 2:
            reply = await io.ask("Half of the work is done. Continue?", Proceed)
            confirmed = bool(reply.action == "accept" and (reply.content or {}).get("proceed"))
            if not confirmed:
                break
        if fail_at == step:
            raise ProbeError(f"Step {step} failed on purpose (fail_at={fail_at}).")
        # off the event loop: a block of large numbers takes a while, and the worker's other
        # clients (and its heartbeat) must not wait for it; a cancel stops the task at once
        found = await anyio.to_thread.run_sync(
            primes_in, (step - 1) * block, step * block, abandon_on_cancel=True
        )
        rows.append({"step": step, "primes": len(found), "largest": found[-1] if found else 0})
        await io.progress(step, steps, f"block {step}/{steps}: {len(found)} primes")
        await anyio.sleep(delay)
    data = {
        "steps": rows,
        "totalPrimes": sum(r["primes"] for r in rows),
        "upTo": len(rows) * block,
        "confirmed": confirmed,
    }
    head = f"{data['totalPrimes']} primes below {data['upTo']}" + (
        " (stopped: not confirmed)" if confirmed is False else ""
    )
    return ok_structured(
        schemas.SLOW_JOB, data, head + "\n\n" + text_table(rows, ["step", "primes", "largest"])
    )


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The demo family."""
    slow_task = task_tool(slow_task_run)
    slow_task.__name__ = "slow_task"
    slow_task.output_schema = dict(schemas.SLOW_JOB)  # type: ignore[attr-defined]
    return [slow_task]
