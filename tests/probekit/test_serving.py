"""Both eras over every transport: in-process, stdio (python -m mcpnb.probekit), HTTP on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcpnb.probekit import serve_http
from tests.probekit.conftest import Answers
from tests.probekit.taskclient import TasksClient

REPO = Path(__file__).resolve().parents[2]
MODES = ["auto", "legacy"]


def child_env(**extra: str) -> dict[str, str]:
    """stdio env replaces the environment: pass what the child needs to import mcpnb."""
    env = {"PYTHONPATH": str(REPO), "VIRTUAL_ENV": os.environ.get("VIRTUAL_ENV", "")}
    env.update(extra)
    return env


async def exercise(client: Client, mode: str) -> None:
    """One round through tools, elicitation and resources: the same checks on every transport."""
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"gencommit", "interview", "slow_task"} <= tools
    found = await client.call_tool("security_scan", {"path": "app/vuln.py"})
    assert found.structured_content["counts"] == [{"severity": "high", "count": 4}]
    interview = await client.call_tool("interview", {"topic": "X"})
    assert interview.structured_content["action"] == "accept"
    status = await client.read_resource("probe://status")
    assert '"server": "probe-kit"' in status.contents[0].text
    assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_in_process(server: Any, mode: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=Answers()) as client:
        await exercise(client, mode)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_stdio_subprocess(project: Path, mode: str, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcpnb.probekit", "--root", str(project)],
        env=child_env(MCP_DEBUG="1"),
    )
    with open(tmp_path / "stderr.log", "w") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=Answers()
        ) as client:
            await exercise(client, mode)
    log = (tmp_path / "stderr.log").read_text()
    assert "[probe-kit] tools/call security_scan ok" in log


@pytest.mark.anyio
async def test_stdio_toolset_from_env(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcpnb.probekit"], cwd=project, env=child_env(MCP_TOOLSET="ui")
    )
    with open(os.devnull, "w") as devnull:
        async with Client(stdio_client(params, errlog=devnull)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
    assert names == {"start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data"}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_http_on_the_running_loop(server: Any, mode: str) -> None:
    handle = await serve_http(server)
    try:
        assert handle.url.startswith("http://127.0.0.1:") and handle.url.endswith("/mcp") and handle.port > 0
        async with Client(handle.url, mode=mode, elicitation_callback=Answers()) as client:
            await exercise(client, mode)
    finally:
        await handle.stop()
    assert not handle.running


@pytest.mark.anyio
async def test_http_tasks_modern(server: Any) -> None:
    handle = await serve_http(server)
    try:
        ext = TasksClient(answer=lambda p: {"action": "accept", "content": {"proceed": True}})
        async with Client(handle.url, extensions=[ext]) as client:
            result = await client.call_tool("slow_task", {"steps": 2, "delay": 0, "confirm": True})
        assert result.structured_content["confirmed"] is True and "input_required" in ext.seen
    finally:
        await handle.stop()


@pytest.mark.anyio
async def test_serve_http_refuses_other_hosts(server: Any) -> None:
    with pytest.raises(ValueError, match=r"only listens on 127\.0\.0\.1"):
        await serve_http(server, host="0.0.0.0")


@pytest.mark.anyio
async def test_cli_http_prints_url_first(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpnb.probekit", "--http", "--port", "0", "--toolset", "core"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = await anyio.to_thread.run_sync(proc.stdout.readline)
        assert url.startswith("http://127.0.0.1:") and url.strip().endswith("/mcp")
        async with Client(url.strip(), mode="legacy") as client:
            names = {t.name for t in (await client.list_tools()).tools}
        assert "gencommit" in names and "ui_search" not in names
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # never leave it behind (tests/conftest.py checks)
            proc.kill()
            proc.wait()


def test_cli_unknown_toolset_exits_2(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-m", "mcpnb.probekit", "--toolset", "bogus"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (
        out.returncode == 2
        and "valid toolsets: core, ui, workflow, apps, tasks, conformance, full" in out.stderr
    )


@pytest.mark.parametrize(
    "workers", [[], ["--workers", "2", "--task-store", "sqlite:///{db}"]], ids=["one", "two"]
)
def test_cli_on_a_taken_port_says_so_in_one_line(project: Path, tmp_path: Path, workers: list[str]) -> None:
    """A port another server holds was an OSError traceback ("[Errno 98] Address already in use")."""
    import socket

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    extra = [w.format(db=tmp_path / "tasks.db") for w in workers]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "mcpnb.probekit", "--http", "--port", str(port), *extra],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    said = (
        f"probe-kit: cannot listen on 127.0.0.1:{port}: Address already in use (--port 0 picks a free port)"
    )
    assert out.returncode == 2 and out.stderr.strip() == said and out.stdout == ""


@pytest.mark.anyio
async def test_http_restart_on_the_same_server(server: Any) -> None:
    for _ in range(2):
        handle = await serve_http(server)
        async with Client(handle.url) as client:
            assert (await client.call_tool("estimate", {"task": "x"})).structured_content["points"] == 2
        await handle.stop()
