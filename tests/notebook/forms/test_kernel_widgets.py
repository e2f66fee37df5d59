"""The form in a real kernel, with this test playing the browser over jupyter_client.

The cell displays an ``ElicitationForm`` and *awaits* a future that ``on_done`` resolves: on
ipykernel ≥ 7.4 comm messages (typing, clicks) are dispatched while an async cell waits.
We watch iopub for the widget models the cell opens and send what a frontend would send.
"""

from __future__ import annotations

import json

import pytest

from tests.client.elicitation.schemas import CONFORMANCE_BASIC
from tests.frontend import Frontend, input_request

SCHEMA = {
    "type": "object",
    "properties": {
        **CONFORMANCE_BASIC["properties"],
        "email": {"type": "string", "format": "email", "description": "User's email address"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
    },
    "required": ["username", "email"],
}

CELL = """
import asyncio, json
from IPython.display import display
from mcpnb.notebook.forms import ElicitationForm
fut = asyncio.get_running_loop().create_future()
form = ElicitationForm(json.loads({schema!r}), message="Who are you?", server="kernel-test",
                       on_done=lambda o: fut.done() or fut.set_result(o))
display(form.widget)
o = await asyncio.wait_for(fut, 90)
print("OUTCOME " + json.dumps({{"action": o.action, "content": o.content}}))
"""


def _show_form(fe: Frontend) -> tuple[str, dict[str, str]]:
    cell = fe.execute(CELL.format(schema=json.dumps(SCHEMA)))
    # the container's class is the last thing the form sets up: once seen, every model is known
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the form")
    ids = {name: fe.find(cell, css=f"mcpnb-field-{name}") for name in ("username", "email", "age")}
    for action in ("accept", "decline", "cancel"):
        ids[action] = fe.find(cell, css=f"mcpnb-{action}", model="ButtonModel")
    ids["status"] = fe.find(cell, css="mcpnb-status")
    ids["form"] = fe.find(cell, css="mcpnb-form")
    assert all(ids.values()), ids
    return cell, ids


def test_accept_after_a_validation_error(kernel):
    fe = Frontend(kernel)
    cell, ids = _show_form(fe)
    # the form is displayed in the calling cell, with the default pre-filled
    fe.wait_for(lambda: ids["form"] in fe.displayed.get(cell, []), what="the form in the calling cell")
    assert fe.models[ids["age"]]["value"] == 30
    assert fe.models[ids["age"]]["_model_name"] == "IntSliderModel"

    fe.set(ids["username"], "ada")
    fe.set(ids["email"], "not-an-email")
    fe.click(ids["accept"])
    fe.wait_for(
        lambda: "Please fix 1 problem" in fe.models[ids["status"]].get("value", ""), what="the inline error"
    )
    errors = [
        st["value"]
        for cid, st in fe.models.items()
        if fe.opened_by.get(cid) == cell and "mcpnb-error" in st.get("_dom_classes", []) and st.get("value")
    ]
    assert len(errors) == 1 and "email address" in errors[0]

    fe.set(ids["email"], "ada@example.com")
    fe.set(ids["age"], "36")
    fe.click(ids["accept"])
    assert fe.outcome(cell) == {
        "action": "accept",
        "content": {"username": "ada", "email": "ada@example.com", "age": 36},
    }
    fe.pump(0.2)
    assert fe.models[ids["accept"]]["disabled"] is True
    assert "Sent to <b>kernel-test</b>" in fe.models[ids["status"]]["value"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel(kernel, action):
    fe = Frontend(kernel)
    cell, ids = _show_form(fe)
    fe.click(ids[action])
    assert fe.outcome(cell) == {"action": action, "content": None}


def test_text_fallback_over_the_stdin_channel(kernel):
    """``ask_text(input_fn=input)`` in a kernel: each prompt is an ``input_request`` the frontend answers."""
    fe = Frontend(kernel)
    code = (
        "import json\nfrom mcpnb.notebook.forms import ask_text\n"
        f"o = ask_text(json.loads({json.dumps(SCHEMA)!r}), message='Who?', server='kernel-test',\n"
        "             input_fn=input)\n"
        "print('OUTCOME ' + json.dumps({'action': o.action, 'content': o.content}))\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    prompts = []
    for answer in ("ada", "nope", "ada@example.com", ""):
        prompts.append(input_request(kernel, cell, between=lambda: fe.pump(0.05))["prompt"])
        kernel.input(answer)
    assert fe.outcome(cell) == {
        "action": "accept",
        "content": {"username": "ada", "email": "ada@example.com", "age": 30},
    }
    assert prompts[0].startswith("username") and "[default: 30]" in prompts[3]
