"""Server assembly: resources, prompts, debug logging, root handling, task counts in status."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcpnb.probekit import create_server
from mcpnb.probekit.skills import load_folders


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_status_and_toolsets_resources(project: Path, mode: str) -> None:
    server = create_server("core", root=project)
    async with Client(server, mode=mode) as client:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        # probe-kit's own two, and the files of its skills (SEP-2640: served whatever the toolset)
        skill_files = {uri for folder in load_folders() for uri in folder.files}
        assert uris == {"probe://status", "probe://toolsets"} | skill_files and len(skill_files) == 5
        with pytest.raises(MCPError):  # not in core: unknown (-32602), but the server keeps running
            await client.call_tool("slow_task", {})
        status = json.loads((await client.read_resource("probe://status")).contents[0].text)
        sets = json.loads((await client.read_resource("probe://toolsets")).contents[0].text)
    assert status["toolset"] == "core" and status["toolCount"] == 15 and status["version"] == "2.0.0"
    assert status["root"] == str(project.resolve()) and status["uptimeSeconds"] >= 0
    assert set(status["tasks"]) == {"queued", "working", "input_required", "completed", "failed", "cancelled"}
    assert sets["active"] == "core" and sets["toolsets"]["full"] == "every tool" and len(sets["tools"]) == 15


@pytest.mark.anyio
async def test_status_counts_tasks(server: Any) -> None:
    async with Client(server, mode="legacy") as client:
        send = client.session._dispatcher.send_raw_request
        task = await send(
            "tools/call", {"name": "slow_task", "arguments": {"steps": 1, "delay": 0}, "task": {}}, {}
        )
        await send("tasks/result", {"taskId": task["task"]["taskId"]}, {})
        status = json.loads((await client.read_resource("probe://status")).contents[0].text)
    assert status["tasks"]["completed"] == 1


@pytest.mark.anyio
async def test_prompts(server: Any) -> None:
    async with Client(server) as client:
        names = {p.name for p in (await client.list_prompts()).prompts}
        explained = await client.get_prompt("explain_tool", {"tool_name": "gencommit"})
        missing = await client.get_prompt("explain_tool", {"tool_name": "nope"})
        review = await client.get_prompt("review_code", {"path": "app"})
    assert {"explain_tool", "review_code", "tour_toolset"} <= names
    text = explained.messages[0].content.text
    assert "`gencommit`" in text and '"diff"' in text and "CommitMessage" in text
    assert "There is no tool called 'nope'" in missing.messages[0].content.text
    assert "`security_scan`" in review.messages[0].content.text and "`app`" in review.messages[0].content.text


@pytest.mark.anyio
async def test_debug_logs_each_request(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with Client(create_server(root=project, debug=True)) as client:
        await client.call_tool("estimate", {"task": "x"})
    err = capsys.readouterr().err
    assert "[probe-kit] tools/call estimate ok" in err


def test_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a folder"):
        create_server(root=tmp_path / "missing")


def test_descriptions_are_clean(project: Path) -> None:
    server = create_server(root=project)
    tool = server._tool_manager.get_tool("gencommit")
    assert (
        tool.description.startswith("Write a Conventional Commit message")
        and "\n    " not in tool.description
    )


def test_starting_probe_kit_leaves_the_root_logger_as_it_was():
    """``MCPServer()`` runs ``logging.basicConfig``: probe-kit started from a cell took over the
    kernel's root logger (a Rich handler at WARNING; the person's own basicConfig then did nothing).
    A fresh interpreter: pytest's own handlers on the root logger would hide it here."""
    code = (
        "import logging\n"
        "from mcpnb.probekit import create_server\n"
        "create_server()\n"
        "logging.basicConfig(level=logging.INFO, format='mine: %(message)s')\n"
        "logging.getLogger('x').info('hello')\n"
        "print(len(logging.getLogger().handlers), logging.getLogger().level)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", str(logging.INFO)]  # the person's handler and level
    assert "mine: hello" in done.stderr
