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
    assert report["steps"][1]["outputs"][0].startswith("4 findings (4 high)")
    assert report["steps"][1]["input"] == {"target": "app"}  # an object, as the design has it
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
    assert feature["steps"][1]["outputs"] == ["2 candidate files: app/billing.py, README.md"]
    assert any(a["type"] == "test" and a["path"] == "tests/test_billing.py" for a in feature["artifacts"])
    assert release.structured_content["steps"][1]["outputs"] == ["1.4.2 -> 1.5.0"]
    assert "## 1.5.0" in release.structured_content["artifacts"][0]["contentPreview"]
    assert ui["steps"][1]["outputs"] == ["login-form, data-table"]
    assert [s["outputs"][0].split(";")[0] for s in ralph["steps"][:3]] == [
        "3 change(s)",
        "0 change(s)",
        "already stable",
    ]


@pytest.mark.anyio
async def test_failed_step_skips_the_rest(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("start_ui", {"description": "zebra quantum"})
    steps = result.structured_content["steps"]
    assert [s["status"] for s in steps] == ["completed", "completed", "completed", "failed", "skipped"]
    assert "no catalog component matched" in steps[3]["notes"]
    assert steps[4]["outputs"] == [] and "skipped after 'compose' failed" in steps[4]["notes"]
    assert "compose failed" in result.structured_content["summary"]


def test_semver_bump() -> None:
    assert bump("1.2.3", [{"breaking": True, "type": "fix"}]) == "2.0.0"
    assert bump("v1.2.3", [{"breaking": False, "type": "feat"}]) == "1.3.0"
    assert bump("1.2.3", [{"breaking": False, "type": "fix"}]) == "1.2.4"
    with pytest.raises(ProbeError):
        bump("one", [])


@pytest.mark.anyio
async def test_start_ui_checks_the_catalog_and_returns_the_rendered_preview(server: Any) -> None:
    """The design's start_ui runs init_component_catalog and render_ui as internal steps."""
    async with Client(server) as client:
        result = await client.call_tool("start_ui", {"description": "login form, data table"})
    report = result.structured_content
    names = [s["name"] for s in report["steps"]]
    assert names == ["init component catalog", "search catalog", "design tokens", "compose", "render preview"]
    assert report["steps"][0]["outputs"][0].endswith("components, sound")
    assert report["steps"][2]["input"] == {"brand_color": "#3366ff"}
    page = next(a for a in report["artifacts"] if a["path"] == "preview.html")["contentPreview"]
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert 'class="login-form"' in page or "<form" in page
    assert "--color-brand-500" in page  # styled by the design tokens
    assert "Preview (preview.html):\n<!doctype html>" in result.content[0].text


@pytest.mark.anyio
async def test_report_timestamps_are_date_times(server: Any) -> None:
    import jsonschema
    from jsonschema import FormatChecker

    async with Client(server) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "start_doc")
        result = await client.call_tool("start_doc", {"path": "app"})
    stamps = tool.output_schema["properties"]["timestamps"]
    assert stamps["properties"]["started"]["format"] == "date-time" and stamps["required"] == ["started"]
    jsonschema.Draft202012Validator(tool.output_schema, format_checker=FormatChecker()).validate(
        result.structured_content
    )
    without_end = {**result.structured_content, "timestamps": {"started": "2026-01-01T00:00:00Z"}}
    jsonschema.Draft202012Validator(tool.output_schema).validate(without_end)  # completed is optional
