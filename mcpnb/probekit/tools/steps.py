"""The workflow engine: run named steps in order, report progress, and build one ``WorkflowReport``.

A failing step marks the rest skipped, so a report always says what ran, what failed and what never
started, which is what a person reading it (or a lesson about progress and tasks) needs.
"""

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
from mcp import types

from mcpnb.probekit import schemas
from mcpnb.probekit.responses import ProbeError, ok_structured, text_table
from mcpnb.probekit.runio import RunIO


@dataclass
class StepOut:
    """What one step contributes to the report."""

    outputs: str | list[str]
    notes: str = ""
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    risks: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)


#: ``(name, input, run)``: the input is an object (a bare string is the step's ``target``).
Step = tuple[str, str | dict[str, Any], Callable[[dict[str, Any]], StepOut]]


def step_input(value: str | dict[str, Any]) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {"target": value}


def step_outputs(value: str | list[str]) -> list[str]:
    return list(value) if isinstance(value, list) else [value]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def run_steps(
    name: str,
    goal: str,
    steps: list[Step],
    io: RunIO,
    delay: float = 0.0,
    tail: Callable[[dict[str, Any]], str] | None = None,
) -> types.CallToolResult:
    """Run steps in order; a failing step marks the rest skipped. Returns the WorkflowReport result;
    ``tail(bag)`` adds to its text (start_ui's rendered page)."""
    started, bag = _now(), {}
    records: list[dict[str, Any]] = []
    artifacts: list[dict[str, Any]] = []
    risks: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    failed = None
    for i, (step_name, given, fn) in enumerate(steps):
        if failed:
            records.append(
                {
                    "name": step_name,
                    "status": "skipped",
                    "input": step_input(given),
                    "outputs": [],
                    "notes": f"skipped after {failed!r} failed",
                    "duration": 0.0,
                }
            )
            continue
        await io.progress(i, len(steps), f"{name}: {step_name}")
        t0 = time.perf_counter()
        try:
            out = fn(bag)
        except ProbeError as exc:
            failed = step_name
            records.append(
                {
                    "name": step_name,
                    "status": "failed",
                    "input": step_input(given),
                    "outputs": [],
                    "notes": str(exc),
                    "duration": round(time.perf_counter() - t0, 4),
                }
            )
            risks.append(
                {
                    "level": "high",
                    "description": f"{step_name} failed: {exc}",
                    "mitigation": "fix the input and run the workflow again",
                }
            )
            continue
        records.append(
            {
                "name": step_name,
                "status": "completed",
                "input": step_input(given),
                "outputs": step_outputs(out.outputs),
                "notes": out.notes,
                "duration": round(time.perf_counter() - t0, 4),
            }
        )
        artifacts += out.artifacts
        risks += out.risks
        actions += out.actions
        await anyio.sleep(delay)
    await io.progress(len(steps), len(steps), f"{name}: done")
    done = sum(r["status"] == "completed" for r in records)
    summary = f"{name}: {done}/{len(steps)} steps completed for {goal}" + (
        f"; {failed} failed" if failed else ""
    )
    actions = sorted(actions, key=lambda a: a["priority"])[:10]
    report = {
        "workflowName": name,
        "summary": summary,
        "steps": records,
        "artifacts": artifacts,
        "risks": risks,
        "assumptions": ["files are read from the allowed root; nothing is written"],
        "nextActions": actions,
        "timestamps": {"started": started, "completed": _now()},
    }
    text = (
        summary
        + "\n\n"
        + text_table(
            [{**r, "outputs": "; ".join(r["outputs"])} for r in records], ["name", "status", "outputs"]
        )
        + "\n\nNext:\n"
        + text_table(actions, ["priority", "action", "reason"])
        + (tail(bag) if tail else "")
    )
    return ok_structured(schemas.WORKFLOW_REPORT, report, text)


def preview(text: str, n: int = 300) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def findings_actions(found: list[Any], limit: int = 3) -> list[dict[str, Any]]:
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
    top = sorted(found, key=lambda f: (order[f.severity], f.file, f.line))[:limit]
    return [
        {
            "priority": order[f.severity] + 1,
            "action": f"{f.file}:{f.line} {f.suggestion}",
            "reason": f.message,
        }
        for f in top
    ]


def bump(version: str, entries: list[dict[str, Any]]) -> str:
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", version.strip())
    if not m:
        raise ProbeError(f"{version!r} is not a version like 1.4.2")
    major, minor, patch = map(int, m.groups())
    if any(e["breaking"] for e in entries):
        return f"{major + 1}.0.0"
    if any(e["type"] == "feat" for e in entries):
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"
