"""A VS Code file's inputs not given with the connect are asked of a person, as VS Code prompts for
them: one form through the pool's Interaction, only for the servers being connected. The servers
are real: server-everything (its ``get-env`` tool shows what reached the process) and probe-kit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.types import ElicitResult

from mcpnb.client.config.layers import vscode_variables
from mcpnb.client.inputs import question
from mcpnb.client.interaction import CallContext, Interaction

KEY = "k-SECRET-7731"


class Person(Interaction):
    """Answers the form with ``answer`` (an action and its content); records what was asked."""

    def __init__(self, action: str = "accept", content: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.action, self.content = action, content
        self.asked: list[tuple[str, str, dict[str, Any]]] = []

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        self.asked.append((server, params.message, params.requested_schema))
        return ElicitResult(action=self.action, content=self.content if self.action == "accept" else None)


@pytest.fixture
def vscode(tmp_path: Path, everything: str) -> Path:
    probe = [sys.executable, "-m", "mcpnb.probekit", "--toolset", "${input:toolset}"]
    data = {
        "inputs": [
            {"type": "promptString", "id": "key", "description": "Search API key", "password": True},
            {
                "type": "pickString",
                "id": "toolset",
                "description": "Which toolset",
                "options": ["core", {"label": "Components", "value": "ui"}],
                "default": "core",
            },
            {"type": "promptString", "id": "unused"},
        ],
        "servers": {
            "search": {
                "command": "node",
                "args": [everything, "stdio"],
                "env": {"SEARCH_KEY": "${input:key}"},
            },
            "probe": {"command": probe[0], "args": probe[1:]},
            "off": {"command": "node", "args": ["${input:key}"], "enabled": False},
        },
    }
    path = tmp_path / "proj" / ".vscode" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text("// as VS Code writes it\n" + json.dumps(data, indent=2))
    return path


def test_the_form_asks_each_lacking_input_as_vs_code_declares_it(vscode):
    variables = vscode_variables(vscode, {})
    assert variables is not None
    lacking = variables.lacking()
    assert lacking == {"key": ["search"], "toolset": ["probe"]}  # not 'unused'; 'off' is disabled
    schema = question(variables, lacking)
    assert schema["required"] == ["key", "toolset"]
    key, toolset = schema["properties"]["key"], schema["properties"]["toolset"]
    assert key == {
        "type": "string",
        "title": "key",
        "description": "Search API key (for search)",
        "writeOnly": True,
    }
    assert toolset["oneOf"] == [{"const": "core", "title": "core"}, {"const": "ui", "title": "Components"}]
    assert toolset["default"] == "core" and "writeOnly" not in toolset


def test_a_person_gives_the_inputs_and_the_servers_start_with_them(pool, vscode):
    person = Person(content={"key": KEY, "toolset": "ui"})
    pool.interaction = person
    table = pool.connect_config(vscode)
    assert [(r.name, r.state) for r in table] == [
        ("search", "connected"),
        ("probe", "connected"),
        ("off", "disabled"),
    ]
    [(asker, message, schema)] = person.asked  # one form for both servers, nothing for the disabled one
    assert asker == "search, probe" and "VS Code prompts for them" in message
    assert set(schema["properties"]) == {"key", "toolset"}
    env = json.loads(pool.call("search", "get-env", {}).text)
    assert env["SEARCH_KEY"] == KEY  # what the person typed reached the server's process
    assert "ui_search" in {t.name for t in pool.tools("probe")}  # and the toolset they picked
    shown = repr(pool.status()) + repr(pool.connection("search").config) + " ".join(pool.logs("search"))
    assert KEY not in shown  # a password input is a secret


def test_only_what_is_lacking_for_the_servers_named_is_asked(pool, vscode):
    person = Person(content={"toolset": "core"})
    pool.interaction = person
    table = pool.connect_config(vscode, ["probe", "search"], inputs={"key": KEY})
    assert table["probe"].state == "connected" and table["probe"].tools == 15  # core
    [(_, _, schema)] = person.asked
    assert list(schema["properties"]) == ["toolset"]
    pool.disconnect("probe")
    pool.connect_config(vscode, ["search"], inputs={"key": KEY})
    assert len(person.asked) == 1  # nothing lacking: nobody asked


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_person_who_declines_leaves_failed_rows_that_say_how_to_give_them(pool, vscode, action):
    pool.interaction = Person(action)
    table = pool.connect_config(vscode, inputs={"toolset": "core"})
    assert table["probe"].state == "connected"  # its inputs were given
    assert (
        table["search"].state == "failed"
        and "needs input 'key' (Search API key)" in table["search"].last_error
    )
    assert "--input key=VALUE" in table["search"].last_error


def test_nobody_is_asked_where_nobody_can_answer(pool, vscode):
    """The base Interaction (a script) and a headless cell ask nobody: failed rows, as before; an
    input with a default (probe's toolset) takes it, as VS Code's prompt would start with it."""
    table = pool.connect_config(vscode)
    assert {r.name: r.state for r in table} == {"search": "failed", "probe": "connected", "off": "disabled"}

    class Headless:
        asks_people = False

    person = Person(content={"key": KEY, "toolset": "core"})
    pool.interaction = person
    table = pool.connect_config(vscode, ["search"], context=CallContext(ui=Headless()))
    assert table["search"].state == "failed" and person.asked == []


def test_a_names_typo_is_refused_before_anyone_is_asked(pool, vscode):
    from mcpnb.client.errors import UnknownServerError

    person = Person(content={"key": KEY, "toolset": "core"})
    pool.interaction = person
    with pytest.raises(UnknownServerError, match="did you mean 'probe'"):
        pool.connect_config(vscode, ["probe", "prbe"])
    assert person.asked == []


def test_the_async_twin_asks_too(pool, vscode):
    import asyncio

    person = Person(content={"toolset": "ui"})
    pool.interaction = person
    table = asyncio.run(pool.aconnect_config(vscode, ["probe"]))
    assert table["probe"].state == "connected" and len(person.asked) == 1


def test_require_asks_only_for_what_the_needed_servers_lack(pool, vscode):
    """``pool.require(..., config=".vscode/mcp.json")``: the notebook needs probe, so only its input
    is asked; given with ``inputs=``, nobody is asked."""
    person = Person(content={"toolset": "ui"})
    pool.interaction = person
    res = pool.require({"mcpServers": {"probe": {}}}, config=vscode)
    assert res["probe"].state == "connected" and pool.names == ["probe"]
    [(asker, _, schema)] = person.asked
    assert asker == "probe" and list(schema["properties"]) == ["toolset"]  # not search's key
    assert "ui_search" in {t.name for t in pool.tools("probe")}
    res = pool.require({"mcpServers": {"probe": {}}}, config=vscode, inputs={"toolset": "core"})
    assert res["probe"].action == "reconnected" and len(person.asked) == 1
    assert pool.status()["probe"].tools == 15


def test_require_without_the_inputs_says_how_to_give_them(pool, vscode):
    from mcpnb.client.errors import ConfigError

    with pytest.raises(
        ConfigError, match=r"needs input 'key'.*--input key=VALUE \(%mcp connect, %%mcp require"
    ):
        pool.require({"mcpServers": {"search": {}}}, config=vscode)
    assert pool.names == []


def test_what_a_person_typed_is_not_asked_again_in_this_kernel(pool, vscode):
    """VS Code keeps what was typed for an input; so does the pool: running the connect cell again
    (or requiring a server of the same file) asked for every value again."""
    person = Person(content={"key": KEY, "toolset": "ui"})
    pool.interaction = person
    pool.connect_config(vscode)
    table = pool.connect_config(vscode)  # the same cell, run again
    assert [r.state for r in table][:2] == ["connected", "connected"] and len(person.asked) == 1
    assert json.loads(pool.call("search", "get-env", {}).text)["SEARCH_KEY"] == KEY
    assert "ui_search" in {t.name for t in pool.tools("probe")}
    res = pool.require({"mcpServers": {"probe": {}}}, config=vscode)
    assert res["probe"].state == "connected" and len(person.asked) == 1
    # a value given with the connect wins over the one typed
    pool.connect_config(vscode, ["probe"], inputs={"toolset": "core"})
    assert pool.status()["probe"].tools == 15 and len(person.asked) == 1
    pool.forget_inputs(vscode)
    pool.connect_config(vscode, ["probe"])
    assert len(person.asked) == 2


def test_a_value_whose_server_failed_to_start_is_asked_for_again(pool, vscode):
    """A mistyped value would otherwise stick until the kernel restarts."""
    person = Person(content={"toolset": "no-such-toolset"})
    pool.interaction = person
    assert pool.connect_config(vscode, ["probe"])["probe"].state == "failed"
    person.content = {"toolset": "core"}
    assert pool.connect_config(vscode, ["probe"])["probe"].state == "connected"
    assert len(person.asked) == 2


def test_an_input_the_file_no_longer_declares_is_not_given(pool, vscode):
    pool.interaction = Person(content={"toolset": "core", "key": KEY})
    pool.connect_config(vscode, ["probe"])
    data = json.loads(vscode.read_text().split("\n", 1)[1])
    data["inputs"] = [i for i in data["inputs"] if i["id"] != "toolset"]
    data["servers"]["probe"]["args"][-1] = "ui"
    vscode.write_text(json.dumps(data))
    assert pool.connect_config(vscode, ["probe"])["probe"].state == "connected"  # no "undeclared input"
