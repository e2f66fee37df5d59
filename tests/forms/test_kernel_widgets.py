"""The form in a real kernel, with this test playing the browser over jupyter_client.

The cell displays an ``ElicitationForm`` and *awaits* a future that ``on_done`` resolves: on
ipykernel ≥ 7.4 comm messages (typing, clicks) are dispatched while an async cell waits.
We watch iopub for the widget models the cell opens and send what a frontend would send.
"""

from __future__ import annotations

import json
import queue
import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from tests.forms.schemas import CONFORMANCE_BASIC

ROOT = Path(__file__).resolve().parents[2]

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
from mcpnb.forms import ElicitationForm
fut = asyncio.get_running_loop().create_future()
form = ElicitationForm(json.loads({schema!r}), message="Who are you?", server="kernel-test",
                       on_done=lambda o: fut.done() or fut.set_result(o))
display(form.widget)
o = await asyncio.wait_for(fut, 90)
print("OUTCOME " + json.dumps({{"action": o.action, "content": o.content}}))
"""


class Frontend:
    """Just enough of a widget frontend: models from iopub, updates and clicks on the shell channel."""

    def __init__(self, kc: Any) -> None:
        self.kc = kc
        self.models: dict[str, dict[str, Any]] = {}
        self.opened_by: dict[str, str] = {}
        self.displayed: dict[str, list[str]] = {}
        self.stdout: dict[str, str] = {}

    def execute(self, code: str, **kw: Any) -> str:
        return self.kc.execute(code, **kw)

    def pump(self, seconds: float = 0.05) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.0, min(0.05, end - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= end:
                    return
                continue
            kind, content = msg["msg_type"], msg["content"]
            parent = msg["parent_header"].get("msg_id", "")
            if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                self.models[content["comm_id"]] = dict(content["data"]["state"])
                self.opened_by[content["comm_id"]] = parent
            elif kind == "comm_msg" and content["data"].get("method") == "update":
                self.models.setdefault(content["comm_id"], {}).update(content["data"]["state"])
            elif kind == "display_data":
                view = content["data"].get("application/vnd.jupyter.widget-view+json")
                if view:
                    self.displayed.setdefault(parent, []).append(view["model_id"])
            elif kind == "stream" and content["name"] == "stdout":
                self.stdout[parent] = self.stdout.get(parent, "") + content["text"]

    def wait_for(self, predicate: Any, timeout: float = 60.0, what: str = "condition") -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.05)
            found = predicate()
            if found:
                return found
        raise AssertionError(f"timed out waiting for {what}")

    def find(
        self, cell: str, *, css: str | None = None, model: str | None = None, **state: Any
    ) -> str | None:
        for comm_id, st in self.models.items():
            if self.opened_by.get(comm_id) != cell:
                continue
            if css is not None and css not in st.get("_dom_classes", []):
                continue
            if model is not None and st.get("_model_name") != model:
                continue
            if all(st.get(k) == v for k, v in state.items()):
                return comm_id
        return None

    def _send(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)

    def set(self, comm_id: str, value: Any) -> None:
        """What typing into an input does: the browser sends the new value."""
        self._send(comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})
        self.models[comm_id]["value"] = value

    def click(self, comm_id: str) -> None:
        self._send(comm_id, {"method": "custom", "content": {"event": "click"}})

    def reply(self, msg_id: str, timeout: float = 90.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.02)
            try:
                msg = self.kc.get_shell_msg(timeout=0.05)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_reply":
                self.pump(0.2)  # the last stream output may trail the reply
                return msg["content"]
        raise AssertionError("no execute_reply")

    def outcome(self, msg_id: str) -> dict[str, Any]:
        reply = self.reply(msg_id)
        assert reply["status"] == "ok", reply
        line = next(x for x in self.stdout.get(msg_id, "").splitlines() if x.startswith("OUTCOME "))
        return json.loads(line.removeprefix("OUTCOME "))


@pytest.fixture
def kernel():
    """A fresh kernel per test (~1 s): a failed test must not leave an awaiting cell for the next."""
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


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
    fe.set(ids["age"], 36)
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
        "import json\nfrom mcpnb.forms import ask_text\n"
        f"o = ask_text(json.loads({json.dumps(SCHEMA)!r}), message='Who?', server='kernel-test',\n"
        "             input_fn=input)\n"
        "print('OUTCOME ' + json.dumps({'action': o.action, 'content': o.content}))\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    prompts = []
    for answer in ("ada", "nope", "ada@example.com", ""):
        msg = kernel.get_stdin_msg(timeout=60)
        assert msg["msg_type"] == "input_request"
        prompts.append(msg["content"]["prompt"])
        kernel.input(answer)
    assert fe.outcome(cell) == {
        "action": "accept",
        "content": {"username": "ada", "email": "ada@example.com", "age": 30},
    }
    assert prompts[0].startswith("username") and "[default: 30]" in prompts[3]
