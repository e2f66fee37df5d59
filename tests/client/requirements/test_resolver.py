"""The resolver, a pure function: dedup, conflicts, strategies, versions, cycles and order."""

from __future__ import annotations

import pytest

from mcpnb.client.requirements import resolve

from .helpers import cfg, decl, decls, skill


# ---------------------------------------------------------------- dedup
def test_equal_configs_from_every_source_become_one_server_with_every_requester():
    plan = resolve(
        decls(
            decl("time", "notebook", "-m", "time"),
            skills=(
                skill("notes", decl("time", "skill", "-m", "time")),
                skill("clock", decl("time", "skill", "-m", "time")),
            ),
            layers=(decl("time", "project", "-m", "time"),),
        )
    )
    assert plan.ok and [s.name for s in plan.servers] == ["time"]
    time = plan["time"]
    assert time.requested_by == (
        "notebook",
        "skill 'clock'",
        "skill 'notes'",
    )  # the layer provides, it asks nothing
    assert time.source == "notebook"
    assert plan.conflicts == ()
    assert any("deduplicated" in n and "project (.mcp.json)" in n for n in time.notes)


def test_a_reference_takes_its_config_from_the_project_layer():
    plan = resolve(
        decls(
            decl("docs", config=None, version=">=1", tools=("search",)),
            layers=(decl("docs", "project", "--docs"), decl("unrelated", "project")),
        )
    )
    assert [s.name for s in plan.servers] == ["docs"]  # layers never add servers nobody asked for
    docs = plan["docs"]
    assert docs.source == "project (.mcp.json)" and docs.config.args == ("--docs",)
    assert docs.version == ">=1" and docs.tools == ("search",)


def test_a_reference_nobody_can_reach_is_a_problem():
    plan = resolve(decls(decl("docs", config=None)))
    assert not plan.ok and plan.servers == ()
    assert "server 'docs'" in plan.problems[0] and "nothing says how to start it" in plan.problems[0]


# ---------------------------------------------------------------- conflicts
def test_different_configs_are_a_conflict_naming_both_sources_and_the_keys():
    notebook = decl("time", "notebook", config=cfg("time", "-m", "time", env={"TZ": "UTC", "KEY": "s3cret"}))
    project = decl("time", "project", config=cfg("time", "-m", "time2", env={"TZ": "UTC", "KEY": "other"}))
    plan = resolve(decls(notebook, layers=(project,)))
    (conflict,) = plan.conflicts
    assert conflict.kind == "config" and conflict.server == "time"
    assert [o.id for o in conflict.options] == ["notebook", "project (.mcp.json)"]
    assert conflict.keys == ("args", "env.KEY")  # env entries by name only: their values may be secrets
    assert "s3cret" not in str(conflict) and "other" not in str(conflict)
    assert "notebook vs project (.mcp.json)" in str(conflict)


def test_a_url_against_a_command_differs_in_transport_command_and_url():
    http = decl("docs", "skill", config=cfg("docs", command=None, url="http://127.0.0.1:9/mcp"), origin="s")
    plan = resolve(decls(decl("docs"), http))
    assert set(plan.conflicts[0].keys) >= {"transport", "command", "url"}


def test_tool_names_on_two_servers_warn_with_the_flat_names_to_use():
    plan = resolve(decls(decl("a", tools=("search", "x")), decl("b", "notebook", "-b", tools=("search",))))
    assert plan.ok
    (warning,) = plan.warnings
    assert "'search'" in warning and "mcp__a__search" in warning and "mcp__b__search" in warning


def test_many_shared_tool_names_make_one_warning_per_group_of_servers():
    from mcpnb.client.requirements.collisions import collision_notes, collision_warnings

    tools = {"a": ["t1", "t2", "t3", "t4", "t5", "solo"], "b": ["t1", "t2", "t3", "t4", "t5"], "c": ["solo"]}
    assert collision_warnings(tools) == [
        "5 tool names (t1, t2, t3, t4, +1 more) are on a, b: call them as mcp__a__TOOL or mcp__b__TOOL",
        "tool 'solo' is on a, c: call it as mcp__a__solo or mcp__c__solo",
    ]
    assert collision_notes(tools)["c"] == ["tool 'solo' is also on a: call it as mcp__c__solo"]
    assert len(collision_notes(tools)["a"]) == 2


def test_incompatible_versions_of_one_config_are_a_version_conflict():
    plan = resolve(decls(decl("time", version=">=3"), skills=(skill("old", decl("time", version="<2")),)))
    (conflict,) = plan.conflicts
    assert conflict.kind == "version" and conflict.key == "time.version"
    assert plan["time"].version == ">=3"  # priority: the notebook's
    assert "incompatible versions" in str(conflict)


def test_compatible_versions_are_combined():
    plan = resolve(decls(decl("time", version=">=1"), skills=(skill("s", decl("time", version="<3")),)))
    assert plan.conflicts == () and plan["time"].version == "<3,>=1"


# ---------------------------------------------------------------- strategies
def _three_way():
    """The notebook, a skill and the project each want 'time' started differently."""
    return decls(
        decl("time", "notebook", "--nb", version=">=1"),
        skills=(skill("fresh", decl("time", "skill", "--skill", version=">=2026")),),
        layers=(decl("time", "project", "--project", version=">=2"),),
    )


def test_priority_the_closest_source_wins():
    plan = resolve(_three_way(), "priority")
    assert plan["time"].config.args == ("--nb",) and plan["time"].source == "notebook"
    assert plan.conflicts[0].chosen == "notebook"
    assert "priority: notebook wins over skill 'fresh', project (.mcp.json)" in plan.conflicts[0].how


def test_priority_prefers_local_to_project_to_user():
    plan = resolve(
        decls(
            decl("t", config=None),
            layers=(decl("t", "user", "-u"), decl("t", "local", "-l"), decl("t", "project", "-p")),
        )
    )
    assert plan["t"].config.args == ("-l",)


def test_priority_prefers_the_skill_nearer_the_notebook():
    plan = resolve(
        decls(
            skills=(
                skill("top", decl("t", "skill", "-top"), requires=("deep",)),
                skill("deep", decl("t", "skill", "-deep")),
            ),
            roots=("top",),
        )
    )
    assert plan["t"].config.args == ("-top",)


def test_priority_cannot_choose_between_two_skills_equally_close():
    plan = resolve(decls(skills=(skill("a", decl("t", "skill", "-a")), skill("b", decl("t", "skill", "-b")))))
    assert not plan.ok and plan.servers == ()
    assert "equally close" in plan.problems[0] and plan.conflicts[0].chosen is None


def test_newest_the_highest_version_wins():
    plan = resolve(_three_way(), "newest")
    assert plan["time"].config.args == ("--skill",) and plan["time"].version == ">=2026"
    assert "newest: skill 'fresh' asks for 2026" in plan.conflicts[0].how


def test_newest_falls_back_to_priority_when_no_version_tells_them_apart():
    plan = resolve(decls(decl("t", "notebook", "-n"), layers=(decl("t", "project", "-p"),)), "newest")
    assert plan["t"].config.args == ("-n",)
    assert plan.conflicts[0].how.startswith("newest: no version tells them apart, so priority")


def test_error_stops_at_any_conflict_and_says_which():
    plan = resolve(_three_way(), "error")
    assert not plan.ok and plan.servers == ()
    assert "server 'time'" in plan.problems[0] and "strategy 'error'" in plan.problems[0]


def test_error_does_not_mind_agreement():
    plan = resolve(decls(decl("t"), layers=(decl("t", "project"),)), "error")
    assert plan.ok and plan["t"].source == "notebook"


def test_ask_uses_the_choices_made():
    plan = resolve(_three_way(), "ask", choices={"time": "project (.mcp.json)"}, chosen_by="asked")
    assert plan["time"].config.args == ("--project",)
    assert plan.conflicts[0].how == "asked: project (.mcp.json) was chosen"


def test_ask_headless_falls_back_to_priority_and_says_so():
    plan = resolve(_three_way(), "ask", nobody="nobody to ask (a headless run)")
    assert plan["time"].config.args == ("--nb",)
    assert plan.conflicts[0].how.startswith("nobody to ask (a headless run), so priority: notebook wins")


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown strategy 'fastest'"):
        resolve(decls(), "fastest")


# ---------------------------------------------------------------- optional
def test_optional_only_when_every_requester_can_do_without():
    both = resolve(decls(decl("t", optional=True), skills=(skill("s", decl("t", optional=True)),)))
    one = resolve(decls(decl("t", optional=True), skills=(skill("s", decl("t")),)))
    assert both["t"].optional and "optional" in both["t"].notes
    assert not one["t"].optional


# ---------------------------------------------------------------- skills: cycles and order
@pytest.mark.parametrize(
    ("requires", "path"),
    [
        ({"a": ("a",)}, "a → a"),
        ({"a": ("b",), "b": ("a",)}, "a → b → a"),
        ({"a": ("b",), "b": ("c",), "c": ("a",)}, "a → b → c → a"),
    ],
    ids=["length 1", "length 2", "length 3"],
)
def test_cycles_are_found_with_their_path(requires, path):
    skills = tuple(skill(n, requires=r) for n, r in requires.items())
    plan = resolve(decls(skills=skills, roots=("a",)))
    assert not plan.ok
    assert [" → ".join(c) for c in plan.cycles] == [path]
    assert any(path in p for p in plan.problems)


def test_a_cycle_is_reported_from_its_first_name_whichever_skill_the_notebook_named():
    skills = (skill("c", requires=("a",)), skill("a", requires=("b",)), skill("b", requires=("c",)))
    assert resolve(decls(skills=skills, roots=("b",))).cycles == (("a", "b", "c", "a"),)


def test_skills_are_ordered_after_what_they_require():
    skills = (
        skill("app", requires=("notes", "clock")),
        skill("notes", requires=("clock",)),
        skill("clock"),
        skill("extra"),
    )
    plan = resolve(decls(skills=skills, roots=("app", "extra")))
    assert plan.ok and plan.cycles == ()
    order = plan.skills
    assert order.index("clock") < order.index("notes") < order.index("app")
    assert sorted(order) == ["app", "clock", "extra", "notes"]


def test_two_skills_sharing_a_server_share_one_connection():
    shared = decl("time", "skill", "-m", "time", tools=("get_current_time",))
    plan = resolve(decls(skills=(skill("notes", shared), skill("diary", shared, decl("probe", "skill")))))
    assert [s.name for s in plan.servers] == ["probe", "time"]
    assert plan["time"].requested_by == ("skill 'diary'", "skill 'notes'")
