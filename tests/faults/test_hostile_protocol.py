"""A server hostile at the protocol level must not hurt the person, the kernel or the other servers.

``tests/servers/hostile_protocol_server.py`` floods its client during a call: questions by the
hundred, log lines of a megabyte each. Beside it, the demo server runs in-process (on mcpnb's own
loop) and is called after each flood: it keeps answering.

- 200 ``elicitation/create`` at once put 200 forms (7,400 widgets) in the calling cell: now at most
  :data:`~mcpnb.client.asking.MAX_OPEN_QUESTIONS` wait for a person at once, the rest are answered
  without asking anyone, said once in the server's log and once under the call's result; a program
  that answers (a model answering sampling) is no person, and answers them all;
- 300 log notifications of a megabyte each kept 200 MB in the server's log (its last 200 lines,
  for as long as the connection lives): a line there now keeps the start of what was said, as a
  stderr line does; the call's own ``result.logs`` keeps each whole, as it always did;
- 500 ``list_changed`` put 500 lines "cache invalidated" in the server's log, which keeps its last
  200: what had happened before was gone. Now the log says it once until the list is read again;
- 5,000 ``resources/updated`` called a watcher 5,000 times (and said 5,000 log lines): now told in
  bursts, the last update still followed by a telling;
- progress on a token the client never issued was dropped without a word (a call then timed out
  "without progress" while the server reported progress): now said, once per token, a few tokens.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from typing import Any

import pytest
from conftest import ROOT, demo_server_object, wait_until

from mcpnb.client.asking import LINE_CHARS, MAX_OPEN_QUESTIONS
from mcpnb.client.interaction import Interaction

HOSTILE = str(ROOT / "tests" / "servers" / "hostile_protocol_server.py")
#: How many questions the server sends at once: well past the limit.
FLOOD = 30

pytestmark = pytest.mark.timeout(120)


class Answering(Interaction):
    """Answers every form and sampling request alike, once :meth:`wait` lets it (a subclass says
    when), with its own words for a model's reply."""

    REPLY = "ok"
    MODEL = "the model"

    async def wait(self) -> None:
        raise NotImplementedError

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        await self.wait()
        return ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        await self.wait()
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=self.REPLY), model=self.MODEL
        )


class Person(Answering):
    """Someone who answers each question in turn, after every question that came with it has
    arrived: the first answer waits until :data:`MAX_OPEN_QUESTIONS` are open (all the flood, on
    the old code, which showed every one at once), then until the rest of the flood of ``asking``'s
    server has come in (answered without asking anyone)."""

    waits_for_a_person = True  # as the notebook's forms and stdin prompts do
    REPLY = "hi"
    MODEL = "person"

    def __init__(self, asking: Any) -> None:
        super().__init__()
        self.asking = asking
        self.open = 0
        self.most_open = 0
        self.asked = 0
        self._enough: asyncio.Event | None = None

    async def wait(self) -> None:
        self.asked += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        if self._enough is None:
            self._enough = asyncio.Event()
        if self.open >= MAX_OPEN_QUESTIONS:
            self._enough.set()
        try:
            await self._enough.wait()
            # the questions that came with this one have all arrived: counted, not left to how many
            # turns of the loop that takes (one was enough where asyncio.wait_for ran the question
            # in a task of its own, before Python 3.12; since, it runs in the asking task)
            while self.asked + self.asking.refused_questions < FLOOD:
                await asyncio.sleep(0)
        finally:
            self.open -= 1


class Program(Answering):
    """Code that answers (a model answering sampling, a program filling forms), as the README has
    one do: it says nothing of people. It answers once every question of the flood is open at once,
    as a model does a map-reduce's requests in parallel; on the old code, which took any subclass
    for a person, the ones past :data:`MAX_OPEN_QUESTIONS` never reached it and it gave up waiting
    for them (``ALL_OPEN``, a bound that only a refused question reaches)."""

    #: How long it waits for the whole flood to be open before answering what it has.
    ALL_OPEN = 30.0

    def __init__(self, flood: int) -> None:
        super().__init__()
        self.flood = flood
        self.open = 0
        self.most_open = 0
        self.answered = 0
        self._all: asyncio.Event | None = None

    async def wait(self) -> None:
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        if self._all is None:
            self._all = asyncio.Event()
        if self.open >= self.flood:
            self._all.set()
        try:
            await asyncio.wait_for(self._all.wait(), self.ALL_OPEN)
        except TimeoutError:
            pass  # some never came: the assertions say how many
        finally:
            self.open -= 1
        self.answered += 1


@pytest.fixture
def hostile(pool):
    """The hostile server and, beside it, a healthy one on mcpnb's own loop."""
    pool.connect("healthy", server=demo_server_object())
    pool.connect("hostile", command=sys.executable, args=[HOSTILE], tool_timeout=60)
    return pool


def still_healthy(pool) -> None:
    assert pool.call("healthy", "echo", {"text": "still here"}).text == "still here"
    assert {s.name: str(s.state) for s in pool.status()}["healthy"] == "connected"


@pytest.mark.parametrize("what", ["elicit", "sample"])
def test_a_flood_of_questions_keeps_only_a_few_waiting_for_a_person(hostile, what):
    person = hostile.interaction = Person(hostile.connection("hostile").asking)

    result = hostile.call("hostile", "act", {"what": what, "n": FLOOD})

    assert result.text == "did the requests"  # every question was answered: the server went on
    assert person.most_open <= MAX_OPEN_QUESTIONS, f"{person.most_open} questions waited at once"
    assert MAX_OPEN_QUESTIONS <= person.asked < FLOOD  # a few waited for the person, the rest did not
    answered = "cancelled" if what == "elicit" else "rejected"
    said = [
        n
        for n in result.answered_without_asking
        if f"questions at once: the ones past {MAX_OPEN_QUESTIONS}" in n
    ]
    assert len(said) == 1 and answered in said[0], result.answered_without_asking
    log = "\n".join(hostile.logs("hostile"))
    assert f"already has {MAX_OPEN_QUESTIONS} questions waiting" in log, log
    # said each time the waiting questions were all answered (as the flood comes in, maybe more than once)
    refused = re.findall(r"(\d+) of the server's questions were answered without asking", log)
    assert sum(map(int, refused)) == FLOOD - person.asked, log
    still_healthy(hostile)


@pytest.mark.parametrize("what", ["sample", "elicit"])
def test_a_program_answers_every_question_of_a_flood(hostile, what):
    """A model answering a server's parallel sampling requests (a map-reduce over chunks), or code
    filling its forms, is no person: every question reaches it, all of them open at once (4 of 12
    sampling requests were refused when any subclass counted as a person)."""
    program = hostile.interaction = Program(FLOOD)

    result = hostile.call("hostile", "act", {"what": what, "n": FLOOD})

    assert result.text == "did the requests"
    assert program.answered == FLOOD and program.most_open == FLOOD, result.answered_without_asking
    assert not result.answered_without_asking
    assert "questions waiting" not in "\n".join(hostile.logs("hostile"))
    still_healthy(hostile)


def test_the_notebook_asks_a_person_and_the_base_class_nobody():
    """The questions that count toward the cap: the notebook's forms and stdin prompts, not the
    base class's policy nor a subclass that does not say it asks a person."""
    from mcpnb.notebook.cell.questions import NotebookInteraction

    assert NotebookInteraction.waits_for_a_person and Person.waits_for_a_person
    assert not Interaction.waits_for_a_person and not Program.waits_for_a_person


class Window:
    """Where an Interaction of someone's own asks (``CallContext.ui``): it says nothing of people."""


def test_a_ui_that_says_nothing_of_people_is_not_taken_for_headless(hostile):
    """One rule for a call's ui that does not say ``asks_people``: the interaction decides. A person
    asked there is capped as anywhere, and mcpnb's own form (``ask_form``: a toolbox's
    confirmation, a VS Code file's inputs) reaches the interaction, which the old code skipped as
    "a headless run" while it counted the same ui's questions as waiting for a person."""
    from mcpnb.client.interaction import CallContext, ask_form

    person = hostile.interaction = Person(hostile.connection("hostile").asking)
    result = hostile.call("hostile", "act", {"what": "elicit", "n": FLOOD}, context=CallContext(ui=Window()))
    assert result.text == "did the requests"
    assert MAX_OPEN_QUESTIONS <= person.asked < FLOOD and person.most_open <= MAX_OPEN_QUESTIONS

    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    call = CallContext(ui=Window())
    answer, nobody = asyncio.run(ask_form(Program(1), "mcpnb", "Your name?", schema, call, "answers"))
    assert nobody == "" and answer.action == "accept" and answer.content == {"name": "Ada"}


def test_a_policy_still_answers_every_question_of_a_flood(hostile):
    """No person waits on a policy: each of the flood's questions is answered by it, as before."""
    result = hostile.call("hostile", "act", {"what": "elicit", "n": FLOOD})

    assert result.text == "did the requests"
    declined = [n for n in result.answered_without_asking if "declined by the 'decline' policy" in n]
    assert len(declined) == FLOOD
    still_healthy(hostile)


def test_a_huge_log_line_keeps_its_start_in_the_servers_log(hostile):
    result = hostile.call("hostile", "act", {"what": "log_big", "n": 3})

    lines = [line for line in hostile.logs("hostile") if " log: info: " in line]
    assert len(lines) == 3
    for line in lines:
        assert len(line) < LINE_CHARS + 200, len(line)
        assert "more characters not kept" in line
    assert [len(log.data) for log in result.logs] == [1024 * 1024 + 1] * 3  # the call's own: whole
    still_healthy(hostile)


def said(pool, words: str) -> list[str]:
    return [line for line in pool.logs("hostile") if words in line]


@pytest.mark.parametrize("which", ["tools", "prompts"])
def test_a_list_changed_storm_is_said_once_until_the_list_is_read_again(hostile, which):
    """What was in the log before the storm is still there; the cache is stale all the same."""
    hostile.call("hostile", "act", {"what": "log", "n": 2})
    before = "log: info: line 2 of 2"  # said before the storm
    hostile.tools("hostile")  # the list is read (the cache holds it)
    storm = {"what": f"{which}_changed", "n": 500}

    hostile.call("hostile", "act", storm)

    changed = f"{which.removesuffix('s')} list changed on the server"
    assert wait_until(lambda: said(hostile, changed)), hostile.logs("hostile")
    hostile.call("hostile", "act", {"what": "log", "n": 1})  # after the storm's notices, in order
    assert said(hostile, before) and len(said(hostile, changed)) == 1, hostile.logs("hostile")
    cache = hostile.connection("hostile").tool_cache if which == "tools" else None
    if cache is not None:
        assert cache.get() is None  # stale: the next read asks the server
        assert [t.name for t in hostile.tools("hostile")] == ["act"]  # read again: the next is said
        hostile.call("hostile", "act", {"what": f"{which}_changed", "n": 3})
        assert wait_until(lambda: len(said(hostile, changed)) == 2), hostile.logs("hostile")
        assert "499 more notices came before it was read again" in said(hostile, changed)[-1]
    still_healthy(hostile)


def test_a_new_sessions_first_list_changed_is_said(hostile):
    """The late review's: what a storm left unsaid carried over a reconnect, and the new session's
    first notice (its list not read yet) was only counted."""
    changed = "prompt list changed on the server"  # (a new session lists its tools, not its prompts)
    hostile.call("hostile", "act", {"what": "prompts_changed", "n": 50})
    assert wait_until(lambda: said(hostile, changed)), hostile.logs("hostile")
    hostile.reconnect("hostile")
    before = len(said(hostile, changed))
    hostile.call("hostile", "act", {"what": "prompts_changed", "n": 1})
    assert wait_until(lambda: len(said(hostile, changed)) > before), hostile.logs("hostile")
    still_healthy(hostile)


def test_a_flood_of_resource_updates_is_told_in_bursts_and_its_last_update_is_told(hostile):
    """``act(updated, n)`` updates ``file:///r/0``, ``/1``, ``/2`` in turn; the watcher watches the
    folder (a sub-resource's update is news for it), and tells nothing else meanwhile."""
    heard: list[str] = []
    hostile.watch("hostile", "file:///r", heard.append)
    flood = 5000

    hostile.call("hostile", "act", {"what": "updated", "n": flood})

    uris = {f"file:///r/{i}" for i in range(3)}
    assert wait_until(lambda: set(heard) == uris), heard
    assert len(heard) < flood / 10, f"told {len(heard)} times of {flood} updates"
    lines = said(hostile, "resource updated: ")
    assert len(lines) < flood / 10, hostile.logs("hostile")
    # one more update, at once after the flood: told too (none is lost while a burst is told)
    told = heard.count("file:///r/0")
    hostile.call("hostile", "act", {"what": "updated", "n": 1})
    assert wait_until(lambda: heard.count("file:///r/0") > told), heard
    still_healthy(hostile)


def test_a_burst_still_to_be_told_is_not_told_after_a_disconnect(hostile):
    """The late review's: the timer of a burst outlived the connection's end and told its watchers
    after it."""
    heard: list[str] = []
    hostile.watch("hostile", "file:///r", heard.append)
    hostile.call("hostile", "act", {"what": "updated", "n": 2000})  # its last updates wait for a timer
    hostile.disconnect("hostile")
    told = len(heard)
    time.sleep(0.5)  # past any telling that was scheduled (0.1 s)
    assert len(heard) == told, heard[told:]
    still_healthy(hostile)


def test_progress_on_a_token_never_issued_is_said_once(hostile):
    result = hostile.call("hostile", "act", {"what": "progress_foreign", "n": 50})

    assert result.text == "did progress_foreign"
    lines = said(hostile, "never issued")
    assert len(lines) == 2, lines  # the token, once; then a count at 10 (never 50 lines)
    assert "'never-issued'" in lines[0] and "without progress" in lines[0], lines
    assert "10 progress notifications so far" in lines[1], lines
    # the call's own progress is no stray
    assert hostile.call("hostile", "act", {"what": "progress", "n": 5}).text == "did progress"
    assert len(said(hostile, "never issued")) == 2, hostile.logs("hostile")
    still_healthy(hostile)


def test_progress_on_many_tokens_never_issued_names_a_few_then_counts(hostile):
    hostile.call("hostile", "act", {"what": "progress_strays", "n": 150})

    named = said(hostile, "which no request of this session waits on")
    assert 1 <= len(named) <= 5, named  # a few tokens named, the first ones
    assert [line.split("token ")[1].split(",")[0] for line in named] == [
        f"'stray-{i}'" for i in range(len(named))
    ]
    assert len(said(hostile, "more tokens this client never issued")) == 1
    counts = said(hostile, "progress notifications so far")
    assert len(counts) == 2 and "100 progress" in counts[-1] and "other tokens" in counts[-1], counts
    still_healthy(hostile)
