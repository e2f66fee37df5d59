"""``%mcp functions`` through a real IPython shell against probe-kit and mcp-server-time, and what
IPython shows for a tool function: ``f?``, ``help(f)``, keyword completion."""

from __future__ import annotations

import re
import sys

import pytest
from IPython.core.error import UsageError

from mcpnb.client.toolbox import FORMATS, StrictModeWarning, Toolbox, ToolSpecs
from mcpnb.notebook.magics import functions as magic

from .conftest import bundle, line


@pytest.fixture
def served(ip, mcp):
    from mcpnb.probekit import create_server

    mcp.pool.connect("probe", server=create_server())
    mcp.pool.connect(
        "time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"]
    )
    return mcp


def test_the_toolbox_shows_as_a_table(ip, served):
    toolbox = line(ip, "functions")
    assert isinstance(toolbox, Toolbox) and "mcp__time__convert_time" in toolbox
    data = bundle(ip, toolbox)
    assert "<table" in data["text/html"] and "mcp__probe__ui_search" in data["text/html"]
    assert "not strict" in data["text/html"] and "strict?" in data["text/plain"]
    gen_mock = next(r for r in data["text/plain"].splitlines() if r.startswith("mcp__probe__gen_mock "))
    assert "no: additionalProperties at properties.schema" in gen_mock


def test_an_empty_toolbox_says_why_instead_of_an_empty_table(ip, mcp):
    toolbox = line(ip, "functions")
    assert len(toolbox) == 0
    data = bundle(ip, toolbox)
    assert (
        data["text/plain"]
        == "Toolbox: no tools (no server is connected, or its tool filters hide every tool)"
    )
    assert "<table" not in data["text/html"] and "no server is connected" in data["text/html"]


def test_specs_for_one_api_from_some_servers_into_a_variable(ip, served):
    line(ip, "functions time --format anthropic -o specs")
    specs = ip.user_ns["specs"]
    assert isinstance(specs, ToolSpecs) and specs.format == "anthropic"
    assert [s["name"] for s in specs] == ["mcp__time__get_current_time", "mcp__time__convert_time"]
    assert all("input_schema" in s for s in specs)
    shown = bundle(ip, specs)
    text = shown["text/plain"]
    assert text.splitlines()[0] == "2 anthropic tool specs" and "timezone*" in text
    # strict mode is OpenAI's: no other API's table has a strict? column of dashes
    assert "strict?" not in text and "strict?" not in shown["text/html"] and "—" not in shown["text/html"]
    openai = bundle(ip, line(ip, "functions time --format openai"))
    assert "strict?" in openai["text/plain"] and "strict?" in openai["text/html"]


def test_strict_openai_specs_warn_about_the_tools_that_cannot_be(ip, served, capsys):
    specs = line(ip, "functions probe --format openai --strict")
    said = capsys.readouterr().err
    assert (
        said.startswith(f"{StrictModeWarning.__name__}: ") and "mcp__probe__gen_mock cannot be strict" in said
    )
    by_name = {s["function"]["name"]: s["function"] for s in specs}
    assert by_name["mcp__probe__ui_search"]["strict"] is True
    assert by_name["mcp__probe__gen_mock"]["strict"] is False


def test_mistakes_are_usage_errors_that_say_what_to_do(ip, served):
    with pytest.raises(UsageError, match="--strict goes with --format openai"):
        line(ip, "functions --strict")
    with pytest.raises(UsageError, match="did you mean 'probe'"):
        line(ip, "functions prob")
    with pytest.raises(UsageError, match="did you mean 'openai'"):
        line(ip, "functions --format opnai")
    with pytest.raises(UsageError, match="did you mean 'anthropic'"):
        line(ip, "functions --format claude")
    with pytest.raises(
        UsageError, match=r"--approve 'destrutive': expected one of .*did you mean 'destructive'"
    ):
        line(ip, "functions --approve destrutive")


def test_approve_reaches_the_toolbox(ip, served):
    assert line(ip, "functions").approve == "never"
    assert line(ip, "functions probe --approve destructive").approve == "destructive"


def test_the_magic_offers_the_formats_and_approvals_the_toolbox_knows():
    from mcpnb.client.toolbox.approval import MODES

    assert magic.FORMATS == FORMATS and magic.APPROVE == MODES


def test_ipython_shows_the_signature_docstring_and_completes_keywords(ip, served):
    ip.user_ns["f"] = served.pool.functions("probe").short.ui_search
    info = re.sub(r"\x1b\[[0-9;]*m", "", ip.object_inspect_text("f"))  # without the colours
    assert "f(query: str, limit: int = 5, category: str | None = None)" in info.replace("ui_search(", "f(")
    assert "Args:" in info and "Rank the bundled component catalog" in info
    ip.Completer.use_jedi = False  # the runtime completer: it reads inspect.signature, as in a live kernel
    try:
        _, matches = ip.complete("que", "f(que", 5)
    finally:
        ip.Completer.use_jedi = True
    assert "query=" in matches


def test_skills_come_with_the_toolbox_when_asked(ip, served):
    toolbox = line(ip, "functions probe time --skills")
    assert "mcp__mcpnb__load_skill" in toolbox and "mcp__time__convert_time" in toolbox
    assert [s.name for s in toolbox.skills] == ["probe-kit-tour", "review-a-change"]  # time has none
    assert "- probe/review-a-change: " in toolbox.instructions
    assert "load_skill loads a skill: probe/probe-kit-tour" in bundle(ip, toolbox)["text/plain"]
    assert "mcp__mcpnb__load_skill" not in line(ip, "functions probe")  # only when asked
