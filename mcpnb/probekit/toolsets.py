"""Toolsets: named subsets of probe-kit's tools, so a demo can show a small, focused server.

The original probe-kit silently fell back to every tool on a typo; a person then wonders why the
list is long. Here an unknown name is an error that lists the valid ones.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping

from mcpnb.client.errors import ConfigError

CORE: tuple[str, ...] = (
    "interview", "ask_user", "init_project_context", "analyze_project", "code_review", "security_scan",
    "perf", "debug", "fix", "gentest", "genapi", "genpr", "gencommit", "estimate", "start_bugfix",
)  # fmt: skip

UI: tuple[str, ...] = ("start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data")

WORKFLOW: tuple[str, ...] = (
    "start_feature", "start_onboard", "start_bugfix", "start_ui", "start_ralph", "start_review",
    "start_release", "start_refactor", "start_api", "start_doc", "interview", "ask_user",
    "init_project_context", "analyze_project", "add_feature", "estimate", "code_review", "security_scan",
    "perf", "debug", "fix", "gentest", "gencommit", "genpr", "genchangelog", "genapi", "gen_mock",
    "design2code", "ui_design_system", "ui_search",
)  # fmt: skip

#: The fixtures of the official conformance suite, by the suite's names: ``tools/conformance.py``
#: (features of both eras), ``tools/rounds.py`` (2026-07-28's input rounds and checks), then
#: ``tools/tasksuite.py`` (the tasks extension's).
CONFORMANCE: tuple[str, ...] = (
    "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
    "test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
    "test_tool_with_progress", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums", "test_reconnection", "json_schema_2020_12_tool",
    "test_input_required_result_elicitation", "test_input_required_result_sampling",
    "test_input_required_result_list_roots", "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state", "test_input_required_result_capabilities",
    "test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
    "test_trigger_tool_change", "test_trigger_prompt_change", "test_x_mcp_header",
    "greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
    "test_tool_with_task",
)  # fmt: skip

#: probe-kit's MCP App: a tool with a page of its own, and one only its page may call.
APPS: tuple[str, ...] = ("dice", "dice_history")

#: probe-kit's own long-running tools, each a task or a plain call: ``slow_task`` (progress, a form),
#: ``draft_with_model`` (the client's model), ``client_roots`` (the client's roots).
TASKS: tuple[str, ...] = ("slow_task", "draft_with_model", "client_roots")

#: Name -> member tools; ``full`` is ``None``: every registered tool (internal steps, demos and the
#: conformance fixtures too).
TOOLSETS: Mapping[str, tuple[str, ...] | None] = {
    "core": CORE, "ui": UI, "workflow": WORKFLOW, "apps": APPS, "tasks": TASKS, "conformance": CONFORMANCE,
    "full": None,
}  # fmt: skip
DEFAULT_TOOLSET = "full"


class UnknownToolsetError(ConfigError):
    """A toolset name that does not exist; the message lists the valid names."""

    def __init__(self, name: str) -> None:
        valid = ", ".join(TOOLSETS)
        close = difflib.get_close_matches(name, list(TOOLSETS), n=1)
        super().__init__(
            f"unknown toolset {name!r}; valid toolsets: {valid}",
            key="toolset",
            suggestion=close[0] if close else None,
        )
        self.name = name


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def resolve_toolset(name: str | None, env: Mapping[str, str] | None = None) -> str:
    """The toolset to use: the argument, else ``MCP_TOOLSET``, else ``full``; validated."""
    env = os.environ if env is None else env
    chosen = (name if name is not None else env.get("MCP_TOOLSET") or DEFAULT_TOOLSET).strip().lower()
    if chosen not in TOOLSETS:
        raise UnknownToolsetError(chosen)
    return chosen


def env_flag(value: bool | None, var: str, env: Mapping[str, str] | None = None) -> bool:
    """An explicit argument wins; otherwise the environment variable (``1``/``true``/``yes``/``on``)."""
    if value is not None:
        return value
    return _flag((os.environ if env is None else env).get(var))


def select_tools(all_names: list[str], toolset: str, show_all: bool = False) -> list[str]:
    """Tool names to expose, in registration order. ``show_all`` ignores the filter."""
    members = TOOLSETS[toolset]
    if show_all or members is None:
        return list(all_names)
    wanted = set(members)
    return [n for n in all_names if n in wanted]
