"""A person's yes before a model's tool call runs (``pool.functions(approve=...)``), decided from the
annotations of a server we did not write: the MCP project's server-filesystem marks its readers
read-only, ``create_directory`` non-destructive, ``write_file`` and ``move_file`` destructive.

The person is an :class:`Interaction` that answers the question it is shown, as the notebook's forms
do; everything else is real (the server over stdio, the files)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp.types import ElicitResult

from mcpnb.client.interaction import Interaction
from mcpnb.client.toolbox import NotApprovedError
from tests.conftest import DEMO, reference_server


class Person(Interaction):
    """Answers each question (a form, the base interaction's way to ask a yes/no) with ``decision``
    and keeps what it was asked (and how many at once)."""

    def __init__(self, decision: str = "yes", action: str = "accept") -> None:
        super().__init__()
        self.decision, self.action = decision, action
        self.asked: list[str] = []
        self.at_once = self.most_at_once = 0

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        self.at_once += 1
        self.most_at_once = max(self.most_at_once, self.at_once)
        self.asked.append(f"{server}: {params.message}")
        await asyncio.sleep(0.05)  # a person takes a moment: a second question would overlap here
        self.at_once -= 1
        return ElicitResult(action=self.action, content={"answer": self.decision})


def call(name: str, arguments: dict[str, Any], id: str = "c1") -> dict[str, Any]:
    """A tool call as OpenAI's Chat Completions spells it."""
    return {"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.fixture
def files(pool, tmp_path):
    (tmp_path / "notes.txt").write_text("kept\n")
    pool.connect("fs", command="node", args=[reference_server("server-filesystem"), str(tmp_path)])
    return tmp_path


def test_destructive_asks_before_a_tool_that_may_destroy_and_runs_it_on_yes(pool, files):
    person = pool.interaction = Person("yes")
    tools = pool.functions("fs", approve="destructive")
    read = tools.run(call("mcp__fs__read_text_file", {"path": str(files / "notes.txt")}))
    made = tools.run(call("mcp__fs__create_directory", {"path": str(files / "made")}))
    assert "kept" in read["content"] and (files / "made").is_dir()
    assert person.asked == []  # read-only and non-destructive, by the server's annotations
    tools.run(call("mcp__fs__write_file", {"path": str(files / "notes.txt"), "content": "new"}))
    assert (files / "notes.txt").read_text() == "new"
    [question] = person.asked
    assert question.startswith("mcpnb: The model asks to run fs.write_file with {")
    assert '"content": "new"' in question and "it may destroy data, by the server's annotations" in question
    assert "error" not in made["content"].lower()


def test_a_refused_call_is_not_run_and_the_model_is_told(pool, files):
    pool.interaction = Person("no")
    tools = pool.functions("fs", approve="destructive")
    reply = tools.run(call("mcp__fs__write_file", {"path": str(files / "notes.txt"), "content": "gone"}))
    assert (files / "notes.txt").read_text() == "kept\n"
    assert "fs.write_file was not run: the person did not approve it" in reply["content"]
    pool.interaction = Person("yes", action="decline")  # the form's Decline refuses too
    with pytest.raises(NotApprovedError, match="did not approve"):
        tools.run(
            call("mcp__fs__move_file", {"source": str(files / "notes.txt"), "destination": "x"}),
            raise_errors=True,
        )
    assert (files / "notes.txt").exists()


def test_writes_asks_before_anything_not_read_only_and_always_before_everything(pool, files):
    person = pool.interaction = Person("yes")
    tools = pool.functions("fs", approve="writes")
    tools.run(call("mcp__fs__create_directory", {"path": str(files / "made")}))
    assert len(person.asked) == 1 and "destroys nothing, by the server's annotations" in person.asked[0]
    tools.approve = "always"
    tools.run(call("mcp__fs__list_allowed_directories", {}))
    assert len(person.asked) == 2 and "read-only" in person.asked[1]
    tools.approve = "never"  # the default: the loop runs as written
    tools.run(call("mcp__fs__write_file", {"path": str(files / "n"), "content": "x"}))
    assert len(person.asked) == 2


def test_a_tool_without_annotations_counts_as_destructive(pool):
    """The spec's defaults: not read-only, destructive."""
    import sys

    person = pool.interaction = Person("yes")
    pool.connect("demo", command=sys.executable, args=[DEMO, "stdio"])
    tools = pool.functions("demo", approve="destructive")
    assert "hi" in tools.run(call("mcp__demo__echo", {"text": "hi"}))["content"]
    assert "the server does not say what it changes, so it may destroy data" in person.asked[0]


def test_nobody_to_ask_means_not_run(pool, files):
    """A plain script: no notebook cell, and the default interaction asks nobody."""
    tools = pool.functions("fs", approve="destructive")
    reply = tools.run(call("mcp__fs__write_file", {"path": str(files / "notes.txt"), "content": "gone"}))
    assert (files / "notes.txt").read_text() == "kept\n"
    assert "fs.write_file was not run: it needs a person's approval; nobody to ask" in reply["content"]


def test_a_function_says_which_calls_ask(pool, files):
    person = pool.interaction = Person("yes")
    seen = []

    def only_outside_notes(tool, arguments):
        seen.append(tool.name)
        return "notes" not in arguments.get("path", "")

    tools = pool.functions("fs", approve=only_outside_notes)
    tools.run(call("mcp__fs__write_file", {"path": str(files / "notes.txt"), "content": "a"}))
    tools.run(call("mcp__fs__write_file", {"path": str(files / "other.txt"), "content": "b"}))
    assert seen == ["write_file", "write_file"] and len(person.asked) == 1 and "other.txt" in person.asked[0]


def test_calls_run_at_once_ask_one_at_a_time(pool, files):
    person = pool.interaction = Person("yes")
    tools = pool.functions("fs", approve="always")
    replies = tools.run_all(
        [call("mcp__fs__create_directory", {"path": str(files / f"d{i}")}, id=f"c{i}") for i in range(3)]
    )
    assert [r["tool_call_id"] for r in replies] == ["c0", "c1", "c2"]
    assert len(person.asked) == 3 and person.most_at_once == 1
    assert all((files / f"d{i}").is_dir() for i in range(3))


def test_a_mistyped_mode_is_refused_before_anything_is_asked(pool, files):
    with pytest.raises(ValueError, match=r"approve='destructve'.*did you mean 'destructive'"):
        pool.functions("fs", approve="destructve")
    tools = pool.functions("fs")
    with pytest.raises(ValueError, match="expected one of 'never', 'destructive', 'writes', 'always'"):
        tools.approve = "sometimes"
