"""``%%mcp require`` through a real IPython shell against real servers (probe-kit over stdio,
mcp-server-time): connects, is idempotent, shows the table first and then one error, stores the
resolution with -o, and turns bad input into a clear error that leaves the pool as it was."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from mcpnb.client.errors import ConfigError
from mcpnb.client.requirements import RequiredServerError, RequirementCycleError, Resolution
from tests.client.requirements.skillfiles import write_skill

from .conftest import bundle

BODY = """
mcpServers:
  time:
    command: python
    args: [-m, mcp_server_time, --local-timezone, UTC]
    version: ">=2025"
    tools: [get_current_time]
  probe:
    command: python
    args: [-m, mcpnb.probekit, --toolset, core]
    version: ">=2"
"""
TIME = {"command": "python", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A working directory of its own: skill paths are relative to it, and no .mcp.json is above it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def require(ip, body: str | None = None, line: str = "") -> object:
    if body is None:
        return ip.run_line_magic("mcp", f"require {line}")
    return ip.run_cell_magic("mcp", f"require {line}", body)


def test_a_require_cell_connects_and_shows_the_table(ip, mcp, here):
    res = require(ip, BODY, "-o needs")
    assert isinstance(res, Resolution) and ip.user_ns["needs"] is res
    assert [(r.name, r.state, r.level) for r in res.rows] == [
        ("probe", "connected", "ok"),
        ("time", "connected", "ok"),
    ]
    shown = bundle(ip, res)
    assert "<table" in shown["text/html"] and "version wanted" in shown["text/html"]
    assert "mcpnb-ok" in shown["text/html"]  # a green badge for a server that is ready
    assert shown["text/plain"].startswith("name ")
    assert ip.run_line_magic("mcp", "call time.get_current_time timezone=UTC").data["timezone"] == "UTC"


def test_a_final_semicolon_hides_the_table_and_is_no_part_of_the_body(ip, mcp, here):
    json_body = '{"mcpServers": {"time": {"command": "python", "args": ["-m", "mcp_server_time"]}}};'
    res = require(ip, json_body, "-o needs")  # the JSON was invalid with its ";"
    assert [(r.name, r.state) for r in res.rows] == [("time", "connected")]
    again = require(ip, BODY.rstrip() + ";\n")  # and the YAML's last value was '">=2";'
    assert [(r.name, r.state) for r in again.rows] == [("probe", "connected"), ("time", "connected")]


def test_running_the_cell_twice_changes_nothing(ip, mcp, here):
    require(ip, BODY)
    conns = {n: mcp.pool.connection(n) for n in mcp.pool.names}
    again = require(ip, BODY)
    assert [r.action for r in again.rows] == ["kept", "kept"]
    assert {n: mcp.pool.connection(n) for n in mcp.pool.names} == conns


def test_a_failing_required_server_shows_the_table_then_one_error(ip, mcp, here):
    body = BODY + "  ghost:\n    command: no-such-mcp-server-here\n"
    with capture_output() as shown, pytest.raises(RequiredServerError) as caught:
        require(ip, body, "-o needs")
    assert str(caught.value).startswith("1 required server is not ready:\n  - ghost:")
    (table,) = shown.outputs
    assert "ghost" in table.data["text/plain"] and "mcpnb-bad" in table.data["text/html"]
    assert ip.user_ns["needs"].failures[0].name == "ghost"  # -o keeps the resolution even then
    assert mcp.pool.status()["time"].state == "connected" and mcp.pool.status()["probe"].state == "connected"


def test_a_cell_error_is_one_short_line(ip, mcp, here):
    result = ip.run_cell("%%mcp require\nmcpServers:\n  ghost: {command: no-such-mcp-server-here}\n")
    assert isinstance(result.error_in_exec, RequiredServerError)
    rendered = result.error_in_exec._render_traceback_()
    assert "RequiredServerError: 1 required server is not ready" in rendered[0]


def test_skills_from_the_body_and_from_the_line(ip, mcp, here):
    write_skill(
        here / "skills",
        "notes",
        servers={"time": {**TIME, "tools": ["get_current_time"]}},
        requires=["clock"],
    )
    write_skill(here / "skills", "clock", servers={"time": TIME})
    res = require(ip, "skills: [notes]")
    assert res["time"].requested_by == ("skill 'notes'", "skill 'clock'") and res.skills == ("clock", "notes")
    again = require(ip, None, "--skill skills/clock")
    assert again["time"].action == "kept"


def test_the_project_layer_ranks_below_the_cell_and_can_be_left_out(ip, mcp, here):
    import json

    (here / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"time": {"command": "no-such-mcp-server-here"}}})
    )
    res = require(ip, "mcpServers:\n  time: {command: python, args: [-m, mcp_server_time]}\n")
    assert "priority: notebook wins over project (.mcp.json)" in " ".join(res["time"].notes)
    assert require(
        ip, "mcpServers:\n  time: {command: python, args: [-m, mcp_server_time]}\n", "--no-config"
    )["time"].notes == ("already connected with these settings: untouched",)


def test_a_broken_file_entry_does_not_block_a_server_the_cell_declares_in_full(ip, mcp, here, capsys):
    """A typo in .mcp.json's ``time`` stopped a cell that declares ``time`` completely (the cell
    outranks the file); the file's entry is left out and said so. A cell that leans on the file
    for how to start the server still stops with the file's error."""
    import json

    (here / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": {"comand": "python"}}}))
    res = require(ip, "mcpServers:\n  time: {command: python, args: [-m, mcp_server_time]}\n")
    assert res["time"].state == "connected"
    said = capsys.readouterr().err
    assert "key 'comand': unknown key (did you mean 'command'?)" in said
    assert "left out: the notebook's own settings for 'time' are used" in said
    with pytest.raises(ConfigError, match="did you mean 'command'"):
        require(ip, "mcpServers:\n  time: {version: '>=2025'}\n")  # no command: it needs the file's


def test_a_vs_code_file_as_config_takes_its_inputs_on_the_line(ip, mcp, here):
    import json

    (here / ".vscode").mkdir()
    entry = {"command": "python", "args": ["-m", "mcpnb.probekit", "--toolset", "${input:toolset}"]}
    (here / ".vscode" / "mcp.json").write_text(
        json.dumps({"inputs": [{"id": "toolset", "description": "Which toolset"}], "servers": {"kit": entry}})
    )
    ip.user_ns["chosen"] = "ui"
    res = require(ip, "mcpServers:\n  kit: {}\n", "--config .vscode/mcp.json --input toolset={{chosen}}")
    assert res["kit"].state == "connected" and "ui_search" in {t.name for t in mcp.pool.tools("kit")}
    with pytest.raises(UsageError, match=r"--input goes with --config PATH"):
        require(ip, "mcpServers:\n  kit: {}\n", "--input toolset=ui")
    with pytest.raises(UsageError, match="--input toolset is given twice"):
        require(
            ip, "mcpServers:\n  kit: {}\n", "--config .vscode/mcp.json --input toolset=ui --input toolset=x"
        )


def test_strategy_ask_without_a_person_falls_back_to_priority_and_says_so(ip, mcp, here, monkeypatch):
    write_skill(
        here,
        "flows",
        servers={"probe": {"command": "python", "args": ["-m", "mcpnb.probekit", "--toolset", "workflow"]}},
    )
    body = "mcpServers:\n  probe: {command: python, args: [-m, mcpnb.probekit, --toolset, core]}\n"
    body += "skills: [flows]\n"
    monkeypatch.setattr(mcp.settings, "elicitation", "decline")  # as under nbclient: nobody can answer
    res = require(ip, body, "--strategy ask")
    assert "nobody to ask (a headless run), so priority: notebook wins over skill 'flows'" in " ".join(
        res["probe"].notes
    )
    ip.user_ns["picks"] = {"probe": "skill 'flows'"}
    chosen = require(ip, body, "--strategy ask --answers picks")
    assert chosen["probe"].action == "reconnected" and "workflow" in mcp.pool.connection("probe").config.args


@pytest.mark.parametrize(
    ("body", "line", "error", "says"),
    [
        (
            "mcpServers:\n  time: {command: python\n",
            "",
            ConfigError,
            "the %%mcp require cell: invalid YAML at line 3",
        ),
        (
            "mcpServers:\n  time: {command: x, verison: '1'}\n",
            "",
            ConfigError,
            "key 'verison': unknown key (did you mean 'version'?)",
        ),
        ("skills: [nowhere/skill]\n", "", ConfigError, "key 'skills[0]': no skill folder 'nowhere/skill'"),
        ("skills: [a]\n", "", RequirementCycleError, "a → a"),
        (None, "", UsageError, "needs a body"),
        ("mcpServers: {}\n", "--answers x", UsageError, "--answers is for --strategy ask"),
        (
            "mcpServers: {}\n",
            "--strategy ask --answers pics",
            UsageError,
            "--answers pics: no variable 'pics'",
        ),
        ("mcpServers: {}\n", "--config x.json --no-config", UsageError, "contradict"),
    ],
)
def test_bad_input_is_a_clear_error_and_the_pool_stays_as_it_was(ip, mcp, here, body, line, error, says):
    write_skill(here / "skills", "a", servers={"time": TIME}, requires=["a"])
    require(ip, "mcpServers:\n  time: {command: python, args: [-m, mcp_server_time]}\n")
    before = {n: mcp.pool.connection(n) for n in mcp.pool.names}
    ip.user_ns["x"] = {}
    with pytest.raises(error) as caught:
        require(ip, body, line)
    assert says in str(caught.value)
    assert {n: mcp.pool.connection(n) for n in mcp.pool.names} == before
