"""A click that reads a form waits for an edit it may have overtaken: the widget frontend holds a
model's newest value until the kernel has answered its previous update, while a click goes at once."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from mcpnb.notebook.forms import ElicitationForm, SamplingPanel

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


async def _first(got: list) -> Any:
    for _ in range(100):
        if got:
            return got[0]
        await asyncio.sleep(0.05)
    raise AssertionError("nothing was answered")


def test_accept_sends_the_value_that_arrives_just_after_the_click():
    async def person() -> Any:
        got: list = []
        form = ElicitationForm(SCHEMA, message="Name?", server="s", on_done=got.append)
        form.inputs["answer"].value = "Ad"
        form.buttons["accept"].click()  # the click overtook the last edit...
        form.inputs["answer"].value = "Ada"  # ...which the frontend sends once the kernel answered
        return await _first(got)

    outcome = asyncio.run(person())
    assert outcome.action == "accept" and outcome.content == {"answer": "Ada"}


def test_a_sampling_reply_typed_just_before_send_is_the_one_sent():
    params = SimpleNamespace(messages=[], system_prompt=None, max_tokens=None, temperature=None)

    async def person() -> Any:
        got: list = []
        panel = SamplingPanel(params, server="s", on_done=got.append)
        panel.reply.value = "hel"
        panel.buttons["accept"].click()
        panel.reply.value = "hello"
        return await _first(got)

    assert asyncio.run(person()).text == "hello"


def test_decline_answers_at_once():
    async def person() -> list:
        declined: list = []
        form = ElicitationForm(SCHEMA, message="Name?", server="s", on_done=declined.append)
        form.inputs["answer"].value = "Ada"
        form.buttons["decline"].click()  # reads no field: nothing to wait for
        return declined

    assert [o.action for o in asyncio.run(person())] == ["decline"]


def test_accept_waits_for_a_first_edit_that_had_not_arrived_at_the_click():
    """Typed right after the form appeared, the value can reach the kernel after the click, with no
    earlier edit to say that one is in flight: the click itself starts the wait (seen in
    JupyterLab with %mcp explore, where the click found the required field empty)."""

    async def person() -> Any:
        got: list = []
        form = ElicitationForm(SCHEMA, message="Name?", server="s", on_done=got.append)
        form.buttons["accept"].click()  # nothing typed has arrived yet...
        form.inputs["answer"].value = "Ada"  # ...the first edit lands just after the click
        return await _first(got)

    outcome = asyncio.run(person())
    assert outcome.action == "accept" and outcome.content == {"answer": "Ada"}


def test_a_cell_that_starts_runs_a_waiting_click_first():
    """A synchronous cell run right after the click (``h.result()``) blocks the loop the click waits
    on: the click runs before the cell does, and the answer is not held back."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()  # the one shell of this test process, as the other tests use

    async def person() -> tuple[list, list]:
        got: list = []
        form = ElicitationForm(SCHEMA, message="Name?", server="s", on_done=got.append)
        form.inputs["answer"].value = "Ada"
        form.buttons["accept"].click()  # within the window: waits
        before = list(got)
        ip.run_cell("seen_by_the_cell = 1")  # no await in between: only the cell start can run it
        return before, got

    before, got = asyncio.run(person())
    assert before == [] and [o.content for o in got] == [{"answer": "Ada"}]
