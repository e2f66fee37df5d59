"""``pool.require`` against real servers: probe-kit over stdio and in-process, and mcp-server-time
(a server we did not write) over stdio. Connects, is idempotent, checks versions and tools, reports
a failing required server without touching the others, and leaves the pool alone on bad input."""

from __future__ import annotations

import sys

import pytest
from conftest import DEMO, children

from mcpnb.client.errors import ConfigError
from mcpnb.client.requirements import (
    RequiredServerError,
    RequirementConflictError,
    RequirementCycleError,
    Resolution,
)
from mcpnb.probekit import create_server

from .skillfiles import write_skill

TIME = {"command": "python", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
PROBE = {"command": "python", "args": ["-m", "mcpnb.probekit", "--toolset", "core"]}
SPEC = {
    "mcpServers": {
        "time": {**TIME, "version": ">=2025", "tools": ["get_current_time", "convert_time"]},
        "probe": {**PROBE, "version": ">=2", "tools": ["estimate"]},
    }
}


def require(pool, spec=SPEC, **kw):
    kw.setdefault("config", False)
    return pool.require(spec, **kw)


def test_require_connects_checks_and_reports(pool):
    res = require(pool)
    assert isinstance(res, Resolution) and res.ok
    assert [(r.name, r.state, r.action, r.level) for r in res.rows] == [
        ("probe", "connected", "connected", "ok"),
        ("time", "connected", "connected", "ok"),
    ]
    assert res["time"].version_got and res["time"].version_wanted == ">=2025"
    assert res["probe"].version_got == "2.0.0"
    assert pool.call("time", "get_current_time", {"timezone": "UTC"}).data["timezone"] == "UTC"
    text = repr(res)
    assert text.splitlines()[0].split() == [
        "name",
        "requested",
        "by",
        "source",
        "wanted",
        "got",
        "state",
        "notes",
    ]
    assert list(res.df.columns[:3]) == ["name", "requested_by", "source"] and len(res.df) == 2
    assert all(isinstance(v, str) for v in res.df["requested_by"])  # "notebook", not ("notebook",)


def test_the_same_requirements_twice_change_nothing(pool):
    require(pool)
    conns = {n: pool.connection(n) for n in pool.names}
    processes = children()
    again = require(pool)
    assert [r.action for r in again.rows] == ["kept", "kept"]
    assert all("untouched" in r.notes[0] for r in again.rows)
    assert {n: pool.connection(n) for n in pool.names} == conns  # the very same connections
    assert children() == processes  # no server was started or stopped


def test_changed_settings_reconnect_that_server_only(pool):
    require(pool)
    time_conn = pool.connection("time")
    spec = {
        "mcpServers": {**SPEC["mcpServers"], "probe": {**PROBE, "args": [*PROBE["args"][:-1], "workflow"]}}
    }
    res = require(pool, spec)
    assert (res["probe"].action, res["time"].action) == ("reconnected", "kept")
    assert "reconnected: its settings changed (args)" in res["probe"].notes
    assert pool.connection("time") is time_conn


def test_in_process_servers_from_code(pool):
    server = create_server("core")
    spec = {"mcpServers": {"kit": {"server": server, "tools": ["estimate"], "version": "~=2.0"}}}
    res = require(pool, spec)
    assert res["kit"].state == "connected" and pool.status()["kit"].transport == "inprocess"
    assert require(pool, spec)["kit"].action == "kept"  # the same object: the same server
    other = require(pool, {"mcpServers": {"kit": {"server": create_server("core")}}})
    assert other["kit"].action == "reconnected"


def test_a_failing_required_server_raises_once_listing_every_failure_and_touches_nothing_else(pool):
    pool.connect("bystander", server=create_server("core"))
    bystander = pool.connection("bystander")
    spec = {
        "mcpServers": {
            "time": {**TIME, "version": ">=2025"},
            "ghost": {"command": "no-such-mcp-server-here"},
            "probe": {**PROBE, "version": ">=3", "tools": ["estimate", "teleport"]},
        }
    }
    with pytest.raises(RequiredServerError) as caught:
        require(pool, spec)
    message = str(caught.value)
    assert message.startswith("2 required servers are not ready:")
    assert "ghost:" in message and "no-such-mcp-server-here" in message
    assert "probe: version 2.0.0 does not satisfy >=3; missing tools: teleport" in message
    res = caught.value.resolution
    assert [(r.name, r.state, r.level) for r in res.rows] == [
        ("ghost", "failed", "error"),
        ("probe", "unsatisfied", "error"),
        ("time", "connected", "ok"),
    ]
    assert pool.status()["time"].state == "connected"  # the others are up and usable
    assert pool.call("time", "get_current_time", {"timezone": "UTC"}).data["timezone"] == "UTC"
    assert pool.connection("bystander") is bystander  # servers nobody required are never touched


def test_an_optional_server_that_fails_is_a_warning_row(pool):
    spec = {"mcpServers": {"time": TIME, "extra": {"command": "no-such-mcp-server-here", "optional": True}}}
    res = require(pool, spec)
    assert res.ok and res["extra"].state == "failed" and res["extra"].level == "warn"
    assert "optional, so the notebook goes on without it" in res["extra"].notes


def test_tool_names_on_two_connected_servers_are_warned_about(pool):
    res = require(pool, {"mcpServers": {"a": PROBE, "b": {"server": create_server("core")}}})
    (warning,) = res.warnings  # one line for the pair, not one per tool
    assert warning.startswith(
        "15 tool names (analyze_project, ask_user, code_review, debug, +11 more) are on a, b"
    )
    assert warning.endswith("call them as mcp__a__TOOL or mcp__b__TOOL")
    assert (
        res["a"].notes[-1].startswith("15 tool names are also on b (")
        and "mcp__a__TOOL" in res["a"].notes[-1]
    )
    assert pool.call("mcp__b__estimate", arguments={"task": "x", "files": 1}).df is not None


def test_skills_sharing_a_server_share_one_connection(pool, tmp_path):
    write_skill(
        tmp_path, "notes", servers={"time": {**TIME, "tools": ["get_current_time"]}}, requires=["clock"]
    )
    write_skill(tmp_path, "clock", servers={"time": {**TIME, "version": ">=2025"}})
    res = require(pool, {"skills": ["notes"]}, base=tmp_path)
    (row,) = res.rows
    assert row.requested_by == ("skill 'notes'", "skill 'clock'")
    assert any(n.startswith("deduplicated: skill 'notes', skill 'clock'") for n in row.notes)
    assert res.skills == ("clock", "notes")
    assert pool.names == ["time"]


def test_config_layers_rank_below_the_notebook(pool, tmp_path):
    import json

    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"time": {**TIME, "args": [*TIME["args"][:-1], "Asia/Tokyo"]}}})
    )
    res = require(pool, {"mcpServers": {"time": TIME}}, base=tmp_path, config=True)
    assert res["time"].source == "notebook"
    assert "priority: notebook wins over project (.mcp.json)" in " ".join(res["time"].notes)
    assert pool.call("time", "get_current_time", {"timezone": "UTC"}).data["timezone"] == "UTC"
    taken = require(pool, {"mcpServers": {"time": {"version": ">=2025"}}}, base=tmp_path, config=True)
    assert taken["time"].source == "project (.mcp.json)" and taken["time"].action == "reconnected"


def test_a_server_with_invalid_settings_in_the_config_matters_only_if_the_notebook_needs_it(pool, tmp_path):
    import json

    config = {"mcpServers": {"time": TIME, "typo": {"comand": "x"}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(config))
    res = require(pool, {"mcpServers": {"time": {"version": ">=2025"}}}, base=tmp_path, config=True)
    assert res["time"].state == "connected" and pool.names == ["time"]  # the typo is not in the way
    with pytest.raises(
        ConfigError, match=r"\.mcp\.json: server 'typo': key 'comand'.*did you mean 'command'"
    ):
        require(pool, {"mcpServers": {"typo": {}}}, base=tmp_path, config=True)
    assert pool.names == ["time"]


# ---------------------------------------------------------------- strategies through the pool
def _disagreeing(tmp_path):
    write_skill(tmp_path, "flows", servers={"probe": {**PROBE, "args": [*PROBE["args"][:-1], "workflow"]}})
    return {"mcpServers": {"probe": PROBE}, "skills": ["flows"]}


def test_ask_with_answers_given(pool, tmp_path):
    res = require(
        pool, _disagreeing(tmp_path), base=tmp_path, strategy="ask", answers={"probe": "skill 'flows'"}
    )
    assert "answers given: skill 'flows' was chosen" in " ".join(res["probe"].notes)
    assert "workflow" in pool.connection("probe").config.args


def test_ask_answers_that_do_not_fit_stop_before_connecting(pool, tmp_path):
    with pytest.raises(RequirementConflictError, match="the answers given do not settle the conflicts"):
        require(
            pool, _disagreeing(tmp_path), base=tmp_path, strategy="ask", answers={"probe": "skill 'flow'"}
        )
    assert pool.names == []


def test_ask_with_nobody_to_ask_falls_back_to_priority_and_says_so(pool, tmp_path):
    res = require(pool, _disagreeing(tmp_path), base=tmp_path, strategy="ask")
    note = " ".join(res["probe"].notes)
    assert "nobody to ask (no notebook cell, and no answers given), so priority: notebook wins" in note
    assert "core" in pool.connection("probe").config.args


def test_strategy_error_stops_before_connecting(pool, tmp_path):
    with pytest.raises(RequirementConflictError) as caught:
        require(pool, _disagreeing(tmp_path), base=tmp_path, strategy="error")
    assert "server 'probe': notebook vs skill 'flows' differ (args)" in str(caught.value)
    assert pool.names == [] and caught.value.resolution.conflicts[0].chosen is None


# ---------------------------------------------------------------- bad input leaves the pool as it was
def _cycle(tmp_path):
    write_skill(tmp_path, "a", servers={"time": TIME}, requires=["b"])
    write_skill(tmp_path, "b", requires=["a"])
    return {"skills": ["a"]}


def _no_skill_md(tmp_path):
    (tmp_path / "empty").mkdir()
    return {"mcpServers": {"time": TIME}, "skills": ["empty"]}


def _missing_requires(tmp_path):
    write_skill(tmp_path, "a", servers={"time": TIME}, requires=["./gone"])
    return {"skills": ["a"]}


@pytest.mark.parametrize(
    ("make", "error", "says"),
    [
        (lambda p: "mcpServers:\n  time: {command: python\n", ConfigError, "<spec>: invalid YAML at line 3"),
        (
            lambda p: {"mcpServers": {"time": {**TIME, "tool": ["x"]}}},
            ConfigError,
            "key 'tool': unknown key (did you mean 'tools'?)",
        ),
        (_no_skill_md, ConfigError, "key 'skills[0]'"),
        (_missing_requires, ConfigError, "SKILL.md: key 'mcp.requires[0]': no skill folder './gone'"),
        (_cycle, RequirementCycleError, "a → b → a"),
    ],
    ids=["malformed yaml", "unknown key", "no SKILL.md", "missing requires", "cycle"],
)
def test_bad_input_is_a_clear_error_and_leaves_the_pool_as_it_was(pool, tmp_path, make, error, says):
    pool.connect("time", server=create_server("core"))  # a different server under a required name
    before = {n: pool.connection(n) for n in pool.names}
    processes = children()
    with pytest.raises(error) as caught:
        require(pool, make(tmp_path), base=tmp_path)
    assert says in str(caught.value)
    assert {n: pool.connection(n) for n in pool.names} == before
    assert pool.status()["time"].state == "connected" and children() == processes


@pytest.mark.anyio
async def test_arequire_is_the_async_twin(pool):
    res = await pool.arequire({"mcpServers": {"time": TIME}}, config=False)
    assert res["time"].state == "connected"
    assert (await pool.arequire({"mcpServers": {"time": TIME}}, config=False))["time"].action == "kept"


def test_secrets_stay_hidden_in_the_table_the_plan_and_the_errors(pool, tmp_path):
    import json

    from mcpnb.notebook.render import bundle

    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"probe": {**PROBE, "env": {"API_TOKEN": "s3cr3t-two"}}}})
    )
    spec = {"mcpServers": {"probe": {**PROBE, "env": {"API_TOKEN": "s3cr3t-one"}}}}
    res = require(pool, spec, base=tmp_path, config=True)
    assert "conflict (env.API_TOKEN)" in " ".join(res["probe"].notes)  # the key is named, never the value
    shown = [repr(res), repr(res.plan), res.df.to_string(), *bundle(res).values()]
    with pytest.raises(RequirementConflictError) as caught:
        require(pool, spec, base=tmp_path, config=True, strategy="error")
    shown.append(str(caught.value))
    assert not [text for text in shown if "s3cr3t" in text]


def test_yaml_env_numbers_reach_the_server_as_written(pool):
    # "PORT: 8080" was refused as "expected a string"; YAML reads 0755 as 493 and 1.10 as 1.1, so
    # the text as written is what the server must see
    cell = f"""
mcpServers:
  demo:
    command: {sys.executable}
    args: [{DEMO}, stdio]
    env: {{PORT: 8080, MODE: 0755, RATIO: 1.10, BIG: 12345678901234567891}}
    version: 1.10
"""
    with pytest.raises(ConfigError, match=r'key \'version\': .*\(write version: ">=1\.10"\)'):
        require(pool, cell)
    require(pool, cell.replace("    version: 1.10\n", ""))
    seen = {name: pool.call("demo", "env", {"name": name}).data for name in ("PORT", "MODE", "RATIO", "BIG")}
    assert seen == {"PORT": "8080", "MODE": "0755", "RATIO": "1.10", "BIG": "12345678901234567891"}
    with pytest.raises(ConfigError, match=r"env\.DEBUG': expected a string, got true/false: quote it"):
        require(pool, cell.replace("RATIO: 1.10", "DEBUG: no").replace("    version: 1.10\n", ""))
