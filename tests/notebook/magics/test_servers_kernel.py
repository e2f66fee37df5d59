"""``%mcp connect --config .vscode/mcp.json`` in a real kernel, this test playing the person over
jupyter_client: the inputs VS Code would prompt for are asked in the cell (a form when the cell
awaits, stdin prompts when it cannot wait for a click, nobody when headless)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.client.config.helpers import write_probe_vscode
from tests.frontend import Frontend

KEY = "k-SECRET-4410"


def _setup(fe: Frontend, tmp_path: Path) -> str:
    """A VS Code file whose one server needs a toolset (a pick) and a key (a password)."""
    path = write_probe_vscode(tmp_path)
    assert fe.reply(fe.execute("%load_ext mcpnb"))["status"] == "ok"
    return str(path)


def _started_with(fe: Frontend) -> str:
    """The toolset probe-kit runs and whether the key reached its environment."""
    cell = fe.execute(
        "import mcpnb\n"
        "config = mcpnb.default_pool().connection('probe').config\n"
        f"print('STARTED', config.args[-1], config.env['PROBE_KEY'] == {KEY!r})\n"
        "mcpnb.default_pool().close()"
    )
    assert fe.reply(cell)["status"] == "ok"
    return fe.stdout[cell]


def _shown(fe: Frontend, cell: str) -> str:
    return (
        fe.stdout.get(cell, "") + json.dumps(fe.results.get(cell, {})) + json.dumps(fe.displays.get(cell, []))
    )


def test_an_awaiting_cell_asks_for_the_inputs_in_a_form(kernel, tmp_path):
    fe = Frontend(kernel)
    path = _setup(fe, tmp_path)
    cell = fe.execute(f"%mcp connect --config {path}")
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the form")
    toolset = fe.find(cell, css="mcpnb-field-toolset")
    key = fe.find(cell, css="mcpnb-field-key")
    accept = fe.find(cell, css="mcpnb-accept", model="ButtonModel")
    assert toolset and key and accept
    assert fe.models[key]["_model_name"] == "PasswordModel"  # typed without showing it
    fe.set_index(toolset, 1)
    fe.set(key, KEY)
    fe.click(accept)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "connected" in fe.results[cell]["text/plain"]
    assert KEY not in _shown(fe, cell)
    assert fe.models[key]["value"] == ""  # not kept in the widget state a saved notebook may hold
    assert "STARTED ui True" in _started_with(fe)


def test_a_cell_that_cannot_wait_for_a_click_asks_on_stdin(kernel, tmp_path):
    fe = Frontend(kernel)
    path = _setup(fe, tmp_path)
    code = (
        "def connect():\n"
        f"    return get_ipython().run_line_magic('mcp', 'connect --config {path}')\n"
        "print('STATE', connect()['probe'].state)\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    msg = kernel.get_stdin_msg(timeout=60)
    assert msg["content"]["prompt"].startswith("toolset") and not msg["content"]["password"]
    kernel.input("2")  # the second option, by number
    msg = kernel.get_stdin_msg(timeout=60)
    assert msg["content"]["prompt"].startswith("key") and msg["content"]["password"]  # no echo
    kernel.input(KEY)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "STATE connected" in fe.stdout[cell] and KEY not in _shown(fe, cell)
    assert "STARTED ui True" in _started_with(fe)


def test_headless_nobody_is_asked_and_the_row_says_how_to_give_them(kernel, tmp_path):
    fe = Frontend(kernel)
    path = _setup(fe, tmp_path)
    cell = fe.execute(f"%mcp connect --config {path}", allow_stdin=False)
    reply = fe.reply(cell)
    # the cell fails (a headless run stops there), after the table with the row that says why
    assert reply["status"] == "error" and reply["ename"] == "ConnectError", reply
    assert "--input toolset=VALUE --input key=VALUE" in reply["evalue"]
    text = fe.displays[cell][-1]["text/plain"]
    assert "failed" in text and "--input toolset=VALUE --input key=VALUE" in text
    assert not [m for m in fe.models.values() if "mcpnb-form" in m.get("_dom_classes", [])]
