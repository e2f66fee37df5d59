"""Reading declarations: cell bodies (JSON or YAML), skill folders, the config layers.

Every mistake is a ConfigError that names the file and the key, raised before anything connects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcpnb.client.errors import ConfigError
from mcpnb.client.requirements import gather

from .skillfiles import write_skill

CELL = "the %%mcp require cell"
YAML = """
mcpServers:
  time:
    command: python
    args: [-m, mcp_server_time]
    version: ">=2025"
    tools: [get_current_time]
  docs:
    optional: true
"""


def load(spec, tmp_path: Path, **kw):
    kw.setdefault("config", False)
    return gather(spec, base=tmp_path, where=CELL, **kw)


def test_a_yaml_body(tmp_path):
    found = load(YAML, tmp_path)
    time, docs = found.servers
    assert (time.name, time.source, time.origin) == ("time", "notebook", "notebook")
    assert time.config.args == ("-m", "mcp_server_time")
    assert time.config.command == "python"  # as written (the table shows it so)
    assert time.config.program == sys.executable  # what it starts: the interpreter running this code
    assert time.version == ">=2025" and time.tools == ("get_current_time",) and not time.optional
    assert docs.config is None and docs.optional  # a reference: .mcp.json or a skill says how


def test_a_json_body_and_a_mapping_from_code_read_the_same(tmp_path):
    data = {"mcpServers": {"time": {"command": "srv", "args": ["a"], "version": ">=1"}}}
    assert load(json.dumps(data), tmp_path).servers == load(data, tmp_path).servers


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("mcpServers:\n  time: [unclosed\n", "invalid YAML at line 3"),
        ('{"mcpServers": {"time": }}', "invalid JSON at line 1, column 25"),
        (
            "mcpServers:\n  time:\n    command: srv\n    version: >=2\n",
            'quote version specifiers: version: ">=2.0"',
        ),
        ("mcpServers:\n  a: {command: x}\n  a: {command: y}\n", "key 'a': key appears twice"),
    ],
    ids=["yaml", "json", "unquoted version", "duplicate"],
)
def test_malformed_text_names_the_cell_and_the_line(tmp_path, body, says):
    with pytest.raises(ConfigError) as caught:
        load(body, tmp_path)
    assert str(caught.value).startswith(CELL) and says in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ({"mcpservers": {}}, "key 'mcpservers': unknown key (did you mean 'mcpServers'?)"),
        ({"skils": []}, "key 'skils': unknown key (did you mean 'skills'?)"),
        (
            {"mcpServers": {"t": {"command": "x", "verison": ">=1"}}},
            "server 't': key 'verison': unknown key (did you mean 'version'?)",
        ),
        (
            {"mcpServers": {"t": {"command": "x", "comand": "y"}}},
            "server 't': key 'comand': unknown key (did you mean 'command'?)",
        ),
        (
            {"mcpServers": {"t": {"command": "x", "version": 2}}},
            "key 'version': expected a PEP 440 specifier in quotes, got a number (write version: \">=2\")",
        ),
        (  # 1.10 unquoted is the number 1.1: the hint must not repeat it as the version meant
            {"mcpServers": {"t": {"command": "x", "version": 1.10}}},
            "key 'version': expected a PEP 440 specifier in quotes, got a number (write it in quotes as "
            'you mean it, e.g. version: ">=1.10"; unquoted it reads as 1.1)',
        ),
        (
            {"mcpServers": {"t": {"command": "x", "version": "2.0"}}},
            "key 'version': '2.0' is not a PEP 440 version specifier",
        ),
        (
            {"mcpServers": {"t": {"command": "x", "tools": "now"}}},
            "key 'tools': expected a list of tool names",
        ),
        (
            {"mcpServers": {"t": {"command": "x", "optional": "yes"}}},
            "key 'optional': expected true or false",
        ),
        ({"mcpServers": {"t": {"args": ["x"]}}}, "settings without a way to reach the server (args)"),
        ({"mcpServers": {"t": {"command": "x", "startupTimeoutSec": -1}}}, "key 'startupTimeoutSec'"),
        ({"mcpServers": {"a.b": {"command": "x"}}}, "invalid server name 'a.b'"),
        ({"skills": [3]}, "key 'skills': expected a list of skill folders or names"),
    ],
)
def test_unknown_and_wrong_keys_name_the_key(tmp_path, spec, says):
    with pytest.raises(ConfigError) as caught:
        load(spec, tmp_path)
    assert str(caught.value).startswith(CELL) and says in str(caught.value)


def test_an_unknown_source_is_refused(tmp_path):
    with pytest.raises(
        ValueError, match="unknown source 'cell': use one of notebook, skill, local, project, user, site"
    ):
        load({}, tmp_path, source="cell")


# ---------------------------------------------------------------- skills
def test_skills_load_recursively_by_path_and_by_name(tmp_path):
    write_skill(
        tmp_path / "skills",
        "notes",
        servers={"time": {"command": "srv", "version": ">=1"}},
        requires=["../clock", "diary-skill"],
    )
    write_skill(tmp_path / "skills", "clock", servers={"time": {"command": "srv"}})
    write_skill(tmp_path / "skills", "journal", name="diary-skill", requires=["notes"])  # named differently
    found = load({"skills": ["skills/notes"]}, tmp_path)
    by_name = {s.name: s for s in found.skills}
    assert set(by_name) == {"notes", "clock", "diary-skill"}
    assert found.roots == ("notes",)
    assert by_name["notes"].requires == ("clock", "diary-skill")
    assert by_name["diary-skill"].requires == ("notes",)  # a cycle loads fine: the resolver reports it
    (time,) = by_name["notes"].servers
    assert (time.source, time.origin, time.version) == ("skill", "skill 'notes'", ">=1")
    assert by_name["notes"].file.endswith("skills/notes/SKILL.md")


def test_a_skill_named_in_the_spec_is_found_under_skills(tmp_path):
    write_skill(tmp_path / "skills", "clock")
    assert load({"skills": ["clock"]}, tmp_path).roots == ("clock",)
    assert load(None, tmp_path, skills=[tmp_path / "skills" / "clock" / "SKILL.md"]).roots == ("clock",)


def test_a_skill_folder_without_skill_md_names_the_folder_and_the_key(tmp_path):
    write_skill(tmp_path, "clock")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError) as caught:
        load({"skills": ["clock", "empty"]}, tmp_path)
    text = str(caught.value)
    assert text.startswith(f"{CELL}: key 'skills[1]'") and f"{tmp_path / 'empty'} has no SKILL.md" in text


def test_a_requires_path_that_does_not_exist_names_the_skill_file_and_the_key(tmp_path):
    notes = write_skill(tmp_path, "notes", requires=["clock", "../gone"])
    write_skill(tmp_path, "clock")
    with pytest.raises(ConfigError) as caught:
        load({"skills": ["notes"]}, tmp_path)
    text = str(caught.value)
    assert text.startswith(f"{notes / 'SKILL.md'}: key 'mcp.requires[1]'")
    assert "no skill folder '../gone'" in text


def test_a_requires_name_nobody_has_suggests_a_neighbour(tmp_path):
    write_skill(tmp_path, "notes", requires=["clokc"])
    write_skill(tmp_path, "clock")
    with pytest.raises(ConfigError, match=r"key 'mcp.requires\[0\]': no skill 'clokc'.*did you mean 'clock'"):
        load({"skills": ["notes"]}, tmp_path)


@pytest.mark.parametrize(
    ("front", "says"),
    [
        (
            "name: x\ndescription: d\nmcp:\n  server: {}\n",
            "key 'mcp.server': unknown key (did you mean 'mcp.servers'?)",
        ),
        ("name: x\ndescription: d\nmpc: {}\n", "key 'mpc': unknown key (did you mean 'mcp'?)"),
        ("name: x\ndescription: d\nrequires: [y]\n", "key 'requires': mcpnb reads this under 'mcp:'"),
        ("name: x\ndescription: d\nmcpServers: {}\n", "key 'mcpServers': mcpnb reads this under 'mcp:'"),
        ("name: x\n", "key 'description': expected a non-empty string, got nothing"),
        (
            "name: x\ndesciption: d\n",
            "key 'description': required, and missing: is 'desciption' it, misspelled?",
        ),
        ("Name: x\ndescription: d\n", "key 'name': required, and missing: is 'Name' it, misspelled?"),
        (
            "name: x\ndescription: d\nmcp:\n  servers:\n    t: {command: x, verison: '1'}\n",
            "server 't': key 'verison'",
        ),
        (
            "name: x\ndescription: [unclosed\n",
            "invalid YAML at line 3",
        ),  # line numbers count from the file's top
        ("name: x\ndescription: d\nmcp:\n  requires: 7\n", "key 'mcp.requires': expected a list"),
    ],
)
def test_front_matter_mistakes_name_the_skill_file_and_the_key(tmp_path, front, says):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\n{front}---\nbody\n")
    with pytest.raises(ConfigError) as caught:
        load({"skills": ["x"]}, tmp_path)
    assert str(caught.value).startswith(str(folder / "SKILL.md")) and says in str(caught.value)


def test_other_tools_front_matter_keys_are_left_alone(tmp_path):
    """A Claude Code skill carries keys of its own (argument-hint, model, …): the skill still loads."""
    folder = tmp_path / "review"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review a change.\nargument-hint: [file]\nmodel: sonnet\n"
        "disable-model-invocation: true\nversion: 1.2.0\nallowed-tools: Read Grep\n"
        "mcp:\n  servers:\n    probe: {command: python, args: [-m, mcpnb.probekit]}\n---\nbody\n"
    )
    found = load({"skills": ["review"]}, tmp_path)
    (skill,) = found.skills
    assert skill.name == "review" and [s.name for s in skill.servers] == ["probe"]


def test_a_skill_md_without_front_matter(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text("# just a title\n")
    with pytest.raises(ConfigError, match="no front matter"):
        load({"skills": ["x"]}, tmp_path)


def test_two_skills_with_one_name_are_refused(tmp_path):
    write_skill(tmp_path, "a", name="same")
    write_skill(tmp_path, "b", name="same")
    with pytest.raises(ConfigError, match="two skills are named 'same'"):
        load({"skills": ["a", "b"]}, tmp_path)


# ---------------------------------------------------------------- config layers
def test_config_layers_become_declarations_ranked_by_their_layer(tmp_path, monkeypatch):
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"mcpServers": {"u": {"command": "srv"}}}))
    monkeypatch.setenv("MCPNB_USER_CONFIG", str(user))
    site = tmp_path / "site.json"  # an administrator's (/etc/mcpnb/mcp.json)
    site.write_text(json.dumps({"mcpServers": {"s": {"command": "srv"}, "u": {"command": "other"}}}))
    monkeypatch.setenv("MCPNB_SITE_CONFIG", str(site))
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"p": {"command": "srv"}, "l": {"command": "srv"}}})
    )
    (tmp_path / ".mcp.local.json").write_text(json.dumps({"mcpServers": {"l": {"env": {"TOKEN": "x"}}}}))
    layers = {d.name: d for d in load(None, tmp_path, config=True).layers}
    assert {n: (d.source, d.origin) for n, d in layers.items()} == {
        "s": ("site", "site (site.json)"),
        "u": ("user", "user (user.json)"),  # the user's own settings for it win over the site's
        "p": ("project", "project (.mcp.json)"),
        "l": ("local", "local (.mcp.local.json)"),  # merged with the project's entry, ranked as local
    }
    assert layers["l"].config.command == "srv" and layers["l"].config.env == {"TOKEN": "x"}
    assert layers["u"].config.command == "srv"
    assert load(None, tmp_path, config=False).layers == ()
