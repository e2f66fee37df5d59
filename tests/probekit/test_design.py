"""probe-kit stays true to its design: the literal toolsets, a text block from every tool called with
{} (by a client that offers neither forms nor sampling), commit messages, the text fallback for
questions, and the error codes a client's mistake gets."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from mcpnb.probekit import create_server
from mcpnb.probekit.toolsets import CONFORMANCE, CORE, UI, WORKFLOW
from tests.probekit.test_serving import child_env

DESIGN_CORE = [
    "interview", "ask_user", "init_project_context", "analyze_project", "code_review", "security_scan",
    "perf", "debug", "fix", "gentest", "genapi", "genpr", "gencommit", "estimate", "start_bugfix",
]  # fmt: skip
DESIGN_UI = ["start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data"]
DESIGN_WORKFLOW = [
    "start_feature", "start_onboard", "start_bugfix", "start_ui", "start_ralph", "start_review",
    "start_release", "start_refactor", "start_api", "start_doc", "interview", "ask_user",
    "init_project_context", "analyze_project", "add_feature", "estimate", "code_review", "security_scan",
    "perf", "debug", "fix", "gentest", "gencommit", "genpr", "genchangelog", "genapi", "gen_mock",
    "design2code", "ui_design_system", "ui_search",
]  # fmt: skip
DESIGN_CONFORMANCE = [
    "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
    "test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
    "test_tool_with_progress", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums", "test_reconnection", "json_schema_2020_12_tool",
    # the 0.2.0 suite's, for 2026-07-28 (tools/rounds.py)
    "test_input_required_result_elicitation", "test_input_required_result_sampling",
    "test_input_required_result_list_roots", "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state", "test_input_required_result_capabilities",
    "test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
    "test_trigger_tool_change", "test_trigger_prompt_change", "test_x_mcp_header",
    # the tasks extension's (tools/tasksuite.py)
    "greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
    "test_tool_with_task",
]  # fmt: skip


#: The suite's tools that run only as tasks (execution.taskSupport "required").
ONLY_AS_TASKS = {"failing_job", "test_tool_with_task"}


def test_toolsets_are_the_design_lists() -> None:
    assert list(CORE) == DESIGN_CORE
    assert list(UI) == DESIGN_UI
    assert list(WORKFLOW) == DESIGN_WORKFLOW
    assert list(CONFORMANCE) == DESIGN_CONFORMANCE


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("toolset", "names"),
    [
        ("core", DESIGN_CORE),
        ("ui", DESIGN_UI),
        ("workflow", DESIGN_WORKFLOW),
        ("conformance", DESIGN_CONFORMANCE),
    ],
)
async def test_each_toolset_lists_exactly_its_design_tools(
    project: Path, toolset: str, names: list[str]
) -> None:
    async with Client(create_server(toolset, root=project)) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
    assert sorted(listed) == sorted(names)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_tool_called_with_nothing_answers_with_text(project: Path, mode: str) -> None:
    """No arguments, no elicitation, no sampling: still a text block, never a protocol error or a
    hang (but for the conformance suite's probe of the missing-capability error, which is that, and
    its tools that run only as tasks, which say how to call them)."""
    async with Client(create_server(root=project), mode=mode) as client:
        tools = (await client.list_tools()).tools
        assert len(tools) >= len(set(DESIGN_WORKFLOW) | set(DESIGN_CORE) | set(DESIGN_CONFORMANCE))
        for tool in tools:
            if tool.name == "test_missing_capability":  # the suite's probe of exactly this error
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(tool.name, {})
                assert refused.value.error.code == -32021, refused.value
                assert refused.value.error.data == {"requiredCapabilities": {"sampling": {}}}
                continue
            if tool.name == "protocol_error_job":  # fails below the tool, on purpose: a JSON-RPC error
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(tool.name, {})
                assert refused.value.error.code == -32603 and "on purpose" in str(refused.value)
                continue
            if tool.name in ONLY_AS_TASKS:  # a client without tasks hears how to call them
                if mode == "legacy":  # (2026-07-28 lists no execution: the extension says it)
                    assert tool.execution and tool.execution.task_support == "required", tool.name
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(tool.name, {})
                if mode == "legacy":  # SEP-1686: method not found
                    assert refused.value.error.code == -32601 and "call it with a task" in str(refused.value)
                else:  # SEP-2663: the extension the client did not declare
                    assert refused.value.error.code == -32021, refused.value
                    assert refused.value.error.data == {
                        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
                    }
                continue
            result = await client.call_tool(tool.name, {})
            texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
            if tool.name in {"test_image_content", "test_audio_content", "test_embedded_resource"}:
                assert result.content and not result.is_error, tool.name  # the suite wants a bare block
                continue
            assert texts and texts[0].strip(), f"{tool.name} answered {{}} without text"
            if result.is_error:
                assert result.meta and result.meta["error"]["message"], f"{tool.name}: no _meta.error"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_questions_fall_back_to_text_without_elicitation(project: Path, mode: str) -> None:
    async with Client(create_server(root=project), mode=mode) as client:  # no elicitation_callback
        asked = await client.call_tool("ask_user", {"question": "Which colour?", "choices": ["red", "blue"]})
        interview = await client.call_tool("interview", {"topic": "the shop"})
        form = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert not asked.is_error and asked.structured_content["action"] == "text"
    assert "Which colour?" in asked.content[0].text and "Options: red, blue" in asked.content[0].text
    assert "A few questions about the shop" in interview.content[0].text
    assert "Options: python, typescript, go, rust, other" in interview.content[0].text
    assert "What is the project called?" in interview.content[0].text
    assert "Who are you?" in form.content[0].text and "User's email address" in form.content[0].text


@pytest.mark.anyio
async def test_questions_still_use_forms_when_the_client_has_them(project: Path) -> None:
    async def answer(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"answer": "blue"})

    async with Client(create_server(root=project), elicitation_callback=answer) as client:
        asked = await client.call_tool("ask_user", {"question": "Which colour?", "choices": ["red", "blue"]})
    assert asked.structured_content["action"] == "accept"
    assert asked.structured_content["answers"] == [{"question": "Which colour?", "answer": "blue"}]


# ---------------------------------------------------------------- gencommit
NO_SCOPE_DIFF = """diff --git a/setup.py b/setup.py
--- a/setup.py
+++ b/setup.py
@@ -1 +1 @@
-version = "1"
+version = "2"
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-a
+b
"""


@pytest.mark.anyio
async def test_gencommit_footers_scope_changes_and_text(project: Path) -> None:
    async with Client(create_server(root=project)) as client:
        plain = await client.call_tool("gencommit", {"diff": NO_SCOPE_DIFF, "issue": "#7"})
        summary = await client.call_tool(
            "gencommit",
            {"changes": "Fixed the crash in the parser\nBREAKING: drop Python 3.10", "scope": "parser"},
        )
        neither = await client.call_tool("gencommit", {})
    data = plain.structured_content
    assert "scope" not in data and data["footers"] == ["Refs: #7"]
    assert plain.content[0].text.endswith("type: refactor\nscope: (none)\nbreaking: no")
    assert plain.content[0].text.startswith(data["finalMessage"])
    made = summary.structured_content
    assert (made["type"], made["scope"], made["breaking"]) == ("fix", "parser", True)
    assert made["subject"] == "fixed the crash in the parser"
    assert made["footers"] == ["BREAKING CHANGE: BREAKING: drop Python 3.10"]
    assert made["finalMessage"].startswith("fix(parser)!: fixed the crash in the parser")
    assert summary.content[0].text.endswith("type: fix\nscope: parser\nbreaking: yes")
    assert neither.is_error and "`changes`" in neither.content[0].text


# ---------------------------------------------------------------- error codes
@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_clients_mistakes_are_invalid_params_naming_what_exists(project: Path, mode: str) -> None:
    async with Client(create_server("ui", root=project), mode=mode) as client:
        with pytest.raises(MCPError) as tool:
            await client.call_tool("ui_serch", {"query": "x"})
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt("explain_tol", {"tool_name": "genui"})
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("explain_tool", {})
        with pytest.raises(MCPError) as resource:
            await client.read_resource("probe://statu")
        with pytest.raises(MCPError) as no_file:
            await client.read_resource("probe://files/nope.txt")
    assert {e.value.error.code for e in (tool, prompt, missing, resource, no_file)} == {-32602}
    assert "Unknown tool: 'ui_serch'; did you mean 'ui_search'?" in str(tool.value)
    assert "genui" in str(tool.value) and sorted(tool.value.error.data["available"]) == sorted(DESIGN_UI)
    assert "Unknown prompt: 'explain_tol'; did you mean 'explain_tool'?" in str(prompt.value)
    assert "review_code" in str(prompt.value)
    assert "needs the argument(s) tool_name" in str(missing.value)
    assert "Unknown resource: 'probe://statu'" in str(resource.value) and "probe://toolsets" in str(
        resource.value
    )
    assert "No such file: 'nope.txt'" in str(no_file.value)


@pytest.mark.anyio
async def test_no_traceback_on_stderr_for_a_clients_mistake(project: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcpnb.probekit", "--root", str(project)], env=child_env()
    )
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            for mistake in (
                lambda: client.call_tool("nope", {}),
                lambda: client.get_prompt("nope"),
                lambda: client.get_prompt("test_prompt_with_arguments", {"arg1": "x"}),
                lambda: client.read_resource("test://nope"),
                lambda: client.read_resource("probe://toolsets/nope"),
            ):
                with pytest.raises(MCPError) as info:
                    await mistake()
                assert info.value.error.code == -32602
            assert (await client.call_tool("analyze_project", {"path": "/etc"})).is_error
            assert (await client.call_tool("test_error_handling", {})).is_error
            wrong = await client.call_tool("estimate", {"task": 5})  # wrong argument type
            assert wrong.is_error and wrong.meta["error"]["code"] == "invalid_arguments"
            assert wrong.meta["error"]["fields"] == ["task"]
            assert wrong.content[0].text.startswith("Invalid arguments for estimate: task: Input should be")
    said = log.read_text()
    assert "Traceback" not in said, said
