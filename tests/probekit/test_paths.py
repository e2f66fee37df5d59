"""Path confinement: .., absolute paths and escaping symlinks are refused with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.paths import PathRefused, confine, read_text


def test_inside_paths_resolve(project: Path) -> None:
    assert confine(project, "app/billing.py") == (project / "app" / "billing.py").resolve()
    assert confine(project, ".") == project.resolve()
    assert read_text(project, "README.md")[1].startswith("# Demo")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../secret.txt", "'..' is not allowed"),
        ("app/../../secret.txt", "'..' is not allowed"),
        ("/etc/passwd", "absolute paths are not allowed"),
        ("~/secret", "absolute paths are not allowed"),
        ("escape.txt", "symlink that leads outside"),
        ("escape_dir/secret.txt", "symlink that leads outside"),
    ],
)
def test_refusals_say_why(project: Path, path: str, reason: str) -> None:
    with pytest.raises(PathRefused, match=reason):
        confine(project, path)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("security_scan", {"path": "../secret.txt"}),
        ("genapi", {"path": "/etc/passwd"}),
        ("analyze_project", {"path": "escape_dir"}),
        ("open_local_page", {"path": "escape.txt"}),  # refused before anyone is asked
        ("start_review", {"path": "../"}),
    ],
)
async def test_tools_refuse_escapes(server: Any, tool: str, args: dict[str, Any]) -> None:
    async with Client(server) as client:
        result = await client.call_tool(tool, args)
    text = result.content[0].text
    if tool == "start_review":  # workflows report the refusal as a failed step
        assert result.structured_content["steps"][0]["status"] == "failed"
        assert "'..' is not allowed" in result.structured_content["steps"][0]["notes"]
    else:
        assert result.is_error and text.startswith("Refused")
    assert "top secret" not in text


@pytest.mark.anyio
async def test_walks_skip_symlinks_that_leave(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("analyze_project", {})
    paths = {r["path"] for r in result.structured_content["largestFiles"]}
    assert "escape.txt" not in paths and not any(p.startswith(("escape_dir", "node_modules")) for p in paths)
