"""start_* workflows really run their steps, report progress per step and return a WorkflowReport."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.tools.workflows import bump


@pytest.mark.anyio
async def test_review_runs_every_step_with_progress(server: Any) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with Client(server) as client:
        result = await client.call_tool("start_review", {"path": "app"}, progress_callback=on_progress)
    report = result.structured_content
    assert report["workflowName"] == "start_review"
    assert [(s["name"], s["status"]) for s in report["steps"]] == [
        ("code review", "completed"),
        ("security scan", "completed"),
        ("performance", "completed"),
    ]
    assert report["steps"][1]["outputs"].startswith("4 findings (4 high)")
    assert any(r["level"] == "high" for r in report["risks"])
    assert report["nextActions"][0]["priority"] == 2  # the highest-severity findings come first
    assert [p[0] for p in progress] == [0, 1, 2, 3] and progress[-1][2] == "start_review: done"


@pytest.mark.anyio
async def test_feature_release_ui_ralph(server: Any) -> None:
    async with Client(server) as client:
        feature = (
            await client.call_tool("start_feature", {"feature": "invoice currency"})
        ).structured_content
        release = await client.call_tool(
            "start_release", {"version": "1.4.2", "commits": ["feat: x", "fix: y"]}
        )
        ui = (
            await client.call_tool("start_ui", {"description": "login form, data table"})
        ).structured_content
        ralph = (
            await client.call_tool("start_ralph", {"path": "app/vuln.py", "max_iterations": 4})
        ).structured_content
    assert feature["steps"][1]["outputs"] == "2 candidate files: app/billing.py, README.md"
    assert any(a["type"] == "test" and a["path"] == "tests/test_billing.py" for a in feature["artifacts"])
    assert release.structured_content["steps"][1]["outputs"] == "1.4.2 -> 1.5.0"
    assert "## 1.5.0" in release.structured_content["artifacts"][0]["contentPreview"]
    assert ui["steps"][0]["outputs"] == "login-form, data-table"
    assert [s["outputs"].split(";")[0] for s in ralph["steps"][:3]] == [
        "3 change(s)",
        "0 change(s)",
        "already stable",
    ]


@pytest.mark.anyio
async def test_failed_step_skips_the_rest(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("start_ui", {"description": "zebra quantum"})
    steps = result.structured_content["steps"]
    assert [s["status"] for s in steps] == ["completed", "completed", "failed"]
    assert "no catalog component matched" in steps[2]["notes"]
    assert "compose failed" in result.structured_content["summary"]


def test_semver_bump() -> None:
    assert bump("1.2.3", [{"breaking": True, "type": "fix"}]) == "2.0.0"
    assert bump("v1.2.3", [{"breaking": False, "type": "feat"}]) == "1.3.0"
    assert bump("1.2.3", [{"breaking": False, "type": "fix"}]) == "1.2.4"
    with pytest.raises(ProbeError):
        bump("one", [])
