"""Toolsets: membership, selection by parameter and env var, unknown names, filtered tools."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcpnb.probekit import TOOLSETS, UnknownToolsetError, create_server
from mcpnb.probekit.toolsets import CORE, TASKS, UI, WORKFLOW, env_flag, resolve_toolset, select_tools


def test_toolset_members_match_the_design() -> None:
    assert len(CORE) == 15 and "start_bugfix" in CORE and "ui_search" not in CORE
    assert set(UI) == {"start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data"}
    assert len(WORKFLOW) == 30 and {"start_doc", "gen_mock", "genchangelog"} <= set(WORKFLOW)
    assert set(TASKS) == {"slow_task", "draft_with_model", "client_roots"}
    assert TOOLSETS["full"] is None


def test_the_command_lines_help_names_every_toolset() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mcpnb.probekit", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split()).split("--toolset", 1)[1]
    assert not [name for name in TOOLSETS if name not in said], said


def test_resolve_prefers_argument_then_env_then_full() -> None:
    assert resolve_toolset("UI", {"MCP_TOOLSET": "core"}) == "ui"
    assert resolve_toolset(None, {"MCP_TOOLSET": "core"}) == "core"
    assert resolve_toolset(None, {}) == "full"


def test_unknown_toolset_lists_the_valid_names() -> None:
    with pytest.raises(UnknownToolsetError) as info:
        resolve_toolset("cor", {})
    message = str(info.value)
    assert (
        "unknown toolset 'cor'" in message and "core, ui, workflow, apps, tasks, conformance, full" in message
    )
    assert "did you mean 'core'" in message
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="valid toolsets"):
        create_server("nope")


def test_env_flags() -> None:
    assert env_flag(None, "X", {"X": "1"}) and env_flag(None, "X", {"X": "yes"})
    assert not env_flag(None, "X", {}) and env_flag(True, "X", {}) and not env_flag(False, "X", {"X": "1"})


def test_select_keeps_registration_order() -> None:
    assert select_tools(["ui_search", "gencommit", "genui"], "ui") == ["ui_search", "genui"]
    assert select_tools(["ui_search", "gencommit"], "ui", show_all=True) == ["ui_search", "gencommit"]


async def _names(server: Any) -> set[str]:
    async with Client(server) as client:
        return {t.name for t in (await client.list_tools()).tools}


@pytest.mark.anyio
async def test_parameter_filters_listing_and_calling(project: Any) -> None:
    server = create_server("ui", root=project)
    assert await _names(server) == set(UI)
    async with Client(server) as client:
        with pytest.raises(MCPError) as hidden:
            await client.call_tool("gencommit", {"diff": "x"})
        assert hidden.value.error.code == -32602 and "Unknown tool: 'gencommit'" in str(hidden.value)
        shown = await client.call_tool("ui_search", {"query": "button"})
        assert not shown.is_error


@pytest.mark.anyio
async def test_env_var_selects_and_show_all_ignores_filter(
    project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TOOLSET", "core")
    assert await _names(create_server(root=project)) == set(CORE)
    monkeypatch.setenv("MCP_SHOW_ALL", "1")
    everything = await _names(create_server(root=project))
    assert set(CORE) | set(UI) | set(WORKFLOW) | {"render_ui", "init_component_catalog"} <= everything
    assert await _names(create_server("full", root=project, show_all=False)) == everything


@pytest.mark.anyio
async def test_the_tasks_toolset_and_the_full_count(project: Any) -> None:
    assert await _names(create_server("tasks", root=project)) == set(TASKS)
    assert len(await _names(create_server("full", root=project))) == 75  # the README's tour says so


@pytest.mark.anyio
async def test_internal_ui_steps_only_in_full(project: Any) -> None:
    full = await _names(create_server("full", root=project))
    workflow = await _names(create_server("workflow", root=project))
    assert {"render_ui", "init_component_catalog"} <= full
    assert not {"render_ui", "init_component_catalog"} & workflow
    assert workflow == set(WORKFLOW)


@pytest.mark.anyio
async def test_tools_say_they_only_read_and_the_conformance_fixtures_say_nothing(project: Any) -> None:
    """A client decides whether to ask a person from these (mcpnb's ``approve="destructive"``): a
    probe-kit tool reads and reaches nothing beyond the machine; the suite's fixtures, as written by
    the suite, carry no annotations, so a client's handling of the spec's defaults shows too."""
    async with Client(create_server(root=project)) as client:
        tools = {t.name: t.annotations for t in (await client.list_tools()).tools}
    said = {name for name, hints in tools.items() if hints is not None}
    assert {"ui_search", "gencommit", "ask_user", "slow_task", "estimate"} <= said
    assert all(tools[n].read_only_hint is True and tools[n].open_world_hint is False for n in said)
    assert tools["test_simple_text"] is None and tools["test_elicitation"] is None
